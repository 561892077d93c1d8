"""Build-time cost and index size of okf_sphinx on real corpora.

For each corpus, in one run: a clean build with plain Sphinx and a clean build
with okf_sphinx appended to the project's extensions (``sphinx_driver.py``),
alternating which goes first on each repetition. Reported per build:

- CPU time: user + system time of the build process *and every process it
  waited for* (``-j N`` workers included), from ``resource.getrusage(
  RUSAGE_CHILDREN)`` deltas around the child;
- wall time (``time.perf_counter`` around the child);
- the ratio okf / plain of the CPU times (minimum over repetitions of each);
- the CPU time spent inside okf_sphinx's own hooks (read-phase collection,
  include capture, index writing, search page), timed in every build process
  by ``sphinx_driver.py``, as a share of the plain build: the extension's cost
  without the run-to-run noise of two whole builds on a shared machine;
- bytes of ``_okf/`` (every file summed, raw and each file gzip-compressed at
  level 6 as a web server would send it) next to Sphinx's ``searchindex.js``
  (raw and gzip).

The okf build's HTML output is kept under ``bench/results/sites/<name>`` so
that ``bench_query.py`` can query it. Results go to
``bench/results/build-<UTC time>.json`` and ``bench/results/build-latest.json``.

Corpora: MyST-Parser's docs (``../shared/corpora/myst/docs``) by default;
Sphinx's own docs when fetched (``--fetch-sphinx-docs`` runs
``../shared/corpora/get-sphinx-docs.sh`` into ``bench/results/corpora/``, or
pass ``--corpus DIR``); the PEPs only with ``--peps`` (a plain-Sphinx build of
them takes about 25 minutes on two cores).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gzip
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared" / "corpora"
RESULTS = HERE / "results"
DRIVER = HERE / "sphinx_driver.py"


def gz_size(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6, mtime=0))


def tree_bytes(root: Path) -> dict[str, int]:
    raw = gz = files = 0
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            data = p.read_bytes()
            raw += len(data)
            gz += gz_size(data)
            files += 1
    return {"files": files, "raw": raw, "gzip": gz}


def file_bytes(path: Path) -> dict[str, int] | None:
    if not path.is_file():
        return None
    data = path.read_bytes()
    return {"raw": len(data), "gzip": gz_size(data)}


def run_build(src: Path, out: Path, *, okf: bool, jobs: int, log: Path) -> dict[str, float | int]:
    if out.exists():
        shutil.rmtree(out)
    cmd = [sys.executable, str(DRIVER)]
    if okf:
        cmd.append("--okf")
    cmd += ["-q", "-b", "html", "-j", str(jobs), "-d", str(out / ".doctrees"), str(src), str(out)]
    hooks = log.with_suffix(".hooks")
    hooks.unlink(missing_ok=True)
    env = {**os.environ, "OKF_BENCH_HOOKS": str(hooks)} if okf else None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with log.open("wb") as fh:
        proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=src, check=False, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"build failed ({'okf' if okf else 'plain'}, exit {proc.returncode}): see {log}")
    run = {"cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "returncode": proc.returncode}
    if hooks.is_file():  # okf_sphinx's own hooks, timed inside every build process
        run["hooks_cpu_s"] = round(sum(float(line.split()[2]) for line in hooks.read_text().splitlines()), 3)
    return run


def bench_corpus(name: str, src: Path, *, jobs: int, repeat: int, workdir: Path) -> dict:
    logs = RESULTS / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    runs: dict[str, list[dict]] = {"plain": [], "okf": []}
    for i in range(repeat):
        order = ["plain", "okf"] if i % 2 == 0 else ["okf", "plain"]
        for kind in order:
            out = workdir / f"{name}-{kind}"
            log = logs / f"{name}-{kind}-{i}.log"
            print(f"  {name}: {kind} build {i + 1}/{repeat} ...", file=sys.stderr, flush=True)
            runs[kind].append(run_build(src, out, okf=(kind == "okf"), jobs=jobs, log=log))
    plain_out, okf_out = workdir / f"{name}-plain", workdir / f"{name}-okf"
    okf_dir = okf_out / "_okf"
    if not okf_dir.is_dir():
        raise SystemExit(f"the okf build of {name} wrote no _okf/ folder (see {logs})")
    result = {
        "corpus": name,
        "source": str(src),
        "jobs": jobs,
        "repeat": repeat,
        "plain": runs["plain"],
        "okf": runs["okf"],
        "plain_cpu_s": min(r["cpu_s"] for r in runs["plain"]),
        "okf_cpu_s": min(r["cpu_s"] for r in runs["okf"]),
        "plain_wall_s": min(r["wall_s"] for r in runs["plain"]),
        "okf_wall_s": min(r["wall_s"] for r in runs["okf"]),
        "okf_index": tree_bytes(okf_dir),
        "searchindex_js": file_bytes(plain_out / "searchindex.js"),
        "searchindex_js_okf_build": file_bytes(okf_out / "searchindex.js"),
    }
    result["okf_hooks_cpu_s"] = min(r.get("hooks_cpu_s", 0.0) for r in runs["okf"])
    result["hooks_pct_of_plain"] = round(100 * result["okf_hooks_cpu_s"] / result["plain_cpu_s"], 2)
    result["cpu_ratio"] = round(result["okf_cpu_s"] / result["plain_cpu_s"], 4)
    result["cpu_overhead_pct"] = round((result["cpu_ratio"] - 1) * 100, 2)
    result["wall_ratio"] = round(result["okf_wall_s"] / result["plain_wall_s"], 4)
    if repeat > 1:
        result["plain_cpu_median_s"] = statistics.median(r["cpu_s"] for r in runs["plain"])
        result["okf_cpu_median_s"] = statistics.median(r["cpu_s"] for r in runs["okf"])
    manifest = okf_dir / "manifest.js"
    if manifest.is_file():
        try:
            from okf_sphinx.core.index_format import unwrap  # noqa: PLC0415

            body = unwrap("manifest", manifest.read_bytes())
            result["manifest"] = {k: body.get(k) for k in ("sections", "sections_all", "concepts", "files", "shards")}
        except Exception:  # noqa: BLE001 - a manifest this checkout cannot read: no counts
            pass
    # Keep the okf build for bench_query.py.
    keep = RESULTS / "sites" / name
    if keep.exists():
        shutil.rmtree(keep)
    keep.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(okf_out, keep, ignore=shutil.ignore_patterns(".doctrees"))
    result["site"] = str(keep)
    return result


def fmt_bytes(n: int | None) -> str:
    if n is None:
        return "-"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.2f} MiB"
    return f"{n / 1024:.1f} KiB"


def print_table(results: list[dict]) -> None:
    head = ("corpus", "plain CPU s", "okf CPU s", "CPU ratio", "okf hooks CPU s", "hooks/plain", "plain wall s", "okf wall s",
            "_okf/ raw", "_okf/ gzip", "searchindex.js raw", "searchindex.js gzip")
    rows = [head]
    for r in results:
        si = r["searchindex_js"] or {}
        rows.append((
            r["corpus"], f"{r['plain_cpu_s']:.2f}", f"{r['okf_cpu_s']:.2f}", f"{r['cpu_ratio']:.3f}",
            f"{r['okf_hooks_cpu_s']:.2f}", f"{r['hooks_pct_of_plain']:.1f} %",
            f"{r['plain_wall_s']:.2f}", f"{r['okf_wall_s']:.2f}",
            fmt_bytes(r["okf_index"]["raw"]), fmt_bytes(r["okf_index"]["gzip"]),
            fmt_bytes(si.get("raw")), fmt_bytes(si.get("gzip")),
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
        if n == 0:
            print("  ".join("-" * w for w in widths))


def fetch_sphinx_docs() -> Path:
    dest = RESULTS / "corpora" / "sphinx-docs"
    if not (dest / "doc" / "conf.py").is_file():
        subprocess.run(["bash", str(SHARED / "get-sphinx-docs.sh"), str(dest)], check=True)
    return dest / "doc"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", default=[], metavar="DIR",
                    help="a Sphinx source dir (with conf.py); repeatable. Default: MyST docs, "
                         "plus Sphinx's docs if already fetched into bench/results/corpora/")
    ap.add_argument("--fetch-sphinx-docs", action="store_true",
                    help="fetch Sphinx's own docs with get-sphinx-docs.sh and include them")
    ap.add_argument("--peps", action="store_true", help="include the PEPs corpus (slow: ~25 min per build)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="sphinx-build -j (default 1: least noisy)")
    ap.add_argument("--repeat", type=int, default=1, help="builds of each kind per corpus (minimum is reported)")
    ap.add_argument("--keep-builds", action="store_true", help="keep the temporary build folders")
    args = ap.parse_args(argv)

    corpora: list[Path] = [Path(c).resolve() for c in args.corpus]
    if not corpora:
        myst = SHARED / "myst" / "docs"
        if myst.is_dir():
            corpora.append(myst)
        sphinx_docs = RESULTS / "corpora" / "sphinx-docs" / "doc"
        if sphinx_docs.is_dir() and not args.fetch_sphinx_docs:
            corpora.append(sphinx_docs)
    if args.fetch_sphinx_docs:
        corpora.append(fetch_sphinx_docs())
    if args.peps:
        corpora.append(SHARED / "peps")
    if not corpora:
        raise SystemExit("no corpus found: pass --corpus DIR")

    def corpus_name(p: Path) -> str:
        if p.name in ("docs", "doc"):
            return p.parent.name
        return p.name

    results = []
    workdir = Path(tempfile.mkdtemp(prefix="okf-bench-"))
    try:
        for src in corpora:
            if not (src / "conf.py").is_file():
                raise SystemExit(f"{src} has no conf.py")
            results.append(bench_corpus(corpus_name(src), src, jobs=args.jobs, repeat=args.repeat, workdir=workdir))
    finally:
        if not args.keep_builds:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"builds kept in {workdir}", file=sys.stderr)

    print_table(results)
    doc = {
        "benchmark": "build",
        "when": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "versions": _versions(),
        "results": results,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = doc["when"].replace(":", "").replace("+0000", "Z")
    for name in (f"build-{stamp}.json", "build-latest.json"):
        (RESULTS / name).write_text(json.dumps(doc, indent=1) + "\n", "utf-8")
    print(f"\nwritten {RESULTS / 'build-latest.json'}")
    return 0


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("sphinx", "docutils", "myst-parser", "okf_sphinx"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


if __name__ == "__main__":
    raise SystemExit(main())
