"""Smart mode: the readers' ranking over the same index (docs/smart.md).

A query word matches its exact term, the other terms of its stem group
(``g/<shard>``, built with the site language's pinned stemmer) and, for the
last word with ``prefix``, the dictionary's completions (``d/<shard>``).  Its
weighted frequency in a section is ``1·f(exact) + 0.5·f(stem forms) +
0.25·f(completions)``: those sums of small binary fractions are exact, so their
order cannot change a bit.  Pages are ranked by page-level BM25 over the sum of
their sections' frequencies plus their best section's BM25, times the page's
prior; both BM25 parts use :func:`okf_sphinx.format.bm25_part` with the idf
floats the build stored.  Every float operation below runs in a fixed order
that okf-search.js repeats exactly.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Any, Callable

from . import format as fmt
from .errors import OkfError
from .format import bm25_part
from .query import MAX_RESPONSE_BYTES, hit
from .terms import validate_limit

if TYPE_CHECKING:
    from .index import Index

EXACT = 1.0
STEM = 0.5
PREFIX = 0.25
MAX_COMPLETIONS = 8  # dictionary completions of a prefix, most frequent first
MIN_PREFIX = 2  # code points a last word needs before it is completed
HITS_PER_PAGE = 3
MAX_SUGGESTIONS = 3

OPTIONS = ("prefix", "under", "meta", "kind")
_KIND = re.compile(r"^[a-z][a-z0-9_-]*(:[a-z0-9_.-]+)?$")


def _corrupt(name: str, what: str) -> OkfError:
    return OkfError("index_corrupt", f"index file {name}.js is corrupt: {what}; rebuild the site", file=f"{name}.js")


def _check_pages(name: str, v: Any) -> dict[str, Any]:
    from .index import is_int

    rows = v.get("pages") if isinstance(v, dict) else None
    if not isinstance(rows, list) or not all(
        isinstance(r, list) and len(r) == 5 and is_int(r[0]) and is_int(r[1]) and is_int(r[2])
        and isinstance(r[3], (int, float)) and not isinstance(r[3], bool) and r[3] > 0 and isinstance(r[4], str)
        for r in rows
    ):
        raise _corrupt(name, "the page table is malformed")
    return {"rows": rows, "firsts": [r[0] for r in rows]}


def _check_groups(name: str, v: Any) -> dict[str, Any]:
    if not isinstance(v, dict) or not all(
        isinstance(e, list) and len(e) == 3 and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in e[:2])
        and isinstance(e[2], list) and all(isinstance(t, str) for t in e[2]) for e in v.values()
    ):
        raise _corrupt(name, "a stem-group shard is malformed")
    return v


def _check_dict(name: str, v: Any) -> dict[str, Any]:
    from .index import is_int

    if not isinstance(v, dict) or not all(
        isinstance(e, list) and all(isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) and is_int(x[1]) for x in e)
        for e in v.values()
    ):
        raise _corrupt(name, "a dictionary shard is malformed")
    return v


def smart_meta(index: Index) -> dict[str, Any]:
    m = index.manifest.get("smart")
    if not isinstance(m, dict):
        raise OkfError(
            "index_version_unsupported",
            "this index has no smart-mode data (built by an older okf_sphinx): rebuild the site, or use mode='keyword'",
        )
    return m


def stemmer(index: Index) -> Callable[[str], str] | None:
    """The build's stemmer, when this package pins the same version; else exact words only."""
    from .stemmer import STEMMER_VERSION, stemmer_for

    m = smart_meta(index)
    if not m.get("stemmer") or m.get("stemmer_version") != STEMMER_VERSION:
        return None
    return stemmer_for(m.get("language") or "en")


def group(index: Index, stem: str) -> list[Any] | None:
    shard = index._load(fmt.stem_shard_name(stem, smart_meta(index)["stem_shards"]), _check_groups)
    return shard.get(stem)


def dictionary(index: Index, key: str) -> list[list[Any]]:
    shard = index._load(fmt.dict_shard_name(key, smart_meta(index)["dict_shards"]), _check_dict)
    return shard.get(key, [])


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


