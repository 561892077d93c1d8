"""A slow URL site against ``okf mcp`` (issue 20, points 1 and 2), over a real stdio session.

1. **stall**: a server for a local folder (``local=``) and a URL site (``slow=``)
   whose every response takes ``--delay`` seconds (5 by default). 45 calls to
   the slow site are sent at once; then, while they wait, one call to the local
   site and one protocol ``ping``, at once. Reports when each was answered (seconds after
   it was sent), and when the first slow call was.
2. **start-up**: ``okf mcp URL URL URL`` over three sites that each answer in
   ``--delay`` seconds: seconds from starting the server to its ``initialize``
   answer, to ``ping``, and to the first ``tools/list`` (which waits for the
   unnamed sites' names).

Run it against any checkout (``PYTHONPATH=<checkout> python bench/bench_mcp_slow_site.py SITE``;
SITE: a built HTML folder, default the example site built into a temporary folder).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

HERE = Path(__file__).resolve().parent


@contextlib.contextmanager
def slow_folder(folder: Path, delay: float) -> Iterator[str]:
    class Slow(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            time.sleep(delay)
            super().do_GET()

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Slow, directory=str(folder)))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextlib.asynccontextmanager
async def session(*args: str) -> Any:
    params = StdioServerParameters(command=sys.executable, args=["-m", "okf_sphinx", "mcp", *args],
                                   env={**os.environ})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            yield s


def stall(site: Path, delay: float, calls: int) -> dict[str, Any]:
    with slow_folder(site, delay) as url:
        async def go() -> dict[str, Any]:
            out: dict[str, Any] = {}
            async with session(f"local={site}", f"slow={url}", "--timeout", "600") as s:
                await s.initialize()
                await s.call_tool("search_sections", {"query": "search", "site": "local"})  # warm
                slow_answers: list[float] = []
                t0 = time.monotonic()

                async def slow() -> None:
                    await s.call_tool("search_concepts", {"query": "a", "site": "slow"})
                    slow_answers.append(time.monotonic() - t0)

                async with anyio.create_task_group() as tg:
                    for _ in range(calls):
                        tg.start_soon(slow)
                    await anyio.sleep(0.5)
                    sent = time.monotonic()

                    async def local() -> None:
                        await s.call_tool("search_sections", {"query": "search", "site": "local"})
                        out["local_call_s"] = round(time.monotonic() - sent, 3)

                    async def ping() -> None:
                        await s.send_ping()
                        out["ping_s"] = round(time.monotonic() - sent, 3)

                    tg.start_soon(local)
                    tg.start_soon(ping)
                out["first_slow_answer_s"] = round(min(slow_answers), 3)
                out["last_slow_answer_s"] = round(max(slow_answers), 3)
            return out

        return anyio.run(go)


def startup(site: Path, delay: float) -> dict[str, Any]:
    with contextlib.ExitStack() as stack:
        urls = [stack.enter_context(slow_folder(site, delay)) for _ in range(3)]

        async def go() -> dict[str, Any]:
            out: dict[str, Any] = {}
            t0 = time.monotonic()
            async with session(*urls, "--timeout", "600") as s:
                await s.initialize()
                out["initialize_s"] = round(time.monotonic() - t0, 3)
                await s.send_ping()
                out["ping_s"] = round(time.monotonic() - t0, 3)
                await s.list_tools()
                out["tools_list_s"] = round(time.monotonic() - t0, 3)
            return out

        return anyio.run(go)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", help="a built HTML folder (default: example_site, built now)")
    parser.add_argument("--delay", type=float, default=5.0)
    parser.add_argument("--calls", type=int, default=45)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(args.site) if args.site else Path(tmp) / "html"
        if not args.site:
            subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(HERE.parent / "example_site"),
                            str(site)], check=True)
        result = {"delay_s": args.delay, "calls": args.calls, "stall": stall(site, args.delay, args.calls),
                  "startup": startup(site, args.delay)}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
