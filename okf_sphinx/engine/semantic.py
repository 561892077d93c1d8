"""Semantic mode, and smart mode's blend of words and meaning (docs/smart.md, "Meaning").

A query's words (the index's own terms) are split into the model's word pieces
(``w/<shard>``; ``semantic.js`` says which code points start a longer piece, so a
position no longer piece starts at reads only its one-code-point piece); their integer vectors add up to the query's vector.  Its
nearest centroids (``semantic.js``) name the clusters (``v/<k>``) whose
sections are scored, by :func:`okf_sphinx.core.semantic.cosine`.  Pages rank by
their best section.  In smart mode, an index with vectors fuses the words'
page ranking with this one (:func:`blend`).  Every step is integer arithmetic
or a fixed order of IEEE operations that the browser runtime's twin
(``okf_sphinx/js/engine/semantic.js``) repeats exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from okf_sphinx.core import semantic as sem
from okf_sphinx.core.errors import OkfError, json_text
from okf_sphinx.core.terms import validate_limit

from . import smart
from .expansion import expanded
from .filters import check_filters, page_filter
from .query import check_size, hit, prepare
from .validators import check_meta, check_page_table, check_paths
from .vector_files import check_centroids, check_cluster, check_semantic, check_tokens

if TYPE_CHECKING:
    from .index import Index

#: The options semantic mode takes besides ``query`` and ``limit``.
SEMANTIC_OPTIONS = ("under", "meta", "kind", "expand")
#: The blend: a page's fused score is WORDS / (FUSION_K + its rank by words) + w / (FUSION_K +
#: its rank by meaning), ranks from 1, each ranking cut at the answer's limit.  w, the
#: meaning's weight, says when meaning counts (:func:`meaning_weight`): MEANING_PARTIAL when
#: no page holds every word, MEANING_QUESTION when some of the query's words do not count (a
#: question's "how", "do", "the": engine/words.py), MEANING_LONG for a query of LONG_QUERY
#: counted words or more (an error message), else MEANING: a short query some page fully
#: matches names what the reader wants, and meaning only fills the places the words leave
#: empty; so does a query whose counted words are all in the title of the words' first
#: page (:func:`words_name_page`).  Meaning that is unsure (its first page's cosine less
#: than MEANING_MARGIN above its second page's) counts MEANING_UNSURE × w
#: (:func:`meaning_sure`).  All chosen on the tune half: bench/NOTEBOOK.md, "Meaning".
FUSION_K = 5.0
WORDS = 1.0
MEANING = 0.0
MEANING_QUESTION = 0.5
MEANING_LONG = 0.5
MEANING_PARTIAL = 1.0
LONG_QUERY = 5
MEANING_MARGIN = 0.06
MEANING_UNSURE = 0.5
#: Clusters the blend reads (at most the index's own ``probe``): meaning only adds to the
#: words' ranking there, and half the clusters cost it nothing measurable while halving the
#: cluster bytes of a cold query (bench/NOTEBOOK.md, "Meaning").
BLEND_PROBE = 2
#: The config value that gives a site semantic vectors (named by ``semantic_unavailable``).
SEMANTIC_SETTING = "okf_search_semantic_model"


def semantic_meta(index: Index) -> dict[str, Any]:
    """The manifest's ``semantic`` block (``semantic_unavailable`` without one)."""
    return check_semantic(index.manifest.get("semantic"), SEMANTIC_SETTING)


def query_vector(index: Index, words: list[str]) -> tuple[list[int], list[str]]:
    """The query's integer vector (the sum of its words' pieces) and the words the model knows."""
    m = semantic_meta(index)
    dims, prefix, shards = m["dims"], m["prefix"], m["token_shards"]
    check = check_tokens(dims)
    multi = index.load("semantic", check_centroids(m["clusters"], dims))["multi"] if words else None

    def lookup(piece: str) -> list[int] | None:
        return index.load(sem.token_shard(piece, prefix, shards), check).get(piece)

    total = [0] * dims
    known = []
    for word in words:
        vectors = sem.word_pieces(word, lookup, prefix, m["max_chars"], multi)
        if vectors is None:
            continue
        known.append(word)
        for v in vectors:
            sem.add_into(total, v)
    return total, known


