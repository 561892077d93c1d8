"""Sites over HTTP: a real local ``http.server`` serving a built site, a 404, a
server that hangs (timeout), cancellation, and the MCP server over a URL and
over streamable HTTP."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from support.mcp import session_for, structured
from support.reading_site import built_site

from okf_sphinx import OkfError, open_index
from okf_sphinx.agent.answers import answer_json
from okf_sphinx.agent.dispatch import call_tool
from okf_sphinx.engine.index import Index
from okf_sphinx.engine.source import UrlSource
from support.http import serve_folder


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory)


@contextlib.contextmanager
def hanging_server(accepted: threading.Event | None = None) -> Iterator[str]:
    """Accepts connections and never answers (sets ``accepted`` once a client connected)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])
                if accepted is not None:
                    accepted.set()
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        stop.set()
        t.join()
        for c in held:
            c.close()
        sock.close()


REQUESTS = [
    ("search_sections", {"query": "retry backoff", "limit": 5}),
    ("get_section", {"concept_id": "guide", "heading": "Retry policy"}),
    ("get_section", {"locator": "_includes/shared.rst#L1-L4"}),
    ("read_lines", {"path": "crlf.rst", "lines": [1, 9]}),
    ("search_concepts", {"query": "gen"}),
]


def test_url_source_answers_like_the_folder(site):
    disk = open_index(site)
    with serve_folder(site) as (url, requests):
        remote = open_index(url)
        assert remote.source.location == url + "_okf/"
        for tool, args in REQUESTS:
            assert answer_json(call_tool(remote, tool, args)) == answer_json(call_tool(disk, tool, args))
        # only the files the requests needed were fetched (sharded, lazy)
        fetched = {p for p in requests}
        assert "/_okf/manifest.js" in fetched and "/_okf/unicode.js" in fetched
        assert len([p for p in fetched if p.startswith("/_okf/t/")]) <= 4
        assert len([p for p in fetched if p.startswith("/_okf/f/")]) <= 3
        # the CLI over the URL prints the same bytes as over the folder
        for args in (["search", "--query", "walrus", "--json"], ["lines", "crlf.rst", "1", "9", "--json"]):
            a = subprocess.run([sys.executable, "-m", "okf_sphinx", args[0], url, *args[1:]], capture_output=True, timeout=60)
            b = subprocess.run([sys.executable, "-m", "okf_sphinx", args[0], str(site), *args[1:]], capture_output=True, timeout=60)
            assert a.returncode == 0 and a.stdout == b.stdout


def test_url_without_an_index_is_index_not_found(site, tmp_path):
    (tmp_path / "index.html").write_text("<p>not an okf site</p>")
    with serve_folder(tmp_path) as (url, _):
        with pytest.raises(OkfError) as info:
            open_index(url)
        assert info.value.code == "index_not_found"
        r = subprocess.run([sys.executable, "-m", "okf_sphinx", "search", url, "--query", "x", "--json"],
                           capture_output=True, timeout=60)
        assert r.returncode == 4 and json.loads(r.stdout)["error"]["code"] == "index_not_found"


def test_missing_shard_over_http_is_index_corrupt(site, tmp_path):
    import shutil

    copy = tmp_path / "html"
    shutil.copytree(site, copy)
    for f in [*(copy / "_okf").glob("f/*.js"), *(copy / "_okf").glob("b/*.js")]:  # the packs, also in bundles
        f.unlink()
    for f in (copy / "_sources").rglob("*"):  # files served from the site's copies of its sources
        if f.is_file():
            f.unlink()
    with serve_folder(copy) as (url, _):
        with pytest.raises(OkfError) as info:
            open_index(url).read_lines("guide.rst", [1, 2])
        assert info.value.code == "index_corrupt"


def test_hanging_server_times_out(site):
    with hanging_server() as url:
        started = time.monotonic()
        with pytest.raises(OkfError) as info:
            Index(UrlSource(url + "_okf/", timeout=0.5))
        assert info.value.code == "source_unavailable"
        assert time.monotonic() - started < 5
        r = subprocess.run([sys.executable, "-m", "okf_sphinx", "search", url, "--query", "x", "--timeout", "0.5", "--json"],
                           capture_output=True, timeout=60)
        assert r.returncode == 17 and json.loads(r.stdout)["error"]["code"] == "source_unavailable"


