"""Many sites behind one ``okf mcp``: names, list_sites, the ``site`` input, per-site
search — three sites (two folders and a URL on a local http.server) through the
real MCP client over stdio, with 50 parallel calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from support.http import serve_folder
from support.mcp import run, session_for, structured
from support.reading_site import built_site

from okf_sphinx import OkfError, open_index
from okf_sphinx.agent.answers import answer_json
from okf_sphinx.agent.dispatch import call_tool
from okf_sphinx.agent.sites import Opened, Sites, assign_names, location_name, slug, split_named


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory)


def test_site_names_are_short_unique_and_deterministic():
    assert split_named("docs=/srv/html") == ("docs", "/srv/html")
    assert split_named("https://x.org/?a=b") == (None, "https://x.org/?a=b")
    assert split_named("./a=b") == (None, "./a=b") and split_named("/p/a=b") == (None, "/p/a=b")
    assert slug("okf_sphinx example") == "okf-sphinx-example" and slug("Ünïcode  Docs 2.0") == "unicode-docs-2-0"
    assert slug("文档") == ""
    assert location_name("/home/me/proj/docs/_build/html") == "proj"
    assert location_name("https://docs.example.org/en/latest/") == "docs"
    assert location_name("https://example.org/mylib/") == "mylib"
    wanted = [(None, "proj"), ("proj-2", "x"), (None, "proj"), (None, "proj"), (None, "other")]
    assert assign_names(wanted) == ["proj", "proj-2", "proj-3", "proj-4", "other"]
    assert assign_names(wanted) == assign_names(list(wanted))
    with pytest.raises(OkfError) as info:
        assign_names([("a", "x"), ("a", "y")])
    assert info.value.code == "schema_validation" and "twice" in info.value.message
    with pytest.raises(OkfError):
        assign_names([("bad name", "x")])


def _expected(index, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    try:
        return call_tool(index, tool, args)
    except OkfError as err:
        return err.envelope


def test_three_sites_behind_one_server(site, example_html):
    reading, example = open_index(site), open_index(example_html)
    with serve_folder(site) as (url, _):
        remote = open_index(url)
        names = ["okf-reading-tests", "okf-sphinx-example", "okf-reading-tests-2"]
        indexes = dict(zip(names, (reading, example, remote)))

        requests: list[tuple[str, dict[str, Any]]] = []
        for i in range(50):
            name = names[i % 3]
            kind = i % 5
            if kind == 0:
                requests.append(("search_sections", {"site": name, "query": "retry", "limit": 3}))
            elif kind == 1:
                requests.append(("search_concepts", {"site": name, "query": "g"}))
            elif kind == 2:
                hit = indexes[name].search("retry", 5)["hits"][i % 2]
                requests.append(("get_section", {"site": name, "locator": hit["locator"]}))
            elif kind == 3:
                path = indexes[name].files()[i % 4]["path"]
                requests.append(("read_lines", {"site": name, "path": path, "lines": [1, 3 + i]}))
            else:
                requests.append(("read_batch", {"site": name, "items": [
                    {"tool": "search_sections", "arguments": {"query": "retry", "limit": 1}},
                    {"tool": "read_lines", "arguments": {"path": indexes[name].files()[0]["path"], "lines": [1, 2]}},
                ]}))

        async def go():
            results: list[Any] = [None] * len(requests)
            async with session_for(site, str(example_html), url) as s:
                tools = {t.name: t for t in (await s.list_tools()).tools}
                listed = await s.call_tool("list_sites", {})
                no_site = await s.call_tool("get_section", {"concept_id": "guide"})
                unknown = await s.call_tool("read_lines", {"site": "nope", "path": "x.rst", "lines": [1, 2]})
                each = await s.call_tool("search_sections", {"query": "retry", "limit": 2})
                bad_query = await s.call_tool("search_sections", {"query": "!!!"})
                mixed = await s.call_tool("read_batch", {"items": [
                    {"tool": "search_sections", "arguments": {"site": names[1], "query": "retry", "limit": 1}},
                    {"tool": "read_lines", "arguments": {"path": "crlf.rst", "lines": [1, 2]}},
                    {"tool": "read_lines", "arguments": {"site": names[0], "path": "crlf.rst", "lines": [1, 2]}},
                ]})

                async def one(i: int) -> None:
                    results[i] = await s.call_tool(*requests[i])

                async with anyio.create_task_group() as tg:
                    for i in range(len(requests)):
                        tg.start_soon(one, i)
            return tools, listed, no_site, unknown, each, bad_query, mixed, results

        tools, listed, no_site, unknown, each, bad_query, mixed, results = run(go)
        expected = []
        for tool, args in requests:  # while the URL site is still served
            index = indexes[args["site"]]
            rest = {k: v for k, v in args.items() if k != "site"}
            expected.append(index.read_batch(rest["items"]) if tool == "read_batch" else _expected(index, tool, rest))
        each_expected = [answer_json(index.search("retry", 2)) for index in (reading, example, remote)]

    # every tool takes `site`; the names are the enum; required except search_sections / read_batch
    for name, tool in tools.items():
        if name == "list_sites":
            assert "site" not in tool.input_schema["properties"]
            continue
        prop = tool.input_schema["properties"]["site"]
        assert prop["enum"] == names
        assert ("site" in tool.input_schema.get("required", [])) == (name not in ("search_sections", "read_batch"))
        assert "several sites" in tool.description

    sites = structured(listed)["sites"]
    assert [s["name"] for s in sites] == names
    assert [s["title"] for s in sites] == ["okf reading tests", "okf_sphinx example", "okf reading tests"]
    for entry, index in zip(sites, (reading, example, remote)):
        assert entry["snapshot_revision"] == index.snapshot_revision and entry["sections"] == index.section_count
        assert entry["generator"].startswith("okf_sphinx ") and entry["location"] == index.source.location
    assert sites[2]["location"] == url + "_okf/"

    err = structured(no_site)["error"]
    assert no_site.is_error and err["code"] == "schema_validation" and err["sites"] == names
    assert all(n in err["message"] for n in names)
    err = structured(unknown)["error"]
    assert unknown.is_error and err["code"] == "schema_validation" and err["sites"] == names and "'nope'" in err["message"]

    # a search without `site`: each site's own answer side by side, never merged
    per_site = structured(each)
    assert [p["site"] for p in per_site["sites"]] == names
    for p, want in zip(per_site["sites"], each_expected):
        assert answer_json(p["result"]) == want
    assert bad_query.is_error and structured(bad_query)["error"]["code"] == "schema_validation"

    # a batch whose items name their own sites; an item without one is refused like the single tool
    m = structured(mixed)["items"]
    assert m[0] == example.search("retry", 1)
    assert m[1]["error"]["code"] == "schema_validation" and m[1]["error"]["sites"] == names
    assert m[2] == reading.read_lines("crlf.rst", [1, 2])

    # 50 parallel calls, each answered by its own site exactly as the single-site answer
    for (tool, args), got, want in zip(requests, results, expected):
        assert not got.is_error, structured(got)
        assert answer_json(structured(got)) == answer_json(want), (tool, args)


def test_a_many_site_search_without_lanes_answers_each_site(site, example_html):
    """Sites.call itself (the Python side of a many-site server, without the MCP server's
    lanes) answers a search without ``site`` with every site's answer, side by side."""
    reading, example = open_index(site), open_index(example_html)
    sites = Sites([("reading", Opened(reading)), ("example", Opened(example))])
    got = sites.call("search_sections", {"query": "retry", "limit": 3})
    assert got == {"query": "retry", "sites": [{"site": "reading", "result": reading.search("retry", 3)},
                                               {"site": "example", "result": example.search("retry", 3)}]}


