"""Section-file layouts at fewer files, against what cold queries read from ``s/`` (issue 24):
an offline simulation, to choose a layout before building one.

    python bench/bench_layout.py NAME=HTML[:N] ... [--json OUT]

For each built site (a folder holding ``_okf/``; ``N``: the number of ``s/`` files to
simulate, default half of today's), a fresh Python engine answers each request of
bench_smart's first step (``requests(10, 5)``: keyword, smart, smart with a cut last word)
and the search page's (smart, ``prefix``, 5 pages, the whole query), and the sids whose
sections it reads (``Index.section``: the hits' snippets and the sentence check) are
recorded.  Then the same rows are cut into candidate layouts; a request reads each file
holding one of its sids once, and costs that file's gzip bytes (level 9, the ``okfLoad``
wrapper included, each file with its own page and file rows as the writer writes them).
Reported: files, and the median ``s/`` bytes per request kind, on the tune half of the
queries (even positions of bench_query.QUERIES) and on the held-out half:

- **today**: the site's own ``s/`` files;
- **page-aligned**: the writer's rule (``page_aligned_starts``) with files grown to ``N``;
- **read-weighted**: the same over ``cost ** 0.5`` (a section's chance to be read grows
  more slowly than its size — on Sphinx's docs a section of 64–127 bytes is read 34
  times per 10 KB of it, one of 4–8 KB 0.8 times), so files of rarely read long sections grow and often-read ones stay small;
- **content-grouped**: today's files merged in pairs by the cosine of their words' TF-IDF
  (most similar first, no file over 2.5× the median while others can merge), up to ``N`` files — not contiguous,
  it would need a sid → file map;
- **co-read oracle**: today's files merged by how often the tune half's requests read them
  together (then by their words) — it uses the queries, so it is an upper bound for any layout a build could
  predict, not a layout a build could make.

The non-``s/`` files a request reads are the same whatever the layout (reported once).
"""

from __future__ import annotations

import argparse
import bisect
import collections
import gzip
import json
import math
import re
import statistics
import sys
from pathlib import Path
from typing import Any

from okf_sphinx.core import index_format as fmt
from okf_sphinx.engine.index import Index
from okf_sphinx.engine.source import open_source
from okf_sphinx.writer.packing import page_aligned_starts

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# the benchmarks beside this one: importable only once their folder is on sys.path (so E402)
import bench_smart  # noqa: E402
from bench_query import QUERIES  # noqa: E402

KINDS = ("keyword", "smart", "smart+prefix", "page")
GROUP_CAP = 2.5  # content-grouped and oracle files: at most this many times the median file


