"""The parity test over a MkDocs site: the Python API, MCP server, CLI, Node and Chromium
answer hypothesis-generated queries on example_mkdocs (built with real MkDocs) with the
same JSON, as they do on the Sphinx example (tests/test_parity.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import okf_sphinx
from support.mkdocs_sites import built_example
from support.parity import FIXED, valid_json_string, api_answer, assert_surfaces_agree

WORDS = ["retry", "policy", "heading", "hashtag", "tab", "linux", "macos", "admonition", "front", "matter",
         "meta", "snippet", "deprecation", "lone", "cr", "crlf", "release", "1", "6", "twice", "inside",
         "markdown", "zzzunknown", "Кэш", "Straße"]
query = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
    st.text(min_size=0, max_size=10),
)
request = st.fixed_dictionaries({"query": query}, optional={"limit": st.sampled_from([1, 3, 20, 100])})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_example(tmp_path_factory.mktemp("mkdocs-parity"))


@pytest.mark.browser
@pytest.mark.node
@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(generated=st.lists(request, min_size=80, max_size=80))
def test_every_surface_agrees_on_a_mkdocs_site(site: Path, generated: list[dict[str, Any]]) -> None:
    # argv and the MCP wire cannot carry lone surrogates or NUL: those are API/JS-only cases
    requests = FIXED + [{"query": "inside tab"}, {"query": "heading", "limit": 3}]
    requests += [r for r in generated if valid_json_string(r["query"])]
    assert len(requests) > len(FIXED) + 2
    assert any(api_answer(okf_sphinx.open_index(site), r).get("total") for r in requests)
    assert_surfaces_agree(site, requests, cli_sample=10)
