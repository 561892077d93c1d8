"""Agent-surface measurements (issue 12): read_batch, memory, many sites.

1. **batch vs singles**: the same 20 sections read over a real MCP stdio session
   once as one ``read_batch`` and once as 20 ``get_section`` calls (sequential, as
   an agent issues them) — wall time (median of ``--repeat`` rounds, warm server)
   and the bytes of the answers' text content.
2. **memory**: Python's peak allocation (``tracemalloc``) of a full 20-item batch
   vs its largest single item, on a warm index (every file already loaded, as in
   a running server) and on a cold one.
3. **three sites**: ``okf mcp`` serving two folders and a URL (a local
   ``http.server``) answering 50 parallel calls: wall time of the burst.

Sites: the arguments (built HTML folders; the first is used for 1 and 2), else
the MyST-Parser docs corpus (``../shared/corpora/myst/docs``) and example_site,
built into a temporary folder. Results: ``bench/results/agents-latest.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"
sys.path.insert(0, str(REPO))

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

import okf_sphinx  # noqa: E402
from okf_sphinx.agent.answers import answer_size  # noqa: E402
from okf_sphinx.agent.dispatch import call_tool  # noqa: E402


def build(src: Path, out: Path) -> Path:
    cmd = [sys.executable, str(HERE / "sphinx_driver.py"), "--okf", "-q", "-b", "html", "-d", str(out / ".doctrees"),
           str(src), str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=src, env={**os.environ, "PYTHONPATH": str(REPO)})
    if proc.returncode:
        raise SystemExit(proc.stderr[-3000:])
    return out


def pick_sections(index: Any, count: int = 20) -> list[dict[str, Any]]:
    """``count`` get_section requests: the largest sections of the site (by source
    text) that fit a batch together, spread over pages — a reviewer's reading list."""
    sizes = []
    for sid in range(index.section_count):
        s = index.section(sid)
        sizes.append((len(s["text"].encode()), s["locator"], s["concept_id"]))
    sizes.sort(reverse=True)
    chosen, pages, total = [], set(), 0
    for size, locator, page in sizes:
        if page in pages or total + size > 150_000:
            continue
        chosen.append({"tool": "get_section", "arguments": {"locator": locator, "include_subsections": False}})
        pages.add(page)
        total += size
        if len(chosen) == count:
            break
    return chosen


@contextlib.asynccontextmanager
async def session(*sites: str):
    params = StdioServerParameters(command=sys.executable, args=["-m", "okf_sphinx", "mcp", *sites],
                                   env={**os.environ, "PYTHONPATH": str(REPO)})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            await s.list_tools()
            yield s


def batch_vs_singles(site: str, items: list[dict[str, Any]], repeat: int) -> dict[str, Any]:
    async def go():
        async with session(site) as s:
            await s.call_tool("read_batch", {"items": items})  # warm the server's caches
            batch_t, single_t = [], []
            batch_bytes = single_bytes = 0
            for _ in range(repeat):
                t0 = time.perf_counter()
                r = await s.call_tool("read_batch", {"items": items})
                batch_t.append(time.perf_counter() - t0)
                batch_bytes = len(r.content[0].text.encode())
                assert "unread" not in r.structured_content, r.structured_content.get("unread_reason")
                t0 = time.perf_counter()
                single_bytes = 0
                for item in items:
                    one = await s.call_tool(item["tool"], item["arguments"])
                    single_bytes += len(one.content[0].text.encode())
                single_t.append(time.perf_counter() - t0)
            return batch_t, single_t, batch_bytes, single_bytes

    batch_t, single_t, batch_bytes, single_bytes = anyio.run(go)
    b, s = statistics.median(batch_t), statistics.median(single_t)
    return {"items": len(items), "repeat": repeat, "batch_seconds": round(b, 4), "singles_seconds": round(s, 4),
            "speedup": round(s / b, 2), "batch_bytes": batch_bytes, "singles_bytes": single_bytes}


def _peak(fn) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def memory(site: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    cold_index = okf_sphinx.open_index(site)
    cold_batch = _peak(lambda: cold_index.read_batch(items))
    cold_singles = []
    for item in items:
        fresh = okf_sphinx.open_index(site)
        cold_singles.append(_peak(lambda fresh=fresh, item=item: call_tool(fresh, item["tool"], item["arguments"])))
    index = okf_sphinx.open_index(site)
    answer = index.read_batch(items)  # warm
    warm_batch = _peak(lambda: index.read_batch(items))
    warm_singles = [_peak(lambda item=item: call_tool(index, item["tool"], item["arguments"])) for item in items]
    return {
        "batch_answer_bytes": answer_size(answer),
        "warm": {"batch_peak": warm_batch, "largest_item_peak": max(warm_singles), "sum_of_items": sum(warm_singles)},
        "cold": {"batch_peak": cold_batch, "largest_item_peak": max(cold_singles), "sum_of_items": sum(cold_singles)},
    }


@contextlib.contextmanager
def serve_folder(folder: str):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=folder))
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def three_sites(folders: list[str], calls: int = 50) -> dict[str, Any]:
    with serve_folder(folders[0]) as url:
        sites = [folders[0], folders[1], url]

        async def go():
            async with session(*sites) as s:
                names = [e["name"] for e in (await s.call_tool("list_sites", {})).structured_content["sites"]]
                requests = []
                for i in range(calls):
                    name = names[i % 3]
                    requests.append(("search_sections", {"site": name, "query": ["install", "syntax", "search"][i % 3]})
                                    if i % 2 else ("search_concepts", {"site": name, "query": "a"}))
                errors = 0

                async def one(tool: str, args: dict[str, Any]) -> None:
                    nonlocal errors
                    r = await s.call_tool(tool, args)
                    errors += bool(r.is_error)

                # a first burst opens every index (and fetches the URL's files); the second is timed warm
                timings = []
                for _ in range(2):
                    t0 = time.perf_counter()
                    async with anyio.create_task_group() as tg:
                        for tool, args in requests:
                            tg.start_soon(one, tool, args)
                    timings.append(time.perf_counter() - t0)
                return names, timings, errors

        names, timings, errors = anyio.run(go)
    return {"sites": names, "calls": calls, "cold_burst_seconds": round(timings[0], 3),
            "warm_burst_seconds": round(timings[1], 3), "errors": errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sites", nargs="*", help="built HTML folders (default: MyST docs + example_site)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    tmp = None
    sites = list(args.sites)
    if len(sites) < 2:
        tmp = tempfile.TemporaryDirectory(prefix="okf-bench-agents-")
        myst = REPO.parent / "shared" / "corpora" / "myst" / "docs"
        if not sites:
            sites.append(str(build(myst, Path(tmp.name) / "myst")) if (myst / "conf.py").is_file() else None)
        sites.append(str(build(REPO / "example_site", Path(tmp.name) / "example")))
        sites = [s for s in sites if s]
    index = okf_sphinx.open_index(sites[0])
    items = pick_sections(index)
    result = {
        "site": sites[0], "sections": index.section_count,
        "batch_vs_singles": batch_vs_singles(sites[0], items, args.repeat),
        "memory": memory(sites[0], items),
        "three_sites": three_sites(sites[:2]),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "agents-latest.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
