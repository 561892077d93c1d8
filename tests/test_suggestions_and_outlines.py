"""Suggestions and outlines on a real Sphinx build: heading suggestions that contain the asked
words first, text-mode suggestions, pageable outlines of huge pages, and ``okf mcp`` without
the SDK naming what to install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.build import ROOT, sphinx_build, write_project
from jsonschema import Draft202012Validator

from okf_sphinx import OkfError, open_index
from okf_sphinx.agent.answers import MAX_ANSWER_BYTES, answer_size
from okf_sphinx.core.contracts import contract

FIXTURES = """\
How-to: fixtures
================

Intro.

"yield" fixtures (recommended)
------------------------------

Yield.

Adding finalizers directly
--------------------------

Finalizers.

Fixture scopes
--------------

Scopes.

Scope: sharing fixtures across classes, modules, packages or session
---------------------------------------------------------------------

Sharing.

Dynamic scope
-------------

Dynamic.
"""


def _changelog(entries: int, width: int) -> str:
    out = ["Change log\n==========\n"]
    for i in range(entries):
        title = f"Release {i} " + "x" * max(0, width - 12)
        out.append(f"\n{title}\n{'-' * len(title)}\n\nFixed bug {i}.\n")
    return "".join(out)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("rough")
    src = write_project(tmp / "src", {
        "index.rst": ".. toctree::\n\n   how-to/fixtures\n   changelog\n   wide_log\n",
        "how-to/fixtures.rst": FIXTURES,
        "changelog.rst": _changelog(618, 20),
        "wide_log.rst": _changelog(1400, 200),
    }, conf='project = "rough"\n')
    sphinx_build(src, tmp / "html")
    return tmp / "html"


def okf(*args: str, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "okf_sphinx", *args], capture_output=True, text=True, timeout=120, **kw)


def test_heading_suggestions_put_headings_containing_the_words_first(site):
    index = open_index(site)
    with pytest.raises(OkfError) as info:
        index.get_section(concept_id="how-to/fixtures", heading="scope")
    headings = [s["heading"] for s in info.value.details["suggestions"]]
    assert headings[:3] == ["Fixture scopes", "Scope: sharing fixtures across classes, modules, packages or session",
                            "Dynamic scope"]


def test_text_mode_prints_the_suggestions_it_mentions(site):
    r = okf("section", str(site), "--concept", "how-to/fixtures", "--heading", "Scope")
    assert r.returncode == 15 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert "see suggestions" in lines[0] and lines[1] == "suggestions:"
    outline = open_index(site).get_section(concept_id="how-to/fixtures")["outline"]
    locator = next(e["locator"] for e in outline if e["heading"] == "Fixture scopes")
    assert lines[2] == f"  Fixture scopes  {locator}"
    assert len(lines) >= 5
    amb = okf("section", str(site), "--concept", "how-to/fixtures", "--heading", "scope", "--json")
    assert json.loads(amb.stdout)["error"]["suggestions"][0]["heading"] == "Fixture scopes"


def test_outline_of_a_huge_page_can_be_paged(site):
    index = open_index(site)
    whole = index.get_section(concept_id="changelog")
    assert whole["total"] == 619 and not whole["truncated"] and whole["limit"] == 1000
    assert "next_offset" not in whole and "truncation_reason" not in whole
    pages, offset = [], 0
    while True:
        page = index.get_section(concept_id="changelog", offset=offset, limit=100)
        Draft202012Validator(contract("get_section", "output")).validate(page)
        pages.append(page)
        if not page["truncated"]:
            break
        assert page["truncation_reason"] == "limit" and page["next_offset"] == offset + 100
        offset = page["next_offset"]
    assert len(pages) == 7 and sum((p["outline"] for p in pages), []) == whole["outline"]
    assert pages[3]["offset"] == 300 and pages[3]["outline"][0]["parent"] == 0  # parents index the whole outline
    # a page whose outline is over the byte budget is paged, not refused
    wide = index.get_section(concept_id="wide_log")
    assert wide["truncated"] and wide["truncation_reason"] == "byte_budget" and answer_size(wide) <= MAX_ANSWER_BYTES
    entries, page = list(wide["outline"]), wide
    while page["truncated"]:
        page = index.get_section(concept_id="wide_log", offset=page["next_offset"])
        assert page["offset"] == len(entries) and answer_size(page) <= MAX_ANSWER_BYTES
        entries += page["outline"]
    assert len(entries) == wide["total"] == 1401
    assert [e["heading"] for e in entries[1:3]] == [f"Release {i} " + "x" * 188 for i in (0, 1)]
    # clamped and echoed; limit belongs to outlines only
    assert index.get_section(concept_id="changelog", limit=5000)["limit"] == 1000
    assert index.get_section(concept_id="changelog", offset=10**6)["outline"] == []
    with pytest.raises(OkfError) as info:
        index.get_section(concept_id="changelog", heading="Release 1 xxxxxxxx", limit=3)
    assert info.value.code == "schema_validation" and info.value.details["field"] == "limit"
    text = okf("section", str(site), "--concept", "changelog", "--limit", "2")
    assert text.returncode == 0 and text.stdout.endswith("[entries 1-2 of 619 (limit); continue with --offset 2]\n")


def test_okf_mcp_without_the_sdk_names_what_to_install(site, tmp_path):
    """``python -S`` hides site-packages: the package imports, the MCP SDK does not."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-S", "-m", "okf_sphinx", "mcp", str(site)], capture_output=True, text=True,
                       timeout=60, env=env, cwd=tmp_path)
    assert r.returncode == 21 and r.stdout == ""
    assert "missing_dependency" in r.stderr and "pip install" in r.stderr and "okf_sphinx[mcp]" in r.stderr
    assert "Traceback" not in r.stderr
    # and it is a default dependency: the installed package requires it
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    deps = text[text.index("dependencies = ["):text.index("]", text.index("dependencies = ["))]
    assert '"mcp>=' in deps
