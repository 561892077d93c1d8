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


#: The most captured paths an unknown path is compared with for suggestions (a comparison
#: costs about 50 µs: every path of a 20,000-file site was a second per call).
MAX_SUGGESTION_CANDIDATES = 1000


def _path_keys(index: Index) -> dict[str, list[str]]:
    """Captured paths by folder, by file name and by file stem (case folded; a key's kind is its
    first character): where a path that is not captured finds the one meant."""
    def build() -> dict[str, list[str]]:
        keys: dict[str, list[str]] = {}
        for path in _file_numbers(index):
            for key in _keys_of(path):
                keys.setdefault(key, []).append(path)
        return keys

    return index.memo("path_keys", build)


def _keys_of(path: str) -> tuple[str, ...]:
    folder, _, name = path.casefold().rpartition("/")
    return "d" + folder, "n" + name, "s" + name.partition(".")[0]


def suggest_paths(index: Index, path: str) -> list[str]:
    """Up to 10 captured paths close to ``path``, the closest first.  A site of at most
    :data:`MAX_SUGGESTION_CANDIDATES` files compares ``path`` with every one; a larger
    site only with those in its folder or with its file name or stem (case folded),
    at most that many, in path order."""
    everything = _file_numbers(index)
    if len(everything) <= MAX_SUGGESTION_CANDIDATES:
        pool = list(everything)
    else:
        keys = _path_keys(index)
        found = {p for key in _keys_of(path) for p in keys.get(key, ())}
        pool = sorted(found)[:MAX_SUGGESTION_CANDIDATES]
    return difflib.get_close_matches(path, pool, n=10, cutoff=0.6)


def file_number(index: Index, path: str, field: str = "path") -> int:
    numbers = _file_numbers(index)
    n = numbers.get(path)
    if n is None:
        close = suggest_paths(index, path)
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
