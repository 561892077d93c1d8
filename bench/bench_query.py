"""Python query latency of okf_sphinx, cold and warm.

For each built site (an HTML output folder holding ``_okf/``):

- **cold**: ``--cold-runs`` fresh Python processes, each doing
  ``import okf_sphinx; okf_sphinx.open_index(site).search(q, limit=20)`` once
  for a different query of the set. Two numbers: *in-process* (import + open +
  first query, timed inside the child with ``time.perf_counter``) and *process*
  (the child's whole wall time, interpreter start-up included, timed by the
  parent).
- **warm**: one process opens the index, runs every query once (which loads
  the files those queries need), then times ``--repeat`` passes over the whole
  query set, each ``search`` call timed on its own with ``perf_counter``.
  p50 / p95 / max over all timed calls.

Sites: the arguments, else every folder under ``bench/results/sites/`` (kept
by ``bench_build.py``), else ``example_site`` built on the spot. Results go to
``bench/results/query-<UTC time>.json`` and ``bench/results/query-latest.json``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"

# Realistic documentation queries: one or two words, a few longer ones, some
# that match little or nothing on a given corpus.
QUERIES = [
    "install",
    "configuration",
    "retry policy",
    "cache",
    "extension",
    "directive",
    "role",
    "cross reference",
    "table of contents",
    "code block",
    "syntax highlighting",
    "html theme",
    "search",
    "math",
    "footnote",
    "image",
    "autodoc",
    "python",
    "markdown",
    "front matter",
    "warning",
    "build",
    "substitution",
    "include file",
    "version",
    "context manager",
    "exception",
    "type hints",
    "heading anchor",
    "деплой кэш",
]

COLD_CHILD = r"""
import sys, time, json
t0 = time.perf_counter()
import okf_sphinx
idx = okf_sphinx.open_index(sys.argv[1])
res = idx.search(sys.argv[2], limit=20)
t1 = time.perf_counter()
print(json.dumps({"in_process_s": t1 - t0, "total": res["total"]}))
"""


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1))
    return ordered[k]


def ms(x: float) -> float:
    return round(x * 1000, 4)


def bench_cold(site: Path, runs: int) -> dict:
    inproc, proc_wall, totals = [], [], {}
    for i in range(runs):
        q = QUERIES[i % len(QUERIES)]
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", COLD_CHILD, str(site), q],
                             capture_output=True, text=True, check=True, cwd=REPO)
        proc_wall.append(time.perf_counter() - t0)
        data = json.loads(out.stdout)
        inproc.append(data["in_process_s"])
        totals[q] = data["total"]
    return {
        "runs": runs,
        "in_process_ms": {"p50": ms(statistics.median(inproc)), "p95": ms(pct(inproc, 95)), "max": ms(max(inproc))},
        "process_ms": {"p50": ms(statistics.median(proc_wall)), "p95": ms(pct(proc_wall, 95)), "max": ms(max(proc_wall))},
    }


def bench_warm(site: Path, repeat: int) -> dict:
    try:
        import okf_sphinx
    except ImportError:  # not installed: use the checkout
        sys.path.insert(0, str(REPO))
        import okf_sphinx

    idx = okf_sphinx.open_index(site)
    totals = {}
    for q in QUERIES:  # warm-up: load every file these queries need
        totals[q] = idx.search(q, limit=20)["total"]
    times: list[float] = []
    per_query: dict[str, list[float]] = {q: [] for q in QUERIES}
    clock = time.perf_counter
    for _ in range(repeat):
        for q in QUERIES:
            t0 = clock()
            idx.search(q, limit=20)
            dt = clock() - t0
            times.append(dt)
            per_query[q].append(dt)
    slowest = max(QUERIES, key=lambda q: statistics.median(per_query[q]))
    return {
        "queries": len(QUERIES),
        "repeat": repeat,
        "calls": len(times),
        "ms": {"p50": ms(statistics.median(times)), "p95": ms(pct(times, 95)), "max": ms(max(times))},
        "slowest_query": {"query": slowest, "p50_ms": ms(statistics.median(per_query[slowest]))},
        "totals": totals,
    }


def default_sites() -> list[Path]:
    sites_dir = RESULTS / "sites"
    if sites_dir.is_dir():
        found = sorted(p for p in sites_dir.iterdir() if (p / "_okf" / "manifest.js").is_file())
        if found:
            return found
    out = RESULTS / "sites" / "example_site"
    print("no built site found: building example_site ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(REPO / "example_site"), str(out)], check=True)
    return [out]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sites", nargs="*", help="built HTML folders holding _okf/")
    ap.add_argument("--cold-runs", type=int, default=20, help="fresh processes per site (default 20)")
    ap.add_argument("--repeat", type=int, default=200, help="warm passes over the query set (default 200)")
    args = ap.parse_args(argv)

    sites = [Path(s).resolve() for s in args.sites] or default_sites()
    results = []
    for site in sites:
        print(f"  {site.name}: cold x{args.cold_runs}, warm x{args.repeat} ...", file=sys.stderr, flush=True)
        results.append({"site": str(site), "name": site.name,
                        "cold": bench_cold(site, args.cold_runs), "warm": bench_warm(site, args.repeat)})

    head = ("site", "cold in-process p50/p95 ms", "cold process p50 ms", "warm p50 ms", "warm p95 ms", "warm max ms")
    rows = [head]
    for r in results:
        c, w = r["cold"], r["warm"]["ms"]
        rows.append((r["name"], f"{c['in_process_ms']['p50']:.1f} / {c['in_process_ms']['p95']:.1f}",
                     f"{c['process_ms']['p50']:.1f}", f"{w['p50']:.3f}", f"{w['p95']:.3f}", f"{w['max']:.3f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(wd) for cell, wd in zip(row, widths)))
        if n == 0:
            print("  ".join("-" * wd for wd in widths))

    doc = {
        "benchmark": "query",
        "when": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "queries": QUERIES,
        "results": results,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = doc["when"].replace(":", "").replace("+0000", "Z")
    for name in (f"query-{stamp}.json", "query-latest.json"):
        (RESULTS / name).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"\nwritten {RESULTS / 'query-latest.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