def variants(index: Index, word: str, stem: Callable[[str], str] | None, complete: bool) -> tuple[list[tuple[str, float]], float, float]:
    """``([(term, weight)], section idf, page idf)`` of one query word; no terms: it occurs nowhere."""
    g = group(index, stem(word) if stem is not None else word)
    out: list[tuple[str, float]] = []
    sidf = pidf = 0.0
    if g is not None:
        sidf, pidf = float(g[0]), float(g[1])
        if word in g[2]:
            out.append((word, EXACT))
        out += [(t, STEM) for t in g[2] if t != word]
    if complete and len(word) >= MIN_PREFIX:
        have = {t for t, _w in out}
        extra = [t for t, _df in dictionary(index, fmt.dict_key(word)) if t.startswith(word) and t not in have]
        extra = extra[:MAX_COMPLETIONS]
        if extra and g is None:
            # the word is no whole word of the site: weigh it as its most frequent completion's group
            first = group(index, stem(extra[0]) if stem is not None else extra[0])
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


def _page_ok(row: list[Any], page: int, units: list[str] | None, wanted: dict[str, str] | None, metas: dict[str, Any]) -> bool:
    if units is not None and _stem_path(row[4])[: len(units)] != units:
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


def search(index: Index, query: Any, limit: Any = 20, prefix: Any = False, under: Any = None, meta: Any = None,
           kind: Any = None) -> dict[str, Any]:
    words = index.normaliser.query_terms(query)
    limit = validate_limit(limit)
    if not isinstance(prefix, bool):
        raise OkfError("schema_validation", f"prefix must be true or false, got {prefix!r}", field="prefix")
    units, wanted, kinds = check_filters(under, meta, kind)
    m = smart_meta(index)
    pages = index._load("smart", _check_pages)
    rows, firsts = pages["rows"], pages["firsts"]
    metas = index._load("meta", _check_meta) if wanted is not None else {}
    stem = stemmer(index)
    avglen, pavglen = index.avglen, float(m["pavglen"])

    # per word: sid -> weighted frequency, and which of its terms each section holds
    freqs: list[dict[str, Any]] = []
    idfs: list[tuple[float, float]] = []
    unknown: list[str] = []
    length: dict[int, int] = {}
    for i, word in enumerate(words):
        forms, sidf, pidf = variants(index, word, stem, prefix and i == len(words) - 1)
        acc: dict[int, float] = {}
        for term, weight in forms:
            p = index.posting(term)
            if p is None:
                raise OkfError("index_corrupt", f"stem group term {term!r} has no postings; rebuild the site")
            for sid, f, n in zip(p.sids, p.freqs, p.lengths):
                acc[sid] = acc.get(sid, 0.0) + weight * f
                length[sid] = n
        if not forms:
            unknown.append(word)
        freqs.append({"acc": acc, "forms": forms})
        idfs.append((sidf, pidf))

    if units is not None or wanted is not None or kinds is not None:
        length = {sid: n for sid, n in length.items() if _allowed(index, sid, rows, firsts, units, wanted, metas, kinds)}

    # identifiers as written: a section holding one whole gets its BM25 part on top
    idents: list[str] = []
    for ident in fmt.identifiers(query):
        if ident not in idents and len(idents) < fmt.MAX_QUERY_IDENTIFIERS:
            idents.append(ident)
    id_postings = [p for p in (index.posting(i, "x", m["id_shards"]) for i in idents) if p is not None]

    # sections: BM25 over the words they hold, in query order, then over the identifiers
    section_score: dict[int, float] = {}
    for sid in sorted(length):
        score = 0.0
        for w, (sidf, _p) in zip(freqs, idfs):
            f = w["acc"].get(sid)
            if f is not None:
                score += bm25_part(sidf, f, length[sid], avglen)
        for p in id_postings:
            j = p.positions.get(sid)
            if j is not None:
                score += bm25_part(p.idf, p.freqs[j], length[sid], avglen)
        section_score[sid] = score

    # pages: summed frequencies, best section, matched words
    page_tf: dict[int, list[float]] = {}
    best: dict[int, float] = {}
    for sid in sorted(section_score):
        page = bisect.bisect_right(firsts, sid) - 1
        tf = page_tf.get(page)
        if tf is None:
            tf = page_tf[page] = [0.0] * (len(words) + len(id_postings))
            best[page] = section_score[sid]
        elif section_score[sid] > best[page]:
            best[page] = section_score[sid]
        for i, w in enumerate(freqs):
            f = w["acc"].get(sid)
            if f is not None:
                tf[i] += f
        for k, p in enumerate(id_postings):
            j = p.positions.get(sid)
            if j is not None:
                tf[len(words) + k] += p.freqs[j]
    ranked = []
    for page, tf in page_tf.items():
        row = rows[page]
        score = 0.0
        matched = 0
        for i, (_s, pidf) in enumerate(idfs):
            if tf[i] > 0:
                score += bm25_part(pidf, tf[i], row[2], pavglen)
                matched += 1
        for k, p in enumerate(id_postings):  # identifiers: their section idf, over the page
            if tf[len(words) + k] > 0:
                score += bm25_part(p.idf, tf[len(words) + k], row[2], pavglen)
        score = (score + best[page]) * row[3]
        ranked.append((-matched, -score, page))
    ranked.sort()
    full = bool(ranked) and -ranked[0][0] == len(words)
    if full:
        ranked = [r for r in ranked if -r[0] == len(words)]
    shown = [_page(index, rows[page], page, -neg, tf_missing(words, page_tf[page]), not full, freqs, section_score, words)
             for _m, neg, page in ranked[:limit]]
    result = {
        "query": query,
        "mode": "smart",
        "terms": words,
        "snapshot_revision": index.snapshot_revision,
        "total": len(ranked),
        "truncated": len(ranked) > limit,
        "pages": shown,
        "suggestions": [{"term": w, "candidates": suggestions(index, w)} for w in unknown],
    }
    size = len(fmt.canonical_json(result, sort_keys=False).encode("utf-8"))
    if size > MAX_RESPONSE_BYTES:
        raise OkfError("resource_limit", f"the answer is {size} bytes, over the 1 MiB limit: lower limit", limit=MAX_RESPONSE_BYTES, actual=size)
    return result


