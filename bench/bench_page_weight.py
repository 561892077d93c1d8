"""Page weight: what okf_sphinx costs a page that never searches, and what the first search
costs, for this checkout against a baseline revision (issue 24), side by side in one run.

    python bench/bench_page_weight.py NAME=HTML ... [--baseline main] [--json OUT]

Each HTML is a site this checkout built (a folder with ``_okf/``).  The baseline's files are
taken from git (``git archive BASELINE okf_sphinx``: its ``static/`` and its assembled
``okf-search.js``), as that revision's build would ship them for the site's language; the
index (``_okf/``) is this build's for both, so only the page's scripts differ.

On a local ``http.server``, for each side, two pages that are the same but for okf's tags:
the baseline's (its stemmers, runtime and dialog eagerly, as its builds wrote them) and this
checkout's (what a page of the built site holds: ``okf-boot.js``).  In Chromium, a fresh
context (empty cache) per measure:

- **page that never searches**: the okf files the page loads until the network is idle
  (count, raw and gzip bytes — gzip level 9, as a server would send them at best);
- **first answer**: Ctrl+K, then the whole query entered at once (one input event, as a
  paste: one query reaches the engine, whenever its code arrives — typed key by key, how many
  of the partial queries the engine saw depended on timing, and so did the bytes), until the
  dialog shows the answer and the network is idle: every okf file the page loaded (its own
  Resource Timing: runtime and the index a cold engine reads for that one query, gzip), and the time from the Ctrl+K to the answer in
  the DOM (one cold first search; the median over the queries, the two sides in turn);
- **search page, cold query**: this checkout's search page opened in a fresh browser
  context at ``?q=<query>`` for each of bench_footprint's 30 queries, until it shows its
  answer: the okf runtime and index files it loaded (gzip; the median of each); the
  baseline's is computed (its search page's runtime files plus the index files a fresh
  engine loads for the query, smart mode with prefix, limit 10);
- **files shipped** besides ``_okf/`` (scripts, maps, CSS) by each side.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import bench_footprint  # noqa: E402  (bench/ is on sys.path only from the line above)
from bench_browser import CHROMIUM, CHROMIUM_ARGS, _Quiet, file_for  # noqa: E402  (likewise)

#: 15 characters each (bench_browser --dialog's queries)
QUERIES = ["type annotation", "garbage collect", "async generator", "exception group", "dataclass field",
           "directive option", "cross reference", "configuration"]
DONE = ("q => { const d = document.querySelector('dialog.okf-dialog'); return d && d.getAttribute('data-okf-state') === 'done'"
        " && d.getAttribute('data-okf-query') === q; }")
PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>okf page weight</title>{head}</head>
<body><main role="main"><h1>A page</h1><p>Ctrl+K opens the search dialog.</p></main>{body}</body></html>
"""


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 9))


