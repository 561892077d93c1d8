"""Smart mode: the readers' ranking over the same index (docs/smart.md).

A query word matches its exact term, the other terms of its stem group
(``g/<shard>``, built with the site language's pinned stemmer) and, for the
last word with ``prefix``, the dictionary's completions (``d/<shard>``).  Its
weighted frequency in a section is ``1·f(exact) + 0.5·f(stem forms) +
0.25·f(completions)``: those sums of small binary fractions are exact, so their
order cannot change a bit.  Pages are ranked by page-level BM25 over the sum of
their sections' frequencies plus their best section's BM25, times the page's
prior; both BM25 parts use :func:`okf_sphinx.core.index_format.bm25_part` with the idf
floats the build stored.  Every float operation below runs in a fixed order
that okf-search.js repeats exactly.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Any, Callable

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.errors import OkfError
from okf_sphinx.core.index_format import bm25_part
from okf_sphinx.core.terms import validate_limit

from .query import MAX_RESPONSE_BYTES, hit

if TYPE_CHECKING:
    from .index import Index

EXACT = 1.0
STEM = 0.5
PREFIX = 0.25
MAX_COMPLETIONS = 8  # dictionary completions of a prefix, most frequent first
MAX_COMPLETION_GROUPS = 3  # stem groups they come from besides the word's own (each is a posting shard to read)
MIN_PREFIX = 2  # code points a last word needs before it is completed
HITS_PER_PAGE = 3
SUB_HIT_FLOOR = 0.7  # a page's further hits score at least this × its first hit's score (docs/smart.md)
MAX_SUGGESTIONS = 3
MAX_PHRASES = 4  # quoted phrases of a query that are checked
MAX_PHRASE_SECTIONS = 200  # sections whose text one phrase is checked in; beyond, its words suffice
_QUOTE = re.compile("[\"\u201c\u201d]")

OPTIONS = ("prefix", "under", "meta", "kind", "expand")
MAX_EXPANDED = 5  # sections that link expansion adds to an answer
VIAS = ("ref", "doc", "toctree", "object")
_KIND = re.compile(r"^[a-z][a-z0-9_-]*(:[a-z0-9_.-]+)?$")


def _corrupt(name: str, what: str) -> OkfError:
    return OkfError("index_corrupt", f"index file {name}.js is corrupt: {what}; rebuild the site", file=f"{name}.js")


def _page_table_check(sections: int) -> Callable[[str, Any], dict[str, Any]]:
    """The page table's check: integer lists ``counts`` (each > 0, adding up to ``sections``)
    and ``lengths``, and ``priors`` (each > 0), one per page; rows ``[first sid, sections,
    length, prior]`` come back."""
    from okf_sphinx.core.index_format import decode_ints

    def check(name: str, v: Any) -> dict[str, Any]:
        counts = decode_ints(v.get("counts")) if isinstance(v, dict) else None
        lengths = decode_ints(v.get("lengths")) if isinstance(v, dict) else None
        priors = v.get("priors") if isinstance(v, dict) else None
        if counts is None or lengths is None or not isinstance(priors, list) or not (
                len(counts) == len(lengths) == len(priors)) or not all(c > 0 for c in counts) or not all(
                isinstance(p, (int, float)) and not isinstance(p, bool) and p > 0 for p in priors):
            raise _corrupt(name, "the page table is malformed")
        rows = []
        at = 0
        for row in zip(counts, lengths, priors):
            rows.append([at, *row])
            at += row[0]
        if at != sections:
            raise _corrupt(name, "the page table does not cover the sections in order")
        return {"rows": rows, "firsts": [r[0] for r in rows]}

    return check


def _paths_check(pages: int) -> Callable[[str, Any], list[str]]:
    """``paths.js``: one source path per page of the page table."""
    def check(name: str, v: Any) -> list[str]:
        if not (isinstance(v, list) and len(v) == pages and all(isinstance(p, str) for p in v)):
            raise _corrupt(name, "the page paths are malformed")
        return v

    return check


def _check_dict(name: str, v: Any) -> dict[str, Any]:
    from okf_sphinx.core.index_format import is_int

    if not isinstance(v, dict) or not all(
        isinstance(e, list) and all(isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) and is_int(x[1]) for x in e)
        for e in v.values()
    ):
        raise _corrupt(name, "a dictionary shard is malformed")
    return v


def smart_meta(index: Index) -> dict[str, Any]:
    from okf_sphinx.core.index_format import is_int

    m = index.manifest.get("smart")
    if m is None:
        raise OkfError(
            "index_version_unsupported",
            "this index has no smart-mode data (built by an older okf_sphinx): rebuild the site, or use mode='keyword'",
        )
    if not (isinstance(m, dict) and all(is_int(m.get(k)) and m[k] >= 1 for k in ("dict_shards", "id_shards"))
            and is_int(m.get("pages")) and m["pages"] >= 0 and isinstance(m.get("language"), str)
            and (m.get("name_shards") is None or (is_int(m["name_shards"]) and m["name_shards"] >= 1))
            and isinstance(m.get("stemmer"), bool) and isinstance(m.get("stemmer_version"), str)
            and isinstance(m.get("pavglen"), (int, float)) and not isinstance(m.get("pavglen"), bool) and m["pavglen"] > 0):
        raise _corrupt("manifest", "the smart block is missing or invalid")
    return m


def stemmer(index: Index) -> Callable[[str], str] | None:
    """The build's stemmer (None: the site's language has none, words match exactly)."""
    return index.stem


def group(index: Index, stem: str) -> list[Any] | None:
    """The stem group ``[section idf, page idf, [terms]]`` of ``stem``, from the posting shard
    that also holds those terms' posting lists."""
    return index.shard(fmt.shard_name(stem, index.shards))["groups"].get(stem)


