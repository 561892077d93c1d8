"""A long-lived reader: its caches stay within their memory bound, the index is
swapped in atomically, and a reader notices a rebuild instead of mixing files of
two builds."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from support.build import sphinx_build, write_project, same_build
from support.reading_site import built_site

from okf_sphinx import OkfError, open_index
from okf_sphinx.agent.answers import answer_json
from okf_sphinx.agent.dispatch import call_tool
from okf_sphinx.core.index_format import unwrap
from okf_sphinx.core.terms import terms
from okf_sphinx.engine.cache import ByteLRU
from okf_sphinx.engine.index import Index
from okf_sphinx.engine.source import DiskSource
from okf_sphinx.core.hosts import SPHINX
from okf_sphinx.writer import disk


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory)


def _files(okf: Path) -> dict[str, object]:
    """Every index file under ``okf`` as ``{name: JSON value}``."""
    out = {}
    for p in sorted(okf.rglob("*.js")):
        name = p.relative_to(okf).as_posix()[:-3]
        out[name] = unwrap(name, p.read_bytes())
    return out


# -- the memory bound ------------------------------------------------------------------


def test_lru_drops_the_least_recently_used_and_keeps_its_bound():
    lru = ByteLRU(100)
    lru.put("a", 1, 40)
    lru.put("b", 2, 40)
    assert lru.get("a") == 1  # a is now the most recent
    lru.put("c", 3, 40)
    assert lru.get("b") is None and lru.get("a") == 1 and lru.get("c") == 3 and lru.size == 80
    lru.put("huge", 4, 101)  # larger than the whole bound: not kept
    assert lru.get("huge") is None and lru.size == 80


def test_caches_stay_within_their_bound_and_answers_do_not_change(site):
    bound = 64 * 1024
    small = Index(DiskSource(site / "_okf"), cache_bytes=bound)
    full = open_index(site)
    words = sorted({t for n in range(full.sections_all) for t in terms(full.section(n)["text"])})
    assert len(words) > 150
    queries = words[:300] + [f"{a} {b}" for a, b in zip(words[::7], words[3::7])][:100]
    for q in queries:
        assert answer_json(call_tool(small, "search_sections", {"query": q, "limit": 5})) == \
            answer_json(call_tool(full, "search_sections", {"query": q, "limit": 5}))
        assert small.cache.size <= bound
    for entry in full.files():
        args = {"path": entry["path"], "lines": [1, 40]}
        assert call_tool(small, "read_lines", args) == call_tool(full, "read_lines", args)
        assert small.cache.size <= bound
    for cid, _title, _page, _searchable, _paths in full.concepts():
        outline = call_tool(full, "get_section", {"concept_id": cid})
        for entry in outline["outline"][:5]:
            args = {"locator": entry["locator"], "max_chars": 500}
            assert call_tool(small, "get_section", args) == call_tool(full, "get_section", args)
            assert small.cache.size <= bound
    # the bound did something: unbounded, the same requests keep far more
    assert full.cache.size > 4 * bound
    # and nothing at all may be kept: every request reads its files again
    none = Index(DiskSource(site / "_okf"), cache_bytes=0)
    assert none.search("walrus") == full.search("walrus") and none.cache.size == 0


def test_mcp_cache_mb_option(site):
    from support.mcp import session_for, structured

    async def go():
        async with session_for(site, "--cache-mb", "1") as s:
            return [await s.call_tool("search_sections", {"query": q}) for q in ("walrus", "retry backoff")]

    answers = anyio.run(go)
    full = open_index(site)
    assert [structured(a) for a in answers] == [full.search("walrus"), full.search("retry backoff")]
    bad = subprocess.run([sys.executable, "-m", "okf_sphinx", "mcp", str(site), "--cache-mb", "-1"],
                         capture_output=True, timeout=60)
    assert bad.returncode == 2 and b"--cache-mb" in bad.stdout + bad.stderr and b"Traceback" not in bad.stderr


# -- the index revision ------------------------------------------------------------------


def test_manifest_carries_the_index_revision_of_the_other_files(site):
    okf = site / "_okf"
    manifest = unwrap("manifest", (okf / "manifest.js").read_bytes())
    assert manifest["index_revision"] == disk.index_revision(okf)
    assert open_index(site).index_revision == manifest["index_revision"]


def test_a_manifest_without_index_revision_is_refused(site, tmp_path):
    import shutil

    copy = tmp_path / "_okf"
    shutil.copytree(site / "_okf", copy)
    m = unwrap("manifest", (copy / "manifest.js").read_bytes())
    del m["index_revision"]
    (copy / "manifest.js").write_bytes(same_build("manifest", m, (copy / "manifest.js")))
    with pytest.raises(OkfError) as info:
        open_index(copy)
    assert info.value.code == "index_corrupt" and "index_revision" in info.value.message
    from support.node import run_node

    assert run_node(copy, [{"query": "walrus"}]) == [info.value.envelope]  # the JS runtime refuses it alike


# -- the swap ------------------------------------------------------------------------------


def _watch_manifest(okf: Path, stop: threading.Event, misses: list[str], raw: bool) -> None:
    source = DiskSource(okf)
    manifest = okf / "manifest.js"
    while not stop.is_set():
        if raw:  # the path itself: an exchange leaves no moment without it
            if not manifest.exists():
                misses.append("missing")
            continue
        try:  # a reader: it waits out the moment between two renames
            source.read("manifest")
        except OkfError as err:
            misses.append(err.code)


@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
def test_readers_never_see_the_index_missing_while_it_is_replaced(site, tmp_path, monkeypatch, exchange):
    if not exchange:
        monkeypatch.setattr(disk, "_exchange", lambda a, b: False)
    files = _files(site / "_okf")
    target = tmp_path / "html" / "_okf"
    disk.write_index(target, dict(files), SPHINX)
    stop = threading.Event()
    misses: list[str] = []
    watcher = threading.Thread(target=_watch_manifest, args=(target, stop, misses, exchange))
    watcher.start()
    try:
        for _ in range(8):
            disk.write_index(target, dict(files), SPHINX)
    finally:
        stop.set()
        watcher.join()
    assert misses == []
    assert sorted(p.name for p in target.parent.iterdir()) == ["_okf"]  # nothing staged is left behind
    assert open_index(target).search("walrus") == open_index(site).search("walrus")


# -- a rebuild under a long-lived reader -----------------------------------------------------

PAGE = "Page {n}\n=======\n\nThe walrus number {n} sings. " + "Filler words about walrus habits. " * 3 + "\n"


def _two_builds(tmp_path: Path) -> tuple[dict, dict]:
    """Build A, and build B whose new first page shifts every section id."""
    pages = {f"p{n}.rst": PAGE.format(n=n) for n in range(1, 7)}
    toc = "Home\n====\n\n.. toctree::\n\n" + "".join(f"   p{n}\n" for n in range(1, 7))
    a = write_project(tmp_path / "a", {"index.rst": toc, **pages})
    b = write_project(tmp_path / "b", {"index.rst": toc + "   aaa\n", **pages,
                                       "aaa.rst": "Aaa\n===\n\nA walrus before all others, walrus walrus.\n"})
    sphinx_build(a, tmp_path / "a_out")
    sphinx_build(b, tmp_path / "b_out")
    return _files(tmp_path / "a_out" / "_okf"), _files(tmp_path / "b_out" / "_okf")


@pytest.mark.parametrize("rebuild", ["shifted", "smaller"])
def test_a_long_lived_reader_follows_a_rebuild_without_mixing_builds(tmp_path, rebuild):
    """shifted: old section ids name other, valid sections (a silent mix);
    smaller: they point past the new build's end (a mix that fails the checks)."""
    a, b = _two_builds(tmp_path)
    if rebuild == "smaller":
        b = _smaller_build(tmp_path)
    target = tmp_path / "site" / "_okf"
    disk.write_index(target, dict(a), SPHINX)
    reader = open_index(target)
    # caches A's posting, not yet the section file its hits are in (a search would cache that too,
    # and a request answered from the cache alone is A's whole answer: stale, never mixed)
    first = reader.consistent(reader.posting, "walrus")
    assert first is not None and first.df == 6
    disk.write_index(target, dict(b), SPHINX)
    fresh = open_index(target)
    # the old posting's section ids would now name other sections of B
    assert answer_json(call_tool(reader, "search_sections", {"query": "walrus", "limit": 20})) == \
        answer_json(call_tool(fresh, "search_sections", {"query": "walrus", "limit": 20}))
    assert reader.search("walrus", limit=1) == fresh.search("walrus", limit=1)
    assert reader.index_revision == fresh.index_revision != json.dumps(a["manifest"])
    for sid in range(fresh.sections_all):
        assert reader.section(sid) == fresh.section(sid)


