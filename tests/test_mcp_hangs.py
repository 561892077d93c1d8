"""A slow site never stalls ``okf mcp`` (issue 20, points 1-3): the real MCP client
over stdio against a server whose URL sites sit on a local server that holds every
request until the test lets it go — so every check is an order of events (an answer
came while those requests were still held), never a wall-clock threshold.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from support.http import running
from support.mcp import session_for, structured
from support.reading_site import built_site

from okf_sphinx import open_index
from okf_sphinx.agent.batch import DEADLINE_SECONDS

#: How long a held request waits at most (the test releases it far earlier; this only
#: stops a broken server from keeping the test forever).
MAX_HOLD = 90.0


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory)


class _Held(http.server.SimpleHTTPRequestHandler):
    gate: threading.Event
    seen: list[tuple[float, str]]
    answered: list[float]

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        type(self).seen.append((time.monotonic(), self.path))
        type(self).gate.wait(MAX_HOLD)
        super().do_GET()
        type(self).answered.append(time.monotonic())


@contextlib.contextmanager
def held_site(folder: Path) -> Iterator[tuple[str, Any]]:
    """``folder`` served over HTTP, every request held until ``handler.gate`` is set."""
    handler: Any = type("Held", (_Held,), {"gate": threading.Event(), "seen": [], "answered": []})
    with running(functools.partial(handler, directory=str(folder))) as url:
        try:
            yield url, handler
        finally:
            handler.gate.set()  # the held requests end before the server shuts down


def test_a_slow_site_holds_back_neither_other_sites_nor_the_protocol(site, example_html):
    """45 calls wait on a URL site that does not answer; meanwhile a call to a local
    site, a protocol ping and a read_batch queued behind them: the local call and the
    ping are answered while every slow request is still held, and the batch's
    deadline counts from when it arrived, not from when a thread was free for it."""
    slow_calls = 45
    local = open_index(example_html)
    with held_site(site) as (url, held):
        async def go() -> dict[str, Any]:
            async with session_for(f"local={example_html}", f"slow={url}", "--timeout", "120") as s:
                done: dict[str, Any] = {"slow": [None] * slow_calls, "order": []}

                async def slow(i: int) -> None:
                    done["slow"][i] = await s.call_tool("search_concepts", {"query": "gen", "site": "slow"})
                    done["order"].append("slow")

                async def batch() -> None:
                    done["batch"] = await s.call_tool("read_batch", {"site": "slow", "items": [
                        {"tool": "read_lines", "arguments": {"path": "guide.rst", "lines": [1, 2]}}]})
                    done["order"].append("batch")

                async with anyio.create_task_group() as tg:
                    for i in range(slow_calls):
                        tg.start_soon(slow, i)
                    await anyio.sleep(0.5)  # let them arrive first
                    tg.start_soon(batch)
                    sent = time.monotonic()
                    with anyio.fail_after(60):
                        done["local"] = await s.call_tool("search_sections", {"query": "retry", "site": "local"})
                        done["order"].append("local")
                        await s.send_ping()
                        done["order"].append("ping")
                    done["held_meanwhile"] = len(held.answered)
                    # the batch waits in the slow site's queue past its deadline, then the site answers
                    await anyio.sleep(max(0.0, sent + DEADLINE_SECONDS + 0.5 - time.monotonic()))
                    held.gate.set()
                return done

        done = anyio.run(go)
    assert done["held_meanwhile"] == 0  # the slow site had answered nothing yet
    assert done["order"][:2] == ["local", "ping"], done["order"][:5]
    assert structured(done["local"]) == local.search("retry")
    assert all(not r.is_error and structured(r) == open_index(site).search_concepts("gen") for r in done["slow"])
    answer = structured(done["batch"])
    assert answer["count"] == 0 and answer["unread"] == [0] and answer["unread_reason"] == "timeout"


def test_start_up_opens_url_sites_at_once_and_reports_those_it_cannot_reach(site, example_html, tmp_path):
    """Three unnamed URL sites that hold their answers and one that refuses connections:
    `initialize` and `ping` are answered while all three are held, the three manifests
    were asked for at once (none waited for another), and list_sites names the
    unreachable site's error."""
    import socket

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    refused = f"http://127.0.0.1:{closed.getsockname()[1]}/"
    closed.close()  # nothing listens there: connection refused
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(held_site(s)) for s in (site, example_html, site)]

        async def go() -> dict[str, Any]:
            out: dict[str, Any] = {}
            with anyio.fail_after(60):
                async with session_for(*(u for u, _ in servers), refused, "--timeout", "120") as s:
                    out["initialized_while_held"] = sum(len(h.answered) for _, h in servers)
                    await s.send_ping()
                    # every site's first request is in before any was let go
                    while sum(1 for _, h in servers if h.seen) < 3:
                        await anyio.sleep(0.05)
                    out["asked_while_held"] = [len(h.seen) for _, h in servers]
                    out["answered_then"] = sum(len(h.answered) for _, h in servers)
                    for _, h in servers:
                        h.gate.set()
                    out["listed"] = structured(await s.call_tool("list_sites", {}))
                    out["tools"] = (await s.list_tools()).tools
            return out

        out = anyio.run(go)
    assert out["initialized_while_held"] == 0 and out["answered_then"] == 0
    assert all(n >= 1 for n in out["asked_while_held"])
    listed = out["listed"]["sites"]
    assert [e["name"] for e in listed[:3]] == ["okf-reading-tests", "okf-sphinx-example", "okf-reading-tests-2"]
    assert listed[3]["error"]["code"] == "source_unavailable" and listed[3]["location"].startswith(refused)
    enum = {t.name: t.input_schema["properties"]["site"].get("enum") for t in out["tools"] if t.name != "list_sites"}
    assert all(e == [x["name"] for x in listed] for e in enum.values())