def _allowed(index: Index, sid: int, rows: list[list[Any]], firsts: list[int], units: list[str] | None,
             wanted: dict[str, str] | None, metas: dict[str, Any], kinds: list[str] | None) -> bool:
    page = bisect.bisect_right(firsts, sid) - 1
    if not _page_ok(rows[page], page, units, wanted, metas):
        return False
    return kinds is None or index.section(sid).get("kind", "section") in kinds


def tf_missing(words: list[str], tf: list[float]) -> list[str]:
    return [w for w, f in zip(words, tf) if not f > 0]


def _page(index: Index, row: list[Any], page: int, score: float, missing: list[str], partial: bool,
          freqs: list[dict[str, Any]], section_score: dict[int, float], words: list[str]) -> dict[str, Any]:
    first, count = row[0], row[1]
    sids = sorted((-section_score[s], s) for s in range(first, first + count) if s in section_score)[:HITS_PER_PAGE]
    hits = []
    for neg, sid in sids:
        present = [i for i, w in enumerate(freqs) if sid in w["acc"]]
        matched = [words[i] for i in present]
        forms = [t for i in present for t, _w in freqs[i]["forms"] if _holds(index, t, sid)]
        h = hit(index, sid, -neg, forms)
        h["matched_terms"] = matched
        hits.append(h)
    top = index.section(sids[0][1])
    return {
        "concept_id": top["concept_id"],
        "title": top["title"],
        "path": row[4],
        "url": top["url"].split("#", 1)[0],
        "score": score,
        "partial": partial,
        "missing_terms": missing,
        "hits": hits,
    }


def _holds(index: Index, term: str, sid: int) -> bool:
    p = index.posting(term)
    return p is not None and sid in p.positions
