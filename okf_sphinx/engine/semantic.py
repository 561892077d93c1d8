"""Semantic mode, and smart mode's blend of words and meaning (docs/smart.md, "Meaning").

A query's words (the index's own terms) are split into the model's word pieces
(``w/<shard>``); their integer vectors add up to the query's vector.  Its
nearest centroids (``semantic.js``) name the clusters (``v/<k>``) whose
sections are scored, by :func:`okf_sphinx.core.semantic.cosine`.  Pages rank by
their best section.  In smart mode, an index with vectors fuses the words'
page ranking with this one (:func:`blend`).  Every step is integer arithmetic
or a fixed order of IEEE operations that okf-search.js repeats exactly.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any, Callable

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core import semantic as sem
from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.index_format import is_int
from okf_sphinx.core.terms import validate_limit

from . import smart
from .query import MAX_RESPONSE_BYTES, hit

if TYPE_CHECKING:
    from .index import Index

OPTIONS = ("under", "meta", "kind", "expand")
#: The blend: a page's fused score is WORDS / (FUSION_K + its rank by words) + w / (FUSION_K +
#: its rank by meaning), ranks from 1, each ranking cut at the answer's limit; w, the meaning's
#: weight, is MEANING_PARTIAL when no page holds every word, else MEANING_LONG for a query of
#: LONG_QUERY words or more (a question, an error message), else MEANING (chosen on the tune
#: half: docs/benchmarks.md, "Meaning").
FUSION_K = 5.0
WORDS = 1.0
MEANING = 0.0
MEANING_LONG = 0.5
MEANING_PARTIAL = 0.5
LONG_QUERY = 4
SETTING = "okf_search_semantic_model"


def _corrupt(name: str, what: str) -> OkfError:
    return OkfError("index_corrupt", f"index file {name}.js is corrupt: {what}; rebuild the site", file=f"{name}.js")


def semantic_meta(index: Index) -> dict[str, Any]:
    """The manifest's ``semantic`` block; an index without vectors answers ``semantic_unavailable``."""
    m = index.manifest.get("semantic")
    if m is None:
        raise OkfError(
            "semantic_unavailable",
            f"this index has no semantic vectors: its site names no embedding model. Add {SETTING} = "
            "\"<model folder>\" to conf.py (semantic_model in the MkDocs plugin's options) and rebuild the "
            "site, or use mode='smart'",
            setting=SETTING,
        )
    ints = ("dims", "max_chars", "token_shards", "clusters", "probe", "vectors")
    if not (isinstance(m, dict) and all(is_int(m.get(k)) and m[k] >= 0 for k in ints) and m["dims"] >= 1
            and m["token_shards"] >= 1 and m["probe"] >= 1 and isinstance(m.get("prefix"), str)
            and isinstance(m.get("model"), str)):
        raise _corrupt("manifest", "the semantic block is missing or invalid")
    return m


def _tokens_check(dims: int) -> Callable[[str, Any], dict[str, list[int]]]:
    def check(name: str, v: Any) -> dict[str, list[int]]:
        if not isinstance(v, dict):
            raise _corrupt(name, "a token shard is malformed")
        out = {}
        for piece, text in v.items():
            vector = sem.token_entry(text, dims)
            if vector is None:
                raise _corrupt(name, f"the entry of piece {piece!r} is malformed")
            out[piece] = vector
        return out

    return check


def _vectors(name: str, text: Any, count: int, dims: int) -> list[tuple[list[int], int]]:
    """``count`` vectors written one after another, each with its squared norm."""
    if not isinstance(text, str) or len(text) != count * dims:
        raise _corrupt(name, "the vectors are malformed")
    out = []
    for i in range(count):
        v = sem.decode_vector(text, i * dims, dims)
        if v is None:
            raise _corrupt(name, "the vectors are malformed")
        out.append((v, sem.dot(v, v)))
    return out


