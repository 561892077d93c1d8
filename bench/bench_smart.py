"""Smart mode's cost: index growth, warm query latency (Python and Node) and cold-query bytes.

For each built site (an HTML folder holding ``_okf/``, built by this okf_sphinx):

- **growth**: bytes (raw and gzip, file by file) of the files only smart mode
  reads (``smart.js``, ``meta.js``, ``paths.js``, ``d/``) against the rest of ``_okf/``;
- **warm**: one process per engine runs every query once, then times
  ``--repeat`` passes, each call on its own (Python ``perf_counter``, Node
  ``process.hrtime``); p50 / p95 / max, keyword and smart side by side;
- **cold bytes**: for each query a fresh JS engine (the browser runtime, in
  Node) answers it with a tracing loader; the gzip size of every index file it
  loaded is summed — exactly the files the search page fetches for that query
  (tests/test_browser_search.py checks that set in Chromium). The runtime
  scripts themselves are reported once, apart.

Queries: bench_query.QUERIES (plain) and the same with ``prefix`` on their last
word cut to 3 code points (typing). Results go to
``bench/results/smart-<UTC time>.json`` and ``bench/results/smart-latest.json``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gzip
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))
from bench_query import QUERIES  # noqa: E402


def assembled_runtime() -> Path:
    """The folder of this checkout's runtime as a site build writes it (okf-search.js, assembled
    from okf_sphinx/js/, beside okf-stemmer.js)."""
    from okf_sphinx.surfaces.browser import write_for_node

    return write_for_node(RESULTS / "runtime").parent


STATIC = assembled_runtime()  # this checkout's okf-search.js and okf-stemmer.js

SMART_FILES = ("smart.js", "meta.js", "paths.js")
SMART_DIRS = ("g", "d", "x")

NODE_JS = r"""
const okf = require(process.argv[2]);
const requests = JSON.parse(require('fs').readFileSync(process.argv[4], 'utf8')), repeat = +process.argv[5];
const dir = process.argv[3];
(async () => {
  const base = okf.nodeLoader(dir);
  const cold = [];
  for (const r of requests) {
    const loaded = [];
    const engine = new okf.Index((name) => { loaded.push(name); return base(name); });
    try { await engine.search(r.query, r.opts); } catch (e) { /* refusals load files too */ }
    cold.push(loaded);
  }
  const engine = new okf.Index(base);
  const run = async (r) => { try { return await engine.search(r.query, r.opts); } catch (e) { return e; } };
  for (const r of requests) await run(r);
  const times = requests.map(() => []);
  for (let k = 0; k < repeat; k++) for (let i = 0; i < requests.length; i++) {
    const t0 = process.hrtime.bigint();
    await run(requests[i]);
    times[i].push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  process.stdout.write(JSON.stringify({ cold, times }));
})();
"""


def nearest_rank(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, -(-len(ordered) * pct // 100) - 1))]


def stats(per_query: list[list[float]]) -> dict[str, float]:
    """p50/p95/max over every timed call, and p95 over queries of each query's best time
    (robust to a machine shared with other jobs: a busy moment inflates single calls)."""
    times = [t for ts in per_query for t in ts]
    return {"p50_ms": round(nearest_rank(times, 50), 4), "p95_ms": round(nearest_rank(times, 95), 4),
            "max_ms": round(max(times), 4), "calls": len(times),
            "p95_of_best_ms": round(nearest_rank([min(ts) for ts in per_query], 95), 4)}


def requests(keyword_limit: int = 20, smart_limit: int = 10) -> list[dict[str, Any]]:
    """Each query in keyword mode, smart mode, and smart mode with its last word cut to 3
    code points and ``prefix`` (typing); the default limits are the engines' (agents'),
    ``requests(10, 5)`` what the search page and the dialog show in their first step."""
    out = []
    for q in QUERIES:
        out.append({"query": q, "opts": {"mode": "keyword", "limit": keyword_limit}})
        out.append({"query": q, "opts": {"mode": "smart", "limit": smart_limit}})
        words = q.split()
        typed = " ".join(words[:-1] + [words[-1][:3]])
        out.append({"query": typed, "opts": {"mode": "smart", "limit": smart_limit, "prefix": True}})
    return out


def kind(r: dict[str, Any]) -> str:
    o = r["opts"]
    return "keyword" if o["mode"] == "keyword" else ("smart+prefix" if o.get("prefix") else "smart")


def growth(okf: Path) -> dict[str, Any]:
    smart = {"raw": 0, "gzip": 0, "files": 0}
    rest = {"raw": 0, "gzip": 0, "files": 0}
    for f in okf.rglob("*.js"):
        rel = f.relative_to(okf)
        bucket = smart if rel.as_posix() in SMART_FILES or rel.parts[0] in SMART_DIRS else rest
        data = f.read_bytes()
        bucket["raw"] += len(data)
        bucket["gzip"] += len(gzip.compress(data, 9))
        bucket["files"] += 1
    return {"smart": smart, "keyword": rest, "growth_raw": round(smart["raw"] / rest["raw"], 4),
            "growth_gzip": round(smart["gzip"] / rest["gzip"], 4)}


def python_warm(site: Path, reqs: list[dict[str, Any]], repeat: int) -> list[list[float]]:
    import okf_sphinx

    index = okf_sphinx.open_index(site)

    def run(r: dict[str, Any]) -> None:
        o = dict(r["opts"])
        limit = o.pop("limit")
        try:
            index.search(r["query"], limit, **o)
        except okf_sphinx.OkfError:
            pass

    for r in reqs:
        run(r)
    times: list[list[float]] = [[] for _ in reqs]
    for _ in range(repeat):
        for i, r in enumerate(reqs):
            t0 = time.perf_counter()
            run(r)
            times[i].append((time.perf_counter() - t0) * 1000)
    return times


def node_run(site: Path, reqs: list[dict[str, Any]], repeat: int) -> dict[str, Any] | None:
    node = shutil.which("node")
    if not node:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        script, payload = Path(tmp) / "run.js", Path(tmp) / "req.json"
        script.write_text(NODE_JS, encoding="utf-8")
        payload.write_text(json.dumps(reqs), encoding="utf-8")
        out = subprocess.run([node, str(script), str(STATIC / "okf-search.js"), str(site / "_okf"), str(payload), str(repeat)],
                             capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sites", nargs="+", type=Path, help="built HTML folders holding _okf/")
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args(argv)
    reqs = requests()
    report: dict[str, Any] = {"when": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), "sites": {}}
    runtime = {name: len(gzip.compress((STATIC / name).read_bytes(), 9)) for name in ("okf-search.js", "okf-stemmer.js", "okf-stemmer-english.js")}
    report["runtime_gzip"] = runtime
    for site in args.sites:
        okf = site / "_okf"
        entry: dict[str, Any] = {"growth": growth(okf)}
        py = python_warm(site, reqs, args.repeat)
        node = node_run(site, reqs, args.repeat)
        gz_cache: dict[str, int] = {}

        def gz(name: str) -> int:
            if name not in gz_cache:
                gz_cache[name] = len(gzip.compress((okf / f"{name}.js").read_bytes(), 9))
            return gz_cache[name]

        for k in ("keyword", "smart", "smart+prefix"):
            idx = [i for i, r in enumerate(reqs) if kind(r) == k]
            row: dict[str, Any] = {"python_warm": stats([py[i] for i in idx])}
            if node is not None:
                row["node_warm"] = stats([node["times"][i] for i in idx])
                cold = [sum(gz(n) for n in set(node["cold"][i])) for i in idx]
                row["cold_index_gzip_bytes"] = {"median": statistics.median(cold), "max": max(cold), "queries": len(cold)}
            entry[k] = row
        report["sites"][str(site)] = entry
        print(site)
        print(f"  growth: smart files {entry['growth']['smart']['gzip'] / 1024:.1f} KiB gzip = "
              f"{entry['growth']['growth_gzip'] * 100:.1f}% of the keyword index ({entry['growth']['growth_raw'] * 100:.1f}% raw)")
        for k in ("keyword", "smart", "smart+prefix"):
            row = entry[k]
            line = (f"  {k:13s} python p50 {row['python_warm']['p50_ms']:.3f} p95 {row['python_warm']['p95_ms']:.3f} "
                    f"(best-of p95 {row['python_warm']['p95_of_best_ms']:.3f}) ms")
            if "node_warm" in row:
                line += (f" | node p50 {row['node_warm']['p50_ms']:.3f} p95 {row['node_warm']['p95_ms']:.3f} "
                         f"(best-of p95 {row['node_warm']['p95_of_best_ms']:.3f}) ms"
                         f" | cold index bytes gzip median {row['cold_index_gzip_bytes']['median'] / 1024:.1f} KiB"
                         f" max {row['cold_index_gzip_bytes']['max'] / 1024:.1f} KiB")
            print(line)
    print("runtime gzip:", runtime)
    RESULTS.mkdir(exist_ok=True)
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    text = json.dumps(report, indent=2) + "\n"
    (RESULTS / f"smart-{stamp}.json").write_text(text, encoding="utf-8")
    (RESULTS / "smart-latest.json").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