def dictionary(index: Index, key: str) -> list[list[Any]]:
    shard = index._load(fmt.dict_shard_name(key, smart_meta(index)["dict_shards"]), _check_dict)
    return shard.get(key, [])


def _check_names(name: str, v: Any) -> dict[str, Any]:
    from okf_sphinx.core.index_format import is_int

    if not isinstance(v, dict) or not all(
        isinstance(e, list) and all(isinstance(x, list) and len(x) == 3 and isinstance(x[0], str) and isinstance(x[1], str)
                                    and is_int(x[2]) and x[2] >= 0 for x in e)
        for e in v.values()
    ):
        raise _corrupt(name, "an object-name shard is malformed")
    return v


#: Tiers of the exact-name boost: the query is an object's full name, or a dotted tail of it
#: (its short name included), each as written before ignoring ASCII case; every other section
#: is :data:`UNNAMED`.
FULL_NAME, FULL_NAME_ANY_CASE, TAIL_NAME, TAIL_NAME_ANY_CASE, UNNAMED = 0, 1, 2, 3, 4


def named(index: Index, query: str, kinds: list[str] | None) -> dict[int, int]:
    """``sid → tier`` of the searchable objects (of ``kinds``) the whole query names (``n/<shard>``)."""
    shards = smart_meta(index).get("name_shards", 0)
    written = fmt.object_name_query(query)
    if not shards or written is None:
        return {}
    q = fmt.ascii_lower(written)
    shard = index._load(fmt.name_shard_name(fmt.name_key(q), shards), _check_names)
    out: dict[int, int] = {}
    for name, kind, sid in shard.get(fmt.name_key(q), []):
        if kinds is not None and kind not in kinds:
            continue
        if sid >= index.section_count:
            raise _corrupt("manifest", "an object-name shard refers to a section past the searchable ones")
        lowered = fmt.ascii_lower(name)
        if lowered == q:
            out[sid] = FULL_NAME if name == written else FULL_NAME_ANY_CASE
        elif lowered.endswith("." + q):
            out[sid] = TAIL_NAME if name.endswith("." + written) else TAIL_NAME_ANY_CASE
    return out


def osa_distance(a: str, b: str, cap: int) -> int:
    """Optimal-string-alignment edit distance over code points; ``cap + 1`` once it exceeds ``cap``."""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
        if min(cur) > cap:
            return cap + 1
        prev2, prev = prev, cur
    return prev[len(b)]


def suggestions(index: Index, word: str) -> list[str]:
    """Up to 3 close spellings of ``word`` from the index's own dictionary."""
    cap = 1 if len(word) <= 4 else 2
    scored = []
    for n, (term, _df) in enumerate(dictionary(index, fmt.dict_key(word))):
        d = osa_distance(word, term, cap)
        if d <= cap:
            scored.append((d, n, term))  # n: the dictionary's order (df descending, then term)
    scored.sort()
    return [t for _d, _n, t in scored[:MAX_SUGGESTIONS]]


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
        sidf, pidf = float(g[0]), float(g[1])
        if word in g[2]:
            out.append((word, EXACT))
        out += [(t, STEM) for t in g[2] if t != word]
    if complete and len(word) >= MIN_PREFIX:
        have = {t for t, _w in out}
        extra = completions([t for t, _df in dictionary(index, fmt.dict_key(word))], word, have, stem)
        if extra and g is None:
            # the word is no whole word of the site: weigh it as its most frequent completion's group
            first = group(index, fmt.posting_key(extra[0], stem))
            if first is None:
                raise OkfError("index_corrupt", f"dictionary term {extra[0]!r} has no stem group; rebuild the site")
            sidf, pidf = float(first[0]), float(first[1])
        out += [(t, PREFIX) for t in extra]
    return out, sidf, pidf