def _centroids_check(m: dict[str, Any]) -> Callable[[str, Any], list[tuple[list[int], int]]]:
    def check(name: str, v: Any) -> list[tuple[list[int], int]]:
        if not isinstance(v, dict):
            raise _corrupt(name, "the centroid table is malformed")
        return _vectors(name, v.get("centroids"), m["clusters"], m["dims"])

    return check


def _cluster_check(dims: int, sections: int) -> Callable[[str, Any], list[tuple[int, list[int], int]]]:
    def check(name: str, v: Any) -> list[tuple[int, list[int], int]]:
        deltas = fmt.decode_ints(v.get("sids")) if isinstance(v, dict) else None
        if not deltas:
            raise _corrupt(name, "a cluster is malformed")
        sids = []
        sid = -1
        for i, d in enumerate(deltas):
            if i and d == 0:
                raise _corrupt(name, "a cluster's sections are out of order")
            sid = d if i == 0 else sid + d
            if sid >= sections:
                raise _corrupt(name, "a cluster refers to a section past the searchable ones")
            sids.append(sid)
        return [(sid, vec, vv) for sid, (vec, vv) in zip(sids, _vectors(name, v.get("vectors"), len(sids), dims))]

    return check


def query_vector(index: Index, words: list[str]) -> tuple[list[int], list[str]]:
    """The query's integer vector (the sum of its words' pieces) and the words the model knows."""
    m = semantic_meta(index)
    dims, prefix, shards = m["dims"], m["prefix"], m["token_shards"]
    check = _tokens_check(dims)

    def lookup(piece: str) -> list[int] | None:
        return index._load(sem.token_shard(piece, prefix, shards), check).get(piece)

    total = [0] * dims
    known = []
    for word in words:
        vectors = sem.word_pieces(word, lookup, prefix, m["max_chars"])
        if vectors is None:
            continue
        known.append(word)
        for v in vectors:
            sem.add_into(total, v)
    return total, known


def ranked(index: Index, q: list[int], keep: Callable[[int], bool] | None) -> list[tuple[float, int]]:
    """``(score, sid)`` of the sections in the clusters nearest to ``q`` that pass ``keep``,
    best first (score descending, then sid ascending)."""
    m = semantic_meta(index)
    qq = sem.dot(q, q)
    if qq == 0 or m["clusters"] == 0:
        return []
    cents = index._load("semantic", _centroids_check(m))
    near = sorted((-sem.cosine(sem.dot(q, c), qq, cc), k) for k, (c, cc) in enumerate(cents) if cc)
    check = _cluster_check(m["dims"], index.sections)
    out = []
    for _neg, k in near[: m["probe"]]:
        for sid, v, vv in index._load(f"v/{k:x}", check):
            if keep is None or keep(sid):
                out.append((-sem.cosine(sem.dot(q, v), qq, vv), sid))
    out.sort()
    return [(-neg, sid) for neg, sid in out]


def _filters(index: Index, under: Any, meta: Any, kind: Any) -> Callable[[int], bool] | None:
    """The section filter of ``under``, ``meta`` and ``kind`` (None: no filter)."""
    units, wanted, kinds = smart.check_filters(under, meta, kind)
    if units is None and wanted is None and kinds is None:
        return None
    rows = index._load("smart", smart._page_table_check(index.sections))
    firsts = rows["firsts"]
    metas = index._load("meta", smart._check_meta) if wanted is not None else {}
    paths = index._load("paths", smart._paths_check(len(rows["rows"]))) if units is not None else []

    def keep(sid: int) -> bool:
        page = bisect.bisect_right(firsts, sid) - 1
        if (units is not None or wanted is not None) and not smart._page_ok(paths, page, units, wanted, metas):
            return False
        return kinds is None or index.section(sid).get("kind", "section") in kinds

    return keep


