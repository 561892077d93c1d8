"""Smart mode: the readers' ranking over the same index (docs/smart.md).

A query word matches its exact term, the other terms of its stem group (stored
in the posting shard ``t/<shard>`` of its stem, built with the site language's
pinned stemmer) and, for the last word with ``prefix``, the dictionary's
completions (``d/<shard>``).  Its weighted frequency in a section is
``1·f(exact) + 0.5·f(stem forms) + 0.25·f(completions)``: those sums of small
binary fractions are exact, so their order cannot change a bit.  Pages are
ranked by page-level BM25 over the sum of their sections' frequencies plus
their best section's BM25, times the page's prior; both BM25 parts use
:func:`okf_sphinx.core.index_format.bm25_part` with the idf floats the build
stored and the manifest's ``k1`` and ``b``.  Every float operation below runs in
a fixed order that the browser runtime's twin (``okf_sphinx/js/engine/smart.js``)
repeats exactly.

The concerns around the ranking have their own modules: :mod:`.filters`
(``under``, ``meta``, ``kind``), :mod:`.phrases` (quoted phrases),
:mod:`.object_names` (the exact-name boost), :mod:`.spelling` (the dictionary,
"did you mean") and :mod:`.expansion` (link expansion).
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any, NamedTuple
from collections.abc import Callable

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core import segment
from okf_sphinx.core.contracts import arguments
from okf_sphinx.core.errors import OkfError, json_text
from okf_sphinx.core.index_format import bm25_part

from .expansion import expanded
from .filters import check_filters, page_filter
from .headings import NO_HEADING, heading_tiers
from .link_labels import labelled_posting
from .object_names import UNNAMED, named
from .phrases import SENTENCE_SECTIONS, SENTENCE_TERMS, phrase_sections, phrases, section_holds, sections_holding
from .query import check_size, hit, prepare
from .spelling import corrected_query, correction, dictionary, suggestions
from .validators import check_meta, check_page_table, check_paths, check_smart
from .words import Coverage, counting, power, stop_words

if TYPE_CHECKING:
    from .index import Index, Posting

EXACT = 1.0
STEM = 0.5
PREFIX = 0.25
MAX_COMPLETIONS = 8  # dictionary completions of a prefix, most frequent first
MAX_COMPLETION_GROUPS = 3  # stem groups they come from besides the word's own (each is a posting shard to read)
MIN_PREFIX = 2  # code points a last word needs before it is completed
HITS_PER_PAGE = 3
SUB_HIT_FLOOR = 0.7  # a page's further hits score at least this × its first hit's score (docs/smart.md)
#: The options smart mode takes besides ``query`` and ``limit``: search_sections' arguments
#: as its JSON schema declares them (core/contracts.py), but the three both modes take.
OPTIONS = tuple(a for a in arguments("search_sections")[0] if a not in ("query", "limit", "mode"))


class Scoring(NamedTuple):
    """What every BM25 part of one answer reads: the page table and the index's statistics."""

    lengths: list[int]  # per page: its weighted length
    firsts: list[int]  # per page: its first sid
    avglen: float
    pavglen: float
    k1: float
    b: float


def smart_meta(index: Index) -> dict[str, Any]:
    """The manifest's checked ``smart`` block."""
    return check_smart(index.manifest.get("smart"))


def stemmer(index: Index) -> Callable[[str], str] | None:
    """The build's stemmer (None: the site's language has none, words match exactly)."""
    smart_meta(index)
    return index.stem


def segmenter(index: Index) -> str | None:
    """The build's segmenter (okf_sphinx/core/segment.py) on a Chinese, Japanese or Korean
    site, else None; one this engine does not know is ``index_version_unsupported``."""
    found = smart_meta(index).get("segmenter")
    if found is not None and found != segment.SEGMENTER:
        raise OkfError(
            "index_version_unsupported",
            f"this index splits CJK words with {json_text(found)}, which this okf_sphinx does not know (it has "
            f"{json_text(segment.SEGMENTER)}): rebuild the site or use the okf_sphinx that built it",
            found=found, supported=[segment.SEGMENTER],
        )
    return found


