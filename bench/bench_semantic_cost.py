"""What semantic vectors cost a site: index growth, build time, and the bytes a cold query loads.

    python bench/bench_semantic_cost.py SITE [--model DIR] [--work DIR] [--queries FILE]

SITE is a built site (or its ``_okf`` folder) without vectors.  A build with vectors sizes
``t/`` for questions (writer/sizing.py ``VECTOR_POSTING_SCALE``), which adding vectors to SITE
does not: ``--vectors-site`` names such a build of the same site to read instead.  In one run:

- the vectors are added as a build with ``okf_search_semantic_model`` adds them
  (``bench/add_vectors.py``'s ``add_semantic``): CPU seconds of loading the model and of
  adding the vectors (embedding every section, clustering, the token table), to set
  against the site's build time;
- index growth: ``_okf/`` files and gzip bytes (each file compressed on its own, level 9,
  as bench_footprint.py counts them) with and without the vectors, per folder;
- cold queries: each query answered by a fresh ``Index`` (nothing cached) whose source
  records every file it reads; the gzip bytes of those files, median and max over the
  queries, for smart mode without vectors (the baseline), the blend (smart mode on the
  index with vectors) and semantic mode, at limit 5 (the search dialog's and page's
  first step) and limit 10, the mean bytes per folder over the queries, and the query
  that reads the most with what it reads per folder.  The files are those the browser runtime loads for the same
  answer (it mirrors the engine; ``unicode.js``, which Python reads for every query, counts
  only for a query with a non-ASCII character, as in the browser).

Queries: bench_query's 30 queries, and apart the hand-written questions (``bench/semantic_sets``)
of the site's corpus when ``--queries`` names that file.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import add_vectors  # noqa: E402
import bench_query  # noqa: E402

DEFAULT_MODEL = HERE / "results" / "models" / "minilm-m2v-256"


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 9))


def folder_sizes(okf: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for f in sorted(okf.rglob("*.js")):
        rel = f.relative_to(okf)
        key = rel.parts[0] if len(rel.parts) > 1 else rel.stem if rel.stem in ("semantic",) else "(top)"
        data = f.read_bytes()
        for k in (key, "all"):
            b = out.setdefault(k, {"files": 0, "raw": 0, "gzip": 0})
            b["files"] += 1
            b["raw"] += len(data)
            b["gzip"] += gz(data)
    return out


class Recording:
    """A source that remembers the gzip size of every file read through it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.location = inner.location
        self.read_names: dict[str, int] = {}

    def read(self, name: str) -> bytes:
        data = self.inner.read(name)
        self.read_names.setdefault(name, gz(data))
        return data

    def read_copy(self, path: str) -> bytes:
        return self.inner.read_copy(path)

    def stamp(self) -> Any:
        stamp = getattr(self.inner, "stamp", None)
        return stamp() if stamp is not None else None


def cold_reads(site: Path, queries: list[str], mode: str, limit: int) -> list[tuple[str, dict[str, int]]]:
    """Each answered query with the gzip bytes it read per folder (``w``, ``v``, ``s`` ...;
    a top-level file by its own name)."""
    from okf_sphinx import OkfError
    from okf_sphinx.engine.index import Index
    from okf_sphinx.engine.source import open_source

    out = []
    for q in queries:
        source = Recording(open_source(site))
        index = Index(source)
        try:
            index.search(q, limit=limit, mode=mode)
        except OkfError:
            continue
        folders: dict[str, int] = {}
        for name, size in source.read_names.items():
            # the browser reads unicode.js only for a query with a non-ASCII character (Python always does)
            if name != "unicode" or not q.isascii():
                folders[name.split("/")[0]] = folders.get(name.split("/")[0], 0) + size
        out.append((q, folders))
    return out


def kib(n: float) -> str:
    return f"{n / 1024:.1f} KiB"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--work", type=Path, default=HERE / "results" / "semantic-cost")
    ap.add_argument("--queries", default=None, help="a bench/semantic_sets file whose questions are asked too")
    ap.add_argument("--vectors-site", type=Path, default=None,
                    help="the same site built with vectors (a build with okf_search_semantic_model, or "
                         "reindex_doctrees.py --vectors: t/ sized for questions), read instead of adding vectors to SITE")
    args = ap.parse_args(argv)
    from okf_sphinx.core.hosts import SPHINX
    from okf_sphinx.writer.disk import write_index
    from okf_sphinx.writer.semantic_index import add_semantic, load_model

    src = args.site / "_okf" if (args.site / "_okf" / "manifest.js").is_file() else args.site
    files = add_vectors.read_index(src)
    t0 = time.process_time()
    model = load_model(args.model, Path.cwd(), "model")
    t1 = time.process_time()
    block = add_semantic(files, model)
    t2 = time.process_time()
    out = args.work / "site"
    if args.vectors_site is not None:  # the build's own vectors and t/ (the timings above: of adding them to SITE)
        out = args.vectors_site
    else:
        write_index(out / "_okf", files, SPHINX)
    report: dict[str, Any] = {"semantic": block, "model_cpu_s": round(t1 - t0, 2), "vectors_cpu_s": round(t2 - t1, 2)}
    before, after = folder_sizes(src), folder_sizes(out / "_okf")
    report["index"] = {"without": before["all"], "with": after["all"],
                       "growth_gzip": after["all"]["gzip"] / before["all"]["gzip"] - 1,
                       "vector_folders": {k: v for k, v in after.items() if k in ("v", "w", "semantic")}}
    groups = {"bench_query's 30 queries": list(bench_query.QUERIES)}
    if args.queries:
        groups["questions"] = [q for q, _k, _t in json.loads(Path(args.queries).read_text("utf-8"))["items"]]
    cold: dict[str, Any] = {}
    for group, queries in groups.items():
        for name, where, mode, limit in (("smart 5 (no vectors)", src, "smart", 5), ("blend 5", out, "smart", 5),
                                         ("semantic 5", out, "semantic", 5), ("smart 10 (no vectors)", src, "smart", 10),
                                         ("blend 10", out, "smart", 10), ("semantic 10", out, "semantic", 10)):
            reads = cold_reads(where, queries, mode, limit)
            sizes = [sum(folders.values()) for _q, folders in reads]
            top_q, top = max(reads, key=lambda r: sum(r[1].values()))
            per_folder: dict[str, int] = {}
            for _q, folders in reads:
                for k, v in folders.items():
                    per_folder[k] = per_folder.get(k, 0) + v
            cold[f"{group}: {name}"] = {"median": statistics.median(sizes), "max": max(sizes), "n": len(sizes),
                                        "mean_folders": {k: round(v / len(reads)) for k, v in
                                                         sorted(per_folder.items(), key=lambda kv: -kv[1])},
                                        "max_query": top_q, "max_folders": dict(sorted(top.items(), key=lambda kv: -kv[1]))}
    report["cold"] = cold
    print(json.dumps(report, indent=1))
    print(f"\nvectors: {kib(report['index']['with']['gzip'] - report['index']['without']['gzip'])} gzip, "
          f"+{100 * report['index']['growth_gzip']:.1f} % of the index; model {report['model_cpu_s']} s + vectors "
          f"{report['vectors_cpu_s']} s CPU", file=sys.stderr)
    for name, c in cold.items():
        print(f"cold {name}: median {kib(c['median'])}, max {kib(c['max'])} ({c['n']} queries); the max: "
              f"{c['max_query']!r} " + ", ".join(f"{k} {kib(v)}" for k, v in list(c["max_folders"].items())[:6]),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