def by_page(index: Index, sections: list[tuple[float, int]]) -> list[tuple[int, list[tuple[float, int]]]]:
    """Pages in the order of their best section: ``(page, [(score, sid) …])``, each page's
    sections best first."""
    firsts = index._load("smart", smart._page_table_check(index.sections))["firsts"]
    order: list[int] = []
    groups: dict[int, list[tuple[float, int]]] = {}
    for score, sid in sections:
        page = bisect.bisect_right(firsts, sid) - 1
        if page not in groups:
            order.append(page)
            groups[page] = []
        groups[page].append((score, sid))
    return [(page, groups[page]) for page in order]


def meaning_hits(index: Index, secs: list[tuple[float, int]], words: list[str]) -> list[dict[str, Any]]:
    """A page's hits by meaning: its best section, and the next ones (up to
    :data:`smart.HITS_PER_PAGE`) that score at least :data:`smart.SUB_HIT_FLOOR` × the best."""
    floor = smart.SUB_HIT_FLOOR * secs[0][0]
    out = []
    for j, (score, sid) in enumerate(secs[: smart.HITS_PER_PAGE]):
        if j and score < floor:
            break
        h = hit(index, sid, score, words)
        h["matched_terms"] = []
        h["matched"] = "meaning"
        out.append(h)
    return out


def search(index: Index, query: Any, limit: Any = 20, under: Any = None, meta: Any = None, kind: Any = None,
           expand: Any = False) -> dict[str, Any]:
    """``mode="semantic"``: pages ranked by their best section's meaning alone."""
    words = index.normaliser.query_terms(query)
    limit = validate_limit(limit)
    if not isinstance(expand, bool):
        raise OkfError("schema_validation", f"expand must be true or false, got {expand!r}", field="expand")
    keep = _filters(index, under, meta, kind)
    q, _known = query_vector(index, words)
    pages = by_page(index, ranked(index, q, keep))
    shown = []
    hit_sids: list[int] = []
    for _page, secs in pages[:limit]:
        hits = meaning_hits(index, secs, words)
        hit_sids += [sid for _s, sid in secs[: len(hits)]]
        shown.append(page_record_for(index, secs[0][1], secs[0][0], hits))
    result = {"query": query, "mode": "semantic", "terms": words, "snapshot_revision": index.snapshot_revision,
              "total": len(pages), "truncated": len(pages) > limit, "pages": shown}
    if expand:
        result["expanded"] = smart.expanded(index, hit_sids, keep or (lambda sid: True))
    result["suggestions"] = []
    return _checked(result)