def group(index: Index, stem: str) -> list[Any] | None:
    """The stem group ``[section df, page df, [terms]]`` of ``stem``, from the posting shard
    that also holds those terms' posting lists."""
    return index.shard(index.key_shard(stem))["groups"].get(stem)


def completions(entries: list[str], word: str, have: set[str], stem: Callable[[str], str] | None) -> list[str]:
    """Up to :data:`MAX_COMPLETIONS` dictionary terms (most frequent first) that complete
    ``word`` and are not in ``have``, from at most :data:`MAX_COMPLETION_GROUPS` stem groups
    besides the word's own: a group's terms share one posting shard, so this bounds the
    files a prefix reads."""
    own = fmt.posting_key(word, stem)
    groups: list[str] = []
    out: list[str] = []
    for t in entries:
        if not t.startswith(word) or t in have:
            continue
        key = fmt.posting_key(t, stem)
        if key != own and key not in groups:
            if len(groups) == MAX_COMPLETION_GROUPS:
                continue
            groups.append(key)
        out.append(t)
        if len(out) == MAX_COMPLETIONS:
            break
    return out


def variants(index: Index, word: str, stem: Callable[[str], str] | None, complete: bool) -> tuple[list[tuple[str, float]], float, float]:
    """``([(term, weight)], section idf, page idf)`` of one query word; no terms: it occurs nowhere."""
    g = group(index, fmt.posting_key(word, stem))
    out: list[tuple[str, float]] = []
    sidf = pidf = 0.0
    if g is not None:
        sidf, pidf = index.idf(g[0]), index.idf(g[1], pages=True)
        part = segment.PART + word  # the word as a unit of longer CJK terms (a part key)
        if word in g[2]:
            out.append((word, EXACT))
        if part in g[2]:
            out.append((part, EXACT))
        out += [(t, STEM) for t in g[2] if t != word and t != part]
    if complete and len(word) >= MIN_PREFIX:
        have = {t for t, _w in out}
        extra = completions([t for t, _df in dictionary(index, fmt.dict_key(word))], word, have, stem)
        if extra and g is None:
            # the word is no whole word of the site: weigh it as its most frequent completion's group
            first = group(index, fmt.posting_key(extra[0], stem))
            if first is None:
                raise OkfError("index_corrupt", f"dictionary term {json_text(extra[0])} has no stem group; rebuild the site")
            sidf, pidf = index.idf(first[0]), index.idf(first[1], pages=True)
        out += [(t, PREFIX) for t in extra]
    return out, sidf, pidf


def form_posting(index: Index, term: str) -> Posting:
    """The posting list of a term of a stem group (the build wrote one for each), as smart
    mode weighs it: occurrences in links' labels count less (engine/link_labels.py)."""
    p = index.posting(term)
    if p is None:
        raise OkfError("index_corrupt", f"stem group term {json_text(term)} has no postings; rebuild the site")
    return labelled_posting(index, term, p)


def query_identifiers(query: str) -> list[str]:
    """The query's distinct identifiers as written, at most :data:`~okf_sphinx.core.index_format.MAX_QUERY_IDENTIFIERS`."""
    out: list[str] = []
    for ident in fmt.identifiers(query):
        if ident not in out and len(out) < fmt.MAX_QUERY_IDENTIFIERS:
            out.append(ident)
    return out


def page_of(firsts: list[int], sid: int) -> int:
    """The page number of section ``sid`` (``firsts``: each page's first sid)."""
    return bisect.bisect_right(firsts, sid) - 1


def evidence(index: Index, key: tuple[Any, ...], postings: list[tuple[Posting, float]], sidf: float, pidf: float,
             scoring: Scoring, allowed: set[int] | None) -> dict[str, Any]:
    """One word's (or identifier's) evidence, cached per index when unfiltered: see
    :func:`compute_evidence`."""
    if allowed is None:  # cached (and bounded) with the index's files, one build at a time
        return index.memo(("smart-evidence", key),
                          lambda: compute_evidence(postings, sidf, pidf, scoring, None), _evidence_cost)
    return compute_evidence(postings, sidf, pidf, scoring, allowed)


