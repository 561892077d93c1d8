"""The MCP server through a real SDK client over stdio (``python -m okf_sphinx mcp <site>``)."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from support.reading_site import built_site

import okf_sphinx
from okf_sphinx import open_index
from okf_sphinx.agent.answers import answer_json
from okf_sphinx.agent.dispatch import call_tool
from okf_sphinx.core.errors import EXIT_CODES
from okf_sphinx.core.index_format import section_file_of, section_starts
from support.mcp import run, session_for, structured, validate

TOOLS = ("search_sections", "get_section", "read_lines", "search_concepts", "read_batch", "list_sites")
CONTRACTS = Path(__file__).resolve().parent.parent / "okf_sphinx" / "contracts"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory)


def cli_json(site: Path, tool: str, args: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
    argv = [sys.executable, "-m", "okf_sphinx"]
    if tool == "search_sections":
        argv += ["search", str(site), "--query", args["query"], "--limit", str(args.get("limit", 20))]
    elif tool == "search_concepts":
        argv += ["concepts", str(site), args["query"], "--limit", str(args.get("limit", 20))]
    elif tool == "read_lines":
        argv += ["lines", str(site), args["path"], str(args["lines"][0]), str(args["lines"][1])]
    else:
        argv += ["section", str(site)]
        if "locator" in args:
            argv.append(args["locator"])
        if "concept_id" in args:
            argv += ["--concept", args["concept_id"]]
        if "heading" in args:
            argv += ["--heading", args["heading"]]
        if args.get("include_subsections") is False:
            argv.append("--no-subsections")
        if "max_chars" in args:
            argv += ["--max-chars", str(args["max_chars"])]
        if "offset" in args:
            argv += ["--offset", str(args["offset"])]
    return subprocess.run(argv + ["--json"], capture_output=True, timeout=60)


# -- tools, schemas, descriptions ----------------------------------------------------------------


def test_tools_are_listed_with_the_package_schemas(site):
    async def go():
        async with session_for(site) as s:
            return (await s.list_tools()).tools

    tools = {t.name: t for t in run(go)}
    assert set(tools) == set(TOOLS)
    for name, tool in tools.items():
        for kind, declared in (("input", tool.input_schema), ("output", tool.output_schema)):
            on_disk = json.loads((CONTRACTS / f"{name}.{kind}.json").read_text(encoding="utf-8"))
            Draft202012Validator.check_schema(declared)
            if kind == "input" and name != "list_sites":
                # the package file plus the optional `site` input (contracts/site.input.json)
                site_prop = json.loads((CONTRACTS / "site.input.json").read_text(encoding="utf-8"))["properties"]
                on_disk["properties"] = {**site_prop, **on_disk["properties"]}
                assert "site" not in declared.get("required", [])
            assert declared == on_disk, (name, kind)
            assert declared["type"] == "object"
        assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
        d = tool.description
        assert "locator" in d and "content_sha256" in d and "captured" in d
    search = tools["search_sections"].description
    assert "AND" in search and "no stemming" in search
    section = tools["get_section"].description
    assert "as written in the source" in section and "next_offset" in section and "max_chars" in section
    # reference shape of search_sections output: the keyword answer, beside the smart one
    declared = tools["search_sections"].output_schema
    assert [alt["$ref"] for alt in declared["oneOf"]] == ["#/$defs/keyword", "#/$defs/smart"]
    out = declared["$defs"]["keyword"]
    hit = out["properties"]["hits"]
    assert out["additionalProperties"] is False and hit["maxItems"] == 100
    assert hit["items"]["additionalProperties"] is False
    assert hit["items"]["properties"]["snippet"]["maxLength"] == 512
    assert hit["items"]["properties"]["score"]["minimum"] == 0
    assert hit["items"]["properties"]["content_sha256"]["pattern"] == "^[a-f0-9]{64}$"
    assert out["properties"]["snapshot_revision"]["pattern"] == "^[a-f0-9]{64}$"


REQUESTS = [
    ("search_sections", {"query": "retry backoff"}),
    ("search_sections", {"query": "walrus", "limit": 1}),
    ("search_sections", {"query": "zebras"}),
    ("get_section", {"locator": "guide.rst#L6-L10"}),
    ("get_section", {"concept_id": "guide", "heading": "Using ``okf`` *quickly* -- a tour"}),
    ("get_section", {"concept_id": "guide", "heading": "K1", "include_subsections": False}),
    ("get_section", {"concept_id": "big", "heading": "Long section", "max_chars": 1000, "offset": 5}),
    ("get_section", {"concept_id": "notes"}),
    ("read_lines", {"path": "crlf.rst", "lines": [2, 7]}),
    ("read_lines", {"path": "bom.md", "lines": [1, 99]}),
    ("search_concepts", {"query": "gen"}),
    ("search_concepts", {"query": "PAGE", "limit": 2}),
]

ERROR_REQUESTS = [
    ("search_sections", {"query": "!!!"}, "schema_validation"),
    ("get_section", {"concept_id": "guide", "heading": "notes"}, "ambiguous_section"),
    ("read_lines", {"path": "../x", "lines": [1, 2]}, "path_outside_root"),
    ("search_concepts", {"query": "x", "limit": 0}, "schema_validation"),
]


def test_each_tool_answers_validates_and_equals_cli_json(site):
    async def go():
        async with session_for(site) as s:
            ok = [await s.call_tool(t, a) for t, a in REQUESTS]
            bad = [await s.call_tool(t, a) for t, a, _ in ERROR_REQUESTS]
            return ok, bad

    ok, bad = run(go)
    seen_kinds = set()
    for (tool, args), result in zip(REQUESTS, ok):
        assert not result.is_error, result.content[0].text
        answer = structured(result)
        validate(tool, answer)
        seen_kinds.add(answer.get("kind", tool))
        cli = cli_json(site, tool, args)
        assert cli.returncode == 0, cli.stderr
        assert cli.stdout == result.content[0].text.encode("utf-8") + b"\n", (tool, args)
        assert cli.stderr == b""
    assert {"section", "outline", "search_sections", "read_lines", "search_concepts"} <= seen_kinds
    for (tool, args, code), result in zip(ERROR_REQUESTS, bad):
        assert result.is_error
        envelope = structured(result)
        assert set(envelope) == {"error"} and envelope["error"]["code"] == code
        cli = cli_json(site, tool, args)
        assert cli.returncode == EXIT_CODES[code]
        assert cli.stdout == result.content[0].text.encode("utf-8") + b"\n"


def test_error_envelopes_match_the_error_schema(site):
    schema = json.loads((CONTRACTS / "error.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)

    async def go():
        async with session_for(site) as s:
            return [await s.call_tool(t, a) for t, a, _ in ERROR_REQUESTS]

    for result in run(go):
        Draft202012Validator(schema).validate(structured(result))


# -- every error code through the server -----------------------------------------------------------

TOOL_ERRORS = [
    ("search_sections", {"query": ""}, "schema_validation"),
    ("search_sections", {"query": "retry", "limit": True}, "schema_validation"),
    ("search_sections", {"query": "retry", "limit": "5"}, "schema_validation"),
    ("search_sections", {"query": "retry", "limit": 2.0}, "schema_validation"),
    ("search_sections", {"query": "x" * 513}, "schema_validation"),
    ("search_sections", {"query": "retry", "bogus": 1}, "schema_validation"),
    ("search_sections", {"query": " ".join(f"w{i}" for i in range(33))}, "resource_limit"),
    ("get_section", {"concept_id": "nope"}, "not_found"),
    ("get_section", {"concept_id": "guide", "heading": "notes"}, "ambiguous_section"),
    ("get_section", {"concept_id": "guide", "heading": "K2"}, "section_not_found"),
    ("get_section", {"concept_id": "guide", "max_chars": True}, "schema_validation"),
    ("get_section", {"locator": "guide.rst#L5-L3"}, "invalid_line_range"),
    ("read_lines", {"path": "", "lines": [1, 2]}, "missing_path"),
    ("read_lines", {"lines": [1, 2]}, "missing_path"),
    ("read_lines", {"path": "docs/../../x.rst", "lines": [1, 2]}, "path_outside_root"),
    ("read_lines", {"path": "p" * 5000, "lines": [True, 2]}, "path_too_long"),
    ("read_lines", {"path": "nope.rst", "lines": [1, 2]}, "not_found"),
    ("read_lines", {"path": "crlf.rst", "lines": [True, 5]}, "invalid_line_range"),
    ("read_lines", {"path": "crlf.rst", "lines": [5, 2]}, "invalid_line_range"),
    ("read_lines", {"path": "crlf.rst", "lines": [0, 2]}, "invalid_line_range"),
    ("read_lines", {"path": "crlf.rst", "lines": [1]}, "invalid_line_range"),
    ("read_lines", {"path": "crlf.rst", "lines": [50, 60]}, "range_out_of_bounds"),
    ("read_lines", {"path": "wide.rst", "lines": [1, 100000]}, "page_too_large"),
    ("search_concepts", {"query": "   "}, "schema_validation"),
]


def test_tool_error_codes_through_the_server(site):
    async def go():
        async with session_for(site) as s:
            return [await s.call_tool(t, a) for t, a, _ in TOOL_ERRORS]

    for (tool, args, code), result in zip(TOOL_ERRORS, run(go)):
        assert result.is_error, (tool, args)
        envelope = structured(result)
        assert list(envelope) == ["error"] and "status" not in envelope["error"]
        assert envelope["error"]["code"] == code, (tool, args, envelope)
        assert envelope["error"]["message"] and "Traceback" not in result.content[0].text


def test_index_errors_through_the_server(site, tmp_path):
    """index_not_found before the first build, then index_corrupt and
    index_version_unsupported once files are damaged, all in one running server."""
    target = tmp_path / "html"

    async def go():
        async with session_for(target) as s:
            before = await s.call_tool("search_sections", {"query": "retry"})
            shutil.copytree(site, target)  # the site gets built while the server runs
            found = await s.call_tool("search_sections", {"query": "retry"})
            k = section_file_of(section_starts(okf_sphinx.open_index(target).manifest["section_files"]), 3)
            (target / "_okf" / "s" / f"{k}.js").write_bytes(f'okfLoad("s/{k}",{{"truncated'.encode())
            corrupt = await s.call_tool("get_section", {"locator": _locator_of(site, 3)})
            manifest = target / "_okf" / "manifest.js"
            text = manifest.read_text(encoding="utf-8").replace('"format_version":8', '"format_version":7')
            manifest.unlink()
            manifest.write_text(text, encoding="utf-8")
            version = await s.call_tool("search_sections", {"query": "retry"})
            return before, found, corrupt, version

    before, found, corrupt, version = run(go)
    assert before.is_error and structured(before)["error"]["code"] == "index_not_found"
    assert not found.is_error and structured(found)["total"] >= 1
    assert corrupt.is_error and structured(corrupt)["error"]["code"] == "index_corrupt"
    assert version.is_error and structured(version)["error"]["code"] == "index_version_unsupported"


def _locator_of(site: Path, sid: int) -> str:
    return open_index(site).section(sid)["locator"]


def test_every_contract_code_has_a_test():
    """The codes of docs/contract.md ("Errors") and docs/agents.md ("Errors"), and where each is produced
    through the server (cancelled and source_unavailable: tests/test_http.py)."""
    produced = {c for _, _, c in TOOL_ERRORS} | {"index_not_found", "index_corrupt", "index_version_unsupported"}
    produced |= {"source_unavailable", "cancelled"}  # test_http.py: URL server down / hanging, cancelled request
    produced |= {"missing_items", "too_many_items", "item_too_large"}  # test_batch.py: read_batch refusals
    produced |= {"missing_dependency"}  # test_suggestions_and_outlines.py: okf mcp without the MCP SDK (CLI only)
    produced |= {"semantic_unavailable"}  # test_semantic.py: mode semantic on an index without vectors (CLI and MCP)
    produced |= {"index_changed"}  # test_index_lifecycle.py: files of two builds (a CDN mid-deploy)
    produced |= {"site_not_built", "source_mismatch", "build_failed"}  # test_zensical.py: okf index (CLI only)
    # internal_error reports a bug in okf_sphinx itself; no valid request can produce it
    assert produced == set(EXIT_CODES) - {"internal_error"}


# -- round trips over 200 random hits ---------------------------------------------------------------


def _random_hits(index, count: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    words = sorted({t for sid in range(index.section_count) for t in index.normaliser.terms(index.section(sid)["text"])})
    hits: dict[str, dict[str, Any]] = {}
    tries = 0
    while len(hits) < count and tries < 5000:
        tries += 1
        query = " ".join(rng.sample(words, rng.choice((1, 1, 2))))
        for h in index.search(query, limit=5)["hits"]:
            hits.setdefault(h["locator"], h)
    return list(hits.values())[:count]


def test_round_trips_for_200_random_hits(site):
    index = open_index(site)
    hits = _random_hits(index, 200)
    assert len(hits) == 200
    totals = {f["path"]: None for f in index.files()}

    async def go():
        out = []
        async with session_for(site) as s:
            for h in hits:
                whole = structured(await s.call_tool("read_lines", {"path": h["path"], "lines": [1, 10**6]}))
                ranged = structured(await s.call_tool("read_lines", {"path": h["path"], "lines": [h["line_start"], h["line_end"]]}))
                section = structured(await s.call_tool("get_section", {"locator": h["locator"], "include_subsections": False}))
                out.append((h, whole, ranged, section))
        return out

    for h, whole, ranged, section in run(go):
        assert whole["range"]["truncated"] == (whole["range"]["end"] < 10**6)
        assert hashlib.sha256(whole["content"].encode("utf-8")).hexdigest() == h["content_sha256"]
        assert whole["content_sha256"] == h["content_sha256"]
        totals[h["path"]] = whole["range"]["total_lines"]
        assert h["line_end"] <= whole["range"]["total_lines"]
        assert not ranged["range"]["truncated"]
        assert h["snippet"] in ranged["content"]
        for key in ("concept_id", "path", "heading", "locator", "line_start", "line_end", "content_sha256"):
            assert section[key] == h[key], key
        assert h["snippet"] in section["content"]
        validate("read_lines", whole)
        validate("get_section", section)


# -- concurrency ------------------------------------------------------------------------------------


def test_50_parallel_calls_on_one_server(site):
    index = open_index(site)
    requests = []
    for i in range(50):
        tool, args = REQUESTS[i % len(REQUESTS)]
        if tool == "read_lines":
            args = {"path": "guide.rst", "lines": [1 + i % 20, 30 + i]}
        requests.append((tool, args))
    expected = [call_tool(index, t, a) for t, a in requests]

    async def go():
        results: list[Any] = [None] * len(requests)
        async with session_for(site) as s:
            async def one(i: int) -> None:
                results[i] = await s.call_tool(*requests[i])

            async with anyio.create_task_group() as tg:
                for i in range(len(requests)):
                    tg.start_soon(one, i)
        return results

    for (tool, _), want, got in zip(requests, expected, run(go)):
        assert not got.is_error
        assert structured(got) == want
        validate(tool, want)


def test_the_instructions_teach_the_advised_way_and_it_gives_the_same_bytes_on_every_surface(site: Path) -> None:
    """The server's instructions are core/guide.py's (modes, reading alone, objects, SHA-256 checks);
    the way they advise — smart search, limit 3, the first hit read alone — answers the same bytes
    over MCP, the CLI and Python."""
    from okf_sphinx.core.guide import AGENT_GUIDE

    query = "retry backoff"

    async def go() -> tuple[str, dict[str, Any], dict[str, Any]]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "okf_sphinx", "mcp", str(site)])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                found = structured(await session.call_tool("search_sections", {"query": query, "mode": "smart", "limit": 3}))
                hit = found["pages"][0]["hits"][0]
                section = structured(await session.call_tool("get_section", {
                    "locator": hit["locator"], "concept_id": hit["concept_id"], "include_subsections": False}))
                return init.instructions or "", found, section

    instructions, found, section = run(go)
    assert instructions.startswith(AGENT_GUIDE) and f"Site: {site}" in instructions
    for advice in ("mode='smart' and limit=3", "mode='keyword'", "include_subsections=false", "object=",
                   "content_sha256", "read_lines"):
        assert advice in instructions
    assert len(AGENT_GUIDE.split()) <= 300  # a few hundred words
    index = open_index(site)
    assert found == call_tool(index, "search_sections", {"query": query, "mode": "smart", "limit": 3})
    hit = found["pages"][0]["hits"][0]
    assert section == call_tool(index, "get_section", {"locator": hit["locator"], "concept_id": hit["concept_id"],
                                                       "include_subsections": False})
    cli = subprocess.run([sys.executable, "-m", "okf_sphinx", "search", str(site), "-q", query, "--mode", "smart",
                          "--limit", "3", "--json"], capture_output=True, check=True)
    assert cli.stdout.decode("utf-8").rstrip("\n") == answer_json(found)
    cli = subprocess.run([sys.executable, "-m", "okf_sphinx", "section", str(site), hit["locator"], "--concept",
                          hit["concept_id"], "--no-subsections", "--json"], capture_output=True, check=True)
    assert cli.stdout.decode("utf-8").rstrip("\n") == answer_json(section)
    # verifying a read as the instructions say: the whole captured file read back hashes to content_sha256
    total = call_tool(index, "read_lines", {"path": section["path"], "lines": [1, 1]})["range"]["total_lines"]
    whole = call_tool(index, "read_lines", {"path": section["path"], "lines": [1, total]})
    assert section["content_sha256"] == hit["content_sha256"] == whole["content_sha256"]
    source = next(f for f in index.files() if f["path"] == section["path"])
    assert source["sha256"] == section["content_sha256"]