def page_record_for(index: Index, sid: int, score: float, hits: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer's record of the page whose best section is ``sid``."""
    top = index.section(sid)
    return {"concept_id": top["concept_id"], "title": top["title"], "path": top["page_path"],
            "url": top["url"].split("#", 1)[0], "score": score, "partial": False, "missing_terms": [], "hits": hits}


def _checked(result: dict[str, Any]) -> dict[str, Any]:
    size = len(fmt.canonical_json(result, sort_keys=False).encode("utf-8"))
    if size > MAX_RESPONSE_BYTES:
        raise OkfError("resource_limit", f"the answer is {size} bytes, over the 1 MiB limit: lower limit",
                       limit=MAX_RESPONSE_BYTES, actual=size)
    return result


def blend(index: Index, query: Any, limit: Any = 20, prefix: Any = False, under: Any = None, meta: Any = None,
          kind: Any = None, expand: Any = False) -> dict[str, Any]:
    """Smart mode on an index with vectors: the words' pages (smart mode's ranking) and the
    meaning's pages fused by weighted reciprocal ranks, each ranking cut at ``limit``.  A
    page both rankings hold keeps its words' hits, each marked ``both`` when it is also one
    of the page's hits by meaning, else ``words``; its best section by meaning joins them
    when it is not one (in place of the last when the page already shows
    :data:`smart.HITS_PER_PAGE`).  A page only meaning found shows its hits by meaning."""
    words_sids: list[int] = []
    words_answer = smart.search(index, query, limit, prefix, under, meta, kind, False, words_sids)
    limit = validate_limit(limit)
    words = words_answer["terms"]
    keep = _filters(index, under, meta, kind)
    q, _known = query_vector(index, words)
    meaning_all = by_page(index, ranked(index, q, keep))
    meaning = meaning_all[:limit]
    weight = (MEANING_PARTIAL if all(p["partial"] for p in words_answer["pages"])
              else MEANING_LONG if len(words) >= LONG_QUERY else MEANING)
    fused: dict[str, list[Any]] = {}  # concept_id -> [score, words rank, page record or None, meaning sections, sids]
    at = 0
    for r, page in enumerate(words_answer["pages"], 1):
        fused[page["concept_id"]] = [WORDS / (FUSION_K + r), r, page, None, words_sids[at : at + len(page["hits"])]]
        at += len(page["hits"])
    for r, (_page, secs) in enumerate(meaning, 1):
        cid = index.section(secs[0][1])["concept_id"]
        entry = fused.setdefault(cid, [0.0, len(words_answer["pages"]) + r, None, None, []])
        entry[0] = entry[0] + weight / (FUSION_K + r)
        entry[3] = secs
    order = sorted(fused.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[0]))[:limit]
    shown = []
    hit_sids: list[int] = []
    for _cid, (score, _r, record, secs, page_sids) in order:
        if record is None:
            hits = meaning_hits(index, secs, words)
            sids = [sid for _s, sid in secs[: len(hits)]]
            record = page_record_for(index, secs[0][1], score, hits)
        else:
            record = dict(record)
            hits, sids = _words_hits(index, record["hits"], page_sids, secs, words, weight)
            record["hits"] = hits
            record["score"] = score
        hit_sids += sids
        shown.append(record)
    total = max(words_answer["total"], len(meaning_all))
    result = {**{k: words_answer[k] for k in ("query", "mode", "terms", "snapshot_revision")},
              "total": total, "truncated": total > limit or words_answer["truncated"], "pages": shown}
    if expand:
        result["expanded"] = smart.expanded(index, hit_sids, keep or (lambda sid: True))
    result["suggestions"] = words_answer["suggestions"]
    return _checked(result)


def _words_hits(index: Index, hits: list[dict[str, Any]], sids: list[int], secs: list[tuple[float, int]] | None,
                words: list[str], weight: float) -> tuple[list[dict[str, Any]], list[int]]:
    """A words page's hits (``sids`` theirs) and its best sections by meaning, fused as pages
    are: ``WORDS / (FUSION_K + rank among the words' hits) + weight / (FUSION_K + rank among
    the page's sections by meaning)`` (ranks from 1; the meaning's first
    :data:`smart.HITS_PER_PAGE`), best first, ties in the words' order; at most
    :data:`smart.HITS_PER_PAGE`, each marked ``words``, ``meaning`` or ``both``; and their sids."""
    by_meaning = {sid: (r, score) for r, (score, sid) in enumerate((secs or [])[: smart.HITS_PER_PAGE], 1)}
    entries = []
    for r, (h, sid) in enumerate(zip(hits, sids), 1):
        fused = WORDS / (FUSION_K + r)
        if sid in by_meaning:
            fused = fused + weight / (FUSION_K + by_meaning[sid][0])
        entries.append((-fused, r, sid, {**h, "matched": "both" if sid in by_meaning else "words"}))
    for sid, (r, score) in by_meaning.items():
        if sid not in sids and (r == 1 or weight > 0):
            entries.append((-(weight / (FUSION_K + r)), len(hits) + r, sid, score))
    entries.sort(key=lambda e: (e[0], e[1]))
    kept = entries[: smart.HITS_PER_PAGE]
    out = []
    for _key, _r, sid, h in kept:
        if not isinstance(h, dict):  # a section only meaning found: made once it is shown
            h = hit(index, sid, h, words)
            h["matched_terms"] = []
            h["matched"] = "meaning"
        out.append(h)
    return out, [e[2] for e in kept]
