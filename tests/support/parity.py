"""The surfaces' answers side by side for the parity tests: the Python API, the MCP server,
the CLI and the browser runtime (Node and Chromium), and the generated requests they answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from hypothesis import strategies as st

import okf_sphinx
from support.http import serve
from support.mcp import session_for
from support.node import CHROMIUM_ARGS, require_chromium, run_node, same

# words of example_site, mixed with the Unicode cases the contract calls out
WORDS = ["retry", "policy", "cache", "install", "the", "Кэш", "Café", "CAFE\u0301", "Straße", "STRASSE",
         "ΣΊΣΥΦΟΣ", "σίσυφος", "İstanbul", "検索", "שָׁלוֹם", "script", "<img", "onerror", "zzzunknown",
         "linux", "macos", "clearing", "configuration", "deadline", "jitter", "backoff", "ß", "ẞ", "Ꭰ", "😀", "x\u0345"]


query = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map("-_/.".join),
    st.text(min_size=0, max_size=12),
    st.sampled_from(["", "!!!", "a" * 512, "a" * 513, " ".join(f"w{i}" for i in range(33))]),
)


# misspelt, other forms and cut-short words: suggestions, stems and prefixes in smart mode
WORDS += ["retries", "policies", "cached", "installing", "configured", "retyr", "polcy", "cach", "conf", "ins", "deadl",
          '"retry policy"', '"exponential backoff"', '"policy retry"', "SECRET_KEY", "retry.base_delay"]


request = st.fixed_dictionaries({"query": query}, optional={"limit": st.sampled_from([1, 3, 20, 100])})


smart_request = st.fixed_dictionaries(
    {"query": query, "mode": st.just("smart")},
    optional={"limit": st.sampled_from([1, 3, 20, 100]), "prefix": st.booleans(),
              "under": st.sampled_from(["guide", "platforms", "platforms/linux", "retry"]),
              "kind": st.sampled_from(["section", "py:function"]), "expand": st.booleans()},
)


# always asked too: hits, ties, truncation and every query refusal
FIXED = [{"query": q} for q in ("retry policy", "clearing cache", "the", "Кэш", "CAFE\u0301", "<script>", "",
                                 "!!!", "a" * 513, " ".join(f"w{i}" for i in range(33)), "zzzunknown")]


FIXED += [{"query": "the", "limit": 3}, {"query": "cache", "limit": 100}]


FIXED += [{"query": q, "mode": "smart"} for q in ("retry policy", "retries", "retry polcy", "retyr", "the", "Кэш")]


FIXED += [{"query": q, "mode": "smart"} for q in ('"retry policy" settings', '"policy retry"', "“exponential backoff” cache")]


FIXED += [{"query": q, "mode": "smart", "expand": True} for q in ("installation", "retry policy", "the", "retyr")]


FIXED += [{"query": "conf", "mode": "smart", "prefix": True}, {"query": "the", "mode": "smart", "limit": 2},
          {"query": "retry", "mode": "keyword"}, {"query": "retry", "mode": "fuzzy"}, {"query": "retry", "prefix": True}]


def api_answer(index: okf_sphinx.Index, req: dict[str, Any]) -> dict[str, Any]:
    options = {k: v for k, v in req.items() if k not in ("query", "limit")}
    try:
        return index.search(req["query"], req.get("limit", 20), **options)
    except okf_sphinx.OkfError as exc:
        return exc.envelope


def mcp_answers(site: Path, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        async with session_for(site) as session:
            return [(await session.call_tool("search_sections", r)).structured_content for r in requests]

    return anyio.run(go)


def cli_answer(site: Path, req: dict[str, Any]) -> dict[str, Any]:
    argv = [sys.executable, "-m", "okf_sphinx", "search", str(site), "--query", req["query"], "--json"]
    if "limit" in req:
        argv += ["--limit", str(req["limit"])]
    if "mode" in req:
        argv += ["--mode", req["mode"]]
    if req.get("prefix"):
        argv += ["--prefix"]
    if "under" in req:
        argv += ["--under", req["under"]]
    if "kind" in req:
        argv += ["--kind", req["kind"]]
    if req.get("expand"):
        argv += ["--expand"]
    proc = subprocess.run(argv, capture_output=True, timeout=60)
    answer = json.loads(proc.stdout)
    assert (proc.returncode == 0) == ("error" not in answer)
    return answer


def browser_answers(site: Path, requests: list[dict[str, Any]]) -> list[Any]:
    from playwright.sync_api import sync_playwright

    url, server = serve(site)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(url + "search.html")
            page.wait_for_function("() => window.OkfSearch !== undefined")
            answers = page.evaluate(
                """async reqs => {
                    const out = [];
                    for (const r of reqs) {
                        const opts = Object.assign({}, r);
                        delete opts.query;
                        try { out.push(await OkfSearch.search(r.query, Object.keys(opts).some(k => k !== 'limit') ? opts : (r.limit === undefined ? 20 : r.limit))); }
                        catch (e) { out.push(e && e.envelope ? e.envelope : {thrown: String(e)}); }
                    }
                    return JSON.stringify(out);
                }""",
                requests,
            )
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return json.loads(answers)


def valid_json_string(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


def assert_surfaces_agree(site: Path, requests: list[dict[str, Any]], cli_sample: int) -> None:
    """MCP, Node, Chromium and (for the first ``cli_sample`` requests) the CLI answer each
    request exactly as the Python API does."""
    index = okf_sphinx.open_index(site)
    expected = [api_answer(index, r) for r in requests]

    for req, want, got in zip(requests, expected, mcp_answers(site, requests)):
        assert got == want, ("mcp", req)
    for req, want, got in zip(requests, expected, run_node(site / "_okf", requests)):
        assert same(got, want) is None, ("node", req, same(got, want))
    for req, want, got in zip(requests, expected, browser_answers(site, requests)):
        assert same(got, want) is None, ("chromium", req, same(got, want))
    # a process each: a sample, the modes' both kinds, as far as flags can say it (no --mode fuzzy)
    sample = requests[:cli_sample] + [r for r in requests if r.get("mode") in ("smart", "semantic")][:10]
    for req in sample:
        if req.get("mode") not in (None, "keyword", "smart", "semantic") or req.get("prefix") is False or req.get("expand", True) is not True:
            continue
        got = cli_answer(site, req)
        assert got == expected[requests.index(req)], ("cli", req)

