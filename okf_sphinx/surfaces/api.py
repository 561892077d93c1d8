"""The Python API: :func:`open_index` and :class:`Index`, the engine's index with the reading
tools as methods (docs/agents.md).

``okf_sphinx.open_index(site).search(...)`` is the engine's own search; ``get_section``,
``read_lines``, ``search_concepts`` and ``read_batch`` run the agent tools
(:mod:`okf_sphinx.agent`) on it, each answered from one build of the index.  The
engine never imports the tools: this module puts them together, above both.
"""

from __future__ import annotations

import os
from typing import Any

from okf_sphinx.engine import index as engine
from okf_sphinx.engine.source import open_source


class Index(engine.Index):
    """An okf_sphinx index, on disk or at a URL, with the four reading tools (docs/agents.md, "Tool contracts")
    besides :meth:`~okf_sphinx.engine.index.Index.search`."""

    def get_section(self, **request: Any) -> dict[str, Any]:
        from okf_sphinx.agent.get_section import get_section

        return self.consistent(get_section, self, **request)

    def read_lines(self, path: Any, lines: Any) -> dict[str, Any]:
        from okf_sphinx.agent.read_lines import read_lines

        return self.consistent(read_lines, self, path, lines)

    def search_concepts(self, query: Any, limit: Any = 20) -> dict[str, Any]:
        from okf_sphinx.agent.search_concepts import search_concepts

        return self.consistent(search_concepts, self, query, limit)

    def read_batch(self, items: Any, **options: Any) -> dict[str, Any]:
        """``read_batch``: up to 20 ``{"tool", "arguments"}`` requests (get_section, read_lines,
        search_sections) answered in one call, each item exactly as its tool answers.
        ``options`` (``deadline``, ``clock``, ``started``, ``budget``) are those of
        :func:`okf_sphinx.agent.batch.read_batch`; a test can inject the clock."""
        from okf_sphinx.agent.batch import answer_of, read_batch
        from okf_sphinx.agent.dispatch import call_tool

        request = {"items": items} if isinstance(items, list) else items
        return read_batch(answer_of(lambda tool, arguments: call_tool(self, tool, arguments)), request, **options)


def open_index(location: str | os.PathLike[str], cache_bytes: int = engine.DEFAULT_CACHE_BYTES) -> Index:
    """Open the index of a built site: its folder, its ``_okf`` folder, or an http(s) URL.
    ``cache_bytes`` bounds the memory its caches may hold (estimated bytes)."""
    return Index(open_source(location), cache_bytes)
