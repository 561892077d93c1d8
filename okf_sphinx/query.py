"""The query engine: search_sections over a loaded index (SEARCH_CONTRACT.md §3–§5).

AND over the query's terms, BM25 with the build's idf floats and the fixed
operation order of :func:`okf_sphinx.format.bm25_part`, ordered by score then
sid (which encodes concept_id, line_start, path).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import OkfError
from .format import canonical_json
from .terms import validate_limit

if TYPE_CHECKING:
    from .index import Index, Posting

MAX_RESPONSE_BYTES = 1 << 20


def _intersect(postings: list[Posting]) -> dict[int, int]:
    """sid → position in the *first* posting list, for sids present in every list."""
    order = sorted(range(len(postings)), key=lambda i: postings[i].df)
    smallest = postings[order[0]]
    candidates = set(smallest.sids)
    for i in order[1:]:
        candidates.intersection_update(postings[i].sids)
        if not candidates:
            break
    return {sid: pos for pos, sid in enumerate(postings[0].sids) if sid in candidates}


def rank(index: Index, terms: list[str]) -> list[tuple[float, int]]:
    """Every matching section as ``(score, sid)``, best first."""
    postings = []
    for term in terms:
        p = index.posting(term)
        if p is None:
            return []
        postings.append(p)
    avglen = index.avglen
    if len(postings) == 1:
        p = postings[0]
        idf = p.idf
        scored = [
            (0.0 + idf * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * n / avglen)), sid)
            for sid, f, n in zip(p.sids, p.freqs, p.lengths)
        ]
    else:
        matches = _intersect(postings)
        if not matches:
            return []
        positions = [matches] + [
            {sid: pos for pos, sid in enumerate(p.sids) if sid in matches} for p in postings[1:]
        ]
        scored = []
        for sid in matches:
            score = 0.0
            for p, pos in zip(postings, positions):
                i = pos[sid]
                f = p.freqs[i]
                score += p.idf * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * p.lengths[i] / avglen))
            scored.append((score, sid))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return scored


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


def search(index: Index, query: Any, limit: Any = 20) -> dict[str, Any]:
    normaliser = index.normaliser
    terms = normaliser.query_terms(query)
    limit = validate_limit(limit)
    ranked = rank(index, terms)
    hits = [hit(index, sid, score, terms) for score, sid in ranked[:limit]]
    result = {
        "query": query,
        "terms": terms,
        "snapshot_revision": index.snapshot_revision,
        "total": len(ranked),
        "truncated": len(ranked) > limit,
        "hits": hits,
    }
    size = len(canonical_json(result, sort_keys=False).encode("utf-8"))
    if size > MAX_RESPONSE_BYTES:
        raise OkfError("resource_limit", f"the answer is {size} bytes, over the 1 MiB limit: lower limit", limit=MAX_RESPONSE_BYTES, actual=size)
    return result
