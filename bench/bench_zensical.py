"""``okf index`` after a Zensical build: its time against the build's, its bytes against
Zensical's own search index, its answers against Zensical's own search, and the index it
writes after a MkDocs build against the plugin's — over one corpus, in one run.

Corpus: Material for MkDocs' own documentation (``../shared/corpora/material``, copied
first: the corpus is read-only).  Zensical cannot build it as it stands (its theme
overrides need Material's ``custom_dir``: a ``home.html`` template, a logo icon), so the
Zensical copy drops ``custom_dir``, the logo icon and ``docs/index.md``'s ``template:
home.html`` line; everything else, the Markdown extensions and the nav included, is the
corpus's own ``mkdocs.yml``, which Zensical reads.

1. **Time** — ``zensical build --clean`` then ``okf index`` (a subprocess each, as an
   author's CI runs them), ``--repeats`` times alternately; reported: the medians of the
   wall time and of the CPU time (user + system of the child) and their ratios
   okf index / Zensical build.  On a shared machine the CPU ratio is the steadier one.
2. **Bytes** — ``_okf/`` (raw and gzip, file by file), the runtime okf adds
   (``assets/okf/``), against Zensical's ``search.json`` and its search worker.
3. **Quality** — the known items of bench/bench_quality_mkdocs.py (the link texts authors
   wrote between pages, recorded by the hook bench/mkdocs_link_texts.py in a MkDocs build
   of the same corpus; the same tune / held-out halves), answered by okf keyword and okf
   smart over the Zensical site's ``_okf/`` and by Zensical's own search worker in Node
   (bench/quality_zensical.js: the raw query text, as the search box sends it).
4. **Same index as the plugin** — the corpus built by MkDocs with the okf plugin, and by
   MkDocs without it followed by ``okf index``: ``_okf/``, ``llms.txt`` and
   ``llms-full.txt`` compared file by file; the differing files are listed.

Usage::

    python bench/bench_zensical.py [--work DIR] [--repeats N] [--reuse]

Outputs: markdown tables on stdout and ``summary.json`` under ``--work`` (default
bench/results/zensical/).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_quality as bq  # noqa: E402
import bench_quality_mkdocs as bqm  # noqa: E402

SYSTEMS = ("okf keyword", "okf smart", "zensical")


def env() -> dict[str, str]:
    root = str(HERE.parent)
    old = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root + (os.pathsep + old if old else ""), "PYTHONHASHSEED": "0"}


def timed(cmd: list[str], cwd: Path, extra_env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of ``cmd``; exits on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env={**env(), **(extra_env or {})}, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {cwd}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def zensical_project(corpus: Path, dest: Path) -> Path:
    """A copy of the corpus Zensical builds (see the module doc), its config ``mkdocs-zensical.yml``."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(corpus, dest, ignore=shutil.ignore_patterns("site", ".cache", "__pycache__"))
    config = (dest / "mkdocs.yml").read_text("utf-8")
    config = config.replace("  custom_dir: material/overrides\n", "").replace("  icon:\n    logo: logo\n", "  icon:\n")
    (dest / "mkdocs-zensical.yml").write_text(config, "utf-8")
    home = dest / "docs" / "index.md"
    home.write_text(home.read_text("utf-8").replace("template: home.html\n", "", 1), "utf-8")
    return dest