def _bad(field: str, what: str, value: Any) -> OkfError:
    return OkfError("schema_validation", f"{field} must be {what}, got {value!r}", field=field)


def check_filters(under: Any, meta_filter: Any, kind: Any) -> tuple[list[str] | None, dict[str, str] | None, list[str] | None]:
    """The filters as the engine uses them: path units, metadata pairs, kinds."""
    units = None
    if under is not None:
        if not isinstance(under, str) or not under.strip("/") or "\\" in under or under.startswith("/"):
            raise _bad("under", "a path prefix relative to the site's source root, such as 'guide' or 'ref/contrib'", under)
        units = under.strip("/").split("/")
        if any(u in ("", ".", "..") for u in units):
            raise _bad("under", "a path prefix relative to the site's source root, such as 'guide' or 'ref/contrib'", under)
    if meta_filter is not None:
        if not isinstance(meta_filter, dict) or not meta_filter or not all(
            isinstance(k, str) and k and isinstance(v, str) for k, v in meta_filter.items()
        ):
            raise _bad("meta", "an object of page metadata fields and their text values, such as {\"status\": \"draft\"}", meta_filter)
    kinds = None
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else kind
        if not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) and _KIND.match(k) for k in kinds):
            raise _bad("kind", "'section' or an object kind such as 'py:function' (or a list of them)", kind)
    return units, meta_filter, kinds


def _stem_path(path: str) -> list[str]:
    """A page's source path as units, its file suffix dropped (``guide/install.rst`` -> guide, install)."""
    units = path.split("/")
    name = units[-1]
    dot = name.rfind(".")
    if 0 < dot < len(name) - 1:
        units[-1] = name[:dot]
    return units


def _page_ok(paths: list[str], page: int, units: list[str] | None, wanted: dict[str, str] | None,
             metas: dict[str, Any]) -> bool:
    if units is not None and _stem_path(paths[page])[: len(units)] != units:
        return False
    if wanted is not None:
        have = metas.get(str(page), {})
        for key, value in wanted.items():
            v = have.get(key)
            if not (v == value or (isinstance(v, list) and value in v)):
                return False
    return True


def _check_meta(name: str, v: Any) -> dict[str, Any]:
    if not isinstance(v, dict) or not all(
        isinstance(m, dict) and all(isinstance(x, str) or (isinstance(x, list) and all(isinstance(y, str) for y in x)) for x in m.values())
        for m in v.values()
    ):
        raise _corrupt(name, "the page metadata is malformed")
    return v


def phrases(normaliser: Any, query: str) -> list[list[str]]:
    """The quoted phrases of a query (``"…"``, ``“…”``; quote marks pair up in order), as terms:
    those of at least two terms, distinct, in order, at most :data:`MAX_PHRASES`."""
    marks = [m.start() for m in _QUOTE.finditer(query)]
    out: list[list[str]] = []
    for a, b in zip(marks[0::2], marks[1::2]):
        terms = normaliser.terms(query[a + 1 : b])
        if len(terms) >= 2 and terms not in out and len(out) < MAX_PHRASES:
            out.append(terms)
    return out


