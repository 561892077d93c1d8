"""Smart mode's heading tiers (okf_sphinx/engine/headings.py, docs/smart.md "Headings"), on
real MkDocs builds: a page whose heading is the query, or starts with it, comes before pages
that only use its words more often; Python and the Node runtime answer alike; an index
written before heading shards still answers, and keyword mode never reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.build import same_build
from support.mkdocs_sites import built_mkdocs_project, mkdocs_build, write_mkdocs_project

import okf_sphinx
from okf_sphinx.core import index_format as fmt

PAGES = {
    "index.md": "# Home\n\nWelcome. The installation of the tool and its installation options are below.\n",
    "setup.md": "# Setup\n\nInstallation installation installation: every installation step, "
                "installation again, and then the installation is done.\n",
    "install.md": "# Installation\n\nRun the command. " + "Then read what it printed and carry on. " * 40 + "\n",
    "options.md": "# Installation options\n\nFlags you can pass to the " + "plugin API, " * 6 + "and so on.\n\n"
                  "## Plugin API\n\nHooks" + ", and more hooks to call" * 15 + ".\n",
    "plugins.md": "# Plugins\n\nThe plugin API of the plugin API: plugin plugin API API hooks, "
                  "plugin API once more.\n",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_mkdocs_project(tmp_path_factory.mktemp("headings"), PAGES)


def order(site: Path, query: str, **options: object) -> list[str]:
    answer = okf_sphinx.open_index(site).search(query, limit=10, mode="smart", **options)
    return [p["concept_id"] for p in answer["pages"]]


def test_the_page_whose_heading_is_the_query_comes_first(site: Path) -> None:
    # setup says "installation" six times, install.md once, in its heading
    assert order(site, "installation") == ["install", "options", "setup", "index"]
    assert order(site, "Installation options")[:1] == ["options"]
    # a heading of a section, not only of the page: its page first, that section its first hit
    # (though the page's first section says both words more often)
    assert order(site, "plugin API")[:1] == ["options"]
    first = okf_sphinx.open_index(site).search("plugin API", limit=1, mode="smart")["pages"][0]
    assert first["hits"][0]["heading"] == "Plugin API"


def test_a_heading_the_query_starts_comes_before_mere_mentions(site: Path) -> None:
    # as a reader types: the last word completes a heading's word
    assert set(order(site, "instal", prefix=True)[:2]) == {"install", "options"}
    assert order(site, "installation opt", prefix=True)[:1] == ["options"]
    # one code point is no key of the heading shards: no tier, the words alone rank
    assert order(site, "i", prefix=True)[:1] != ["install"]


@pytest.mark.node
def test_node_gives_the_same_answers(site: Path) -> None:
    from support.node import python_answer, run_node, same

    requests = [{"query": q, "mode": "smart", **extra} for q in ("installation", "Installation options", "plugin API",
                                                                 "plugin", "instal", "installation opt", "home")
                for extra in ({}, {"prefix": True}, {"limit": 1})]
    index = okf_sphinx.open_index(site)
    for request, js in zip(requests, run_node(site / "_okf", requests)):
        assert same(js, python_answer(index, request)) is None, request


@pytest.mark.node
def test_an_index_without_heading_shards_ranks_by_words_alone(site: Path, tmp_path: Path) -> None:
    import shutil

    from support.node import python_answer, run_node, same

    old = tmp_path / "site"
    shutil.copytree(site, old)
    path = old / "_okf" / "manifest.js"
    manifest = fmt.unwrap("manifest", path.read_bytes())
    del manifest["smart"]["heading_shards"]
    path.write_bytes(same_build("manifest", manifest, path))
    assert order(old, "installation")[0] != "install"  # the short heading alone does not win
    request = {"query": "installation", "mode": "smart"}
    assert same(run_node(old / "_okf", [request])[0], python_answer(okf_sphinx.open_index(old), request)) is None
    # keyword mode (the contract) reads no heading shard: the same answers with or without them
    for q in ("installation", "plugin API", "Installation options"):
        assert okf_sphinx.open_index(old).search(q) == okf_sphinx.open_index(site).search(q)


@pytest.mark.browser
def test_the_dialog_in_materials_theme_puts_the_heading_first(browser: Any, tmp_path: Path) -> None:
    """Material for MkDocs' search box opens okf's dialog; as the reader types ``installation``
    (a prefix search at every key) the page of that heading is the first group, as the API says."""
    from support.dialog import expected_groups, okf_page_errors, shown_groups, type_query

    project = write_mkdocs_project(tmp_path / "src", PAGES, "theme:\n  name: material\n")
    site = tmp_path / "site"
    mkdocs_build(project, site)
    base = site.as_uri() + "/"
    page = browser.new_page()
    errors = okf_page_errors(page)
    page.goto(base + "setup/index.html")
    page.locator("input.md-search__input").locator("visible=true").first.click()
    page.wait_for_selector("dialog.okf-dialog[open]")
    for typed, first in (("instal", None), ("lation", "Installation"), (" opt", "Installation options")):
        type_query(page, typed)
        query = page.input_value("#okf-dialog-q")
        want = expected_groups(site, base, query)
        got = shown_groups(page)
        assert [g["label"] for g in got] == [w["label"] for w in want], query
        assert [[o["href"] for o in g["options"]] for g in got] == [w["hrefs"] for w in want], query
        if first is not None:
            assert got[0]["label"] == first, (query, got)
    assert errors == []
    page.close()
