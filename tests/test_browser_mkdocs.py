"""okf's search page and search-box hook in real MkDocs themes, in headless Chromium.

example_mkdocs is built with real MkDocs in the ``mkdocs`` and ``readthedocs``
themes and in Material for MkDocs, then opened over http://127.0.0.1 and from file://.  Results are
compared with the Python API; no timing is asserted.  Like every browser test,
these fail (never skip) when OKF_REQUIRE_BROWSER is set and Chromium is missing.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import okf_sphinx
from mkdocs_sites import built_example
from test_browser_search import browser, serve  # noqa: F401 - the shared Chromium fixture

pytestmark = pytest.mark.browser

THEMES = ["mkdocs", "material", "readthedocs"]
# how each theme shows its search box: what to click first (if anything), then the input
SEARCH_BOX = {
    "mkdocs": ('a[data-bs-target="#mkdocs_search_modal"]', "#mkdocs-search-query"),
    "material": ("input.md-search__input", "input.md-search__input"),  # visible in the header on wide screens
    "readthedocs": ("#rtd-search-form input[name=q]", "#rtd-search-form input[name=q]"),
}


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("mkdocs-browser")
    return {theme: built_example(base, theme=theme) for theme in THEMES}


@pytest.fixture(scope="module")
def servers(sites: dict[str, Path]) -> Iterator[dict[str, str]]:
    running = {theme: serve(site) for theme, site in sites.items()}
    yield {theme: url for theme, (url, _) in running.items()}
    for _, server in running.values():
        server.shutdown()
        server.server_close()


@pytest.fixture(params=[(t, s) for t in THEMES for s in ("http", "file")], ids=lambda p: f"{p[0]}-{p[1]}")
def site(request: pytest.FixtureRequest, sites: dict[str, Path]) -> tuple[str, str, Path]:
    """(theme, base URL ending in '/', site folder)."""
    theme, scheme = request.param
    folder = sites[theme]
    if scheme == "http":
        return theme, request.getfixturevalue("servers")[theme], folder
    return theme, folder.as_uri() + "/", folder


def _results(page: Any) -> list[dict[str, str]]:
    return page.eval_on_selector_all(
        "li.okf-hit",
        """els => els.map(li => ({href: li.querySelector('.okf-link').getAttribute('href'),
                                   heading: li.querySelector('.okf-heading').textContent}))""",
    )


def _expected(folder: Path, query: str) -> list[tuple[str, str]]:
    index = okf_sphinx.open_index(folder)
    result = index.search(query, 10, mode="smart")  # the page answers in smart mode: each page's best sections
    urls = {(s["path"], s["line_start"]): s["url"] for s in (index.section(i) for i in range(index.sections_all))}
    hits = [h for p in result["pages"] for h in p["hits"]]
    return [("./" + urls[(h["path"], h["line_start"])], h["heading"] or h["title"]) for h in hits]


@pytest.mark.parametrize("query", ["retry policy", "inside tab", "deprecation"])
def test_search_page_shows_the_api_results(browser: Any, site: tuple[str, str, Path], query: str) -> None:  # noqa: F811
    theme, base, folder = site
    page = browser.new_page()
    page.goto(base + "search.html?q=" + urllib.parse.quote(query))
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    got = [(r["href"], r["heading"]) for r in _results(page)]
    assert got == _expected(folder, query)
    assert got, query
    # the page is the theme's own: its navigation is around our results
    nav = {"material": ".md-header", "mkdocs": ".navbar", "readthedocs": ".wy-nav-side"}[theme]
    assert page.locator(nav).count() >= 1
    if theme == "material":  # Material's own search (it reads ?q= too) stays closed and keeps our URL
        page.wait_for_load_state("load")
        assert page.evaluate("document.getElementById('__search').checked") is False
        assert "q=" in page.url
    page.close()


def test_theme_search_box_leads_to_okf_results(browser: Any, site: tuple[str, str, Path]) -> None:  # noqa: F811
    theme, base, folder = site
    page = browser.new_page()
    page.goto(base + "guide/headings/index.html")
    opener, box = SEARCH_BOX[theme]
    page.click(opener)
    page.wait_for_selector(box, state="visible")
    page.fill(box, "retry policy")
    page.press(box, "Enter")
    page.wait_for_url("**/search.html?q=retry*")
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    assert [(r["href"], r["heading"]) for r in _results(page)] == _expected(folder, "retry policy")
    page.close()


def test_result_link_lands_on_the_section(browser: Any, sites: dict[str, Path], servers: dict[str, str]) -> None:  # noqa: F811
    page = browser.new_page()
    page.goto(servers["material"] + "search.html?q=" + urllib.parse.quote("inside a macos tab"))
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    link = page.locator("li.okf-hit a.okf-link").first
    assert link.get_attribute("href") == "./guide/containers/#inside-a-macos-tab"
    link.click()
    page.wait_for_url("**/guide/containers/#inside-a-macos-tab")
    assert page.locator("#inside-a-macos-tab").count() == 1
    page.close()