def test_interrupted_cli_is_cancelled_without_partial_output(site):
    """Ctrl-C while the CLI waits for the manifest is ``cancelled`` (exit 7), never the
    ``source_unavailable`` an interrupted network call could otherwise surface as.  The
    signal is sent once the server has accepted the connection (not after a sleep), and
    the HTTP timeout is far away, so a busy machine cannot change the outcome."""
    accepted = threading.Event()
    with hanging_server(accepted) as url:
        # the CLI as a terminal starts it: SIGINT not ignored (a runner in the background ignores it,
        # and the CLI keeps an ignored SIGINT ignored: test_an_ignored_interrupt_stays_ignored)
        p = subprocess.Popen([sys.executable, "-m", "okf_sphinx", "search", url, "--query", "x", "--json",
                              "--timeout", "600"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            assert accepted.wait(timeout=120), "the CLI never connected"
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=120)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert p.returncode == 7, err
    assert json.loads(out)["error"]["code"] == "cancelled" and b"Traceback" not in err


def test_an_interrupt_wrapped_as_a_source_error_is_still_cancelled(monkeypatch, capsys):
    """A library that turns the interrupt into an ordinary error (urllib wraps OSError,
    an EINTR from getaddrinfo is a socket.gaierror …) must not make Ctrl-C look like a
    network failure: once SIGINT was received, the CLI answers ``cancelled``."""
    from okf_sphinx.surfaces import cli

    def interrupted_open(site, timeout=None):
        os.kill(os.getpid(), signal.SIGINT)  # the handler runs at the next bytecode …
        try:
            time.sleep(5)
        except KeyboardInterrupt as exc:  # … and a library catches and wraps it
            raise OkfError("source_unavailable", "cannot fetch manifest.js: interrupted") from exc
        raise AssertionError("SIGINT was not delivered")

    monkeypatch.setattr(cli, "open_site", interrupted_open)
    # Python's own handler, as in a terminal (a runner started in the background ignores SIGINT)
    runner = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = cli.main(["search", "http://127.0.0.1:9/", "--query", "x", "--json"])
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
    finally:
        signal.signal(signal.SIGINT, runner)
    out = capsys.readouterr().out
    assert code == 7 and json.loads(out)["error"]["code"] == "cancelled"


def test_an_ignored_interrupt_stays_ignored(monkeypatch, capsys):
    """Started with SIGINT ignored (a background job, nohup), the CLI does not take Ctrl-C back."""
    from okf_sphinx.surfaces import cli

    during = []

    def failing_open(site, timeout=None):
        during.append(signal.getsignal(signal.SIGINT))
        raise OkfError("source_unavailable", "cannot fetch manifest.js: refused")

    monkeypatch.setattr(cli, "open_site", failing_open)
    runner = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        code = cli.main(["search", "http://127.0.0.1:9/", "--query", "x", "--json"])
        assert during == [signal.SIG_IGN] and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, runner)
    assert code != 0 and json.loads(capsys.readouterr().out)["error"]["code"] == "source_unavailable"


def test_mcp_over_a_url_site_and_source_unavailable(site):
    async def go(url: str, hang: str):
        async with session_for(url) as s:
            ok = await s.call_tool("search_sections", {"query": "walrus"})
        async with session_for(hang, "--timeout", "0.5") as s:
            down = await s.call_tool("search_concepts", {"query": "gen"})
        return ok, down

    with serve_folder(site) as (url, _), hanging_server() as hang:
        ok, down = anyio.run(go, url, hang)
    assert not ok.is_error and structured(ok) == open_index(site).search("walrus")
    assert down.is_error and structured(down)["error"]["code"] == "source_unavailable"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_transport_on_loopback(site):
    port = _free_port()
    p = subprocess.Popen([sys.executable, "-m", "okf_sphinx", "mcp", str(site), "--transport", "http", "--port", str(port)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)

        async def go():
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    tools = (await s.list_tools()).tools
                    hit = await s.call_tool("search_sections", {"query": "walrus"})
                    bad = await s.call_tool("read_lines", {"path": "crlf.rst", "lines": [True, 2]})
                    return tools, hit, bad

        tools, hit, bad = anyio.run(go)
        assert {t.name for t in tools} == {"search_sections", "get_section", "read_lines", "search_concepts",
                                           "read_batch", "list_sites"}
        assert structured(hit) == open_index(site).search("walrus")
        assert bad.is_error and structured(bad)["error"]["code"] == "invalid_line_range"
        # bound to loopback only
        listening = [ln for ln in open("/proc/net/tcp").read().splitlines()[1:] if f":{port:04X} " in ln.split()[1] + " "]
        assert listening and all(ln.split()[1].startswith("0100007F:") for ln in listening)
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        if os.environ.get("OKF_TEST_DEBUG"):
            print(p.stderr.read().decode())
