"""URL sources against misbehaving servers on 127.0.0.1: a whole-request deadline
(a server trickling bytes cannot keep a read alive), the redirect policy (same
origin only, a bounded number) and the per-site byte budget."""

from __future__ import annotations

import contextlib
import functools
import http.server
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.http import running, serve_folder
from support.reading_site import built_site

from okf_sphinx import OkfError, open_index
from okf_sphinx.engine.index import Index
from okf_sphinx.engine.source import MAX_REDIRECTS, UrlSource


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory)


@contextlib.contextmanager
def trickling_server(head: bytes, trickle: bytes, every: float = 0.3) -> Iterator[str]:
    """Answers each connection with ``head`` at once, then ``trickle`` one byte every
    ``every`` seconds (100 bytes take 30 s), stopping when the client hangs up."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    stop = threading.Event()

    def answer(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(head)
                for i in range(len(trickle)):
                    if stop.wait(every):
                        return
                    conn.sendall(trickle[i : i + 1])
            except OSError:
                return

    def accept() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        stop.set()
        t.join()
        sock.close()


BODY = b'okfLoad("manifest",{});\n' + b" " * 76  # 100 bytes


@pytest.mark.parametrize("part", ["body", "headers"])
def test_a_trickling_server_cannot_outlive_the_deadline(part):
    if part == "body":
        head, trickle = b"HTTP/1.0 200 OK\r\nContent-Length: 100\r\n\r\n", BODY
    else:
        head, trickle = b"HTTP/1.0 200 OK\r\n", b"X-Slow: " + b"a" * 92
    with trickling_server(head, trickle) as url:
        source = UrlSource(url + "_okf/", timeout=1.0)
        started = time.monotonic()
        with pytest.raises(OkfError) as info:
            source.read("manifest")
        elapsed = time.monotonic() - started
    # each byte comes within 0.3 s, so a per-read timeout would wait the full 30 s
    assert info.value.code == "source_unavailable"
    assert "within 1 s" in info.value.message
    assert elapsed < 10, elapsed


class _Redirecting(http.server.BaseHTTPRequestHandler):
    target: str = ""
    seen: list[str]

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        type(self).seen.append(self.path)
        self.send_response(302)
        self.send_header("Location", type(self).target.replace("{path}", self.path))
        self.send_header("Content-Length", "0")
        self.end_headers()


@contextlib.contextmanager
def redirecting_server(target: str) -> Iterator[tuple[str, list[str]]]:
    handler = type("Handler", (_Redirecting,), {"target": target, "seen": []})
    with running(handler) as url:
        yield url, handler.seen


class _Moved(http.server.SimpleHTTPRequestHandler):
    """Serves the site under /real/ and redirects everything else there."""

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        if self.path.startswith("/real/"):
            self.path = self.path[len("/real") :]
            return super().do_GET()
        self.send_response(301)
        self.send_header("Location", "/real" + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()


def test_redirects_within_the_site_are_followed(site):
    with running(functools.partial(_Moved, directory=str(site))) as url:
        assert open_index(url).search("walrus") == open_index(site).search("walrus")


def test_redirects_to_another_origin_are_refused(site):
    with serve_folder(site) as (other, other_requests):
        # same host, another port: another origin
        with redirecting_server(other.rstrip("/") + "{path}") as (url, seen):
            with pytest.raises(OkfError) as info:
                open_index(url)
    assert info.value.code == "source_unavailable"
    assert "outside the site" in info.value.message and info.value.details["redirect"].startswith(other)
    assert seen == ["/_okf/manifest.js"] and other_requests == []  # never fetched


def test_redirect_loops_stop_after_the_limit():
    with redirecting_server("{path}x") as (url, seen):
        with pytest.raises(OkfError) as info:
            UrlSource(url + "_okf/", timeout=10).read("manifest")
    assert info.value.code == "source_unavailable" and f"more than {MAX_REDIRECTS}" in info.value.message
    assert len(seen) == MAX_REDIRECTS + 1


def test_the_site_byte_budget_bounds_all_files_together(site):
    okf = site / "_okf"
    manifest = (okf / "manifest.js").stat().st_size
    with serve_folder(site) as (url, _):
        source = UrlSource(url + "_okf/", max_bytes=manifest + 4096)
        index = Index(source)
        index.source.read("manifest")  # reading a file again costs nothing more
        assert source.bytes_read == manifest
        with pytest.raises(OkfError) as info:
            for n in range(20):  # every file fits the per-file cap; together they do not
                index.file_bytes(n)
        assert info.value.code == "resource_limit" and info.value.details["limit"] == manifest + 4096
        assert "limit per site" in info.value.message
        assert source.bytes_read <= source.max_bytes
        # the default budget reads the same files without complaint
        whole = Index(UrlSource(url + "_okf/"))
        assert [whole.file_bytes(n) for n in range(3)] == [open_index(site).file_bytes(n) for n in range(3)]


@contextlib.contextmanager
def counting_hanging_server() -> Iterator[tuple[str, list[float]]]:
    """Accepts connections (noting when) and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    held: list[socket.socket] = []
    accepted: list[float] = []
    stop = threading.Event()

    def accept() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])
                accepted.append(time.monotonic())
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/", accepted
    finally:
        stop.set()
        t.join()
        for c in held:
            c.close()
        sock.close()