def _evidence_cost(evidence: dict[str, Any]) -> int:
    """Estimated bytes of one word's evidence (five small dicts per section or page)."""
    return 256 + 300 * len(evidence["acc"]) + 250 * len(evidence["page_part"])


def compute_evidence(postings: list[tuple[Posting, float]], sidf: float, pidf: float, scoring: Scoring,
                     allowed: set[int] | None) -> dict[str, Any]:
    """One word's (or identifier's) evidence from its weighted postings: weighted frequency
    (``acc``) and BM25 part (``sec``) per section, its sections per page (``by_page``), its
    page-level BM25 part (``page_part``) and best section part (``page_best``) per page."""
    lengths, firsts, avglen, pavglen, k1, b = scoring
    acc: dict[int, float] = {}
    length: dict[int, int] = {}
    for p, weight in postings:
        for sid, f, n in zip(p.sids, p.freqs, p.lengths):
            if allowed is None or sid in allowed:
                acc[sid] = acc.get(sid, 0.0) + weight * f
                length[sid] = n
    sec = {sid: bm25_part(sidf, f, length[sid], avglen, k1, b) for sid, f in acc.items()}
    by_page: dict[int, list[int]] = {}
    ptf: dict[int, float] = {}
    for sid in sorted(acc):
        page = page_of(firsts, sid)
        by_page.setdefault(page, []).append(sid)
        ptf[page] = ptf.get(page, 0.0) + acc[sid]
    return {"acc": acc, "sec": sec, "by_page": by_page,
            "page_part": {page: bm25_part(pidf, tf, lengths[page], pavglen, k1, b) for page, tf in ptf.items()},
            # 0.0 + part is the part itself: a one-word query's section score
            "page_best": {page: max(sec[sid] for sid in sids) for page, sids in by_page.items()}}


def section_scores(ev: list[dict[str, Any]], iv: list[dict[str, Any]], pv: list[Any], page: int,
                   named_sids: Any = ()) -> list[tuple[float, int]]:
    """``(score, sid)`` of the page's sections that hold a word or are a named object: the
    words' BM25 parts in query order, then the identifiers', then for each quoted phrase
    the section holds its words' parts once more."""
    out = []
    for sid in sorted({sid for e in ev for sid in e["by_page"].get(page, ())} | set(named_sids)):
        score = 0.0
        for e in ev:
            v = e["sec"].get(sid)
            if v is not None:
                score += v
        for e in iv:
            v = e["sec"].get(sid)
            if v is not None:
                score += v
        for sids, pw in pv:
            if sid in sids:
                for e in pw:
                    score += e["sec"][sid]
        out.append((score, sid))
    return out


class Candidates(NamedTuple):
    """The pages an answer ranks, and what each holds."""

    pages: list[int]  # in the order they were found (named pages last)
    count: dict[int, int]  # per page: how many of the query's words and phrases it holds
    needed: int  # words + phrases: what a full match holds
    full: bool  # does some page hold them all
    phrase_pages: list[set[int]]  # per phrase: the pages holding it
    tier: dict[int, int]  # per page holding a named object: its best tier
    named_by_page: dict[int, list[int]]  # per page: its named sections
    factor: dict[int, float]  # per page: its coverage to the power (engine/words.py), its score's factor
    heading: dict[int, int]  # per page with a heading that is (or starts with) the query: its best heading tier


