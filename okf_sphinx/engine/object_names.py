"""Documented objects found by name: smart mode's exact-name boost (``n/<shard>``) and the
reading tools' lookup (``objects.js``).

A name matches an object when it is the object's full name, or a dotted tail
of it (``CacheStore.put`` and ``put`` for ``example_pkg.cache.CacheStore.put``).
Smart mode ranks the objects a whole query names first (:func:`named`, by
tier); ``get_section(object=…)`` finds exactly one (:func:`find_object`: exact
case first, then case-insensitively; several → ``ambiguous_section`` with
candidates; none → ``section_not_found`` with the closest names).  Imports
neither Sphinx nor the reading tools.  The browser runtime's twin of the smart
part is ``okf_sphinx/js/engine/object_names.js``.
"""

from __future__ import annotations

import difflib
import unicodedata
from typing import TYPE_CHECKING, Any

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.errors import OkfError, json_text
from okf_sphinx.core.index_format import locator as make_locator

from .validators import check_names, check_smart, corrupt

if TYPE_CHECKING:
    from .index import Index

MAX_NAME_CHARS = 4096
MAX_CANDIDATES = 50

#: Tiers of the exact-name boost: the query is an object's full name, or a dotted tail of it
#: (its short name included), each as written before ignoring ASCII case; every other section
#: is :data:`UNNAMED`.
FULL_NAME, FULL_NAME_ANY_CASE, TAIL_NAME, TAIL_NAME_ANY_CASE, UNNAMED = 0, 1, 2, 3, 4


def named(index: Index, query: str, kinds: list[str] | None) -> dict[int, int]:
    """``sid → tier`` of the searchable objects (of ``kinds``) the whole query names (``n/<shard>``)."""
    shards = check_smart(index.manifest.get("smart")).get("name_shards", 0)
    written = fmt.object_name_query(query)
    if not shards or written is None:
        return {}
    q = fmt.ascii_lower(written)
    key = fmt.name_key(q)
    shard = index.load(fmt.name_shard_name(key, shards), check_names)
    out: dict[int, int] = {}
    for name, kind, sid in shard.get(key, []):
        if kinds is not None and kind not in kinds:
            continue
        if sid >= index.section_count:
            raise corrupt("manifest", "an object-name shard refers to a section past the searchable ones")
        lowered = fmt.ascii_lower(name)
        if lowered == q:
            out[sid] = FULL_NAME if name == written else FULL_NAME_ANY_CASE
        elif lowered.endswith("." + q):
            out[sid] = TAIL_NAME if name.endswith("." + written) else TAIL_NAME_ANY_CASE
    return out


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
            f"{len(found)} documented objects are named {json_text(query)}; ask again with a longer dotted name "
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
        f"no documented object is named {json_text(query)}" + (f"; did you mean {json_text(close[0])}?" if close else
                                                      "; search_sections finds objects by the words of their names"),
        object=query, suggestions=[candidate(index, first[n]) for n in close],
    )
