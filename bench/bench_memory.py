"""Peak memory of a long-lived reader (what ``okf mcp`` is) after many distinct requests.

One child process per configuration opens the site's index and answers, through
``call_tool`` (the code path of the MCP server and the CLI), ``--queries``
distinct ``search_sections`` requests (limit 10) — single terms and pairs drawn
with a fixed seed from the index's own vocabulary — plus a ``get_section`` of
the first hit of every 10th search. It records its resident set size (VmRSS)
every 1,000 requests and its peak (``ru_maxrss``) at the end.

Configurations are ``LABEL=CODE[:CACHE_MB]``: ``CODE`` is the folder whose
``okf_sphinx`` the child imports (e.g. ``/work/main`` for the code before the
memory bound, this checkout for after), ``CACHE_MB`` the ``cache_bytes`` bound
given to ``Index`` (left out: the code's default). The same query list goes to
every child. An index written before the manifest carried ``index_revision``
is read as is by old code; code that requires it reads a copy that gains it
(``--work``), the site itself is never modified.

    python bench/bench_memory.py /work/peps/html before=/work/main after=. after-64=.:64

Results: ``bench/results/memory-<UTC time>.json`` and ``memory-latest.json``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"


def _okf_dir(site: Path) -> Path:
    return site if (site / "manifest.js").is_file() else site / "_okf"


def vocabulary(okf: Path) -> list[str]:
    from okf_sphinx.core.index_format import unwrap

    words: set[str] = set()
    for shard in sorted((okf / "t").glob("*.js")):
        name = "t/" + shard.name[:-3]
        if "-" in name:
            continue
        words.update(unwrap(name, shard.read_bytes())["terms"])
    return sorted(words)


def make_queries(okf: Path, n: int, seed: int = 14) -> list[str]:
    words = [w for w in vocabulary(okf) if len(w) < 40]
    rng = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        q = rng.choice(words) if rng.random() < 0.7 else f"{rng.choice(words)} {rng.choice(words)}"
        if q not in seen:
            seen.add(q)
            out.append(q)
    return out


def with_index_revision(okf: Path, work: Path) -> Path:
    """``okf`` itself if its manifest has ``index_revision``, else a copy that has it."""
    from okf_sphinx.core.index_format import unwrap, wrap
    from okf_sphinx.writer.disk import index_revision

    manifest = unwrap("manifest", (okf / "manifest.js").read_bytes())
    if "index_revision" in manifest:
        return okf
    copy = work / "_okf"
    if not copy.exists():
        shutil.copytree(okf, copy)
        manifest["index_revision"] = index_revision(copy)
        (copy / "manifest.js").write_bytes(wrap("manifest", manifest, manifest["build"]))
    return copy


def _rss_kib() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def child(site: str, queries_file: str, cache_mb: str) -> None:
    import inspect

    import okf_sphinx
    from okf_sphinx.engine.index import Index
    from okf_sphinx.agent.dispatch import call_tool
    from okf_sphinx.engine.source import open_source

    queries = json.loads(Path(queries_file).read_text())
    kwargs = {}
    if cache_mb != "default":
        if "cache_bytes" not in inspect.signature(Index).parameters:
            raise SystemExit("this okf_sphinx has no cache bound")
        kwargs["cache_bytes"] = int(cache_mb) * 1024 * 1024
    started = time.perf_counter()
    index = Index(open_source(site), **kwargs)
    samples = []
    errors = 0
    for i, q in enumerate(queries, 1):
        try:
            answer = call_tool(index, "search_sections", {"query": q, "limit": 10})
            if i % 10 == 0 and answer["hits"]:
                call_tool(index, "get_section", {"locator": answer["hits"][0]["locator"], "max_chars": 2000})
        except okf_sphinx.OkfError:
            errors += 1
        if i % 1000 == 0:
            samples.append([i, _rss_kib()])
    cache = getattr(index, "cache", None)
    print(json.dumps({
        "okf_sphinx": okf_sphinx.__file__,
        "requests": len(queries),
        "errors": errors,
        "seconds": round(time.perf_counter() - started, 2),
        "rss_kib_every_1000": samples,
        "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "cache_estimate_bytes": getattr(cache, "size", None),
    }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", type=Path, help="a built site (its HTML folder or its _okf folder)")
    parser.add_argument("configs", nargs="+", help="LABEL=CODE[:CACHE_MB]")
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder for an upgraded index copy")
    args = parser.parse_args()

    okf = _okf_dir(args.site.resolve())
    work = args.work or Path(tempfile.mkdtemp(prefix="okf-bench-memory-"))
    queries = make_queries(okf, args.queries)
    qfile = work / "queries.json"
    qfile.write_text(json.dumps(queries))
    runs = {}
    for config in args.configs:
        label, _, rest = config.partition("=")
        code, _, cache_mb = rest.partition(":")
        code_dir = Path(code).resolve()
        probe = subprocess.run(
            [sys.executable, "-c", "import inspect, okf_sphinx.engine.index as i; print('cache_bytes' in inspect.signature(i.Index).parameters)"],
            env={**os.environ, "PYTHONPATH": str(code_dir)}, capture_output=True, text=True, check=True,
        )
        bounded_code = probe.stdout.strip() == "True"
        site = with_index_revision(okf, work) if bounded_code else okf
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", str(site), str(qfile), cache_mb or "default"],
            env={**os.environ, "PYTHONPATH": str(code_dir)}, capture_output=True, text=True,
        )
        if proc.returncode != 0:
            raise SystemExit(f"{label}: {proc.stderr}")
        runs[label] = {"code": str(code_dir), "cache_mb": cache_mb or "default", **json.loads(proc.stdout)}
        r = runs[label]
        print(f"{label:>12}: peak RSS {r['peak_rss_kib'] / 1024:8.1f} MiB, final {r['rss_kib_every_1000'][-1][1] / 1024:8.1f} MiB, "
              f"cache estimate {'    n/a' if r['cache_estimate_bytes'] is None else format(r['cache_estimate_bytes'] / 2**20, '7.1f')} MiB, {r['seconds']:7.1f} s, "
              f"{r['errors']} refusals", flush=True)
    result = {
        "when": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "site": str(args.site), "queries": args.queries, "python": sys.version.split()[0], "runs": runs,
    }
    RESULTS.mkdir(exist_ok=True)
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    for name in (f"memory-{stamp}.json", "memory-latest.json"):
        (RESULTS / name).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(*sys.argv[2:])
    else:
        sys.path.insert(0, str(REPO))
        main()