def folder_bytes(folder: Path) -> dict[str, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return {"files": len(files), "raw": sum(p.stat().st_size for p in files),
            "gzip": sum(len(gzip.compress(p.read_bytes(), 9, mtime=0)) for p in files)}


def file_bytes(path: Path) -> dict[str, int]:
    data = path.read_bytes()
    return {"files": 1, "raw": len(data), "gzip": len(gzip.compress(data, 9, mtime=0))}


def mkdocs_config(text: str, okf: bool) -> str:
    """The corpus's ``mkdocs.yml`` with the link-text hook, with or without ``okf`` in its plugins."""
    lines = text.splitlines()
    out: list[str] = []
    for line in lines:
        out.append(line)
        if okf and line.rstrip() == "plugins:":
            out.append("  - okf")
        elif line.rstrip() == "hooks:":
            out.append(f"  - {bqm.HOOK}")
    return "\n".join(out) + "\n"


def mkdocs_pair(corpus: Path, work: Path, reuse: bool) -> tuple[Path, Path, Path, dict[str, Any]]:
    """The corpus built by MkDocs with the plugin and without it plus ``okf index``; returns the
    two sites, the link texts file and their times."""
    project = work / "mkdocs-src"
    plugin_site, plain_site, links = work / "mkdocs-plugin", work / "mkdocs-plain", work / bqm.LINKS_FILE
    times: dict[str, Any] = {}
    if reuse and (plugin_site / "_okf" / "manifest.js").is_file() and (plain_site / "index.html").is_file() \
            and links.is_file():
        times["okf index after it"] = timed([sys.executable, "-m", "okf_sphinx", "index", str(plain_site), "--config",
                                             "mkdocs-plain.yml"], project)
        return plugin_site, plain_site, links, times
    shutil.rmtree(project, ignore_errors=True)
    shutil.copytree(corpus, project, ignore=shutil.ignore_patterns("site", ".cache", "__pycache__"))
    text = (project / "mkdocs.yml").read_text("utf-8")
    (project / "mkdocs-okf.yml").write_text(mkdocs_config(text, True), "utf-8")
    (project / "mkdocs-plain.yml").write_text(mkdocs_config(text, False), "utf-8")
    for site in (plugin_site, plain_site):
        shutil.rmtree(site, ignore_errors=True)
    print("MkDocs build with the okf plugin ...", file=sys.stderr, flush=True)
    times["mkdocs with the plugin"] = timed([sys.executable, "-m", "mkdocs", "build", "-q", "-f", "mkdocs-okf.yml",
                                             "-d", str(plugin_site)], project, {"OKF_BENCH_LINK_TEXTS": str(links)})
    print("MkDocs build without it, then okf index ...", file=sys.stderr, flush=True)
    times["mkdocs without it"] = timed([sys.executable, "-m", "mkdocs", "build", "-q", "-f", "mkdocs-plain.yml",
                                        "-d", str(plain_site)], project,
                                       {"OKF_BENCH_LINK_TEXTS": str(work / "unused-links.json")})
    times["okf index after it"] = timed([sys.executable, "-m", "okf_sphinx", "index", str(plain_site), "--config",
                                         "mkdocs-plain.yml"], project)
    return plugin_site, plain_site, links, times


def compare(a: Path, b: Path) -> dict[str, Any]:
    """Files of ``_okf/`` and the agent files that differ between two sites."""
    def files(site: Path) -> dict[str, bytes]:
        out = {f"_okf/{p.relative_to(site / '_okf').as_posix()}": p.read_bytes()
               for p in (site / "_okf").rglob("*") if p.is_file()}
        out.update({name: (site / name).read_bytes() for name in ("llms.txt", "llms-full.txt") if (site / name).is_file()})
        return out

    fa, fb = files(a), files(b)
    differ = sorted(n for n in fa.keys() | fb.keys() if fa.get(n) != fb.get(n))
    return {"files": len(fa), "differ": differ}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", default=str(bq.CORPORA / "material"), help="the corpus (copied first)")
    ap.add_argument("--work", default=str(HERE / "results" / "zensical"), help="builds and outputs")
    ap.add_argument("--repeats", type=int, default=3, help="timed Zensical build + okf index pairs (default 3)")
    ap.add_argument("--reuse", action="store_true", help="reuse the MkDocs builds under --work (okf index runs again)")
    args = ap.parse_args(argv)
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    corpus = Path(args.project)

    # 4 first: its MkDocs build with the hook gives the known items of 3
    plugin_site, plain_site, links, mkdocs_times = mkdocs_pair(corpus, work, args.reuse)
    same = compare(plugin_site, plain_site)

    # 1: Zensical build, then okf index, alternately
    project = zensical_project(corpus, work / "zensical-src")
    site = project / "site"
    builds, indexes = [], []
    for k in range(args.repeats):
        print(f"Zensical build + okf index, run {k + 1} of {args.repeats} ...", file=sys.stderr, flush=True)
        builds.append(timed(["zensical", "build", "--clean", "-f", "mkdocs-zensical.yml"], project))
        indexes.append(timed([sys.executable, "-m", "okf_sphinx", "index", "site", "--config", "mkdocs-zensical.yml"],
                             project))
    wall_b, cpu_b = statistics.median(w for w, _ in builds), statistics.median(c for _, c in builds)
    wall_i, cpu_i = statistics.median(w for w, _ in indexes), statistics.median(c for _, c in indexes)
    report = json.loads(subprocess.run([sys.executable, "-m", "okf_sphinx", "index", "site", "--config",
                                        "mkdocs-zensical.yml", "--json"], cwd=project, env=env(), capture_output=True,
                                       text=True, check=True).stdout)

    # 2: bytes
    workers = site / "assets" / "javascripts" / "workers"
    sizes = {"okf _okf/": folder_bytes(site / "_okf"), "okf assets/okf/": folder_bytes(site / "assets" / "okf"),
             "zensical search.json": file_bytes(site / "search.json"),
             "zensical search worker": folder_bytes(workers)}

    # 3: quality
    items = bqm.known_items(links)
    from okf_sphinx import open_index

    index = open_index(site)
    indexed = {index.section(i)["concept_id"] for i in range(index.sections_all)}
    items = [i for i in items if i["target"] in indexed]  # pages Zensical built from the same source
    bqm.mark_headings(items, site)
    urls = {}
    for sid in range(index.sections_all):
        rec = index.section(sid)
        urls.setdefault(rec["concept_id"], rec["url"].split("#", 1)[0])
    keys = bqm.page_of_url(urls)
    queries = [i["query"] for i in items]
    print(f"{len(items)} known-item queries", file=sys.stderr, flush=True)
    from okf_sphinx.engine import smart as engine

    rankings, _sections = bq.okf_rankings(site, items, {"okf keyword", "okf smart"},
                                          [float(getattr(engine, "SUB_HIT_FLOOR", 0.0))])
    answers = bq.node_lines(["node", str(HERE / "quality_zensical.js"), str(site)], queries)
    rankings["zensical"] = [bq.distinct_pages([bqm.url_docname(u, keys) for u in a]) for a in answers]
    rows = bqm.rows(items)

    print("## okf index after a Zensical build (Material for MkDocs' docs)\n")
    print(f"{report['pages']} pages, {report['sections']} sections indexed; {args.repeats} runs, medians\n")
    print("| step | wall s | CPU s |\n|---|---:|---:|")
    print(f"| zensical build --clean | {wall_b:.2f} | {cpu_b:.2f} |")
    print(f"| okf index | {wall_i:.2f} | {cpu_i:.2f} |")
    print(f"| ratio okf index / build | {wall_i / wall_b:.2f} | {cpu_i / cpu_b:.2f} |\n")
    print("| bytes | files | raw | gzip |\n|---|---:|---:|---:|")
    for name, s in sizes.items():
        print(f"| {name} | {s['files']} | {s['raw']} | {s['gzip']} |")
    print()
    print(bq.table("material (Zensical build)", items, rankings, SYSTEMS, rows) + "\n")
    print(f"MkDocs with the plugin vs MkDocs + okf index: {len(same['differ'])} of {same['files']} files differ"
          + (f": {', '.join(same['differ'][:20])}" if same["differ"] else " (byte-identical)"))
    summary = {
        "pages": report["pages"], "sections": report["sections"], "notes": report["notes"],
        "time": {"runs": args.repeats, "zensical build": {"wall": wall_b, "cpu": cpu_b},
                 "okf index": {"wall": wall_i, "cpu": cpu_i},
                 "ratio": {"wall": wall_i / wall_b, "cpu": cpu_i / cpu_b},
                 "all": {"builds": builds, "indexes": indexes}, "mkdocs": mkdocs_times},
        "bytes": sizes,
        "quality": {f"{group} {which}": {s: None if r is None else bq.metrics([bq.rank_of(items[i]["target"], r[i])
                                                                               for i in chosen])
                                         for s, r in rankings.items()} for group, which, chosen in rows},
        "queries": len(items),
        "same_as_plugin": same,
    }
    (work / "summary.json").write_text(json.dumps(summary, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