class RecordingIndex(Index):
    """An index that notes the sids whose sections it reads and the files it reads."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sids: set[int] = set()
        self.names: set[str] = set()
        super().__init__(*args, **kwargs)

    def section(self, sid: int) -> dict[str, Any]:
        self.sids.add(sid)
        return super().section(sid)

    def _read_file(self, name: str) -> Any:
        self.names.add(name)
        return super()._read_file(name)


def requests() -> list[dict[str, Any]]:
    """bench_smart's first step, then the search page's request for each query, each with
    its kind and its query's position in bench_query.QUERIES."""
    # bench_smart's requests come three per query, in QUERIES' order
    out = [{**r, "kind": bench_smart.kind(r), "n": k // 3} for k, r in enumerate(bench_smart.requests(10, 5))]
    for n, q in enumerate(QUERIES):
        out.append({"query": q, "opts": {"mode": "smart", "limit": 5, "prefix": True}, "kind": "page", "n": n})
    return out


def record(okf: Path, reqs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For each request, a fresh engine's sids read from ``s/`` and the other files it read."""
    out = []
    for r in reqs:
        index = RecordingIndex(open_source(okf))
        opts = dict(r["opts"])
        index.search(r["query"], mode=opts.pop("mode"), **opts)
        out.append({"sids": sorted(index.sids), "other": sorted(n for n in index.names if not n.startswith("s/"))})
    return out


def section_rows(okf: Path) -> list[tuple[tuple[Any, ...], tuple[Any, ...], list[Any]]]:
    """Every section's ``(page row, file row, row)`` in sid order, from the site's ``s/`` files."""
    manifest = fmt.unwrap("manifest", (okf / "manifest.js").read_bytes())
    rows = []
    for k in range(len(fmt.section_starts(manifest["section_files"]))):
        value = fmt.unwrap(f"s/{k}", (okf / f"s/{k}.js").read_bytes())
        rows += [(tuple(value["pages"][r[0]]), tuple(value["files"][r[1]]), r[2:]) for r in value["sections"]]
    return rows


def costs(rows: list[Any]) -> list[int]:
    """The writer's size estimate of each row (``pack_sections``)."""
    return [48 + sum(len(v) for v in r[:6] if isinstance(v, str)) + (len(str(r[6])) if len(r) > 6 else 0)
            for _page, _file, r in rows]


def file_value(rows: list[Any], ranges: list[tuple[int, int]]) -> dict[str, Any]:
    """The value of one section file holding the sids of ``ranges``, as the writer writes it."""
    pages: dict[Any, int] = {}
    files: dict[Any, int] = {}
    out = []
    for a, b in ranges:
        for page, file, row in rows[a:b]:
            out.append([pages.setdefault(page, len(pages)), files.setdefault(file, len(files)), *row])
    return {"files": [list(f) for f in files], "first": ranges[0][0], "pages": [list(p) for p in pages], "sections": out}


def file_gzip(rows: list[Any], ranges: list[tuple[int, int]]) -> int:
    """Gzip bytes (level 9) of :func:`file_value` in its ``okfLoad`` wrapper."""
    return len(gzip.compress(fmt.wrap("s/0", file_value(rows, ranges), "0" * fmt.BUILD_DIGITS), 9))


def starts_for(weights: list[int], pages: list[Any], files: int) -> list[int]:
    """``page_aligned_starts`` over ``weights`` with the smallest target that makes at most ``files`` files."""
    lo, hi = 1, int(sum(weights)) + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if len(page_aligned_starts(weights, pages, mid)) > files:
            lo = mid + 1
        else:
            hi = mid
    return page_aligned_starts(weights, pages, lo)


def ranges_of(starts: list[int], total: int) -> list[tuple[int, int]]:
    return list(zip(starts, [*starts[1:], total]))


def merged(units: list[tuple[int, int]], sizes: list[int], similarity: dict[tuple[int, int], float],
           files: int) -> list[list[tuple[int, int]]]:
    """``units`` merged most similar pair first (no group over GROUP_CAP × the median unit)
    until there are ``files`` groups."""
    group = list(range(len(units)))
    members = {k: [k] for k in range(len(units))}
    size = dict(enumerate(sizes))
    pairs = sorted(similarity.items(), key=lambda item: -item[1])
    for cap in (GROUP_CAP, 2 * GROUP_CAP, 4 * GROUP_CAP, math.inf):  # a looser cap while too many groups remain
        for (i, j), _s in pairs:
            if len(members) <= files:
                break
            gi, gj = group[i], group[j]
            if gi == gj or size[gi] + size[gj] > cap * statistics.median(sizes):
                continue
            for m in members[gj]:
                group[m] = gi
            members[gi] += members.pop(gj)
            size[gi] += size.pop(gj)
    return [[units[m] for m in sorted(ms)] for ms in members.values()]


def word_similarity(rows: list[Any], units: list[tuple[int, int]]) -> dict[tuple[int, int], float]:
    """Cosine of the units' TF-IDF word vectors (headings counted twice), for pairs sharing a word."""
    bags = []
    for a, b in units:
        bag: collections.Counter[str] = collections.Counter()
        for page, _file, row in rows[a:b]:
            bag.update(re.findall(r"[a-z0-9_]{2,}", f"{row[0]} {row[0]} {row[5]} {page[1]}".lower()))
        bags.append(bag)
    df = collections.Counter(w for bag in bags for w in bag)
    n = len(units)
    vectors = []
    for bag in bags:
        v = {w: (1 + math.log(f)) * math.log(n / df[w]) for w, f in bag.items() if df[w] < 0.3 * n}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        vectors.append({w: x / norm for w, x in v.items()})
    holders: dict[str, list[int]] = collections.defaultdict(list)
    for k, v in enumerate(vectors):
        for w in v:
            holders[w].append(k)
    sim: dict[tuple[int, int], float] = collections.defaultdict(float)
    for w, ks in holders.items():
        for x in range(len(ks)):
            for y in range(x + 1, len(ks)):
                sim[ks[x], ks[y]] += vectors[ks[x]][w] * vectors[ks[y]][w]
    return sim


def co_reads(units: list[tuple[int, int]], recs: list[dict[str, Any]], reqs: list[dict[str, Any]]) -> dict[tuple[int, int], float]:
    """How often the tune half's requests read two units together."""
    starts = [a for a, _b in units]
    sim: dict[tuple[int, int], float] = collections.defaultdict(float)
    for r, rec in zip(reqs, recs):
        if r["n"] % 2:
            continue
        read = sorted({bisect.bisect_right(starts, s) - 1 for s in rec["sids"]})
        for x in range(len(read)):
            for y in range(x + 1, len(read)):
                sim[read[x], read[y]] += 1
    return sim


def evaluate(rows: list[Any], layout: list[list[tuple[int, int]]], recs: list[dict[str, Any]],
             reqs: list[dict[str, Any]]) -> dict[str, Any]:
    """Files and median ``s/`` gzip KiB per kind, tune and held-out halves, of one layout."""
    sizes = [file_gzip(rows, ranges) for ranges in layout]
    flat = sorted((a, k) for k, ranges in enumerate(layout) for a, _b in ranges)
    starts, owner = [a for a, _k in flat], [k for _a, k in flat]
    per = [sum(sizes[f] for f in {owner[bisect.bisect_right(starts, s) - 1] for s in rec["sids"]}) for rec in recs]
    out: dict[str, Any] = {"files": len(layout)}
    for half, parity in (("tune", 0), ("held", 1)):
        out[half] = {kind: round(statistics.median(p for p, r in zip(per, reqs) if r["kind"] == kind and r["n"] % 2 == parity) / 1024, 1)
                     for kind in KINDS}
    return out


def measure(html: Path, files: int | None) -> dict[str, Any]:
    okf = html / "_okf"
    reqs = requests()
    recs = record(okf, reqs)
    rows = section_rows(okf)
    c = costs(rows)
    pages = [page for page, _file, _row in rows]
    manifest = fmt.unwrap("manifest", (okf / "manifest.js").read_bytes())
    today = ranges_of(fmt.section_starts(manifest["section_files"]), len(rows))
    n = files or len(today) // 2
    sizes = [sum(c[a:b]) for a, b in today]
    words = word_similarity(rows, today)
    layouts = {
        "today": [[r] for r in today],
        "page-aligned": [[r] for r in ranges_of(starts_for(c, pages, n), len(rows))],
        "read-weighted": [[r] for r in ranges_of(starts_for([round(16 * x ** 0.5) for x in c], pages, n), len(rows))],
        "content-grouped": merged(today, sizes, words, n),
        "co-read oracle": merged(today, sizes, {p: reads + 1e-3 * words.get(p, 0.0) for p, reads in
                                                {**dict.fromkeys(words, 0.0), **co_reads(today, recs, reqs)}.items()}, n),
    }
    other: dict[str, float] = {}
    gz_of: dict[str, int] = {}
    for kind in KINDS:
        totals = []
        for r, rec in zip(reqs, recs):
            if r["kind"] != kind:
                continue
            for name in rec["other"]:
                if name not in gz_of:
                    path = okf / f"{name}.js"
                    gz_of[name] = len(gzip.compress(path.read_bytes(), 9)) if path.is_file() else 0
            totals.append(sum(gz_of[name] for name in rec["other"]))
        other[kind] = round(statistics.median(totals) / 1024, 1)
    return {"sections": len(rows), "other": other, "layouts": {k: evaluate(rows, v, recs, reqs) for k, v in layouts.items()}}


def report(name: str, m: dict[str, Any]) -> str:
    lines = [f"## {name}: {m['sections']} sections; other folders' median KiB per kind "
             + " / ".join(f"{m['other'][k]}" for k in KINDS),
             "", f"| layout | s/ files | tune: {' / '.join(KINDS)} | held-out |", "|---|---|---|---|"]
    for k, v in m["layouts"].items():
        lines.append(f"| {k} | {v['files']} | " + " / ".join(str(v["tune"][x]) for x in KINDS) + " | "
                     + " / ".join(str(v["held"][x]) for x in KINDS) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sites", nargs="+", help="NAME=HTML[:N] (N: s/ files to simulate)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    results = {}
    for spec in args.sites:
        name, _, rest = spec.partition("=")
        path, _, n = rest.partition(":")
        results[name] = measure(Path(path), int(n) if n else None)
        print(report(name, results[name]) + "\n", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
