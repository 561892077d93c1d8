"""The index's footprint on disk next to Pagefind's and Sphinx's ``searchindex.js``, and
what a cold browser query loads.

    python bench/bench_footprint.py NAME=HTML[@RUNTIME_DIR] ... [--pagefind] [--json OUT]

For each built site (a folder holding ``_okf/``): files, raw and gzip bytes of
``_okf/`` (per top folder too), of ``searchindex.js`` when the site has one, and —
with ``--pagefind`` — of Pagefind 1.6 run over the same HTML (its own indexer, in
Node, output to a temporary folder: the site is not touched). Cold-query bytes are
bench_smart's: a fresh JS engine per query (keyword limit 20, smart limit 10,
smart with prefix), the gzip size of every index file it loads, median and max.
``@RUNTIME_DIR`` names the folder of the ``okf-search.js`` that reads that index
(another checkout's ``okf_sphinx/static`` for an index of another format version).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_smart  # noqa: E402

RUNTIME = bench_smart.STATIC  # the folder of this checkout's okf-search.js, assembled


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 9))


def tree(root: Path) -> dict[str, Any]:
    total = {"files": 0, "raw": 0, "gzip": 0}
    parts: dict[str, dict[str, int]] = defaultdict(lambda: {"files": 0, "raw": 0, "gzip": 0})
    for f in sorted(root.rglob("*")):
        if not f.is_file():
            continue
        data = f.read_bytes()
        rel = f.relative_to(root)
        key = rel.parts[0] if len(rel.parts) > 1 else "(top)"
        for bucket in (total, parts[key]):
            bucket["files"] += 1
            bucket["raw"] += len(data)
            bucket["gzip"] += gz(data)
    return {**total, "folders": dict(parts)}


def pagefind(html: Path) -> dict[str, Any] | None:
    script = HERE / "quality_pagefind.mjs"
    if not (HERE / "node_modules" / "pagefind").is_dir():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["node", str(script), "index", str(html), tmp], check=True, capture_output=True)
        return tree(Path(tmp))


#: the readers' first step: 10 sections on the keyword search page, 5 pages in smart mode
#: (the search page's default) and in the dialog (smart, prefix on the last word)
FIRST_STEP = (10, 5)


def cold(site: Path, runtime: Path, limits: tuple[int, int] = (20, 10)) -> dict[str, Any]:
    reqs = bench_smart.requests(*limits)
    bench_smart.STATIC = runtime
    out = bench_smart.node_run(site, reqs, 0)
    if out is None:
        return {}
    okf = site / "_okf"
    sizes: dict[str, int] = {}

    def size(name: str) -> int:
        if name not in sizes:
            path = okf / f"{name}.js"
            sizes[name] = gz(path.read_bytes()) if path.is_file() else 0
        return sizes[name]

    result = {}
    for kind in ("keyword", "smart", "smart+prefix"):
        per = [sum(size(n) for n in set(names)) for r, names in zip(reqs, out["cold"]) if bench_smart.kind(r) == kind]
        result[kind] = {"median": statistics.median(per), "max": max(per), "queries": len(per)}
    return result


#: what okf adds to a site besides ``_okf/``: the agent files, its search page and its scripts
OKF_FILES = ("llms.txt", "llms-full.txt", "okf-search.html")


def plain_files(html: Path) -> int:
    """Files of the site without okf's: the plain HTML output's count (issue 24: on a small
    site ``_okf/`` should hold no more files than that)."""
    def okf_own(rel: Path) -> bool:
        return (rel.parts[0] == "_okf" or rel.as_posix() in OKF_FILES or rel.name.startswith("okf-")
                or rel.parts[:2] == ("assets", "okf"))
    return sum(1 for f in html.rglob("*") if f.is_file() and not okf_own(f.relative_to(html)))


def measure(name: str, html: Path, runtime: Path, with_pagefind: bool, pages: Path | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"site": name, "html": str(html), "okf": tree(html / "_okf"), "plain_files": plain_files(html)}
    index = html / "searchindex.js"
    row["searchindex"] = {"raw": index.stat().st_size, "gzip": gz(index.read_bytes())} if index.is_file() else None
    row["cold"] = cold(html, runtime)
    row["cold_first_step"] = cold(html, runtime, FIRST_STEP)
    if with_pagefind:
        row["pagefind"] = pagefind(pages or html)
    return row


def kib(n: float) -> str:
    return f"{n / 1024:,.1f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:,.2f} MiB"


def report(rows: list[dict[str, Any]]) -> str:
    lines = ["| site | `_okf/` files (plain site) | raw | gzip | Pagefind files | raw | gzip "
             "| okf ÷ Pagefind: files / gzip | searchindex.js raw / gzip "
             "| cold gzip median, engine limits 20 / 10 / 10 (keyword / smart / smart+prefix) "
             "| cold gzip median, first step 10 / 5 / 5 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def medians(c: dict[str, Any] | None) -> str:
        return " / ".join(kib(c[k]["median"]) for k in ("keyword", "smart", "smart+prefix")) if c else "–"

    for r in rows:
        o, p, s = r["okf"], r.get("pagefind"), r["searchindex"]
        ratio = f"{o['files'] / p['files']:.2f} / {o['gzip'] / p['gzip']:.2f}" if p else "–"
        lines.append(
            f"| {r['site']} | {o['files']:,} ({r.get('plain_files', '–')}) | {kib(o['raw'])} | {kib(o['gzip'])} | "
            f"{p['files'] if p else '–'} | {kib(p['raw']) if p else '–'} | {kib(p['gzip']) if p else '–'} | {ratio} | "
            f"{(kib(s['raw']) + ' / ' + kib(s['gzip'])) if s else 'not shipped'} | {medians(r['cold'])} "
            f"| {medians(r.get('cold_first_step'))} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sites", nargs="+", help="NAME=HTML[@RUNTIME_DIR]")
    ap.add_argument("--pagefind", action="store_true", help="also run Pagefind 1.6 over each site's HTML")
    ap.add_argument("--json", type=Path, help="write the measurements here")
    ap.add_argument("--html", action="append", default=[], metavar="NAME=DIR",
                    help="the HTML Pagefind indexes for site NAME when its index lies elsewhere (an index-only rebuild)")
    args = ap.parse_args(argv)
    rows = []
    other = dict(h.split("=", 1) for h in args.html)
    for spec in args.sites:
        name, _, rest = spec.partition("=")
        html, _, runtime = rest.partition("@")
        rows.append(measure(name, Path(html), Path(runtime) if runtime else RUNTIME, args.pagefind,
                            Path(other[name]) if name in other else None))
        print(json.dumps({k: rows[-1][k] for k in ("site", "searchindex", "cold", "cold_first_step")}), flush=True)
        print(json.dumps(rows[-1]["okf"]), flush=True)
    print(report(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
