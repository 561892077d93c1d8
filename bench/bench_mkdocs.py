"""MkDocs plugin cost: build CPU with and without okf, and cold-query bytes vs Material's search.

Corpus: Material for MkDocs' own docs (``../shared/corpora/material``, 96 pages,
most pymdownx extensions, the blog plugin and a shortcode hook), copied to a
temporary folder first (the corpus is read-only).  Needs ``mkdocs-material`` and
``mkdocs-minify-plugin`` (the ``bench`` extra).

Build: in one run, ``--repeat`` times each, alternating which goes first, a clean
``mkdocs build`` of the corpus as it is ("plain") and with ``okf`` added to its
plugins ("okf", ``replace_builtin: false`` so Material's own search stays and
both can be measured on one site).  Reported per build:

- CPU: user + system time of the build process, from ``resource.getrusage(
  RUSAGE_CHILDREN)`` deltas around it; the ratio okf / plain of the minimum CPU
  of each (goal <= 1.10);
- the CPU spent inside the okf plugin's own event handlers (shadow parse and
  section split per page, index writing), timed inside the okf build process
  by this script's ``--driver`` mode, as a share of the plain build: the
  plugin's cost without the run-to-run noise of two whole builds; and the
  parts of those handlers (``PARTS``: headings, line mapping, section split,
  links, objects, index build, index write), each timed on its own;
- bytes of ``_okf/`` (raw, and each file gzip level 6) next to Material's
  ``search/search_index.json``.

Browser (``--no-browser`` skips it): for each query a fresh Chromium context
opens okf's search page (``okf-search.html?q=...``) from a local HTTP server and
waits for the results; every file it requested beyond what ``index.html`` loads
is counted as a web server sends it (gzip 6, or raw when smaller) — runtime,
CSS, manifest, shards and the shown sections.  Material's search, on the same
site, loads its whole ``search_index.json`` and its search worker on every page
(checked in the same browser: they are among ``index.html``'s requests); their
gzip sizes are its cold-query bytes for any query.

Results: a table on stdout and ``bench/results/mkdocs-latest.json``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPUS = REPO.parent / "shared" / "corpora" / "material"
RESULTS = HERE / "results"
QUERIES = ["search plugin", "social cards", "code annotations", "dark mode", "navigation tabs",
           "blog posts", "privacy", "versioning", "admonition", "content tabs", "instant loading",
           "custom fonts"]


# -- driver: one mkdocs build, timing the okf plugin's handlers ------------------------------
#: functions inside okf's handlers timed on their own (bench/NOTEBOOK.md, MkDocs: where the CPU goes)
PARTS = ("headings_from_tree", "shadow_headings", "line_numbers", "split_markdown", "capture_links",
         "rendered_objects", "build_index", "write_index")


def driver(argv: list[str]) -> int:
    """``bench_mkdocs.py --driver OUT.json -- <mkdocs build args>``: run the build in this process."""
    out = Path(argv[0])
    spent: dict[str, float] = {"seconds": 0.0}
    parts: dict[str, float] = {}
    try:
        from okf_sphinx.capture.mkdocs import plugin as mkdocs_plugin
    except ImportError:
        mkdocs_plugin = None
    if mkdocs_plugin is not None:
        cls = mkdocs_plugin.OkfPlugin
        for name in [n for n in vars(cls) if n.startswith("on_")]:
            original = getattr(cls, name)

            def timed(*args: Any, __original: Any = original, **kwargs: Any) -> Any:
                start = time.process_time()
                try:
                    return __original(*args, **kwargs)
                finally:
                    took = time.process_time() - start
                    spent["seconds"] += took
                    spent[__original.__name__] = spent.get(__original.__name__, 0.0) + took

            for attr in ("mkdocs_priority",):
                if hasattr(original, attr):
                    setattr(timed, attr, getattr(original, attr))
            setattr(cls, name, timed)
        # the parts of those handlers (functions the plugin's modules call by these names)
        from okf_sphinx.capture.mkdocs import page as mkdocs_page
        from okf_sphinx.writer import build as writer_build

        homes = [mkdocs_page, writer_build]
        for name in PARTS:
            home = next((m for m in homes if getattr(m, name, None) is not None), None)
            if home is None:
                continue
            original = getattr(home, name)

            def part(*args: Any, __original: Any = original, __name: str = name, **kwargs: Any) -> Any:
                start = time.process_time()
                try:
                    return __original(*args, **kwargs)
                finally:
                    parts[__name] = parts.get(__name, 0.0) + time.process_time() - start

            setattr(home, name, part)
    from mkdocs.__main__ import cli

    try:
        cli.main(args=argv[2:], prog_name="mkdocs", standalone_mode=False)
    finally:
        out.write_text(json.dumps({**spent, "parts": parts}))
    return 0


# -- builds ----------------------------------------------------------------------------------
def gz(data: bytes) -> int:
    import gzip

    return min(len(data), len(gzip.compress(data, compresslevel=6, mtime=0)))


def okf_config(project: Path) -> str:
    text = (project / "mkdocs.yml").read_text(encoding="utf-8")
    marker = "plugins:\n"
    if marker not in text:
        raise SystemExit("the corpus's mkdocs.yml has no plugins: list")
    text = text.replace(marker, marker + "  - okf:\n      replace_builtin: false\n", 1)
    (project / "mkdocs-okf.yml").write_text(text, encoding="utf-8")
    return "mkdocs-okf.yml"


def entry_point_path() -> str | None:
    """PYTHONPATH entry for the plugin's entry point when this checkout is not installed with it."""
    sys.path.insert(0, str(REPO / "tests"))
    from support.mkdocs_sites import build_env

    return build_env()["PYTHONPATH"]


