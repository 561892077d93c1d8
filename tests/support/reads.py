"""An engine that remembers the index files a request asked for (their logical names)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from okf_sphinx.engine.index import Index
from okf_sphinx.engine.source import open_source


class Reading(Index):
    """An Index over ``site`` that remembers the index files it was asked for (their logical names)."""

    def __init__(self, site: Path) -> None:
        super().__init__(open_source(site))
        self.names: list[str] = []

    def load(self, name: str, check: Any) -> Any:
        self.names.append(name)
        return super().load(name, check)
