"""okf_sphinx's own docs build with okf_sphinx, warning-free, and stay in step with the code."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import okf_sphinx
from support.build import ROOT, sphinx_build


def test_docs_build_without_warnings_and_are_searchable(tmp_path: Path) -> None:
    src = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", src, ignore=shutil.ignore_patterns("_build"))
    sphinx_build(src, tmp_path / "html", "-W", "--keep-going")
    index = okf_sphinx.open_index(tmp_path / "html")
    hits = index.search("okf_search_limits")["hits"]
    assert any(h["concept_id"] == "configuration" for h in hits)
    assert index.search("format_version")["total"] >= 1


def test_every_config_value_is_documented() -> None:
    from sphinx.application import Sphinx  # noqa: F401 - the registry below needs Sphinx importable

    code = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "okf_sphinx").rglob("*.py"))
    registered = set(re.findall(r'add_config_value\(\s*"(okf_\w+)"', code))
    assert {"okf_search_exclude", "okf_search_limits", "okf_search_output_dir", "okf_llms_txt"} <= registered
    documented = set(re.findall(r"^## (okf_\w+)$", (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8"), re.M))
    assert registered == documented


def test_index_format_doc_names_the_version_the_code_writes() -> None:
    from okf_sphinx.core.index_format import FORMAT_VERSION

    text = (ROOT / "docs" / "index-format.md").read_text(encoding="utf-8")
    assert f"# Index format (format_version {FORMAT_VERSION})" in text


def test_readme_opens_with_name_sentence_and_the_two_commands() -> None:
    """The README's title and one sentence come first, then the demo and the test command;
    .ci/run runs that same test command."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").split("\n")
    assert lines[0] == "# okf_sphinx"
    block = lines.index("```sh")
    sentence = " ".join(lines[1:block]).strip()
    assert sentence.endswith(".") and sentence.count(". ") == 0, sentence
    demo, test, end = lines[block + 1: block + 4]
    assert end == "```"
    assert "sphinx-build" in demo and "okf search example_site/_build/html" in demo
    assert test.startswith("python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").split("\n")
    assert test in ci