def run_build(project: Path, config: str, out: Path, *, okf: bool, pythonpath: str) -> dict[str, float]:
    timing = out.parent / f"{out.name}-hooks.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--driver", str(timing), "--",
           "build", "-q", "-f", config, "-d", str(out)]
    env = {**os.environ, "PYTHONPATH": pythonpath, "PYTHONHASHSEED": "0"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    proc = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"build failed:\n{proc.stdout}\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    spent = json.loads(timing.read_text()) if okf else {"seconds": 0.0}
    parts = spent.pop("parts", {})
    return {"cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "okf_hooks_cpu_s": round(spent.pop("seconds"), 3),
            "okf_hooks_by_event_s": {k: round(v, 3) for k, v in sorted(spent.items()) if v >= 0.0005},
            "okf_parts_s": {k: round(v, 3) for k, v in sorted(parts.items())}}


def tree_bytes(root: Path) -> dict[str, int]:
    files = [p for p in root.rglob("*") if p.is_file()]
    return {"files": len(files), "raw": sum(p.stat().st_size for p in files), "gzip": sum(gz(p.read_bytes()) for p in files)}


# -- browser -----------------------------------------------------------------------------------
def _context(browser: Any, base: str) -> Any:
    """A fresh context (empty cache) that reaches only the local server: the corpus links
    web fonts and analytics, which would otherwise keep the network busy for ever."""
    context = browser.new_context()
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
    return context


def _requests(browser: Any, base: str, page_url: str, done: str | None) -> list[str]:
    import bench_browser

    context = _context(browser, base)
    page, urls = bench_browser.recorded_page(context)
    page.goto(base + page_url)
    if done:
        page.wait_for_function(done, timeout=120_000)
    page.wait_for_load_state("networkidle")
    context.close()
    return [u for u in urls if u.startswith(base)]


def browser_bytes(site: Path, queries: list[str]) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(REPO / "tests"))
    import functools
    import http.server
    import threading

    import bench_browser  # the same file lookup and gzip counting as the Sphinx browser benchmark
    from support.node import CHROMIUM_ARGS, require_chromium
    from playwright.sync_api import sync_playwright

    handler = functools.partial(bench_browser._Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"

    def size(url_path: str) -> int:
        f = bench_browser.file_for(site, base + url_path.lstrip("/"))
        return gz(f.read_bytes()) if f else 0

    out: dict[str, Any] = {"okf": {}, "material": {}}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
            # what every page loads (Material's search worker and index among it)
            every_page = {urllib.parse.urlsplit(u).path for u in _requests(
                browser, base, "index.html",
                "performance.getEntriesByType('resource').some(e => e.name.endsWith('search_index.json'))")}
            material_files = sorted(f for f in every_page if f.endswith("search_index.json") or "/workers/search" in f)
            out["material"] = {"files": material_files, "bytes": sum(size(f) for f in material_files)}
            for q in queries:
                page_url = "okf-search.html?q=" + urllib.parse.quote(q)
                paths = {urllib.parse.urlsplit(u).path for u in _requests(
                    browser, base, page_url, "document.querySelector('#okf-search[data-okf-state=done]')")}
                counted = sorted(f for f in paths - every_page if f != "/okf-search.html")
                by_kind: dict[str, int] = {}
                for f in counted:
                    key = f.split("/_okf/", 1)[1].split("/")[0] if "/_okf/" in f else f.rsplit("/", 1)[-1]
                    by_kind[key] = by_kind.get(key, 0) + size(f)
                out["okf"][q] = {"bytes": sum(by_kind.values()), "requests": len(counted), "by_kind": by_kind}
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    values = sorted(v["bytes"] for v in out["okf"].values())
    out["okf_summary"] = {"median": values[len(values) // 2], "max": values[-1], "min": values[0]}
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--driver"]:
        return driver(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="a MkDocs project (default: Material's docs)")
    ap.add_argument("--repeat", type=int, default=2, help="builds of each kind (default 2)")
    ap.add_argument("--no-browser", action="store_true", help="skip the Chromium measurement")
    args = ap.parse_args(argv)
    pythonpath = entry_point_path()
    work = Path(tempfile.mkdtemp(prefix="okf-bench-mkdocs-"))
    try:
        project = work / "project"
        shutil.copytree(args.corpus, project)
        config = okf_config(project)
        runs: dict[str, list[dict[str, float]]] = {"plain": [], "okf": []}
        for i in range(args.repeat):
            order = ["plain", "okf"] if i % 2 == 0 else ["okf", "plain"]
            for kind in order:
                out = work / f"site-{kind}"
                shutil.rmtree(out, ignore_errors=True)
                r = run_build(project, "mkdocs.yml" if kind == "plain" else config, out, okf=kind == "okf", pythonpath=pythonpath)
                print(f"{kind:5} build {i + 1}: cpu {r['cpu_s']:.2f} s, wall {r['wall_s']:.2f} s"
                      + (f", okf hooks {r['okf_hooks_cpu_s']:.2f} s {r['okf_hooks_by_event_s']}, parts {r['okf_parts_s']}"
                         if kind == "okf" else ""),
                      flush=True)
                runs[kind].append(r)
        plain = min(r["cpu_s"] for r in runs["plain"])
        okf = min(r["cpu_s"] for r in runs["okf"])
        hooks = min(r["okf_hooks_cpu_s"] for r in runs["okf"])
        site = work / "site-okf"
        result: dict[str, Any] = {
            "when": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "corpus": str(args.corpus), "repeat": args.repeat, "runs": runs,
            "cpu_ratio": round(okf / plain, 3), "hooks_share_of_plain": round(hooks / plain, 3),
            "okf_index": tree_bytes(site / "_okf"),
            "material_index": {"raw": (site / "search" / "search_index.json").stat().st_size,
                               "gzip": gz((site / "search" / "search_index.json").read_bytes())},
        }
        print(f"CPU okf/plain (min of {args.repeat}): {okf:.2f} / {plain:.2f} s = {result['cpu_ratio']:.3f}; "
              f"okf hooks {hooks:.2f} s = {result['hooks_share_of_plain'] * 100:.1f} % of the plain build")
        print(f"_okf/: {result['okf_index']['files']} files, {result['okf_index']['raw']} B raw, "
              f"{result['okf_index']['gzip']} B gzip; Material search_index.json {result['material_index']['raw']} B raw, "
              f"{result['material_index']['gzip']} B gzip")
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "mkdocs-latest.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        if not args.no_browser:
            b = browser_bytes(site, QUERIES)
            result["browser"] = b
            print(f"cold query bytes (gzip): okf median {b['okf_summary']['median']} B, max {b['okf_summary']['max']} B "
                  f"over {len(QUERIES)} queries; Material {b['material']['bytes']} B ({', '.join(b['material']['files'])})")
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "mkdocs-latest.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