def ranked(index: Index, q: list[int], keep: Callable[[int], bool] | None,
           probe: int | None = None) -> list[tuple[float, int]]:
    """``(score, sid)`` of the sections in the ``probe`` clusters (by default the index's)
    nearest to ``q`` that pass ``keep``, best first (score descending, then sid ascending)."""
    m = semantic_meta(index)
    qq = sem.dot(q, q)
    if qq == 0 or m["clusters"] == 0:
        return []
    cents = index.load("semantic", check_centroids(m["clusters"], m["dims"]))["centroids"]
    near = sorted((-sem.cosine(sem.dot(q, c), qq, cc), k) for k, (c, cc) in enumerate(cents) if cc)
    check = check_cluster(m["dims"], index.section_count)
    out = []
    for _neg, k in near[: m["probe"] if probe is None else min(probe, m["probe"])]:
        for sid, v, vv in index.load(f"v/{k:x}", check):
            if keep is None or keep(sid):
                out.append((-sem.cosine(sem.dot(q, v), qq, vv), sid))
    out.sort()
    return [(-neg, sid) for neg, sid in out]


def _filters(index: Index, under: Any, meta: Any, kind: Any) -> Callable[[int], bool] | None:
    """The section filter of ``under``, ``meta`` and ``kind`` (None: no filter)."""
    units, wanted, kinds = check_filters(under, meta, kind)
    if units is None and wanted is None and kinds is None:
        return None
    table = index.load("smart", check_page_table(index.section_count))
    metas = index.load("meta", check_meta) if wanted is not None else {}
    paths = index.load("paths", check_paths(len(table["firsts"]))) if units is not None else []
    page_ok = page_filter(paths, units, wanted, metas)

    def keep(sid: int) -> bool:
        if page_ok is not None and not page_ok(smart.page_of(table["firsts"], sid)):
            return False
        return kinds is None or index.section(sid).get("kind", "section") in kinds

    return keep


def by_page(index: Index, sections: list[tuple[float, int]]) -> list[tuple[int, list[tuple[float, int]]]]:
    """Pages in the order of their best section: ``(page, [(score, sid) …])``, each page's
    sections best first."""
    firsts = index.load("smart", check_page_table(index.section_count))["firsts"]
    order: list[int] = []
    groups: dict[int, list[tuple[float, int]]] = {}
    for score, sid in sections:
        page = smart.page_of(firsts, sid)
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
    words, limit = prepare(index, query, limit)
    if not isinstance(expand, bool):
        raise OkfError("schema_validation", f"expand must be true or false, got {json_text(expand)}", field="expand")
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
        result["expanded"] = expanded(index, hit_sids, keep or (lambda sid: True))
    result["suggestions"] = []
    return check_size(result)


