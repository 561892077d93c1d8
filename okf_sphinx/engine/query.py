"""The query engine: search_sections over a loaded index (SEARCH_CONTRACT.md §3–§5).

AND over the query's terms, BM25 with the build's idf floats and the fixed
operation order of :func:`okf_sphinx.core.index_format.bm25_part`, ordered by score then
sid (which encodes concept_id, line_start, path).
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any

from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.index_format import canonical_json
from okf_sphinx.core.terms import validate_limit

if TYPE_CHECKING:
    from .index import Index, Posting

MAX_RESPONSE_BYTES = 1 << 20


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
    # (-score, sid) tuples: plain tuple order is the contract's order, and negation is exact
    if len(postings) == 1:
        # 0.0 + part is the part itself: the same float as the general sum below
        ranked = postings[0].ranked(avglen)
        return len(ranked), [(-neg, sid) for neg, sid in ranked[:limit]]
    parts = [p.parts(avglen) for p in postings]
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


def search(index: Index, query: Any, limit: Any) -> dict[str, Any]:
    normaliser = index.normaliser
    terms = normaliser.query_terms(query)
    limit = validate_limit(limit)
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
    size = len(canonical_json(result, sort_keys=False).encode("utf-8"))
    if size > MAX_RESPONSE_BYTES:
        raise OkfError("resource_limit", f"the answer is {size} bytes, over the 1 MiB limit: lower limit", limit=MAX_RESPONSE_BYTES, actual=size)
    return result