# -- JSON-RPC lines the server cannot read --------------------------------------------------------


class _Raw:
    """``okf mcp SITE`` over raw stdio lines (the SDK client only writes valid JSON)."""

    def __init__(self, site: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "okf_sphinx", "mcp", str(site)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ.copy())
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, text: str | bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text) + b"\n")
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        return json.loads(self.lines.get(timeout=60))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


BAD_LINES = {
    # (line, the id the answer must carry, the JSON-RPC code)
    "lone surrogate": ('{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"search_sections",'
                       '"arguments":{"query":"\\ud800"}}}', 11, -32600),
    "5,000-digit integer": ('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"read_lines",'
                            '"arguments":{"path":"guide.rst","lines":[1,' + "9" * 5000 + "]}}}", 12, -32600),
    "deep nesting": ('{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"x":' + "[" * 100_000 + "]" * 100_000
                     + "}}", "deep", -32600),
    "not JSON": ('{"jsonrpc":"2.0","id":14,"method":', 14, -32700),
    "garbage": ("hello", None, -32700),
    "not an object": ("[1,2,3]", None, -32600),
    "no method": ('{"jsonrpc":"2.0","id":15}', 15, -32600),
    "bad id": ('{"jsonrpc":"2.0","id":[1],"method":"ping"}', None, -32600),
    "not UTF-8 JSON": (b'{"jsonrpc":"2.0","id":16,"method":"ping","params":{"x":"\xff"}}', 16, None),
}


def test_unparsable_json_rpc_lines_get_error_answers_and_the_server_goes_on(site):
    raw = _Raw(site)
    try:
        raw.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}))
        assert raw.answer()["id"] == 1
        raw.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        for name, (line, want_id, code) in BAD_LINES.items():
            raw.send(line)
            got = raw.answer()
            assert got["id"] == want_id, (name, got)
            if code is None:  # bytes that are not UTF-8 read as U+FFFD (as the SDK reads them): a valid ping
                assert got.get("result") == {}, (name, got)
                continue
            assert got["error"]["code"] == code and got["error"]["message"], (name, got)
        raw.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                             "params": {"name": "search_sections", "arguments": {"query": "walrus"}}}))
        got = raw.answer()
        assert got["id"] == 2 and got["result"]["structuredContent"] == open_index(site).search("walrus")
    finally:
        raw.close()
    assert raw.proc.returncode == 0