def _holds_phrase(terms: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(terms[i : i + n] == phrase for i in range(len(terms) - n + 1))


def _phrase_sections(index: Index, phrase: list[str], keep: Callable[[int], bool]) -> set[int]:
    """Sections that hold the phrase's words in order, checked in their text (the first
    :data:`MAX_PHRASE_SECTIONS` by sid that hold all its words exactly; later ones count as holding it)."""
    postings = [index.posting(t) for t in phrase]
    if any(p is None for p in postings):
        return set()
    rest = [p.positions for p in postings[1:]]
    both = [sid for sid in postings[0].sids if all(sid in r for r in rest) and keep(sid)]
    found = {sid for sid in both[:MAX_PHRASE_SECTIONS]
             if _holds_phrase(index.normaliser.terms(index.section(sid)["text"]), phrase)}
    return found | set(both[MAX_PHRASE_SECTIONS:])


def search(index: Index, query: Any, limit: Any = 20, prefix: Any = False, under: Any = None, meta: Any = None,
           kind: Any = None, expand: Any = False) -> dict[str, Any]:
    words = index.normaliser.query_terms(query)
    limit = validate_limit(limit)
    for name, value in (("prefix", prefix), ("expand", expand)):
        if not isinstance(value, bool):
            raise OkfError("schema_validation", f"{name} must be true or false, got {value!r}", field=name)
    units, wanted, kinds = check_filters(under, meta, kind)
    m = smart_meta(index)
    pages = index._load("smart", _page_table_check(index.section_count))
    rows, firsts = pages["rows"], pages["firsts"]
    metas = index._load("meta", _check_meta) if wanted is not None else {}
    paths = index._load("paths", _paths_check(len(rows))) if units is not None else []
    stem = stemmer(index)
    avglen, pavglen = index.avglen, float(m["pavglen"])

    page_ok = (lambda page: _page_ok(paths, page, units, wanted, metas)) if units or wanted is not None else None

    # per word: its forms with their weights, and their idfs; a word without forms occurs nowhere
    found = [variants(index, word, stem, prefix and i == len(words) - 1) for i, word in enumerate(words)]
    unknown = [w for w, (forms, _s, _p) in zip(words, found) if not forms]
    idents: list[str] = []
    for ident in fmt.identifiers(query):
        if ident not in idents and len(idents) < fmt.MAX_QUERY_IDENTIFIERS:
            idents.append(ident)
    id_postings = [p for p in (index.posting(i, "x", m["id_shards"]) for i in idents) if p is not None]

    allowed = None
    if kinds is not None:  # a section-level filter: page sums change, so nothing cached applies
        union = sorted({sid for forms, _s, _p in found for t, _w in forms for sid in _posting(index, t).sids})
        allowed = {sid for sid in union if (page_ok is None or page_ok(bisect.bisect_right(firsts, sid) - 1))
                   and index.section(sid).get("kind", "section") in kinds}
    ctx = (rows, firsts, avglen, pavglen)
    ev = [_evidence(index, ("w", tuple(forms)), [(_posting(index, t), w) for t, w in forms], sidf, pidf, ctx, allowed)
          for forms, sidf, pidf in found]
    iv = [_evidence(index, ("x", ident), [(p, EXACT)], p.idf, p.idf, ctx, allowed) for ident, p in zip(idents, id_postings)]
    # quoted phrases: the sections holding each, and the words whose section parts it adds again
    quoted = [ph for ph in phrases(index.normaliser, query) if all(t in words for t in ph)]
    keep = lambda sid: (allowed is None or sid in allowed) and (  # noqa: E731
        page_ok is None or page_ok(bisect.bisect_right(firsts, sid) - 1))
    pv = [(_phrase_sections(index, ph, keep), [ev[words.index(t)] for t in ph]) for ph in quoted]

    # the objects the whole query names, and each page's best tier (they rank first)
    names = {sid: t for sid, t in named(index, query, kinds).items() if page_ok is None
             or page_ok(bisect.bisect_right(firsts, sid) - 1)}
    tier: dict[int, int] = {}
    by_page_named: dict[int, list[int]] = {}
    for sid in sorted(names):
        page = bisect.bisect_right(firsts, sid) - 1
        tier[page] = min(tier.get(page, UNNAMED), names[sid])
        by_page_named.setdefault(page, []).append(sid)

    # pages: how many words each holds; when some page holds all, only those
    count: dict[int, int] = {}
    for e in ev:
        for page in e["page_part"]:
            count[page] = count.get(page, 0) + 1
    phrase_pages = [{bisect.bisect_right(firsts, sid) - 1 for sid in sids} for sids, _w in pv]
    for pages_k in phrase_pages:
        for page in pages_k:
            count[page] += 1
    needed = len(words) + len(pv)  # every word and every phrase
    candidates = [page for page in count if page_ok is None or page_ok(page)]
    full = any(count[page] == needed for page in candidates)
    if full:
        candidates = [page for page in candidates if count[page] == needed]
    candidates += [page for page in sorted(tier) if page not in candidates]  # named pages always
    for page in tier:
        count.setdefault(page, 0)
    # Every candidate's page part, and a bound on its score from each word's best section there:
    # IEEE rounding is monotonic, so a sum of maxima (same order) bounds the best section's sum.
    # Pages are scored exactly in bound order until no bound can reach the limit-th score.
    bounds = []
    for page in candidates:
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
            if page in phrase_pages[k]:
                for e in pw:
                    top += e["page_best"][page]
        bounds.append((tier.get(page, UNNAMED), -count[page], -((part + top) * rows[page][3]), page, part))
    bounds.sort()
    ranked: list[tuple[int, int, float, int]] = []
    scored: dict[int, list[tuple[float, int]]] = {}
    # one word and no named object: its cached best section per page
    single = ev[0] if len(ev) == 1 and not iv and not pv and not tier else None
    for page_tier, neg_count, neg_bound, page, part in bounds:
        if len(ranked) >= limit and (page_tier, neg_count, neg_bound) > ranked[limit - 1][:3]:
            break  # neither this page nor any after it can reach the shown pages
        if single is not None:
            best = single["page_best"][page]
        else:
            scored[page] = secs = _section_scores(ev, iv, pv, page, by_page_named.get(page, ()))
            best = max(x for x, _sid in secs)
        ranked.append((page_tier, neg_count, -((part + best) * rows[page][3]), page))
        if len(ranked) > limit:
            ranked.sort()
            del ranked[limit:]
        elif len(ranked) == limit:
            ranked.sort()
    ranked.sort()
    total = len(candidates)
    hit_sids: list[int] = []
    shown = [_page(index, -neg, [w for w, e in zip(words, ev) if page not in e["page_part"]]
                   + ['"' + " ".join(ph) + '"' for ph, pages_k in zip(quoted, phrase_pages) if page not in pages_k],
                   not full or count[page] < needed, found, ev,
                   scored[page] if page in scored else _section_scores(ev, iv, pv, page, by_page_named.get(page, ())),
                   words, names, hit_sids)
             for _t, _m, neg, page in ranked[:limit]]
    result = {
        "query": query,
        "mode": "smart",
        "terms": words,
        "snapshot_revision": index.snapshot_revision,
        "total": total,
        "truncated": total > limit,
        "pages": shown,
    }
    if expand:
        result["expanded"] = expanded(index, hit_sids, lambda sid: (
            page_ok is None or page_ok(bisect.bisect_right(firsts, sid) - 1)) and (
            kinds is None or index.section(sid).get("kind", "section") in kinds))
    result["suggestions"] = [{"term": w, "candidates": suggestions(index, w)} for w in unknown]
    size = len(fmt.canonical_json(result, sort_keys=False).encode("utf-8"))
    if size > MAX_RESPONSE_BYTES:
        raise OkfError("resource_limit", f"the answer is {size} bytes, over the 1 MiB limit: lower limit", limit=MAX_RESPONSE_BYTES, actual=size)
    return result


def _posting(index: Index, term: str) -> Any:
    p = index.posting(term)
    if p is None:
        raise OkfError("index_corrupt", f"stem group term {term!r} has no postings; rebuild the site")
    return p



def _section_scores(ev: list[dict[str, Any]], iv: list[dict[str, Any]], pv: list[Any], page: int,
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


def _evidence(index: Index, key: tuple[Any, ...], postings: list[tuple[Any, float]], sidf: float, pidf: float,
              ctx: tuple[Any, ...], allowed: set[int] | None) -> dict[str, Any]:
    """One word's (or identifier's) evidence: weighted frequency and BM25 part per section,
    its sections per page and its page-level BM25 part per page. Cached per index when unfiltered."""
    if allowed is None:  # cached (and bounded) with the index's files, one build at a time
        return index.memo(("smart-evidence", key),
                          lambda: _compute_evidence(postings, sidf, pidf, ctx, None), _evidence_cost)
    return _compute_evidence(postings, sidf, pidf, ctx, allowed)


def _evidence_cost(evidence: dict[str, Any]) -> int:
    """Estimated bytes of one word's evidence (five small dicts per section or page)."""
    return 256 + 300 * len(evidence["acc"]) + 250 * len(evidence["page_part"])


def _compute_evidence(postings: list[tuple[Any, float]], sidf: float, pidf: float, ctx: tuple[Any, ...],
                      allowed: set[int] | None) -> dict[str, Any]:
    rows, firsts, avglen, pavglen = ctx
    acc: dict[int, float] = {}
    length: dict[int, int] = {}
    for p, weight in postings:
        for sid, f, n in zip(p.sids, p.freqs, p.lengths):
            if allowed is None or sid in allowed:
                acc[sid] = acc.get(sid, 0.0) + weight * f
                length[sid] = n
    sec = {sid: bm25_part(sidf, f, length[sid], avglen) for sid, f in acc.items()}
    by_page: dict[int, list[int]] = {}
    ptf: dict[int, float] = {}
    for sid in sorted(acc):
        page = bisect.bisect_right(firsts, sid) - 1
        by_page.setdefault(page, []).append(sid)
        ptf[page] = ptf.get(page, 0.0) + acc[sid]
    evidence = {"acc": acc, "sec": sec, "by_page": by_page,
                "page_part": {page: bm25_part(pidf, tf, rows[page][2], pavglen) for page, tf in ptf.items()},
                # 0.0 + part is the part itself: a one-word query's section score
                "page_best": {page: max(sec[sid] for sid in sids) for page, sids in by_page.items()}}
    return evidence


def _page(index: Index, score: float, missing: list[str], partial: bool, found: list[Any],
          ev: list[dict[str, Any]], secs: list[tuple[float, int]], words: list[str], names: dict[int, int],
          hit_sids: list[int]) -> dict[str, Any]:
    ranked = sorted((names.get(sid, UNNAMED), -x, sid) for x, sid in secs)
    floor = SUB_HIT_FLOOR * -ranked[0][1]  # the first hit is always one; the others clear the floor
    best = [r for j, r in enumerate(ranked) if j == 0 or -r[1] >= floor][:HITS_PER_PAGE]
    hits = []
    for _t, neg, sid in best:
        hit_sids.append(sid)
        present = [i for i, e in enumerate(ev) if sid in e["acc"]]
        forms = [t for i in present for t, _w in found[i][0] if _holds(index, t, sid)]
        h = hit(index, sid, -neg, forms)
        h["matched_terms"] = [words[i] for i in present]
        hits.append(h)
    top = index.section(best[0][2])
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


def _check_links(name: str, v: Any) -> dict[str, Any]:
    from okf_sphinx.core.index_format import is_int

    if not isinstance(v, dict) or not all(
        isinstance(k, str) and k.isdigit() and isinstance(e, list) and all(
            isinstance(x, list) and len(x) == 2 and is_int(x[0]) and x[0] >= 0 and x[1] in VIAS for x in e)
        for k, e in v.items()
    ):
        raise _corrupt(name, "a link shard is malformed")
    return v


def links(index: Index, sid: int) -> list[list[Any]]:
    """``[[to sid, via], …]`` of a searchable section, in document order (``l/<shard>``)."""
    from okf_sphinx.core.index_format import is_int

    firsts = smart_meta(index).get("link_firsts")
    if firsts is None:
        raise OkfError("index_version_unsupported",
                       "this index has no link data (built by an older okf_sphinx): rebuild the site, or leave out expand")
    if not isinstance(firsts, list) or not all(is_int(f) and f >= 0 for f in firsts) or any(
            a >= b for a, b in zip(firsts, firsts[1:])):
        raise _corrupt("manifest", "smart.link_firsts is invalid")
    k = bisect.bisect_right(firsts, sid) - 1
    if k < 0:
        return []
    return index._load(f"l/{k:x}", _check_links).get(str(sid), [])


def expanded(index: Index, sources: list[int], keep: Callable[[int], bool]) -> list[dict[str, Any]]:
    """Link expansion: the sections the answer's hits link to (each hit in answer order, its
    links in document order), none already a hit, each once, that pass the filters; at most
    :data:`MAX_EXPANDED`, each with ``via`` and the locator of the hit it came ``from``."""
    seen = set(sources)
    out: list[dict[str, Any]] = []
    for sid in sources:
        if len(out) >= MAX_EXPANDED:
            break
        for to, via in links(index, sid):
            if len(out) >= MAX_EXPANDED:
                return out
            if to in seen:
                continue
            if to >= index.section_count:
                raise _corrupt("manifest", "a link shard refers to a section past the searchable ones")
            seen.add(to)
            if not keep(to):
                continue
            h = hit(index, to, 0.0, [])
            s = index.section(to)
            out.append({"concept_id": h["concept_id"], "title": s["title"], "path": h["path"], "heading": h["heading"],
                        "url": s["url"], "locator": h["locator"], "line_start": h["line_start"],
                        "line_end": h["line_end"], "content_sha256": h["content_sha256"], "snippet": h["snippet"],
                        "via": via, "from": index.section(sid)["locator"]})
    return out


def _holds(index: Index, term: str, sid: int) -> bool:
    p = index.posting(term)
    return p is not None and sid in p.positions