def candidates(ev: list[dict[str, Any]], pv: list[Any], names: dict[int, int], heads: dict[int, int], firsts: list[int],
               page_ok: Callable[[int], bool] | None, weights: list[float]) -> Candidates:
    """Pages: how many words (and phrases) each holds and its coverage (``weights``: each
    word's, then each phrase's idf; engine/words.py); when some page holds all, those and the
    pages :meth:`Coverage.shown` keeps, else every page holding one; and every page holding
    an object the query names; ``heads``: the heading tiers by sid."""
    tier: dict[int, int] = {}
    named_by_page: dict[int, list[int]] = {}
    for sid in sorted(names):
        page = page_of(firsts, sid)
        tier[page] = min(tier.get(page, UNNAMED), names[sid])
        named_by_page.setdefault(page, []).append(sid)
    heading: dict[int, int] = {}
    for sid in sorted(heads):
        page = page_of(firsts, sid)
        heading[page] = min(heading.get(page, NO_HEADING), heads[sid])
    count: dict[int, int] = {}
    for e in ev:
        for page in e["page_part"]:
            count[page] = count.get(page, 0) + 1
    phrase_pages = [{page_of(firsts, sid) for sid in sids} for sids, _w in pv]
    for pages_k in phrase_pages:
        for page in pages_k:
            count[page] += 1
    needed = len(ev) + len(pv)  # every word and every phrase
    cover = Coverage(weights, [e["page_part"] for e in ev] + phrase_pages)
    pages = [page for page in count if page_ok is None or page_ok(page)]
    full = any(count[page] == needed for page in pages)
    coverage = {page: cover.of(page) for page in pages}
    if full:
        pages = [page for page in pages if count[page] == needed or cover.shown(page, coverage[page])]
    pages += [page for page in sorted(tier) if page not in pages]  # named pages always
    for page in tier:
        count.setdefault(page, 0)
        if page not in coverage:
            coverage[page] = cover.of(page)
    return Candidates(pages, count, needed, full, phrase_pages, tier, named_by_page,
                      {page: power(coverage[page]) for page in pages}, heading)


def rank_pages(ev: list[dict[str, Any]], iv: list[dict[str, Any]], pv: list[Any], found: Candidates,
               priors: list[float], limit: int) -> tuple[list[tuple[int, int, float, int]], dict[int, list[tuple[float, int]]]]:
    """The best ``limit`` candidate pages as ``(tier, heading tier, -score, page)``, best first,
    and the section scores computed on the way (by page).

    Every candidate's page part, and a bound on its score from each word's best section there:
    IEEE rounding is monotonic, so a sum of maxima (same order) bounds the best section's sum,
    and a product with the same non-negative factors bounds the product.  Pages are scored
    exactly in bound order until no bound can reach the limit-th score."""
    single = ev[0] if len(ev) == 1 and not iv and not pv and not found.tier else None  # its cached best section per page
    bounds = []
    for page in found.pages:
        part = 0.0
        top = 0.0
        for e in ev:
            v = e["page_part"].get(page)
            if v is not None:
                part += v
                top += e["page_best"][page]
        for e in iv:
            v = e["page_part"].get(page)
            if v is not None:
                part += v
                top += e["page_best"][page]
        for k, (_sids, pw) in enumerate(pv):
            if page in found.phrase_pages[k]:
                for e in pw:
                    top += e["page_best"][page]
        bounds.append((found.tier.get(page, UNNAMED), found.heading.get(page, NO_HEADING),
                       -((part + top) * priors[page] * found.factor[page]), page, part))
    bounds.sort()
    ranked: list[tuple[int, int, float, int]] = []
    scored: dict[int, list[tuple[float, int]]] = {}
    for page_tier, head_tier, neg_bound, page, part in bounds:
        if len(ranked) >= limit and (page_tier, head_tier, neg_bound) > ranked[limit - 1][:3]:
            break  # neither this page nor any after it can reach the shown pages
        if single is not None:
            best = single["page_best"][page]
        else:
            scored[page] = secs = section_scores(ev, iv, pv, page, found.named_by_page.get(page, ()))
            best = max(x for x, _sid in secs)
        ranked.append((page_tier, head_tier, -((part + best) * priors[page] * found.factor[page]), page))
        if len(ranked) >= limit:
            ranked.sort()
            del ranked[limit:]
    ranked.sort()
    return ranked, scored