def test_one_site_keeps_its_answers_and_accepts_its_name(site, tmp_path):
    index = open_index(site)

    async def go():
        async with session_for(f"docs={site}") as s:
            listed = await s.call_tool("list_sites", {})
            plain = await s.call_tool("search_sections", {"query": "walrus"})
            named = await s.call_tool("search_sections", {"query": "walrus", "site": "docs"})
            wrong = await s.call_tool("search_sections", {"query": "walrus", "site": "other"})
            return listed, plain, named, wrong

    listed, plain, named, wrong = run(go)
    assert [s["name"] for s in structured(listed)["sites"]] == ["docs"]
    assert structured(plain) == index.search("walrus") == structured(named)
    assert plain.content[0].text == named.content[0].text
    assert wrong.is_error and structured(wrong)["error"]["sites"] == ["docs"]


def test_a_site_not_built_yet_is_listed_with_its_reason(site, tmp_path):
    async def go():
        async with session_for(site, f"later={tmp_path / 'html'}") as s:
            return await s.call_tool("list_sites", {}), await s.call_tool(
                "search_sections", {"query": "walrus"})

    listed, each = run(go)
    entries = structured(listed)["sites"]
    assert entries[1]["name"] == "later" and entries[1]["error"]["code"] == "index_not_found"
    results = structured(each)["sites"]
    assert results[0]["result"]["total"] >= 1 and results[1]["result"]["error"]["code"] == "index_not_found"
