"""Captured files by path, for the reading tools: a path's number in ``files.js``
(the path normalised first by :func:`okf_sphinx.core.locators.normalise_path`), its
text and its line map (cached with the index's files).  Every answer comes from the
captured bytes the index names (a verified copy in the site, or an ``f/<k>`` pack),
never from the live source tree.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.lines import LineMap
from okf_sphinx.engine.cache import footprint

if TYPE_CHECKING:
    from okf_sphinx.engine.index import Index


# -- derived tables, cached (and bounded) with the index's files ---------------------------


def _file_numbers(index: Index) -> dict[str, int]:
    return index.memo("file_numbers", lambda: {e["path"]: n for n, e in enumerate(index.files())})


def file_number(index: Index, path: str, field: str = "path") -> int:
    numbers = _file_numbers(index)
    n = numbers.get(path)
    if n is None:
        close = difflib.get_close_matches(path, list(numbers), n=10, cutoff=0.6)
        raise OkfError(
            "not_found",
            f"{path!r} is not a captured file of this site (paths are relative to the source root, "
            "as search hits show them)" + (f"; did you mean {close[0]!r}?" if close else ""),
            field=field, path=path, suggestions=close,
        )
    return n


def _file_text(index: Index, n: int) -> str:
    # Decoded as the build decoded it (Sphinx's source_encoding); an undecodable
    # byte shows as U+FFFD — content_sha256 still names the exact bytes.
    return index.file_text(n)


def line_map(index: Index, n: int) -> LineMap:
    # the text, the line starts, and the parsers' line starts it may derive
    return index.memo(("linemap", n), lambda: LineMap(_file_text(index, n)),
                      lambda lm: footprint(lm.text) + 3 * (56 + 40 * len(lm.starts)))
