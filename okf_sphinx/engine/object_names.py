"""Finding documented objects by name (``objects.js``) for the reading tools.

A name matches an object when it is the object's full name, or a dotted tail
of it (``CacheStore.put`` and ``put`` for ``example_pkg.cache.CacheStore.put``);
exact case first, then case-insensitively.  One object → its section; several
→ ``ambiguous_section`` with candidates; none → ``section_not_found`` with the
closest names.  Imports neither Sphinx nor the reading tools.
"""

from __future__ import annotations

import difflib
import unicodedata
from typing import TYPE_CHECKING, Any

from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.index_format import locator as make_locator

if TYPE_CHECKING:
    from .index import Index

MAX_NAME_CHARS = 4096
MAX_CANDIDATES = 50


def _tail(name: str, query: str) -> bool:
    return name == query or name.endswith("." + query)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def candidate(index: Index, row: list[Any]) -> dict[str, Any]:
    """What a refusal or ``search_concepts`` shows of one object."""
    name, kind, page_no, i, _sid = row
    page = index.page(page_no)
    if not 0 <= i < len(page["sections"]):
        raise OkfError("index_corrupt", "objects.js refers to a section a page does not have; rebuild the site")
    s = page["sections"][i]
    return {"heading": name, "locator": make_locator(s["path"], s["line_start"], s["line_end"]),
            "kind": kind, "concept_id": page["concept_id"]}


def matches(rows: list[list[Any]], query: str) -> list[list[Any]]:
    """Rows whose name is ``query`` or ends with ``.query`` (exact case, else case-folded)."""
    found = [r for r in rows if _tail(r[0], query)]
    if not found:
        q = _fold(query)
        found = [r for r in rows if _tail(_fold(r[0]), q)]
    if len(found) > 1:
        exact = [r for r in found if r[0] == query]
        if exact:
            found = exact
    return found


def substring(rows: list[list[Any]], query: str) -> list[list[Any]]:
    """Rows whose name holds ``query`` (case-folded): names it ends with first, then by name."""
    q = _fold(query)
    found = [r for r in rows if q in _fold(r[0])]
    return sorted(found, key=lambda r: (not _tail(_fold(r[0]), q), r[0], r[4]))


def find_object(index: Index, query: str) -> tuple[dict[str, Any], int]:
    """(page, position) of the one object named ``query``; refusals otherwise."""
    query = query.strip()
    if not query:
        raise OkfError("schema_validation", "object is empty: give an object's full name or a dotted tail of it",
                       field="object")
    if len(query) > MAX_NAME_CHARS:
        raise OkfError("schema_validation", f"object is {len(query)} characters; the limit is {MAX_NAME_CHARS}",
                       field="object")
    rows = index.objects()
    found = matches(rows, query)
    if len(found) == 1:
        row = found[0]
        page = index.page(row[2])
        if not 0 <= row[3] < len(page["sections"]) or page["sections"][row[3]]["sid"] != row[4]:
            raise OkfError("index_corrupt", "objects.js does not match the page outlines; rebuild the site")
        return page, row[3]
    if found:
        cands = [candidate(index, r) for r in found[:MAX_CANDIDATES]]
        raise OkfError(
            "ambiguous_section",
            f"{len(found)} documented objects are named {query!r}; ask again with a longer dotted name "
            "or with one of the candidates' locators",
            object=query, candidates=cands, **({"candidates_truncated": True} if len(found) > MAX_CANDIDATES else {}),
        )
    first: dict[str, list[Any]] = {}
    for r in rows:
        first.setdefault(r[0], r)
    names = sorted(first)
    close = difflib.get_close_matches(query, names, n=10, cutoff=0.6)
    if len(close) < 10:  # a short name is closest to the objects' last components
        last = {}
        for n in names:
            last.setdefault(n.rsplit(".", 1)[-1], n)
        for key in difflib.get_close_matches(query.rsplit(".", 1)[-1], sorted(last), n=10, cutoff=0.6):
            if last[key] not in close and len(close) < 10:
                close.append(last[key])
    raise OkfError(
        "section_not_found",
        f"no documented object is named {query!r}" + (f"; did you mean {close[0]!r}?" if close else
                                                      "; search_sections finds objects by the words of their names"),
        object=query, suggestions=[candidate(index, first[n]) for n in close],
    )
