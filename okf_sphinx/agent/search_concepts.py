"""The ``search_concepts`` tool: a literal, case-insensitive substring search over
concept ids and titles (and documented objects' names), in concept-id order."""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Any

from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.terms import valid_unicode, validate_limit
from okf_sphinx.engine.object_names import candidate as object_candidate, substring as object_substring

from .answers import MAX_ANSWER_BYTES, answer_size

if TYPE_CHECKING:
    from okf_sphinx.engine.index import Index


MAX_QUERY_CHARS = 512


# -- search_concepts ------------------------------------------------------------------------


def search_concepts(index: Index, query: Any, limit: Any = None) -> dict[str, Any]:
    """``search_concepts``: literal, case-insensitive substring search over concept ids
    and titles, in concept-id order."""
    if not isinstance(query, str):
        raise OkfError("schema_validation", "query must be a string", field="query")
    if not valid_unicode(query):
        raise OkfError("schema_validation", "query is not valid Unicode (it holds a lone surrogate)", field="query")
    if not query.strip():
        raise OkfError("schema_validation", "query is empty: give part of a concept id or title", field="query")
    if len(query) > MAX_QUERY_CHARS:
        raise OkfError("schema_validation", f"query is {len(query)} characters long; the limit is {MAX_QUERY_CHARS}",
                       field="query", limit=MAX_QUERY_CHARS, actual=len(query))
    limit = validate_limit(limit)
    needle = unicodedata.normalize("NFC", query.strip()).casefold()
    matches = []
    for cid, title, _page, searchable, _paths in index.concepts():
        if needle in unicodedata.normalize("NFC", cid).casefold() or needle in unicodedata.normalize("NFC", title).casefold():
            matches.append({"concept_id": cid, "title": title, "searchable": searchable})
    answer = {
        "status": "ok",
        "query": query,
        "snapshot_revision": index.snapshot_revision,
        "total": len(matches),
        "truncated": len(matches) > limit,
    }
    if answer["truncated"]:
        answer["truncation_reason"] = "limit"
    answer["concepts"] = matches[:limit]
    rows = index.objects()
    if rows:  # a site with documented objects also lists those whose name holds the query
        found = object_substring(rows, query.strip())
        answer["objects_total"] = len(found)
        answer["objects_truncated"] = len(found) > limit
        answer["objects"] = [object_candidate(index, r) for r in found[:limit]]
    size = answer_size(answer)
    if size > MAX_ANSWER_BYTES:
        raise OkfError("page_too_large", f"the answer is {size} bytes; the limit is {MAX_ANSWER_BYTES}: lower limit",
                       size=size, limit=MAX_ANSWER_BYTES)
    return answer