def section_tier(sid: int, names: dict[int, int], heads: dict[int, int]) -> tuple[int, int]:
    """Section ``sid``'s tier among its page's hits, lower first: its object-name tier
    (``names``), then its heading tier (``heads``)."""
    return names.get(sid, UNNAMED), heads.get(sid, NO_HEADING)


def page_hits(secs: list[tuple[float, int]], names: dict[int, int], heads: dict[int, int],
              said: set[int] | frozenset[int] = frozenset()) -> list[tuple[float, int]]:
    """A page's hits, ``(score, sid)``: its named sections first (by tier), then its sections by
    heading tier (``heads``), then those holding the query as a sentence (``said``), then by
    score, then sid; the first always, further ones up to :data:`HITS_PER_PAGE` that score at
    least :data:`SUB_HIT_FLOOR` × the first's."""
    ranked = sorted((*section_tier(sid, names, heads), sid not in said, -x, sid) for x, sid in secs)
    floor = SUB_HIT_FLOOR * -ranked[0][3]
    return [(-neg, sid) for j, (_t, _h, _s, neg, sid) in enumerate(ranked) if j == 0 or -neg >= floor][:HITS_PER_PAGE]


def sentence_hits(index: Index, sentence: list[str], ev: list[dict[str, Any]], secs: list[tuple[float, int]],
                  prefix: bool, names: dict[int, int], heads: dict[int, int]) -> set[int]:
    """The sections of one page (``secs``) that hold the query as a sentence, as far as
    :func:`page_hits` can tell them apart: of the :data:`SENTENCE_SECTIONS` best-scoring ones
    holding every counted word, those whose text holds its terms in order.  Only the checks that
    can change the page's hits are made (each reads a section's text): the first hit is the
    best-scoring section of the first tier (names, then headings) that holds the sentence, else
    the tier's best; the others are drawn from the sections scoring at least
    :data:`SUB_HIT_FLOOR` × the first's, so a section below that is never checked."""
    full = sorted((-x, sid) for x, sid in secs if all(sid in e["acc"] for e in ev))[:SENTENCE_SECTIONS]
    if not full:
        return set()

    def tier(sid: int) -> tuple[int, int]:
        return section_tier(sid, names, heads)

    top = min(tier(sid) for _x, sid in secs)
    said: set[int] = set()
    checked: set[int] = set()
    first = None
    for neg, sid in full:
        if tier(sid) == top:
            checked.add(sid)
            if section_holds(index, sid, sentence, prefix):
                said.add(sid)
                first = -neg
                break
    if first is None:
        first = max(x for x, sid in secs if tier(sid) == top)
    floor = SUB_HIT_FLOOR * first
    said |= sections_holding(index, [sid for neg, sid in full if sid not in checked and -neg >= floor], sentence, prefix)
    return said


def page(index: Index, score: float, missing: list[str], partial: bool, found: list[Any], ev: list[dict[str, Any]],
         best: list[tuple[float, int]], said: Callable[[list[int]], list[str]]) -> dict[str, Any]:
    """One page of the answer, with its hits ``best``: each hit's snippet is cut for the
    word forms the section holds, its ``matched_terms`` are the query words it holds
    (``said``: the query text of those words, okf_sphinx/core/segment.py ``spans``)."""
    hits = []
    for score_s, sid in best:
        present = [i for i, e in enumerate(ev) if sid in e["acc"]]
        forms = [t for i in present for t, _w in found[i][0] if _holds(index, t, sid)]
        h = hit(index, sid, score_s, forms)
        h["matched_terms"] = said(present)
        hits.append(h)
    top = index.section(best[0][1])
    return {
        "concept_id": top["concept_id"],
        "title": top["title"],
        "path": top["page_path"],
        "url": top["url"].split("#", 1)[0],
        "score": score,
        "partial": partial,
        "missing_terms": missing,
        "hits": hits,
    }


def _holds(index: Index, term: str, sid: int) -> bool:
    p = index.posting(term)
    return p is not None and sid in p.positions


