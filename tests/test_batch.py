"""read_batch: Python API, ``okf batch`` and the MCP tool over a real stdio client.

Each item's answer must be byte for byte the single tool's (result or error
envelope); one 256,000-byte budget covers the whole answer's real JSON; items
are whole or absent, ``unread`` is the tail with its reason; the deadline is
checked between items (tested with an injected clock, never a timer); empty and
oversized lists are refused; memory follows the largest item, not the sum.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from support.mcp import run, session_for, structured
from support.reading_site import built_site

from okf_sphinx import open_index
from okf_sphinx.agent.answers import answer_json, answer_size
from okf_sphinx.agent.batch import BATCH_BYTE_BUDGET, DEADLINE_SECONDS, MAX_BATCH_ITEMS
from okf_sphinx.agent.dispatch import call_tool
from okf_sphinx.core.errors import EXIT_CODES
from okf_sphinx.core.contracts import contract

CONTRACTS = Path(__file__).resolve().parent.parent / "okf_sphinx" / "contracts"

ITEMS: list[dict[str, Any]] = [
    {"tool": "get_section", "arguments": {"concept_id": "guide", "heading": "Retry policy"}},
    {"tool": "read_lines", "arguments": {"path": "crlf.rst", "lines": [2, 7]}},
    {"tool": "search_sections", "arguments": {"query": "retry backoff", "limit": 3}},
    {"tool": "get_section", "arguments": {"concept_id": "guide", "heading": "notes"}},  # ambiguous_section
    {"tool": "read_lines", "arguments": {"path": "../x", "lines": [1, 2]}},  # path_outside_root
    {"tool": "get_section", "arguments": {"concept_id": "notes"}},  # an outline
    {"tool": "get_section", "arguments": {"locator": "guide.rst#L6-L10", "include_subsections": False}},
    {"tool": "search_sections", "arguments": {"query": "zebras"}},
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory)


def single(index, item: dict[str, Any]) -> dict[str, Any]:
    from okf_sphinx import OkfError

    try:
        return call_tool(index, item["tool"], item["arguments"])
    except OkfError as err:
        return err.envelope


def validate_item(item: dict[str, Any], answer: dict[str, Any]) -> None:
    if "error" in answer:
        Draft202012Validator(json.loads((CONTRACTS / "error.json").read_text())).validate(answer)
    else:
        Draft202012Validator(contract(item["tool"], "output")).validate(answer)


def test_items_are_the_single_tools_answers_in_order(site):
    index = open_index(site)
    answer = index.read_batch(ITEMS)
    Draft202012Validator(contract("read_batch", "output")).validate(answer)
    assert list(answer) == ["status", "count", "items"] and answer["count"] == len(ITEMS)
    text = answer_json(answer)
    for item, got in zip(ITEMS, answer["items"]):
        want = single(index, item)
        assert answer_json(got) == answer_json(want)
        assert answer_json(want) in text  # byte for byte inside the batch's own JSON
        validate_item(item, got)
    codes = [g["error"]["code"] for g in answer["items"] if "error" in g]
    assert codes == ["ambiguous_section", "path_outside_root"]


def test_bad_items_are_refused_one_by_one(site):
    index = open_index(site)
    answer = index.read_batch([
        {"tool": "search_concepts", "arguments": {"query": "x"}},
        {"tool": "read_lines"},  # no arguments: read_lines' own missing_path
        "not an object",
        {"tool": "get_section", "arguments": {"locator": "guide.rst#L6-L10"}, "extra": 1},
        {"tool": "get_section", "arguments": [1]},
        {"tool": "read_lines", "arguments": {"path": "crlf.rst", "lines": [True, 5]}},
        ITEMS[0],
    ])
    codes = [a.get("error", {}).get("code") for a in answer["items"]]
    assert codes == ["schema_validation", "missing_path", "schema_validation", "schema_validation",
                     "schema_validation", "invalid_line_range", None]
    assert "search_concepts" in answer["items"][0]["error"]["message"]


def test_empty_and_oversized_lists_are_refused_never_cut(site):
    index = open_index(site)
    for request in ([], {"items": []}, {}):
        with pytest.raises(Exception) as info:
            index.read_batch(request)
        assert info.value.code == "missing_items"
    with pytest.raises(Exception) as info:
        index.read_batch([ITEMS[0]] * (MAX_BATCH_ITEMS + 1))
    assert info.value.code == "too_many_items" and info.value.details["max"] == MAX_BATCH_ITEMS == 20
    assert info.value.details["actual"] == 21
    assert index.read_batch([ITEMS[0]] * MAX_BATCH_ITEMS)["count"] == 20
    with pytest.raises(Exception) as info:
        index.read_batch({"items": "x"})
    assert info.value.code == "schema_validation"


def _wide(n: int) -> dict[str, Any]:
    return {"tool": "read_lines", "arguments": {"path": "wide.rst", "lines": [1, n]}}


def test_one_byte_budget_over_the_whole_answer(site):
    index = open_index(site)
    items = [ITEMS[1], _wide(300), _wide(300), _wide(300), ITEMS[1]]  # 2 × ~119 kB fit, not 3
    answer = index.read_batch(items)
    assert answer_size(answer) <= BATCH_BYTE_BUDGET
    assert answer["count"] == 3 and answer["unread"] == [3, 4]  # the small last item waits too: unread is a tail
    kept = answer["count"]
    assert answer["unread"] == list(range(kept, len(items))) and answer["unread_reason"] == "byte_budget"
    assert list(answer)[-2:] == ["unread", "unread_reason"] and "truncated" not in answer
    for item, got in zip(items, answer["items"]):
        assert answer_json(got) == answer_json(single(index, item))  # whole, never cut
    # the item that stopped the batch would have broken the budget
    with_next = {**answer, "items": answer["items"] + [single(index, items[kept])]}
    assert answer_size(with_next) > BATCH_BYTE_BUDGET
    # the client's rule: send the unread items again — they are answered
    again = index.read_batch([items[i] for i in answer["unread"]])
    assert "unread" not in again and again["count"] == len(items) - kept
    Draft202012Validator(contract("read_batch", "output")).validate(answer)


def test_an_item_that_never_fits_is_item_too_large_and_the_batch_goes_on(site):
    index = open_index(site)
    big = {"tool": "get_section", "arguments": {"concept_id": "wide", "heading": "Wide page", "max_chars": 200000}}
    alone = index.get_section(**big["arguments"])
    assert answer_size(alone) <= BATCH_BYTE_BUDGET  # the single tool answers it (paged) …
    answer = index.read_batch([big, ITEMS[1]])
    err = answer["items"][0]["error"]  # … a batch cannot: its envelope needs room too
    assert err["code"] == "item_too_large" and err["read_with"] == "get_section"
    assert err["size"] == answer_size(alone) and err["max"] < err["size"] and err["item"] == 0
    assert answer["count"] == 2 and "unread" not in answer
    assert answer["items"][1] == index.read_lines("crlf.rst", [2, 7])


def test_budget_is_injectable_and_exact(site):
    index = open_index(site)
    items = [ITEMS[1]] * 5
    one = len(answer_json(index.read_lines("crlf.rst", [2, 7])).encode())
    full = index.read_batch(items)
    size = answer_size(full)
    # a budget of exactly the worst-case envelope + three items (+ commas) keeps three
    from okf_sphinx.agent.batch import _reserve

    exact = _reserve(5) + 3 * one + 2
    assert index.read_batch(items, budget=exact)["count"] == 3
    assert index.read_batch(items, budget=exact - 1)["count"] == 2
    assert size <= BATCH_BYTE_BUDGET and "unread" not in full


class SteppingClock:
    """A clock that moves only when read: each reading is ``step`` seconds later."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        value = self.now
        self.now += self.step
        return value