def baseline_files(rev: str, language: str) -> tuple[dict[str, bytes], list[str], list[str]]:
    """The baseline's shipped okf files ({name: bytes}), what its pages loaded eagerly (in
    order), and what its search page loaded besides the CSS."""
    data = subprocess.run(["git", "-C", str(REPO), "archive", rev, "okf_sphinx"], capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(tmp)
        script = (
            "import json, sys\n"
            "from okf_sphinx.surfaces.browser import runtime_js\n"
            "from okf_sphinx.core.stemmer import stemmer_script\n"
            "from okf_sphinx.capture.sphinx.search_page import static_files\n"
            f"lang = {language!r}\n"
            "files = {p.name: p.read_text(encoding='utf-8') for p in static_files(lang)}\n"
            "files['okf-search.js'] = runtime_js()\n"
            "print(json.dumps({'files': files, 'stemmer': stemmer_script(lang)}))\n"
        )
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": tmp}, cwd=tmp)
        if proc.returncode:
            raise SystemExit(f"the baseline {rev}'s files: {proc.stderr}")
        out = proc.stdout
    got = json.loads(out)
    files = {k: v.encode("utf-8") for k, v in got["files"].items()}
    stem = ["okf-stemmer.js"] + ([got["stemmer"]] if got["stemmer"] else [])
    return files, [*stem, "okf-search.js", "okf-dialog.js", "okf-dialog.css"], [*stem, "okf-search.js", "okf-search-page.js",
                                                                                "okf-dialog.js", "okf-search.css", "okf-dialog.css"]


def page_tags(page: str) -> tuple[str, str]:
    """okf's tags in a built page: (in the head, in the body)."""
    tags = re.findall(r'<link[^>]*okf-[^>]*>|<script[^>]*okf-[^>]*>\s*</script>', page)
    return "".join(t for t in tags if t.startswith("<link")), "".join(t for t in tags if t.startswith("<script"))


def search_page_of(html: Path) -> Path:
    """okf's search page of the built site: the page its boot script names (``okf-search.html``
    when the site keeps Sphinx's own ``search.html``)."""
    named = re.search(r'data-okf-search-page=["\']?([^"\' >]+)', (html / "index.html").read_text(encoding="utf-8"))
    return html / (named.group(1) if named else "search.html")


def okf_loaded(site: Path, urls: list[str]) -> tuple[list[Path], list[Path]]:
    """The okf files of ``site`` among the requested ``urls`` (pages left out): its runtime
    (scripts and styles named ``okf-*``) and its index files (under ``_okf/``)."""
    files = [f for u in urls if (f := file_for(site, u)) and f.suffix != ".html" and (f.name.startswith("okf-") or "_okf" in f.parts)]
    return [f for f in files if "_okf" not in f.parts], [f for f in files if "_okf" in f.parts]


def loaded_urls(page: Any) -> list[str]:
    """Every URL the page has loaded, from its own Resource Timing entries: complete once the
    network is idle, where Playwright's request events may still be on their way."""
    return page.evaluate("performance.getEntriesByType('resource').map(e => e.name)")


def browse(browser: Any, url: str, site: Path, query: str | None) -> dict[str, Any]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.wait_for_load_state("networkidle")
    out: dict[str, Any] = {}
    if query is not None:
        t0 = page.evaluate("performance.now()")
        start = time.perf_counter()
        page.keyboard.press("Control+k")
        page.keyboard.insert_text(query)  # one input event: the one query whose cold bytes are counted
        page.wait_for_function(DONE, arg=query, timeout=120_000)
        out["first_answer_ms"] = (time.perf_counter() - start) * 1000
        # from the Ctrl+K to when the dialog's code ran (0: it ran with the page, before the Ctrl+K)
        ready = page.evaluate("() => { const e = performance.getEntriesByName('okf-ready'); return e.length ? e[0].startTime : -1; }")
        out["code_ready_ms"] = max(0.0, ready - t0)
        page.wait_for_load_state("networkidle")  # what the answer still reads once shown (the same each run)
    urls = loaded_urls(page)
    context.close()
    runtime, index = okf_loaded(site, urls)
    out.update({
        "runtime_files": len(runtime), "runtime_raw": sum(f.stat().st_size for f in runtime),
        "runtime_gzip": sum(gz(f.read_bytes()) for f in runtime),
        "index_files": len(index), "index_gzip": sum(gz(f.read_bytes()) for f in index),
    })
    return out


def browse_search_page(browser: Any, url: str, site: Path) -> dict[str, float]:
    """okf's search page opened cold at ``?q=`` for each of bench_footprint's queries, until it
    shows the answer: the median runtime and index gzip bytes it loaded, and the largest sum."""
    queries = list(dict.fromkeys(r["query"] for r in bench_footprint.bench_smart.requests(20, 10)))
    runtime, index, total = [], [], []
    for q in queries:
        context = browser.new_context()
        page = context.new_page()
        page.goto(url + "?q=" + urllib.parse.quote(q))
        page.wait_for_selector("#okf-search[data-okf-state=done]", timeout=120_000)
        page.wait_for_load_state("networkidle")
        urls = loaded_urls(page)
        context.close()
        scripts, shards = okf_loaded(site, urls)
        runtime.append(sum(gz(f.read_bytes()) for f in set(scripts)))
        index.append(sum(gz(f.read_bytes()) for f in set(shards)))
        total.append(runtime[-1] + index[-1])
    return {"runtime_gzip": statistics.median(runtime), "index_median_gzip": statistics.median(index),
            "median_gzip": statistics.median(total), "max_gzip": max(total), "queries": len(queries)}


def measure(name: str, html: Path, rev: str, browser: Any, base: str) -> dict[str, Any]:
    from okf_sphinx import open_index

    from okf_sphinx.capture.sphinx.search_page import NOT_SHIPPED
    from okf_sphinx.surfaces.browser import write_site_files

    language = open_index(html).manifest["smart"]["language"] or "en"
    # this checkout's files, whatever build wrote the site, where its pages load them from (Sphinx:
    # _static/; MkDocs: assets/okf/), so a re-indexed site runs the runtime that reads its index
    boot = re.search(r'src=["\']?([^"\' >?]*)okf-boot\.js', (html / "index.html").read_text(encoding="utf-8"))
    write_site_files((html / boot.group(1)) if boot else html / "_static", language, skip=NOT_SHIPPED)
    files, eager, search_eager = baseline_files(rev, language)
    old = html / "_static" / "okf-baseline"
    old.mkdir(parents=True, exist_ok=True)  # (an MkDocs site has no _static/ of its own)
    for n, data in files.items():
        (old / n).write_bytes(data)
    css = [n for n in eager if n.endswith(".css")]
    before_head = "".join(f'<link rel="stylesheet" href="_static/okf-baseline/{n}">' for n in css)
    before_body = "".join(f'<script defer src="_static/okf-baseline/{n}"'
                          + (' data-okf-index="_okf/"' if n == "okf-search.js" else "")
                          + (' data-okf-root="./" data-okf-search-page="search.html"' if n == "okf-dialog.js" else "")
                          + "></script>" for n in eager if n.endswith(".js"))
    index_page = (html / "index.html").read_text(encoding="utf-8")
    after_head, after_body = page_tags(index_page)
    (html / "okf-weight-before.html").write_text(PAGE.format(lang=language, head=before_head, body=before_body), encoding="utf-8")
    (html / "okf-weight-after.html").write_text(PAGE.format(lang=language, head=after_head, body=after_body), encoding="utf-8")
    row: dict[str, Any] = {"site": name, "language": language, "baseline": rev}
    sides = ("before", "after")
    idle = {side: browse(browser, base + f"okf-weight-{side}.html", html, None) for side in sides}
    firsts: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    for q in QUERIES:  # the two sides in turn, query by query: a busy machine slows both alike
        for side in sides:
            firsts[side].append(browse(browser, base + f"okf-weight-{side}.html", html, q))
    for side in sides:
        row[side] = {
            "idle": idle[side],
            "first": {k: statistics.median([f[k] for f in firsts[side]]) for k in firsts[side][0]},
            "first_ms_max": max(f["first_answer_ms"] for f in firsts[side]),
        }
    # the search page: its runtime files (gzip) + the index a cold smart query loads (median)
    cold = bench_footprint.cold(html, bench_footprint.RUNTIME, (20, 10))["smart+prefix"]
    # okf's scripts and styles as the search page names them (Sphinx: _static/; MkDocs: assets/okf/, maybe unquoted)
    page = search_page_of(html)
    after_search = [(page.parent / ref).resolve().relative_to(html.resolve()).as_posix() for ref in re.findall(
        r'(?:src|href)=["\']?([^"\' >?]*okf-[^"\' >?]+\.(?:js|css))', page.read_text(encoding="utf-8"))]
    row["before"]["search_page"] = {"runtime_gzip": sum(gz(files[n]) for n in search_eager), "index_median_gzip": cold["median"],
                                    "index_max_gzip": cold["max"]}
    row["after"]["search_page"] = {**browse_search_page(browser, base + page.relative_to(html).as_posix(), html),
                                   "files": after_search}
    shipped_after = [p for p in (html / "_static").glob("okf-*") if p.is_file()]
    row["before"]["shipped"] = {"files": len(files), "raw": sum(len(d) for d in files.values()),
                                "gzip": sum(gz(d) for d in files.values())}
    row["after"]["shipped"] = {"files": len(shipped_after), "raw": sum(p.stat().st_size for p in shipped_after),
                               "gzip": sum(gz(p.read_bytes()) for p in shipped_after),
                               "maps": sum(1 for p in shipped_after if p.name.endswith(".map"))}
    return row


def kib(n: float) -> str:
    return f"{n / 1024:.1f} KiB"


def report(rows: list[dict[str, Any]]) -> str:
    lines = ["| site | side | page that never searches: okf files, raw / gzip | first answer from a page (the query entered at once): okf files, "
             "runtime gzip + index gzip (median) | Ctrl+K → first answer, median / max | search page, cold query: runtime "
             "+ index gzip (median) | files shipped besides `_okf/` (raw / gzip) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        for side in ("before", "after"):
            s = r[side]
            i, f, sp, sh = s["idle"], s["first"], s["search_page"], s["shipped"]
            label = f"baseline `{r['baseline']}`" if side == "before" else "this checkout"
            lines.append(
                f"| {r['site']} | {label} | {i['runtime_files']}: {kib(i['runtime_raw'])} / {kib(i['runtime_gzip'])} "
                f"| {f['runtime_files']:.0f} + {f['index_files']:.0f}: {kib(f['runtime_gzip'])} + {kib(f['index_gzip'])} "
                f"= {kib(f['runtime_gzip'] + f['index_gzip'])} | {f['first_answer_ms']:.0f} / {s['first_ms_max']:.0f} ms "
                f"(code ready {f['code_ready_ms']:.0f} ms) "
                f"| {kib(sp['runtime_gzip'])} + {kib(sp['index_median_gzip'])} = {kib(sp['runtime_gzip'] + sp['index_median_gzip'])} "
                f"| {sh['files']}{' (' + str(sh['maps']) + ' maps)' if 'maps' in sh else ''}: {kib(sh['raw'])} / {kib(sh['gzip'])} |")
        b, a = r["before"], r["after"]
        lines.append(f"| {r['site']} | ratio | {a['idle']['runtime_gzip'] / b['idle']['runtime_gzip']:.2f}× gzip "
                     f"| {(a['first']['runtime_gzip'] + a['first']['index_gzip']) / (b['first']['runtime_gzip'] + b['first']['index_gzip']):.2f}× "
                     f"| {a['first']['first_answer_ms'] / b['first']['first_answer_ms']:.2f}× "
                     f"| {(a['search_page']['runtime_gzip'] + a['search_page']['index_median_gzip']) / (b['search_page']['runtime_gzip'] + b['search_page']['index_median_gzip']):.2f}× "
                     f"| {a['shipped']['gzip'] / b['shipped']['gzip']:.2f}× gzip |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sites", nargs="+", help="NAME=HTML (a site this checkout built)")
    ap.add_argument("--baseline", default="main", help="the git revision to compare with (default: main)")
    ap.add_argument("--json", type=Path, help="write the measurements here")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for spec in args.sites:
            name, _, html = spec.partition("=")
            site = Path(html)
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
            threading.Thread(target=server.serve_forever, daemon=True).start()
            try:
                rows.append(measure(name, site, args.baseline, browser, f"http://127.0.0.1:{server.server_address[1]}/"))
            finally:
                server.shutdown()
                server.server_close()
            print(json.dumps(rows[-1]), flush=True)
        browser.close()
    print(report(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
