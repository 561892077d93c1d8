"""Keyword search: search_sections over a loaded index (docs/contract.md, "Queries" to "Results").

AND over the query's terms, BM25 with the build's idf floats, the manifest's ``k1``
and ``b`` and the fixed operation order of :func:`okf_sphinx.core.index_format.bm25_part`,
ordered by score then sid (which encodes concept_id, line_start, path).  The browser
runtime's twin is ``okf_sphinx/js/engine/query.js``.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any

from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.index_format import canonical_json
from okf_sphinx.core.terms import check_query, validate_limit

if TYPE_CHECKING:
    from .index import Index, Posting

#: The largest answer, in bytes of its canonical JSON (the contract's 1 MiB).
MAX_RESPONSE_BYTES = 1 << 20


def prepare(index: Index, query: Any, limit: Any) -> tuple[list[str], int]:
    """What both modes do first, in this order: check the query, split it into terms with
    the index's tables, check the limit."""
    check_query(query)
    return index.normaliser.query_terms(query), validate_limit(limit)


def rank(index: Index, terms: list[str], limit: int) -> tuple[int, list[tuple[float, int]]]:
    """``(total, best)``: how many sections match every term, and the best ``limit``
    of them as ``(score, sid)``, by score descending then sid ascending."""
    postings: list[Posting] = []
    for term in terms:
        p = index.posting(term)
        if p is None:
            return 0, []
        postings.append(p)
    avglen = index.avglen
    k1, b = index.bm25
    # (-score, sid) tuples: plain tuple order is the contract's order, and negation is exact
    if len(postings) == 1:
        # 0.0 + part is the part itself: the same float as the general sum below
        ranked = postings[0].ranked(avglen, k1, b)
        return len(ranked), [(-neg, sid) for neg, sid in ranked[:limit]]
    parts = [p.parts(avglen, k1, b) for p in postings]
    smallest = min(postings, key=lambda p: p.df)
    maps = [p.positions for p in postings]
    scored: list[tuple[float, int]] = []
    for sid in smallest.sids:
        if all(sid in m for m in maps):
            score = 0.0
            for m, part in zip(maps, parts):  # query order: the contract's fixed sum
                score += part[m[sid]]
            scored.append((-score, sid))
    return len(scored), [(-neg, sid) for neg, sid in heapq.nsmallest(limit, scored)]


def hit(index: Index, sid: int, score: float, terms: list[str]) -> dict[str, Any]:
    """The contract's hit for section ``sid``: its place, score and the snippet for ``terms``."""
    s = index.section(sid)
    if not s["searchable"]:
        raise OkfError("index_corrupt", f"posting refers to non-searchable section {sid}; rebuild the site")
    return {
        "concept_id": s["concept_id"],
        "path": s["path"],
        "heading": s["heading"],
        "locator": s["locator"],
        "line_start": s["line_start"],
        "line_end": s["line_end"],
        "content_sha256": s["content_sha256"],
        "snippet": index.normaliser.snippet(s["text"], terms),
        "score": score,
        "matched_terms": list(terms),
    }


def check_size(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` unless its canonical JSON is over :data:`MAX_RESPONSE_BYTES` (``resource_limit``)."""
    size = len(canonical_json(result, sort_keys=False).encode("utf-8"))
    if size > MAX_RESPONSE_BYTES:
        raise OkfError("resource_limit", f"the answer is {size} bytes, over the 1 MiB limit: lower limit",
                       limit=MAX_RESPONSE_BYTES, actual=size)
    return result


def search(index: Index, query: Any, limit: Any) -> dict[str, Any]:
    """``search_sections`` in keyword mode: the contract's result."""
    terms, limit = prepare(index, query, limit)
    total, best = rank(index, terms, limit)
    hits = [hit(index, sid, score, terms) for score, sid in best]
    result = {
        "query": query,
        "terms": terms,
        "snapshot_revision": index.snapshot_revision,
        "total": total,
        "truncated": total > limit,
        "hits": hits,
    }
    return check_size(result)