def test_deadline_is_checked_between_items_with_an_injected_clock(site):
    index = open_index(site)
    items = [ITEMS[0], ITEMS[1], ITEMS[2], ITEMS[6]]
    # start at 0; before item k the clock reads (k + 1) × 4 s: items 0 and 1 run, item 2 is past 10 s
    answer = index.read_batch(items, clock=SteppingClock(4.0))
    assert answer["count"] == 2 and answer["unread"] == [2, 3] and answer["unread_reason"] == "timeout"
    assert answer["items"] == [single(index, items[0]), single(index, items[1])]
    # the deadline counts from the call's start, which the server records before the worker thread
    late = index.read_batch(items, clock=lambda: 100.0, started=100.0 - DEADLINE_SECONDS)
    assert late["count"] == 0 and late["unread"] == [0, 1, 2, 3] and late["unread_reason"] == "timeout"
    Draft202012Validator(contract("read_batch", "output")).validate(late)
    # a frozen clock never times out
    assert "unread" not in index.read_batch(items, clock=lambda: 5.0)


def test_cli_batch_from_file_and_stdin_equals_mcp_bytes(site, tmp_path):
    request = {"items": ITEMS + [_wide(300), _wide(300), _wide(300)]}
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    from_file = subprocess.run([sys.executable, "-m", "okf_sphinx", "batch", str(site), str(path)],
                               capture_output=True, timeout=120)
    from_stdin = subprocess.run([sys.executable, "-m", "okf_sphinx", "batch", str(site)],
                                input=json.dumps(request["items"]).encode(), capture_output=True, timeout=120)
    assert from_file.returncode == 0 and from_file.stderr == b""
    assert from_file.stdout == from_stdin.stdout

    async def go():
        async with session_for(site) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            ok = await s.call_tool("read_batch", request)
            empty = await s.call_tool("read_batch", {"items": []})
            many = await s.call_tool("read_batch", {"items": [ITEMS[0]] * 21})
            return tools, ok, empty, many

    tools, ok, empty, many = run(go)
    assert not ok.is_error
    answer = structured(ok)
    assert from_file.stdout == ok.content[0].text.encode("utf-8") + b"\n"
    assert answer["unread_reason"] == "byte_budget" and answer["unread"][-1] == len(request["items"]) - 1
    assert len(ok.content[0].text.encode("utf-8")) <= BATCH_BYTE_BUDGET
    for item, got in zip(request["items"], answer["items"]):
        validate_item(item, got)
    declared = tools["read_batch"]
    assert declared.annotations.read_only_hint is True
    # clients that spill long results to a file may keep the whole batch in context
    assert declared.meta == {"anthropic/maxResultSizeChars": BATCH_BYTE_BUDGET}
    assert tools["search_sections"].meta is None  # its answers are bounded by 1 MiB, not the budget
    assert declared.output_schema == contract("read_batch", "output")
    on_disk = json.loads((CONTRACTS / "read_batch.input.json").read_text())
    assert {k: v for k, v in declared.input_schema["properties"].items() if k != "site"} == on_disk["properties"]
    for result, code in ((empty, "missing_items"), (many, "too_many_items")):
        assert result.is_error and structured(result)["error"]["code"] == code
    assert structured(many)["error"]["max"] == 20
    for argv, code in ((["batch", str(site), str(tmp_path / "missing.json")], "schema_validation"),):
        r = subprocess.run([sys.executable, "-m", "okf_sphinx", *argv], capture_output=True, timeout=60)
        assert r.returncode == EXIT_CODES[code] and json.loads(r.stdout)["error"]["code"] == code
    r = subprocess.run([sys.executable, "-m", "okf_sphinx", "batch", str(site)], input=b"{not json",
                       capture_output=True, timeout=60)
    assert r.returncode == 2 and json.loads(r.stdout)["error"]["code"] == "schema_validation"
    r = subprocess.run([sys.executable, "-m", "okf_sphinx", "batch", str(site)], input=b" " * (1024 * 1024 + 1),
                       capture_output=True, timeout=60)
    assert r.returncode == 3 and json.loads(r.stdout)["error"]["code"] == "resource_limit"
    r = subprocess.run([sys.executable, "-m", "okf_sphinx", "batch", str(site)], input=b"[]", capture_output=True,
                       timeout=60)
    assert r.returncode == EXIT_CODES["missing_items"] == 18 and json.loads(r.stdout)["error"]["code"] == "missing_items"


def _peak(fn) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_full_batch_costs_about_its_largest_item_not_the_sum(site):
    """20 sections read at once: the batch's peak allocation stays near the largest item's
    (plus the answers it keeps, bounded by the budget), far below the sum of all 20."""
    index = open_index(site)
    items = [{"tool": "get_section", "arguments": {"concept_id": "big", "heading": "Long section",
                                                   "max_chars": 12000, "offset": 1000 * k}} for k in range(20)]
    index.read_batch(items)  # warm: every index file loaded and cached
    peaks = [_peak(lambda item=item: call_tool(index, item["tool"], item["arguments"])) for item in items]
    batch_peak = _peak(lambda: index.read_batch(items))
    kept = answer_size(index.read_batch(items))
    assert kept <= BATCH_BYTE_BUDGET
    # the batch holds what it returns (≤ the budget) plus one item being read
    assert batch_peak <= max(peaks) + 3 * kept, (batch_peak, max(peaks), kept)
    assert batch_peak < sum(peaks), (batch_peak, sum(peaks))