def search(index: Index, query: Any, limit: Any = 20, prefix: Any = False, under: Any = None, meta: Any = None,
           kind: Any = None, expand: Any = False, correct: Any = True, hit_sids_out: list[int] | None = None,
           state_out: dict[str, Any] | None = None) -> dict[str, Any]:
    """``search_sections`` in smart mode: the page-grouped answer of docs/smart.md;
    ``hit_sids_out`` (the blend's, engine/semantic.py) gets the sids of its hits in answer
    order, ``state_out`` whether some page holds every word (``full``), the query's terms as
    corrected (``terms``) and those of them that count (``counted``, engine/words.py)."""
    words, limit = prepare(index, query, limit)
    for name, value in (("prefix", prefix), ("expand", expand), ("correct", correct)):
        if not isinstance(value, bool):
            raise OkfError("schema_validation", f"{name} must be true or false, got {json_text(value)}", field=name)
    units, wanted, kinds = check_filters(under, meta, kind)
    m = smart_meta(index)
    table = index.load("smart", check_page_table(index.section_count))
    firsts, priors = table["firsts"], table["priors"]
    metas = index.load("meta", check_meta) if wanted is not None else {}
    paths = index.load("paths", check_paths(len(firsts))) if units is not None else []
    page_ok = page_filter(paths, units, wanted, metas)
    stem = stemmer(index)
    scoring = Scoring(table["lengths"], firsts, index.avglen, float(m["pavglen"]), *index.bm25)
    # the words smart mode matches: the query's terms, or on a CJK site their units
    # (okf_sphinx/core/segment.py); CJK units are neither completed, corrected nor spelled out
    cjk_site = segmenter(index) is not None
    if not cjk_site:
        found_units = [(w, 0, word) for w, word in enumerate(words)]
    else:
        found_units = segment.query_units(words)
    smart_words = [u for _w, _at, u in found_units]
    paired = [segment.has_cjk(u) for u in smart_words]
    last = len(smart_words) - 1
    # quoted phrases (their words all count), and which words count (engine/words.py): not the
    # stop words, unless being completed or quoted
    quoted = [ph for ph in phrases(index.normaliser, query) if all(t in smart_words for t in ph)]
    in_phrase = {smart_words.index(t) for ph in quoted for t in ph}
    kept = in_phrase | ({last} if prefix else set())
    stops = stop_words(m["language"])
    counts = counting(smart_words, stops, kept)

    # per word: its forms with their weights, and their idfs; a word without forms occurs nowhere
    # and, when a site's word is confidently what it misspells, is that word (``correct``)
    found: list[Any] = [None] * len(smart_words)
    fixes: dict[int, str] = {}
    for i, w in enumerate(smart_words):
        if not counts[i]:
            continue
        complete = prefix and i == last and not paired[i]
        found[i] = variants(index, w, stem, complete)
        if not found[i][0] and correct and not paired[i] and i not in in_phrase and words[found_units[i][0]] == w:
            fix = correction(index, w)
            if fix is not None:
                fixes[i] = fix
                found[i] = variants(index, fix, stem, complete)
                if fix in stops and i not in kept and any(c and j != i for j, c in enumerate(counts)):
                    counts[i] = False  # corrected into a stop word: it counts no more than one
    active = [i for i in range(len(smart_words)) if counts[i]]
    unknown = [smart_words[i] for i in active if not found[i][0] and not paired[i]]
    # the query as corrected: its terms, and the units smart mode matches (a corrected unit is a whole term)
    said_words = list(words)
    said_units = list(found_units)
    for i, fix in fixes.items():
        said_words[found_units[i][0]] = fix
        said_units[i] = (found_units[i][0], 0, fix)
    act_units = [said_units[i] for i in active]
    act_words = [u for _w, _at, u in act_units]
    found = [found[i] for i in active]

    def said(chosen: list[int]) -> list[str]:
        return segment.spans(said_words, act_units, chosen)

    idents = [(i, p) for i, p in ((i, index.posting(i, "x", m["id_shards"])) for i in query_identifiers(query))
              if p is not None]
    allowed = None
    if kinds is not None:  # a section-level filter: page sums change, so nothing cached applies
        union = sorted({sid for forms, _s, _p in found for t, _w in forms for sid in form_posting(index, t).sids})
        allowed = {sid for sid in union if (page_ok is None or page_ok(page_of(firsts, sid)))
                   and index.section(sid).get("kind", "section") in kinds}
    ev = [evidence(index, ("w", tuple(forms)), [(form_posting(index, t), w) for t, w in forms], sidf, pidf, scoring, allowed)
          for forms, sidf, pidf in found]
    iv = [evidence(index, ("x", ident), [(p, EXACT)], p.idf, p.idf, scoring, allowed) for ident, p in idents]
    # quoted phrases: the sections holding each, and the words whose section parts it adds again
    keep = lambda sid: (allowed is None or sid in allowed) and (page_ok is None or page_ok(page_of(firsts, sid)))  # noqa: E731
    pv = [(phrase_sections(index, ph, keep), [ev[act_words.index(t)] for t in ph]) for ph in quoted]
    # the objects the whole query names (they rank first)
    names = {sid: t for sid, t in named(index, query, kinds).items() if page_ok is None or page_ok(page_of(firsts, sid))}

    # each word counts by its page idf, each phrase by its words' (engine/words.py)
    weights = [pidf for _f, _s, pidf in found]
    for ph in quoted:
        total = 0.0
        for t in ph:
            total += weights[act_words.index(t)]
        weights.append(total)
    heads = {sid: t for sid, t in heading_tiers(index, words, prefix).items() if allowed is None or sid in allowed}
    pages = candidates(ev, pv, names, heads, firsts, page_ok, weights)
    ranked, scored = rank_pages(ev, iv, pv, pages, priors, limit)
    # a query of several words and no quoted phrase may be a sentence pasted from the site
    sentence = words if len(words) >= SENTENCE_TERMS and not quoted and not cjk_site and ev else None
    shown = []
    hit_sids: list[int] = []
    for _t, _h, neg, p in ranked[:limit]:
        secs = scored[p] if p in scored else section_scores(ev, iv, pv, p, pages.named_by_page.get(p, ()))
        best = page_hits(secs, names, heads, sentence_hits(index, sentence, ev, secs, prefix, names, heads) if sentence else frozenset())
        hit_sids += [sid for _s, sid in best]
        missing = (said([i for i, e in enumerate(ev) if p not in e["page_part"]])
                   + ['"' + " ".join(ph) + '"' for ph, pages_k in zip(quoted, pages.phrase_pages) if p not in pages_k])
        shown.append(page(index, -neg, missing, pages.count[p] < pages.needed, found, ev, best, said))
    total = len(pages.pages)
    result: dict[str, Any] = {"query": query, "mode": "smart", "terms": words}
    if fixes:
        result["corrected"] = {"query": corrected_query(index.normaliser, query, {smart_words[i]: f for i, f in fixes.items()}),
                               "words": [{"from": smart_words[i], "to": fixes[i]} for i in sorted(fixes)]}
    result.update({
        "snapshot_revision": index.snapshot_revision,
        "total": total,
        "truncated": total > limit,
        "pages": shown,
    })
    if hit_sids_out is not None:
        hit_sids_out.extend(hit_sids)
    if state_out is not None:
        state_out["full"] = pages.full
        state_out["terms"] = said_words
        state_out["counted"] = [said_words[w] for w in sorted({w for w, _at, _u in act_units})]
    if expand:
        result["expanded"] = expanded(index, hit_sids, lambda sid: (
            page_ok is None or page_ok(page_of(firsts, sid))) and (
            kinds is None or index.section(sid).get("kind", "section") in kinds))
    result["suggestions"] = [{"term": w, "candidates": suggestions(index, w)} for w in unknown]
    return check_size(result)