def page_record_for(index: Index, sid: int, score: float, hits: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer's record of the page whose best section is ``sid``."""
    top = index.section(sid)
    return {"concept_id": top["concept_id"], "title": top["title"], "path": top["page_path"],
            "url": top["url"].split("#", 1)[0], "score": score, "partial": False, "missing_terms": [], "hits": hits}


def meaning_weight(state: dict[str, Any]) -> float:
    """How much the meaning's ranking counts in the blend (the constants above), from smart
    mode's ``state_out``: whether some page holds every word, the query's terms and those of
    them that count."""
    if not state["full"]:
        return MEANING_PARTIAL
    if len(state["counted"]) < len(state["terms"]):
        return MEANING_QUESTION
    return MEANING_LONG if len(state["counted"]) >= LONG_QUERY else MEANING


def meaning_sure(pages: list[tuple[int, list[tuple[float, int]]]]) -> bool:
    """Whether meaning's ranking (:func:`by_page`) is sure of its first page: that page's
    cosine at least :data:`MEANING_MARGIN` above the second page's (0 without a second)."""
    if not pages:
        return False
    second = pages[1][1][0][0] if len(pages) > 1 else 0.0
    return pages[0][1][0][0] - second >= MEANING_MARGIN


def words_name_page(index: Index, answer: dict[str, Any], counted: list[str]) -> bool:
    """Whether the words' first page in ``answer`` (smart mode's) is titled with every one of
    the query's ``counted`` words, stemmed as smart mode stems: the reader named that page."""
    if not answer["pages"] or not counted:
        return False
    stem = smart.stemmer(index) or (lambda t: t)
    title = {stem(t) for t in index.normaliser.terms(answer["pages"][0]["title"])}
    return all(stem(w) in title for w in counted)


def blend(index: Index, query: Any, limit: Any = 20, prefix: Any = False, under: Any = None, meta: Any = None,
          kind: Any = None, expand: Any = False, correct: Any = True) -> dict[str, Any]:
    """Smart mode on an index with vectors: the words' pages (smart mode's ranking) and the
    meaning's pages fused by weighted reciprocal ranks (weighted by :func:`meaning_weight`,
    :data:`MEANING` when :func:`words_name_page`, times :data:`MEANING_UNSURE` unless
    :func:`meaning_sure`), each ranking cut at ``limit``; meaning reads the
    :data:`BLEND_PROBE` nearest clusters.  When the meaning weighs nothing and the words fill the
    answer, meaning is not looked up at all (the words' answer, every hit ``words``).  A page
    both rankings hold keeps its words' hits, each marked ``both`` when it is also one of the
    page's hits by meaning, else ``words``; its best section by meaning joins them when it is
    not one (in place of the last when the page already shows :data:`smart.HITS_PER_PAGE`).
    A page only meaning found shows its hits by meaning."""
    words_sids: list[int] = []
    state: dict[str, Any] = {}
    words_answer = smart.search(index, query, limit, prefix, under, meta, kind, expand=False, correct=correct,
                                hit_sids_out=words_sids, state_out=state)
    limit = validate_limit(limit)  # smart.search checked it
    words = state["terms"]  # the query's terms, misspelt words corrected
    keep = _filters(index, under, meta, kind)
    weight = meaning_weight(state)
    if weight > 0 and words_name_page(index, words_answer, state["counted"]):
        weight = MEANING
    meaning_all: list[tuple[int, list[tuple[float, int]]]] = []
    if weight > 0 or len(words_answer["pages"]) < limit:
        q, _known = query_vector(index, words)
        meaning_all = by_page(index, ranked(index, q, keep, BLEND_PROBE))
        if not meaning_sure(meaning_all):
            weight = weight * MEANING_UNSURE
    firsts = index.load("smart", check_page_table(index.section_count))["firsts"]
    fused: dict[int, list[Any]] = {}  # page -> [score, words rank, page record or None, meaning sections, sids]
    at = 0
    for r, page in enumerate(words_answer["pages"], 1):
        sids = words_sids[at : at + len(page["hits"])]
        fused[smart.page_of(firsts, sids[0])] = [WORDS / (FUSION_K + r), r, page, None, sids]
        at += len(page["hits"])
    for r, (number, secs) in enumerate(meaning_all[:limit], 1):
        entry = fused.setdefault(number, [0.0, len(words_answer["pages"]) + r, None, None, []])
        entry[0] = entry[0] + weight / (FUSION_K + r)
        entry[3] = secs
    # ranks are distinct, so the order needs no third key
    order = sorted(fused.values(), key=lambda e: (-e[0], e[1]))[:limit]
    shown = []
    hit_sids: list[int] = []
    for score, _r, record, secs, page_sids in order:
        if record is None:
            hits = meaning_hits(index, secs, state["counted"])
            sids = [sid for _s, sid in secs[: len(hits)]]
            record = page_record_for(index, secs[0][1], score, hits)
        else:
            record = dict(record)
            hits, sids = _words_hits(index, record["hits"], page_sids, secs, state["counted"], weight)
            record["hits"] = hits
            record["score"] = score
        hit_sids += sids
        shown.append(record)
    total = max(words_answer["total"], len(meaning_all))
    result = {**{k: words_answer[k] for k in ("query", "mode", "terms", "corrected", "snapshot_revision") if k in words_answer},
              "total": total, "truncated": total > limit or words_answer["truncated"], "pages": shown}
    if expand:
        result["expanded"] = expanded(index, hit_sids, keep or (lambda sid: True))
    result["suggestions"] = words_answer["suggestions"]
    return check_size(result)


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