def test_the_id_of_an_unreadable_line_is_found_without_parsing_it():
    """The scanner that finds a request's id in a line no parser reads (in-process: what
    the -32700 / -32600 answers carry)."""
    from okf_sphinx.surfaces.mcp_stdio import INVALID_REQUEST, PARSE_ERROR, read_message, refusal, request_id

    deep = "[" * 50_000 + "]" * 50_000
    cases = {
        '{"jsonrpc":"2.0","id":7,"method":"x"}': 7,
        '{"id": "a\\"b", "x": 1}': 'a"b',
        '{"x": {"id": 3}, "id": 4}': 4,  # a nested id is not the request's
        '{"x": [1, {"id": 3}], "id": -12}': -12,
        '{"x": "{\\"id\\": 9}", "id": 5}': 5,  # braces inside a string are text
        '{"params": ' + deep + ', "id": "deep"}': "deep",
        '{"id": 1, "id": 2}': 2,  # the last one, as JSON readers take it
        '{"id": 1.5}': None, '{"id": true}': None, '{"id": null}': None, '{"id": [1]}': None,
        '{"id": ' + "9" * 19 + "}": None, '{"id": 0' + "1}": None,
        '{"id": "\\ud800"}': None,  # cannot go back on the wire
        '[{"id": 1}]': None, '"id"': None, "": None, "{": None,
        '{"jsonrpc":"2.0","id":14,"method":': 14, '{"a" "id": 3}': None, '{"id": ""}': "",
    }
    for text, want in cases.items():
        assert request_id(text) == want, text
    assert refusal('{"id": 3, "x": 1e999999999999}', "why").error.code == INVALID_REQUEST
    assert refusal('{"id": 3, "x": ', "").error.code == PARSE_ERROR
    assert refusal("[" * 5000 + "]" * 5000, "").error.code == INVALID_REQUEST  # deep, but JSON
    message, error = read_message(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
    assert error is None and message.method == "ping"
    assert read_message(b"   ") == (None, None)
    _, error = read_message(b'{"jsonrpc":"2.0","id":[1],"method":"ping"}')
    assert error.error.code == INVALID_REQUEST and error.id is None
    assert error.error.message == "Invalid request: the id must be a string or an integer"
    message, error = read_message(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')  # no id: a notification
    assert error is None and message.method == "notifications/initialized"


def test_each_unreadable_line_is_answered_in_process():
    """The lines of BAD_LINES through read_message itself (the subprocess test above proves the
    wire; this one lets mutation testing see the rules): the id, the code, and a message that
    says what the reader refused."""
    from okf_sphinx.surfaces.mcp_stdio import read_message, refusal

    for name, (line, want_id, code) in BAD_LINES.items():
        message, error = read_message(line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line)
        if code is None:
            assert error is None and message.method == "ping" and message.id == want_id, name
            continue
        assert message is None and error.id == want_id and error.error.code == code, (name, error)
        text = error.error.message
        assert text.startswith("Parse error: the line is not JSON (" if code == -32700 else "Invalid request: "), (name, text)
        assert "Invalid JSON" not in text and len(text) < 400, (name, text)
    reason = read_message(BAD_LINES["5,000-digit integer"][0].encode())[1].error.message
    assert reason == "Invalid request: the JSON reader refuses it (number out of range at line 1 column 4422)"
    assert read_message(b'{"jsonrpc":"2.0","id":15}')[1].error.message == \
        "Invalid request: not a JSON-RPC 2.0 request, notification or response"
    assert refusal('{"id": 3, "x": ', "").id == 3 and refusal('{"id": 3, "x": ', "").error.message == \
        "Parse error: the line is not JSON"
    assert refusal("[1]", "why").error.message == "Invalid request: why" and refusal("[1]", "why").id is None