def test_concurrent_mcp_calls_share_one_open_of_a_slow_site():
    """Eight calls at once to a server whose URL site hangs: they wait for one
    shared open (one connection, one timeout), not for each other's in turn."""
    import anyio
    from support.mcp import session_for, structured

    calls = 8
    with counting_hanging_server() as (url, accepted):
        async def go():
            async with session_for(url, "--timeout", "2") as s:
                before = len(accepted)  # the server tried once at start-up
                results: list = [None] * calls
                started = time.monotonic()

                async def one(i: int) -> None:
                    results[i] = await s.call_tool("search_concepts", {"query": "gen"})

                async with anyio.create_task_group() as tg:
                    for i in range(calls):
                        tg.start_soon(one, i)
                return results, time.monotonic() - started, len(accepted) - before

        results, elapsed, connections = anyio.run(go)
    assert all(r.is_error and structured(r)["error"]["code"] == "source_unavailable" for r in results)
    # queued opens would make 8 connections and take 8 × 2 s
    assert connections <= 2, connections
    assert elapsed < 12, elapsed


# -- site URLs that are not what they seem (issue 20, points 9 and 10) ------------------------------

BAD_URLS = ["http://[::1", "http://[zz]/", "http://host:99999/", "http://host:abc/", "https:///docs/"]


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_malformed_url_is_schema_validation_everywhere(url):
    import json
    import subprocess
    import sys

    with pytest.raises(OkfError) as info:
        open_index(url)
    assert info.value.code == "schema_validation" and "URL" in info.value.message
    proc = subprocess.run([sys.executable, "-m", "okf_sphinx", "search", url, "--query", "x", "--json"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert json.loads(proc.stdout)["error"]["code"] == "schema_validation"
    proc = subprocess.run([sys.executable, "-m", "okf_sphinx", "mcp", url], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "schema_validation" in proc.stderr, proc.stderr


def test_a_query_or_fragment_never_leads_to_another_sites_index(site, example_html, tmp_path):
    """The site at /docs/ beside another at the server's root: ``/docs#top`` is /docs/'s
    index (a fragment never reaches a server), ``/docs?x=1`` is refused — never the
    root's index under /docs's name."""
    import shutil

    root = tmp_path / "root"
    shutil.copytree(example_html, root)
    shutil.copytree(site, root / "docs")
    with serve_folder(root) as (url, requests):
        docs = open_index(url + "docs").search("walrus")
        assert docs["total"] >= 1 and open_index(url).search("walrus")["total"] == 0
        assert open_index(url + "docs#top").search("walrus") == docs
        assert open_index(url + "docs/#top").source.location == url + "docs/_okf/"
        for query in ("docs?x=1", "docs/?x=1#top", "?x=1"):
            with pytest.raises(OkfError) as info:
                open_index(url + query)
            assert info.value.code == "schema_validation" and "?x=1" in info.value.message
    assert not any("?" in r or "#" in r for r in requests)


@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://127.0.0.1/x", "http://[::1"])
def test_one_redirect_off_http_is_named_not_counted_as_a_loop(target):
    with redirecting_server(target) as (url, seen):
        with pytest.raises(OkfError) as info:
            UrlSource(url + "_okf/", timeout=10).read("manifest")
    assert info.value.code == "source_unavailable", info.value
    assert target in info.value.message and "more than" not in info.value.message, info.value.message
    assert info.value.details["redirect"] == target and seen == ["/_okf/manifest.js"]
