"""Pages and their section trees, for ``get_section``: a concept by id, a
section's ancestors and subtree, the sections a locator names (a file included
by several pages has one section per page), locators parsed back into a path
and a line range.
"""

from __future__ import annotations

import bisect
import difflib
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.index_format import locator as make_locator

from .answers import _shorten
from .files import MAX_PATH_BYTES, MAX_PATH_CHARS, normalise_path

if TYPE_CHECKING:
    from okf_sphinx.engine.index import Index


MAX_LINE_DIGITS = 16  # 2**53 has 16 digits: a longer line number names no line (and int() refuses 4300+)


# -- pages and sections ---------------------------------------------------------------------


def _concept_ids(index: Index) -> list[str]:
    """The sorted concept ids (``concepts.js`` order), built once per index build."""
    return index.memo("concept_ids", lambda: [e[0] for e in index.concepts()])


def _concept(index: Index, concept_id: str) -> list[Any]:
    concepts = index.concepts()
    ids = _concept_ids(index)
    i = bisect.bisect_left(ids, concept_id)
    if i < len(ids) and ids[i] == concept_id:
        return concepts[i]
    close = difflib.get_close_matches(concept_id, ids, n=10, cutoff=0.6)
    raise OkfError(
        "not_found",
        f"no concept {concept_id!r} in this site (concept ids are docnames such as 'usage/install'; "
        "find them with search_concepts)" + (f"; did you mean {close[0]!r}?" if close else ""),
        field="concept_id", concept_id=concept_id, suggestions=close,
    )


def _ref(page: dict[str, Any], i: int) -> dict[str, str]:
    s = page["sections"][i]
    return {"heading": s["heading"], "locator": make_locator(s["path"], s["line_start"], s["line_end"])}


def _ancestors(page: dict[str, Any], i: int) -> list[int]:
    out = []
    seen = set()
    p = page["sections"][i].get("parent")
    while p is not None and p not in seen and 0 <= p < len(page["sections"]):
        seen.add(p)
        out.append(p)
        p = page["sections"][p].get("parent")
    return out[::-1]


def _subtree_end(page: dict[str, Any], i: int) -> int:
    """Last line of section ``i`` and its descendants in the section's own file."""
    secs = page["sections"]
    own = secs[i]
    end = own["line_end"]
    for j in range(i + 1, len(secs)):
        if i not in _ancestors(page, j):
            break
        if secs[j]["path"] == own["path"]:
            end = max(end, secs[j]["line_end"])
    return end


def _path_pages(index: Index) -> dict[str, list[int]]:
    """Captured path → the concepts (positions in concepts.js) whose sections it holds."""

    def compute() -> dict[str, list[int]]:
        mapping: dict[str, list[int]] = {}
        for ci, concept in enumerate(index.concepts()):
            for p in concept[4]:
                mapping.setdefault(p, []).append(ci)
        return mapping

    return index.memo("path_pages", compute)


def _sections_at(index: Index, path: str, line_start: int) -> list[tuple[dict[str, Any], int]]:
    """Every (page, position) whose section of ``path`` starts at ``line_start``, in
    concept-id order: more than one when pages include the same file."""
    concepts = index.concepts()
    out = []
    # concepts.js lists each page's files that hold its sections: exactly the pages to look in
    for ci in _path_pages(index).get(path, []):
        page = index.page(concepts[ci][2])
        out.extend((page, k) for k, s in enumerate(page["sections"]) if s["path"] == path and s["line_start"] == line_start)
    return out


_LOCATOR = re.compile(r"^(?P<path>.*)#L(?P<start>[0-9]+)(?:-L(?P<end>[0-9]+))?$", re.S)


def _parse_locator(locator: str) -> tuple[str, int, int]:
    if len(locator) > 3 * MAX_PATH_BYTES + 64:
        raise OkfError("path_too_long", f"locator is {len(locator)} characters long; its path is over the limit",
                       field="locator", limit=MAX_PATH_CHARS)
    m = _LOCATOR.match(locator)
    if not m:
        raise OkfError(
            "schema_validation",
            f"locator {locator!r} is not of the form path#L<start>-L<end> (as search hits give it)",
            field="locator",
        )
    raw = m.group("path")
    try:
        raw = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise OkfError("schema_validation", f"locator {locator!r} holds percent-escapes that are not UTF-8",
                       field="locator") from None
    path = normalise_path(raw, "locator")
    digits = (m.group("start"), m.group("end") or m.group("start"))
    if any(len(d.lstrip("0")) > MAX_LINE_DIGITS for d in digits):
        raise OkfError(
            "invalid_line_range",
            f"locator {_shorten(locator)!r} has a line number over {MAX_LINE_DIGITS} digits; "
            "no captured file has that many lines (locators come from search hits)",
            field="locator",
        )
    start, end = (int(d) for d in digits)
    if start < 1 or end < start:
        raise OkfError("invalid_line_range", f"locator {locator!r} has an invalid line range", field="locator")
    return path, start, end


def _overlapping(index: Index, path: str, start: int, end: int) -> list[dict[str, str]]:
    """Sections of ``path`` overlapping lines ``start``-``end`` (for a wrong locator)."""
    out = []
    concepts = index.concepts()
    for ci in _path_pages(index).get(path, []):
        page = index.page(concepts[ci][2])
        for i, s in enumerate(page["sections"]):
            if s["path"] == path and s["line_start"] <= end and s["line_end"] >= start:
                out.append(_ref(page, i))
    return out