def _smaller_build(tmp_path: Path) -> dict:
    """A build with two of the six pages: section ids of the larger build point past its end."""
    toc = "Home\n====\n\n.. toctree::\n\n   p1\n   p2\n"
    c = write_project(tmp_path / "c", {"index.rst": toc, "p1.rst": PAGE.format(n=1), "p2.rst": PAGE.format(n=2)})
    sphinx_build(c, tmp_path / "c_out")
    return _files(tmp_path / "c_out" / "_okf")


@pytest.mark.parametrize("loader", ["node", "browser-like"])
def test_the_js_runtime_follows_a_rebuild_without_mixing_builds(tmp_path, loader):
    """Node re-reads the manifest after a search that loaded files; a browser-like
    loader (no cheap re-read) does so when a file of the new build fails its checks."""
    from support.node import RUNTIME, require_node

    a, b = _two_builds(tmp_path)
    if loader == "browser-like":
        b = _smaller_build(tmp_path)
    target = tmp_path / "site" / "_okf"
    disk.write_index(target, dict(a), SPHINX)
    make = "okf.nodeLoader(dir)" if loader == "node" else "((base) => (name, fresh) => base(name))(okf.nodeLoader(dir))"
    script = f"""
const okf = require({json.dumps(str(RUNTIME))});
const dir = {json.dumps(str(target))};
const engine = new okf.Index({make});
const rl = require('readline').createInterface({{ input: process.stdin }});
// first A's posting only (its section file is not read yet), then a search that needs the section file
const steps = [() => engine.open().then(() => engine.posting("walrus")), () => engine.search("walrus", 20)];
rl.on('line', async () => {{
  const step = steps.shift();
  let out;
  try {{ out = await step(); }} catch (e) {{ out = e.envelope || {{ crash: String(e) }}; }}
  process.stdout.write(JSON.stringify(out) + "\\n");
  if (!steps.length) rl.close();
}});
"""
    proc = subprocess.Popen([require_node(), "-e", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("go\n")
        proc.stdin.flush()
        first = json.loads(proc.stdout.readline())
        disk.write_index(target, dict(b), SPHINX)
        proc.stdin.write("go\n")
        proc.stdin.flush()
        second = json.loads(proc.stdout.readline())
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert first["df"] == 6
    fresh = open_index(target)
    assert second == json.loads(answer_json(fresh.search("walrus", 20)))


# -- files of two builds: every file names its build (issue 20, point 12) ----------------------------


def test_every_file_names_its_build_and_the_build_is_the_contents(tmp_path):
    """format_version 5: each index file carries its build's identity, the manifest's
    ``build``; the same sources give the same identity, other sources another."""
    from okf_sphinx.core import index_format as fmt

    _two_builds(tmp_path)
    builds = {}
    for name in ("a_out", "b_out"):
        okf = tmp_path / name / "_okf"
        manifest = unwrap("manifest", (okf / "manifest.js").read_bytes())
        assert {fmt.unwrap_file(p.relative_to(okf).as_posix()[:-3], p.read_bytes())[0]
                for p in okf.rglob("*.js")} == {manifest["build"]}
        builds[name] = manifest["build"]
    assert builds["a_out"] != builds["b_out"]
    again = write_project(tmp_path / "a2", {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "a").glob("*.rst")})
    sphinx_build(again, tmp_path / "a2_out", "-j", "2")
    assert unwrap("manifest", (tmp_path / "a2_out" / "_okf" / "manifest.js").read_bytes())["build"] == builds["a_out"]


def _mixed(tmp_path: Path) -> tuple[Path, Path, str]:
    """A's site with B's posting shard of "walrus" (same name: both sites have as many shards):
    what a cache serving files of two deployments hands out.  B's new first page shifts
    every section id, so B's postings name other, valid sections of A: a silent mix."""
    import shutil

    _two_builds(tmp_path)
    a, b = tmp_path / "a_out", tmp_path / "b_out"
    shard = open_index(a).shard_of("walrus")
    assert shard == open_index(b).shard_of("walrus")
    mix = tmp_path / "mix"
    shutil.copytree(a, mix)
    shutil.copyfile(b / "_okf" / f"{shard}.js", mix / "_okf" / f"{shard}.js")
    return mix, b, shard


def test_a_file_of_another_build_is_index_changed_in_python_and_node(tmp_path):
    from support.node import RUNTIME, require_node

    mix, _, _ = _mixed(tmp_path)
    with pytest.raises(OkfError) as info:
        open_index(mix).search("walrus")
    assert info.value.code == "index_changed" and info.value.details["file"].startswith("t/")
    script = f"""
const okf = require({json.dumps(str(RUNTIME))});
new okf.Index(okf.nodeLoader({json.dumps(str(mix / "_okf"))})).search("walrus", 20)
  .then(r => process.stdout.write(JSON.stringify(r)), e => process.stdout.write(JSON.stringify(e.envelope || String(e))));
"""
    proc = subprocess.run([require_node(), "-e", script], capture_output=True, text=True, timeout=60)
    got = json.loads(proc.stdout)
    assert got["error"]["code"] == "index_changed", got
    assert got["error"] == info.value.envelope["error"]


@contextlib.contextmanager
def _cdn(origin: Path, edge: dict[str, bytes]) -> Iterator[str]:
    """``origin`` served over HTTP behind a cache that still holds ``edge`` (path → bytes, an
    older deployment's files); a request with ``?fresh=`` goes past the cache to the origin."""
    import http.server
    import urllib.parse

    from support.http import serve_folder

    class Cdn(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            parts = urllib.parse.urlsplit(self.path)
            held = edge.get(parts.path)
            if held is not None and "fresh" not in urllib.parse.parse_qs(parts.query):
                self.send_response(200)
                self.send_header("Content-Type", "text/javascript")
                self.send_header("Content-Length", str(len(held)))
                self.end_headers()
                self.wfile.write(held)
                return
            super().do_GET()

    with serve_folder(origin, Cdn) as (url, _):
        yield url


@pytest.mark.browser
@pytest.mark.parametrize("stale", ["manifest", "shard"])
def test_a_cache_serving_two_builds_is_read_past_in_python_and_the_browser(tmp_path, stale):
    """B deployed, a cache still serving one file of A — the manifest, or the posting shard
    of "walrus": Python and the browser runtime read the odd file again past the cache
    (``?fresh=``) and answer B's search exactly, never a mix."""
    from support.node import CHROMIUM_ARGS, require_chromium

    a = tmp_path / "a_out"
    mix, b, shard = _mixed(tmp_path)
    path = "/_okf/manifest.js" if stale == "manifest" else f"/_okf/{shard}.js"
    want = open_index(b).search("walrus", 20)
    with _cdn(b, {path: (a / path.lstrip("/")).read_bytes()}) as url:
        assert open_index(url).search("walrus", 20) == want
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                page.goto(url + "search.html")  # the search page loads the runtime (other pages load it on first use)
                got = page.evaluate("""u => new OkfSearch.Index(OkfSearch.scriptLoader(u)).search('walrus', 20)
                    .then(r => r, e => e.envelope || String(e))""", url + "_okf/")
            finally:
                browser.close()
    assert got == json.loads(answer_json(want))
