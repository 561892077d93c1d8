"""Build side of smart mode (docs/smart.md): the page table, stem groups and the dictionary.

Smart mode reuses the keyword index's section postings (``t/<shard>``) and
adds what the build computes once:

- ``smart.js``: every searchable page that has sections, in sid order: its
  section count and weighted length (integer lists) and prior, column by
  column (a page's first sid is the sum of the counts before it); ``paths.js``
  their source paths, which only the ``under`` filter reads;
- stem groups ``stem → [section df, page df, [terms]]``, the terms of the
  index that the site language's stemmer maps to ``stem``, which the index
  writer stores in the posting shard ``t/<shard of stem>`` beside those
  terms' posting lists (one file per query word finds all of its forms);
- ``d/<shard>``: the dictionary ``key → [[term, df], …]`` grouped by the
  first two code points of each term (prefix completion and spelling
  suggestions read one file), most frequent first;
- ``e/<shard>``: the same words (those corrections may lead to) filed under
  each of their edit keys, so a misspelt word finds its correction in three
  files (engine/spelling.py).
- ``h/<shard>``: every searchable heading's distinct terms, grouped like the
  dictionary by the first two code points of its first term (the heading
  tiers of docs/smart.md read one file).

The groups store dfs; the engines compute the idfs with ``core/index_format.stored_idf`` and
the smart block's ``idf_steps`` (page idfs), so no engine takes a logarithm at query time.
Imports nothing from Sphinx.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core import segment
from okf_sphinx.core.errors import BuildError, shown
from okf_sphinx.core.hosts import Host

from .sizing import FOLDERS, MAX_HASHED_SHARDS, Budget, large_site


def stemmer_for(language: str | None) -> tuple[Callable[[str], str] | None, str]:
    """The pinned stemmer for a Sphinx ``language`` and its version string."""
    from okf_sphinx.core.stemmer import STEMMER_VERSION
    from okf_sphinx.core.stemmer import stemmer_for as pinned

    return pinned(language or "en"), STEMMER_VERSION


@dataclass
class PageSpan:
    """One searchable page: its sections are sids ``first … first + count - 1``."""

    first: int
    count: int
    path: str
    docname: str = ""
    prior: float = 1.0  # the author's weight (metadata, okf_search_weights), then × the structure's
    meta: dict[str, Any] | None = None


#: ``okf_search_weights``' (MkDocs: ``weights``) default: change logs and release notes stay
#: findable, below the pages they describe (patterns match the docname, case-insensitively; the
#: first match wins).
DEFAULT_WEIGHTS: dict[str, float] = {
    pattern: 0.5
    for pattern in ("*changelog*", "*change-log*", "*change_log*", "*changes", "*release-notes*",
                    "*release_notes*", "*releasenotes*", "*whatsnew*", "*whats-new*", "*whats_new*",
                    "*news", "history", "*/history", "*/history-*")
}
#: The page metadata field (RST file-wide field list, MyST front matter) that sets a page's weight.
WEIGHT_FIELD = "okf-search-weight"
MAX_WEIGHT = 100.0


def check_weight(value: Any, where: str) -> float:
    """A page weight: a finite number in (0, 100]; anything else names ``where`` and the value."""
    try:
        weight = float(value) if not isinstance(value, bool) else float("nan")
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int past a float's range
        weight = float("nan")
    if not 0 < weight <= MAX_WEIGHT:
        raise ValueError(f"{where} must be a number above 0 and at most {MAX_WEIGHT:g}, got {shown(value)}")
    return weight


def check_weights(value: Any, host: Host) -> list[tuple[str, float]]:
    """``okf_search_weights`` (MkDocs: ``weights``): a dict (or list of pairs) of docname pattern -> weight."""
    name = host.setting("weights")
    pairs = list(value.items()) if isinstance(value, dict) else value
    if not isinstance(pairs, (list, tuple)) or not all(
        isinstance(p, (list, tuple)) and len(p) == 2 and isinstance(p[0], str) for p in pairs
    ):
        raise ValueError(f"{name} must map docname patterns to weights, got {value!r}")
    return [(pattern, check_weight(w, f"{name}[{pattern!r}]")) for pattern, w in pairs]


def page_prior(docname: str, weights: list[tuple[str, float]], metadata: dict[str, Any]) -> float:
    """The page's prior: its ``okf-search-weight`` metadata, else the first matching pattern's weight, else 1."""
    if WEIGHT_FIELD in metadata:
        try:
            return check_weight(metadata[WEIGHT_FIELD], f"okf_sphinx: page {docname}: the {WEIGHT_FIELD} field")
        except ValueError as exc:
            raise BuildError(f"{exc}; no search index was written") from None
    import fnmatch

    lowered = docname.lower()
    for pattern, weight in weights:
        if fnmatch.fnmatchcase(lowered, pattern.lower()):
            return weight
    return 1.0


def page_meta(metadata: dict[str, Any]) -> dict[str, Any]:
    """The filterable metadata of a page: strings (scalars as text) and lists of strings."""
    out: dict[str, Any] = {}
    for key, value in metadata.items():
        if isinstance(value, bool):
            out[key] = "true" if value else "false"
        elif isinstance(value, (str, int, float)):
            out[key] = str(value)
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            out[key] = list(value)
    return out


def _shard_count(size: int, target: int, budget: int = MAX_HASHED_SHARDS, largest: int | None = None,
                 cap: int = MAX_HASHED_SHARDS) -> int:
    """The power of two of shards that brings each near ``target`` bytes, at most about
    ``budget`` of them — unless shards would then exceed ``largest`` bytes — and at most
    ``cap`` (:data:`MAX_HASHED_SHARDS`)."""
    shards = 1
    while shards * 2 <= cap and ((size / shards > target and shards * 2 <= budget)
                                 or (largest is not None and size / shards > largest)):
        shards *= 2
    return shards


def build_smart(
    postings: Mapping[str, Sequence[int]],
    lengths: Sequence[int],
    pages: list[PageSpan],
    language: str | None,
    budgets: dict[str, Budget] | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, list[Any]]]:
    """The smart files (``smart.js``, ``paths.js``, ``meta.js``, ``d/``), the manifest's
    ``smart`` block and the stem groups ``stem → [section df, page df, [terms]]`` (the index
    writer puts each in the posting shard of its stem, beside its terms' posting lists).

    ``postings`` are the keyword posting lists (``term → [Δsid, f, len, …]``) and
    ``lengths[sid]`` the weighted lengths of the searchable sections.
    """
    stem, version = stemmer_for(language)
    page_of = [0] * len(lengths)
    rows = []
    for p, span in enumerate(pages):
        page_len = 0
        for sid in range(span.first, span.first + span.count):
            page_of[sid] = p
            page_len += lengths[sid]
        rows.append((span.count, page_len, span.prior))  # first sids: the sum of the counts before
    n_pages = len(rows)
    total = sum(r[1] for r in rows)
    pavglen = total / n_pages if n_pages and total else 1.0
    # the page table, column by column; the paths (read by the `under` filter only) apart
    out: dict[str, Any] = {}
    out["smart"] = {"counts": fmt.encode_ints(r[0] for r in rows), "lengths": fmt.encode_ints(r[1] for r in rows),
                    "priors": [r[2] for r in rows]}
    out["paths"] = [span.path for span in pages]
    out["meta"] = {str(p): span.meta for p, span in enumerate(pages) if span.meta}

    # df of every term (sections) and of every stem group (sections and pages)
    df = {term: len(flat) // 3 for term, flat in postings.items()}
    members: dict[str, list[str]] = defaultdict(list)
    for term in sorted(postings):
        members[fmt.posting_key(term, stem)].append(term)
    group_sdf: dict[str, int] = {}
    group_pdf: dict[str, int] = {}
    for g, ts in members.items():
        sids: Iterable[int] = (accumulate(postings[ts[0]][0::3]) if len(ts) == 1
                               else sorted({s for t in ts for s in accumulate(postings[t][0::3])}))
        count = pages_seen = 0
        last_page = -1
        for sid in sids:
            count += 1
            if page_of[sid] != last_page:
                last_page = page_of[sid]
                pages_seen += 1
        group_sdf[g], group_pdf[g] = count, pages_seen
    groups = {g: [group_sdf[g], group_pdf[g], ts] for g, ts in members.items()}
    budgets = budgets or {}

    keyed: dict[str, list[list[Any]]] = defaultdict(list)
    words = [t for t in df if t[:1] != segment.PART]  # part keys are no words of the dictionary
    for term in sorted(words, key=lambda t: (-df[t], t)):
        keyed[fmt.dict_key(term)].append([term, df[term]])
    size = sum(len(t) + 12 for t in words)
    b = budgets.get("d")
    b = b or large_site("d")
    d_shards = _shard_count(size, b.smallest, b.files, b.largest, b.cap)
    out.update(_shards("d", d_shards, fmt.dict_shard_name, {k: fmt.encode_word_list(e) for k, e in keyed.items()}))

    # the words corrections lead to, under each of their edit keys (engine/spelling.py)
    edits: dict[str, list[list[Any]]] = defaultdict(list)
    held: set[str] = set()  # the code points of the words filed there
    size = 0
    for term in sorted(words, key=lambda t: (-df[t], t)):
        if fmt.correctable(term) and not segment.has_cjk(term):
            held.update(term)
            for key in fmt.edit_keys(term):
                edits[key].append([term, df[term]])
                size += len(term) + 12
    b = budgets.get("e") or large_site("e")
    e_shards = _shard_count(size, b.smallest, b.files, b.largest, b.cap)
    out.update(_shards("e", e_shards, fmt.edit_shard_name, {k: fmt.encode_word_list(e) for k, e in edits.items()}))

    block = {
        "language": language or "en",
        "stemmer": stem is not None,
        "stemmer_version": version,
        "pages": n_pages,
        "pavglen": pavglen,
        "idf_steps": fmt.idf_steps(n_pages, group_pdf.values()),
        "dict_shards": d_shards,
        "edit_shards": e_shards,
        "edit_chars": "".join(sorted(held)),
    }
    segmenter = segment.segmenter_for(language)
    if segmenter:  # a Chinese, Japanese or Korean site: queries split CJK terms into units
        block["segmenter"] = segmenter
    return out, block, groups


#: Page priors from the site's structure (chosen on the tune half of bench/bench_quality.py):
#: ``structure = (1 + INBOUND_GAIN·log2(1 + inbound)) / (1 + DEPTH_COST·depth)``, bounded to
#: [STRUCTURE_MIN, STRUCTURE_MAX]; ``inbound`` = how many other pages link to the page,
#: ``depth`` = its toctree depth below the root (pages the root's toctrees do not reach count
#: as UNREACHED_DEPTH; on a MkDocs site the depth in its nav, capture/mkdocs/nav.py).
INBOUND_GAIN = 0.1
DEPTH_COST = 0.05
UNREACHED_DEPTH = 3
STRUCTURE_MIN = 0.5
STRUCTURE_MAX = 2.0


def page_structure(resolved: dict[str, list[tuple[int, str, str, int]]], root: str,
                   depths: Mapping[str, int] | None = None) -> tuple[dict[str, int], dict[str, int]]:
    """From the site's resolved links (every page, searchable or not): per docname, how many
    other pages link to it, and its toctree depth from ``root`` (pages it reaches; with no
    ``root`` — a builder without a toctree — none); ``depths``, when the builder gives them
    (MkDocs' nav), stand for the toctree walk."""
    sources: dict[str, set[str]] = defaultdict(set)
    children: dict[str, list[str]] = defaultdict(list)
    for doc in sorted(resolved):
        for _i, via, to, _j in resolved[doc]:
            if to != doc:
                sources[to].add(doc)
                if via == "toctree" and to not in children[doc]:
                    children[doc].append(to)
    depth: dict[str, int] = dict(depths) if depths is not None else {}
    if root and depths is None:
        depth[root] = 0
        todo = [root]
        while todo:  # breadth first: a page's depth is its shortest toctree path
            nxt = []
            for a in todo:
                for b in children[a]:
                    if b not in depth:
                        depth[b] = depth[a] + 1
                        nxt.append(b)
            todo = nxt
    return {d: len(s) for d, s in sources.items()}, depth


def structure_factor(inbound: int, depth: int | None) -> float:
    """The page prior's structural factor (see the constants above)."""
    import math

    d = UNREACHED_DEPTH if depth is None else depth
    f = (1 + INBOUND_GAIN * math.log2(1 + inbound)) / (1 + DEPTH_COST * d)
    return min(STRUCTURE_MAX, max(STRUCTURE_MIN, f))


def structure_priors(pages: list[PageSpan], resolved: dict[str, list[tuple[int, str, str, int]]], root: str,
                     depths: Mapping[str, int] | None = None) -> None:
    """Multiply every page's prior by its structural factor (rounded to 4 significant digits,
    so the page table stays short); ``depths``: the builder's own toctree depths (MkDocs'
    nav; pages not in it are unreached), else walked from ``root``; with neither every page
    counts as depth 0."""
    inbound, depth = page_structure(resolved, root, depths)
    tree = bool(root) or depths is not None
    for p in pages:
        factor = structure_factor(inbound.get(p.docname, 0), depth.get(p.docname) if tree else 0)
        if p.prior < 1.0:  # a page the author weighs down (change logs by default) is never lifted
            factor = min(factor, 1.0)
        if factor != 1.0:
            p.prior = float(f"{p.prior * factor:.4g}")


def build_links(outgoing: Sequence[Sequence[Sequence[Any]]], budget: Budget | int | None = None) -> tuple[dict[str, Any], list[int]]:
    """``l/<k>``: ``{"<sid>": [[to sid, via], …]}`` for consecutive sids, about the smallest
    size of ``l/`` each (more when that would make more than about ``budget`` files); returns
    the files and each shard's first sid (the manifest's ``smart.link_firsts``; ``[]``: the
    site links nowhere, no files)."""
    costs = {sid: len(str(sid)) + 6 + sum(len(str(t)) + len(v) + 8 for t, v in links)
             for sid, links in enumerate(outgoing) if links}
    smallest = budget.smallest if isinstance(budget, Budget) else FOLDERS["l"].smallest
    files = budget.files if isinstance(budget, Budget) else budget
    out: dict[str, Any] = {}
    target = max(smallest, -(-sum(costs.values()) // files)) if files else smallest
    firsts: list[int] = []
    shard: dict[str, Any] = {}
    size = 0
    for sid, links in enumerate(outgoing):
        if not links:
            continue
        cost = costs[sid]
        if shard and size + cost > target:
            out[f"l/{len(firsts) - 1:x}"] = shard
            shard, size = {}, 0
        if not shard:
            firsts.append(sid)
        shard[str(sid)] = [list(e) for e in links]
        size += cost
    if shard:
        out[f"l/{len(firsts) - 1:x}"] = shard
    return out, firsts


def _shards(folder: str, shards: int, shard_name: Callable[[str, int], str], entries: dict[str, Any]) -> dict[str, Any]:
    """``<folder>/<k>`` for every ``k < shards`` (empty ones too: a reader never meets a
    missing shard), each holding the entries whose key ``shard_name`` puts there."""
    files: dict[str, dict[str, Any]] = {f"{folder}/{k:x}": {} for k in range(shards)}
    for key in sorted(entries):
        files[shard_name(key, shards)][key] = entries[key]
    return files


def build_names(objects: Sequence[list[Any]], sections: int, budget: Budget | None = None) -> tuple[dict[str, Any], int]:
    """``n/<shard>``: the given searchable objects (the index writer passes those with an anchor
    of their own: a ``:no-index:`` copy is not found by name, as in Sphinx) by lower-cased name, grouped by the name's last
    ``.``-part (``key → [[name, kind, sid], …]`` by sid), so an exact-name query reads one
    file; returns the files and the shard count (0: no searchable object, no files)."""
    keyed: dict[str, list[list[Any]]] = defaultdict(list)
    for name, kind, _page, _pos, sid in sorted(objects, key=lambda r: r[4]):
        if sid < sections:
            keyed[fmt.name_key(fmt.ascii_lower(name))].append([name, kind, sid])
    if not keyed:
        return {}, 0
    size = sum(len(k) + sum(len(e[0]) + len(e[1]) + 16 for e in v) for k, v in keyed.items())
    b = budget or large_site("n")
    shards = _shard_count(size, b.smallest, b.files, b.largest, b.cap)
    return _shards("n", shards, fmt.name_shard_name, keyed), shards


def build_headings(headings: Iterable[tuple[int, list[str]]], budget: Budget | None = None) -> tuple[dict[str, Any], int]:
    """``h/<shard>``: ``key → [[terms, sid], …]`` (by sid) for every ``(sid, terms)`` of a
    searchable section's heading (its distinct terms in first-occurrence order, as a query's,
    joined by spaces), keyed by :func:`fmt.dict_key` of the first term; returns the files and
    the shard count (0: no heading with a term, no files)."""
    keyed: dict[str, list[list[Any]]] = defaultdict(list)
    for sid, words in sorted(headings):
        if words:
            keyed[fmt.dict_key(words[0])].append([" ".join(words), sid])
    if not keyed:
        return {}, 0
    size = sum(len(k) + sum(len(e[0]) + 12 for e in v) for k, v in keyed.items())
    b = budget or large_site("h")
    shards = _shard_count(size, b.smallest, b.files, b.largest, b.cap)
    return _shards("h", shards, fmt.heading_shard_name, keyed), shards
