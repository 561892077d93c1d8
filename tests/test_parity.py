"""One contract, four surfaces: the Python API, the MCP server, the CLI and the browser
runtime (in Node and in Chromium) answer generated queries with exactly the same JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.parity import FIXED, assert_surfaces_agree, request, smart_request, valid_json_string



@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.one_of(request, smart_request), min_size=150, max_size=150))
def test_api_mcp_cli_node_and_browser_agree(example_html: Path, requests: list[dict[str, Any]]) -> None:
    # argv and the MCP wire cannot carry lone surrogates or NUL: those are API/JS-only cases
    requests = FIXED + [r for r in requests if valid_json_string(r["query"])]
    assert_surfaces_agree(example_html, requests, cli_sample=25)


def test_link_expansion_agrees_on_every_surface(links_html: Path) -> None:
    """The links site (tests/conftest.py LINKS_PAGES): expand on every surface, filters too."""
    words = ["widget", "spin", "knobs", "handbook", "notes", "setup", "tuning", "configuration", "stop", "spi"]
    requests: list[dict[str, Any]] = [{"query": f"{a} {b}", "mode": "smart", "expand": True, "limit": 3}
                                      for a in words[:5] for b in words]
    requests += [{"query": w, "mode": "smart", "expand": True, **extra} for w in words
                 for extra in ({"under": "api"}, {"kind": "section"}, {"prefix": True})]
    requests += [{"query": "widget", "mode": "smart", "expand": "yes"}, {"query": "widget", "expand": True}]
    assert_surfaces_agree(links_html, requests, cli_sample=8)
