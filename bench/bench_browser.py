"""Browser search cost: bytes per cold query for okf_sphinx, Sphinx's own search and Pagefind.

One run, one HTML build of a corpus (MyST-Parser's docs by default; ``--peps``
for the PEPs, ``--corpus DIR`` for any Sphinx project, ``--site DIR`` to reuse
a build that has ``_okf/``).  The build keeps Sphinx's own search page
(``okf_search_replace_builtin = False``: ours is ``okf-search.html``) so both
run on the same output; Pagefind (npm ``pagefind``, installed into
``bench/results/npm/``) indexes that same output.

For every query and engine, a fresh Chromium context (empty cache) opens the
engine's search page on a local ``http.server`` and waits until the engine is
done (okf: results rendered; Sphinx: "Search finished" and no request in
flight; Pagefind: ``search()`` plus ``data()`` of the first 10 results).  Every
request the page made is mapped to its file, and the file is counted as a web
server would send it: gzip level 6, or raw when that is smaller (Pagefind's
files are already compressed).  Assets every page of the site loads (theme CSS
and JS, measured on ``index.html``) and the search page's own HTML are not
counted; everything the search needs is: runtime, index, snippets.

``--dialog`` measures the search dialog instead (okf-boot.js on a page of the site, which
loads the runtime and okf-dialog.js at the first Ctrl+K):
keystroke-to-render latency in Chromium, warm (every query typed once before), one
keystroke at a time over every query of the set, from the input event to the rendered
answer (performance marks ``okf-input`` -> ``okf-rendered``) and to the next frame after it
(``okf-painted``); nearest-rank p50/p95.  And, cold (fresh context), the bytes the page
loads while 15-character queries are typed one letter at a time, each answer awaited (and,
after the last one, the breadcrumbs the dialog loads once typing pauses).

Also: warm query time of the runtime in Node (one process, every query once
untimed, then ``--repeat`` timed passes; nearest-rank p50/p95; limit 20 as the
Python benchmark), and the runtime's size raw, gzip, and minified (terser) +
gzip.  Results: a table on stdout and ``bench/results/browser-latest.json``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import functools
import gzip
import http.server
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import urllib.parse
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared" / "corpora"
RESULTS = HERE / "results"
NPM = RESULTS / "npm"
STATIC = REPO / "okf_sphinx" / "static"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PAGE = 10  # results on the first page of every engine

sys.path.insert(0, str(HERE))
from bench_query import QUERIES  # noqa: E402  (the same 30 queries as the Python benchmark)
from bench_smart import STATIC as ASSEMBLED  # noqa: E402  (this checkout's runtime, as a site build writes it)

RUNTIME = ASSEMBLED / "okf-search.js"

PAGEFIND_PAGE = """<!doctype html>
<meta charset="utf-8"><title>Pagefind benchmark</title>
<script type="module">
const q = new URLSearchParams(location.search).get("q");
const pagefind = await import("./pagefind/pagefind.js");
const r = await pagefind.search(q);
const data = await Promise.all(r.results.slice(0, PAGE).map((x) => x.data()));
window.okfBench = { total: r.results.length, shown: data.length };
document.body.dataset.done = "1";
</script>
<body></body>
""".replace("PAGE", str(PAGE))

WARM_JS = r"""
const okf = require(process.argv[2]);
const queries = JSON.parse(process.argv[4]), repeat = +process.argv[5];
const engine = new okf.Index(okf.nodeLoader(process.argv[3]));
(async () => {
  const run = async (q) => { try { return await engine.search(q, 20); } catch (e) { return e; } };
  for (const q of queries) await run(q);
  const times = [];
  for (let r = 0; r < repeat; r++) for (const q of queries) {
    const t0 = process.hrtime.bigint();
    await run(q);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  process.stdout.write(JSON.stringify(times));
})();
"""


def gz(data: bytes) -> int:
    return min(len(data), len(gzip.compress(data, compresslevel=6, mtime=0)))


def nearest_rank(values: list[float], pct: float) -> float:
    s = sorted(values)
    return s[max(0, math.ceil(pct / 100 * len(s)) - 1)]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def build(src: Path, out: Path, jobs: int) -> None:
    cmd = [sys.executable, str(HERE / "sphinx_driver.py"), "--okf", "-q", "-j", str(jobs), "-b", "html",
           "-D", "okf_search_replace_builtin=0", "-d", str(out.parent / "doctrees"), str(src), str(out)]
    print("building", src, "->", out, flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def npm_tools() -> dict[str, Path | None]:
    """terser and pagefind from npm, installed once into bench/results/npm/."""
    tools = {"terser": NPM / "node_modules" / ".bin" / "terser", "pagefind": NPM / "node_modules" / ".bin" / "pagefind"}
    if not all(p.exists() for p in tools.values()) and shutil.which("npm"):
        NPM.mkdir(parents=True, exist_ok=True)
        if not (NPM / "package.json").exists():
            (NPM / "package.json").write_text('{"private": true}\n')
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "terser", "pagefind"], cwd=NPM, check=False)
    return {k: (p if p.exists() else None) for k, p in tools.items()}


def runtime_size(terser: Path | None) -> dict[str, int | None]:
    raw = RUNTIME.read_bytes()
    out: dict[str, int | None] = {"raw": len(raw), "gzip": gz(raw), "min": None, "min_gzip": None}
    if terser:
        mini = subprocess.run([str(terser), str(RUNTIME), "-c", "-m"], capture_output=True, check=True).stdout
        out["min"], out["min_gzip"] = len(mini), gz(mini)
    return out


def file_for(site: Path, url: str) -> Path | None:
    path = urllib.parse.unquote(urllib.parse.urlsplit(url).path).lstrip("/")
    f = site / path
    if f.is_dir():
        f = f / "index.html"
    return f if f.is_file() else None


def recorded_page(context: Any) -> tuple[Any, list[str]]:
    """A new page of the browser ``context`` and the list every URL it requests is appended to."""
    page = context.new_page()
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    return page, urls


def measure(browser: Any, base: str, site: Path, page_url: str, done: str, exclude: set[str]) -> dict[str, Any]:
    context = browser.new_context()
    page, urls = recorded_page(context)
    page.goto(base + page_url)
    page.wait_for_function(done, timeout=120_000)
    page.wait_for_load_state("networkidle")
    context.close()
    first = urllib.parse.urlsplit(base + page_url).path
    counted: dict[str, int] = {}
    total = 0
    files = 0
    for u in urls:
        path = urllib.parse.urlsplit(u).path
        if path == first or path in exclude:
            continue
        f = file_for(site, u)
        if f is None:
            continue
        size = gz(f.read_bytes())
        total += size
        files += 1
        key = path.rsplit("/", 2)[-2] if "/_okf/" in path or "/pagefind/" in path else path.rsplit("/", 1)[-1]
        counted[key] = counted.get(key, 0) + size
    return {"bytes": total, "requests": files, "by_kind": counted}


def baseline(browser: Any, base: str) -> set[str]:
    context = browser.new_context()
    page, urls = recorded_page(context)
    page.goto(base + "index.html")
    page.wait_for_load_state("networkidle")
    context.close()
    return {urllib.parse.urlsplit(u).path for u in urls}


def warm_node(site: Path, queries: list[str], repeat: int) -> dict[str, float] | None:
    node = shutil.which("node")
    if not node:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False) as fh:
        fh.write(WARM_JS)
    try:
        out = subprocess.run([node, fh.name, str(RUNTIME), str(site / "_okf"), json.dumps(queries), str(repeat)],
                             capture_output=True, text=True, check=True).stdout
    finally:
        Path(fh.name).unlink()
    times = json.loads(out)
    return {"p50_ms": nearest_rank(times, 50), "p95_ms": nearest_rank(times, 95), "max_ms": max(times), "calls": len(times)}


DIALOG_FILES = ["okf-boot.js", "okf-stemmer.js", "okf-stemmer-english.js", "okf-search.js", "okf-dialog.js", "okf-dialog.css"]
# okf-boot.js on the page: it loads the stemmers, the runtime and the dialog when Ctrl+K is pressed
DIALOG_PAGE = """<!doctype html>
<html lang="en"><meta charset="utf-8"><title>okf dialog benchmark</title>
<link rel="stylesheet" href="_static/okf-dialog.css">
<script defer src="_static/okf-boot.js" data-okf-root="./" data-okf-search-page="search.html"></script>
<body><main role="main"><h1>Dialog benchmark</h1><p>Ctrl+K opens the search dialog.</p></main></body></html>
"""
# 15 characters each, typed one letter at a time (the bytes-while-typing measure)
TYPED = ["type annotation", "garbage collect", "async generator", "exception group", "dataclass field"]
DIALOG_DONE = ("q => { const d = document.querySelector('dialog.okf-dialog'); return d && d.getAttribute('data-okf-state') === 'done'"
               " && d.getAttribute('data-okf-query') === q && performance.getEntriesByName('okf-painted').length > 0; }")


def _type_and_time(page: Any, query: str) -> list[tuple[float, float]]:
    """Type query into the open dialog one key at a time; per key (input->rendered, input->painted) in ms."""
    page.fill("#okf-dialog-q", "")
    page.wait_for_function("() => document.querySelector('dialog.okf-dialog').getAttribute('data-okf-query') === ''")
    out = []
    for i, ch in enumerate(query):
        page.evaluate("performance.clearMarks()")
        page.keyboard.type(ch)
        page.wait_for_function(DIALOG_DONE, arg=query[: i + 1], timeout=120_000)
        marks = page.evaluate("""() => { const t = n => performance.getEntriesByName(n).map(e => e.startTime);
            const i = t('okf-input'), r = t('okf-rendered'), p = t('okf-painted');
            return [i[i.length - 1], r[r.length - 1], p[p.length - 1]]; }""")
        if query[: i + 1].strip():
            out.append((marks[1] - marks[0], marks[2] - marks[0]))
    return out


def dialog_bench(browser: Any, base: str, site: Path, queries: list[str]) -> dict[str, Any]:
    page_url = base + "okf-dialog-bench.html"
    context = browser.new_context()
    page = context.new_page()
    page.goto(page_url)
    page.keyboard.press("Control+k")
    page.wait_for_selector("dialog.okf-dialog[open]")
    for q in queries:  # warm: every file these queries need is loaded once
        _type_and_time(page, q)
    rendered: list[float] = []
    painted: list[float] = []
    for q in queries:
        for r, p in _type_and_time(page, q):
            rendered.append(r)
            painted.append(p)
    context.close()
    typed = []
    for q in TYPED:
        context = browser.new_context()
        page, urls = recorded_page(context)
        page.goto(page_url)
        page.wait_for_load_state("networkidle")
        before = len(urls)
        page.keyboard.press("Control+k")
        page.wait_for_selector("dialog.okf-dialog[open]")
        _type_and_time(page, q)
        page.wait_for_function("q => document.querySelector('dialog.okf-dialog').getAttribute('data-okf-crumbs') === q", arg=q)
        context.close()
        by_kind: dict[str, int] = {}
        index_requests = 0
        for u in urls[before:]:
            f = file_for(site, u)
            if f and "_okf" in f.parts:
                key = f.parent.name if f.parent.name != "_okf" else f.stem
                by_kind[key] = by_kind.get(key, 0) + gz(f.read_bytes())
                index_requests += 1
        index_bytes = sum(by_kind.values())
        # the boot on the page, and what it loads once Ctrl+K is pressed
        runtime_bytes = sum(gz(f.read_bytes()) for u in urls if (f := file_for(site, u)) and f.name in DIALOG_FILES)
        typed.append({"query": q, "index_bytes": index_bytes, "index_requests": index_requests,
                      "runtime_bytes": runtime_bytes, "by_kind": by_kind})
    return {
        "keystrokes": len(rendered),
        "rendered_ms": {"p50": nearest_rank(rendered, 50), "p95": nearest_rank(rendered, 95), "max": max(rendered)},
        "painted_ms": {"p50": nearest_rank(painted, 50), "p95": nearest_rank(painted, 95), "max": max(painted)},
        "typed": typed,
    }


def asset_sizes(terser: Path | None) -> dict[str, dict[str, int | None]]:
    """Each dialog file as the site ships it (minified by okf_sphinx: raw, gzip) and its
    readable source minified by terser (-c -m) then gzipped, for comparison."""
    from okf_sphinx.surfaces.browser import runtime_js, shipped

    out = {}
    for name in DIALOG_FILES:
        if name.endswith(".css"):
            raw = (STATIC / name).read_bytes()
            out[name] = {"raw": len(raw), "gzip": gz(raw), "min_gzip": None}
            continue
        raw = shipped(name, "en").text.encode("utf-8")
        row: dict[str, int | None] = {"raw": len(raw), "gzip": gz(raw), "min_gzip": None}
        if terser:
            readable = runtime_js() if name == RUNTIME.name else (STATIC / name).read_text(encoding="utf-8")
            row["min_gzip"] = gz(subprocess.run([str(terser), "-c", "-m"], input=readable.encode("utf-8"), capture_output=True,
                                                check=True).stdout)
        out[name] = row
    return out


def terser_only() -> Path | None:
    tool = NPM / "node_modules" / ".bin" / "terser"
    if not tool.exists() and shutil.which("npm"):
        NPM.mkdir(parents=True, exist_ok=True)
        if not (NPM / "package.json").exists():
            (NPM / "package.json").write_text('{"private": true}\n')
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "terser"], cwd=NPM, check=False)
    return tool if tool.exists() else None


def main_dialog(site: Path, name: str) -> int:
    from okf_sphinx.surfaces.browser import write_site_files

    write_site_files(site / "_static", "en")  # this checkout's boot, runtime and dialog, as a build ships them
    (site / "okf-dialog-bench.html").write_text(DIALOG_PAGE, encoding="utf-8")
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            dialog = dialog_bench(browser, base, site, QUERIES)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    sizes = asset_sizes(terser_only())
    result = {"when": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), "corpus": name,
              "queries": len(QUERIES), "dialog": dialog, "assets": sizes}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "dialog-latest.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    r, pnt = dialog["rendered_ms"], dialog["painted_ms"]
    print(f"corpus {name}: dialog keystroke latency, warm, {dialog['keystrokes']} keystrokes over {len(QUERIES)} queries")
    print("| measure | p50 | p95 | max |\n|---|---|---|---|")
    print(f"| keystroke -> results in the DOM | {r['p50']:.1f} ms | {r['p95']:.1f} ms | {r['max']:.1f} ms |")
    print(f"| keystroke -> next frame painted | {pnt['p50']:.1f} ms | {pnt['p95']:.1f} ms | {pnt['max']:.1f} ms |")
    print("\n| query typed (15 characters) | index bytes (gzip) | requests | boot + runtime + dialog (gzip) |\n|---|---|---|---|")
    for t in dialog["typed"]:
        print(f"| {t['query']} | {t['index_bytes'] / 1024:.1f} KiB | {t['index_requests']} | {t['runtime_bytes'] / 1024:.1f} KiB |")
    kinds = sorted({k for t in dialog["typed"] for k in t["by_kind"]})
    print("\nindex bytes by file kind (gzip KiB):", ", ".join(
        f"{k} {statistics.median([t['by_kind'].get(k, 0) for t in dialog['typed']]) / 1024:.1f}" for k in kinds), "(median over the typed queries)")
    print("\n| file (as shipped: minified) | raw | gzip | terser -c -m + gzip |\n|---|---|---|---|")
    for f, row in sizes.items():
        mg = f"{row['min_gzip']} B" if row["min_gzip"] else "-"
        print(f"| {f} | {row['raw']} B | {row['gzip']} B | {mg} |")
    return 0


def summary(values: list[int]) -> dict[str, float]:
    return {"median": statistics.median(values), "max": max(values), "min": min(values)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, help="a Sphinx project (default: the MyST docs corpus)")
    ap.add_argument("--peps", action="store_true", help="use ../shared/corpora/peps (a long build)")
    ap.add_argument("--site", type=Path, help="reuse this HTML build (built with okf_search_replace_builtin = False)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=200, help="timed passes for the warm Node numbers")
    ap.add_argument("--no-pagefind", action="store_true")
    ap.add_argument("--sphinx-page", type=Path,
                    help="with --site built with our page as search.html: a plain build's search.html, "
                         "measured as Sphinx's own search on the same output")
    ap.add_argument("--dialog", action="store_true",
                    help="measure the search dialog (keystroke latency, bytes while typing) on --site instead")
    args = ap.parse_args(argv)
    if args.dialog:
        if not args.site:
            ap.error("--dialog needs --site (a build with _okf/)")
        return main_dialog(args.site.resolve(), args.site.name)

    work = Path(tempfile.mkdtemp(prefix="okf-bench-browser-"))
    if args.site:
        site, name = args.site.resolve(), args.site.name
        # measure the runtime of this checkout, not the one written when the site was built
        from okf_sphinx.surfaces.browser import write_site_files

        write_site_files(site / "_static", "en")
    else:
        src = args.corpus or (SHARED / "peps" if args.peps else SHARED / "myst" / "docs")
        name = "peps" if args.peps else src.name if args.corpus else "myst"
        site = work / "html"
        build(src.resolve(), site, args.jobs)
    tools = npm_tools()
    if tools["pagefind"] and not args.no_pagefind:
        print("running pagefind", flush=True)
        subprocess.run([str(tools["pagefind"]), "--site", str(site)], check=True, stdout=subprocess.DEVNULL)
        (site / "pagefind-bench.html").write_text(PAGEFIND_PAGE, encoding="utf-8")
    okf_page = "okf-search.html" if (site / "okf-search.html").exists() else "search.html"
    engines = {
        "okf_sphinx": (okf_page, "() => document.querySelector('#okf-search[data-okf-state=done]')"),
    }
    # Sphinx's own page: search.html when ours sits beside it, or a copy of a plain build's
    # search.html saved as sphinx-search.html (--sphinx-page) next to ours
    sphinx_page = "search.html" if okf_page != "search.html" else None
    if args.sphinx_page:
        shutil.copyfile(args.sphinx_page, site / "sphinx-search.html")
        sphinx_page = "sphinx-search.html"
    if sphinx_page:
        engines["sphinx"] = (sphinx_page, "() => /^(Search finished|Your search did not match)/.test("
                                          "(document.querySelector('#search-results p.search-summary') || {}).innerText || '')")
    if (site / "pagefind-bench.html").exists():
        engines["pagefind"] = ("pagefind-bench.html", "() => document.body.dataset.done === '1'")

    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    per_query: dict[str, dict[str, Any]] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            exclude = baseline(browser, base)
            for q in QUERIES:
                per_query[q] = {}
                for engine, (page, done) in engines.items():
                    per_query[q][engine] = measure(browser, base, site, f"{page}?q={urllib.parse.quote(q)}", done, exclude)
                print(q.ljust(24), "  ".join(f"{e} {per_query[q][e]['bytes'] / 1024:7.1f} KiB" for e in engines), flush=True)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()

    size = runtime_size(tools["terser"])
    warm = warm_node(site, QUERIES, args.repeat)
    result = {
        "when": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "corpus": name, "queries": len(QUERIES), "first_page": PAGE,
        "cold_bytes": {e: summary([per_query[q][e]["bytes"] for q in QUERIES]) for e in engines},
        "cold_requests": {e: summary([per_query[q][e]["requests"] for q in QUERIES]) for e in engines},
        "runtime": size, "warm_node": warm, "per_query": per_query,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    for f in (RESULTS / f"browser-{stamp}.json", RESULTS / "browser-latest.json"):
        f.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    print(f"\ncorpus {name}: bytes per cold query (gzip), {len(QUERIES)} queries, first page of {PAGE} results")
    print("| engine | median | max | min | requests (median / max) |")
    print("|---|---|---|---|---|")
    for e in engines:
        b, r = result["cold_bytes"][e], result["cold_requests"][e]
        print(f"| {e} | {b['median'] / 1024:.1f} KiB | {b['max'] / 1024:.1f} KiB | {b['min'] / 1024:.1f} KiB | {r['median']:g} / {r['max']:g} |")
    print(f"\nruntime okf-search.js: {size['raw']} B raw, {size['gzip']} B gzip"
          + (f", {size['min']} B minified, {size['min_gzip']} B minified+gzip" if size["min"] else " (terser unavailable)"))
    if warm:
        print(f"warm query in Node (limit 20, {warm['calls']} calls): p50 {warm['p50_ms']:.3f} ms, "
              f"p95 {warm['p95_ms']:.3f} ms, max {warm['max_ms']:.3f} ms")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
