"""Pages and their section trees, for ``get_section``: a concept by id, a
section's ancestors and subtree, the sections a locator names (a file included
by several pages has one section per page), locators parsed back into a path
and a line range.
"""

from __future__ import annotations

import bisect
import difflib
from typing import TYPE_CHECKING, Any, NamedTuple

from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.index_format import locator as make_locator

if TYPE_CHECKING:
    from okf_sphinx.engine.index import Index


# -- pages and sections ---------------------------------------------------------------------


def concept_ids(index: Index) -> list[str]:
    """The sorted concept ids (``concepts.js`` order), built once per index build."""
    return index.memo("concept_ids", lambda: [e[0] for e in index.concepts()])


class Concept(NamedTuple):
    """One row of ``concepts.js``: a page by its concept id."""

    concept_id: str
    title: str
    page: int  # its number: index.page(page) is its outline
    searchable: bool
    paths: list[str]  # the captured files holding its sections


def concept(index: Index, concept_id: str) -> Concept:
    """The page ``concept_id``, or ``not_found`` with the closest ids."""
    concepts = index.concepts()
    ids = concept_ids(index)
    i = bisect.bisect_left(ids, concept_id)
    if i < len(ids) and ids[i] == concept_id:
        return Concept(*concepts[i])
    close = difflib.get_close_matches(concept_id, ids, n=10, cutoff=0.6)
    raise OkfError(
        "not_found",
        f"no concept {concept_id!r} in this site (concept ids are docnames such as 'usage/install'; "
        "find them with search_concepts)" + (f"; did you mean {close[0]!r}?" if close else ""),
        field="concept_id", concept_id=concept_id, suggestions=close,
    )


def section_ref(page: dict[str, Any], i: int) -> dict[str, str]:
    s = page["sections"][i]
    return {"heading": s["heading"], "locator": make_locator(s["path"], s["line_start"], s["line_end"])}


def ancestors(page: dict[str, Any], i: int) -> list[int]:
    out = []
    seen = set()
    p = page["sections"][i].get("parent")
    while p is not None and p not in seen and 0 <= p < len(page["sections"]):
        seen.add(p)
        out.append(p)
        p = page["sections"][p].get("parent")
    return out[::-1]


def subtree_end(page: dict[str, Any], i: int) -> int:
    """Last line of section ``i`` and its descendants in the section's own file."""
    secs = page["sections"]
    own = secs[i]
    end = own["line_end"]
    for j in range(i + 1, len(secs)):
        if i not in ancestors(page, j):
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


def sections_at(index: Index, path: str, line_start: int) -> list[tuple[dict[str, Any], int]]:
    """Every (page, position) whose section of ``path`` starts at ``line_start``, in
    concept-id order: more than one when pages include the same file."""
    concepts = index.concepts()
    out = []
    # concepts.js lists each page's files that hold its sections: exactly the pages to look in
    for ci in _path_pages(index).get(path, []):
        page = index.page(concepts[ci][2])
        out.extend((page, k) for k, s in enumerate(page["sections"]) if s["path"] == path and s["line_start"] == line_start)
    return out


def overlapping(index: Index, path: str, start: int, end: int) -> list[dict[str, str]]:
    """Sections of ``path`` overlapping lines ``start``-``end`` (for a wrong locator)."""
    out = []
    concepts = index.concepts()
    for ci in _path_pages(index).get(path, []):
        page = index.page(concepts[ci][2])
        for i, s in enumerate(page["sections"]):
            if s["path"] == path and s["line_start"] <= end and s["line_end"] >= start:
                out.append(section_ref(page, i))
    return out
