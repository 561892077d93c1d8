"""okf's search page, dialog and search-box takeover in real MkDocs themes, in headless Chromium.

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

from okf_sphinx import open_index
from support.mkdocs_sites import built_example, copy_example, mkdocs_build
from support.dialog import (axe_violations, expected_groups, expected_page_results, okf_page_errors, open_by_key, page_results,
                            shown_groups, type_query, wait_closed_with_focus_on)
from support.http import serve_folder, serving_each

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
    with serving_each(sites) as urls:
        yield urls


@pytest.fixture(params=[(t, s) for t in THEMES for s in ("http", "file")], ids=lambda p: f"{p[0]}-{p[1]}")
def site(request: pytest.FixtureRequest, sites: dict[str, Path]) -> tuple[str, str, Path]:
    """(theme, base URL ending in '/', site folder)."""
    theme, scheme = request.param
    folder = sites[theme]
    if scheme == "http":
        return theme, request.getfixturevalue("servers")[theme], folder
    return theme, folder.as_uri() + "/", folder


@pytest.mark.parametrize("query", ["retry policy", "inside tab", "deprecation"])
def test_search_page_shows_the_api_results(browser: Any, site: tuple[str, str, Path], query: str) -> None:
    theme, base, folder = site
    page = browser.new_page()
    page.goto(base + "search.html?q=" + urllib.parse.quote(query))
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    got = [(r["href"], r["heading"]) for r in page_results(page)]
    assert got == expected_page_results(folder, query)
    assert got, query
    # the page is the theme's own: its navigation is around our results
    nav = {"material": ".md-header", "mkdocs": ".navbar", "readthedocs": ".wy-nav-side"}[theme]
    assert page.locator(nav).count() >= 1
    if theme == "material":  # Material's own search (it reads ?q= too) stays closed and keeps our URL
        page.wait_for_load_state("load")
        assert page.evaluate("document.getElementById('__search').checked") is False
        assert "q=" in page.url
    page.close()


# the theme's own search, which must stay closed when okf's dialog takes over
THEME_SEARCH_OPEN = {
    "mkdocs": "!!document.querySelector('#mkdocs_search_modal.show')",
    "material": "document.getElementById('__search').checked",
    "readthedocs": "false",  # a plain form: nothing opens
}


def _theme_search_open(page: Any, theme: str) -> bool:
    return page.evaluate(THEME_SEARCH_OPEN[theme])


def test_theme_search_box_opens_the_dialog(browser: Any, site: tuple[str, str, Path]) -> None:
    """The theme's box (or its search button) opens okf's dialog, never the theme's own search;
    the dialog answers as the Python API; axe-core finds no serious violation with it open;
    Enter with nothing selected leads to search.html?q= with the same results as the API."""
    theme, base, folder = site
    page = browser.new_page()
    errors = okf_page_errors(page)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(base + "guide/headings/index.html")
    opener, _ = SEARCH_BOX[theme]
    page.locator(opener).locator("visible=true").first.click()
    page.wait_for_selector("dialog.okf-dialog[open]")
    assert page.evaluate("document.activeElement.id") == "okf-dialog-q"
    assert page.evaluate("document.querySelectorAll('dialog[open]').length") == 1
    type_query(page, "retry pol")
    want = expected_groups(folder, base, "retry pol")
    got = shown_groups(page)
    assert want and [g["label"] for g in got] == [w["label"] for w in want]
    assert [[o["href"] for o in g["options"]] for g in got] == [w["hrefs"] for w in want]
    assert not _theme_search_open(page, theme)
    page.keyboard.press("ArrowDown")
    bad = axe_violations(page, "dialog.okf-dialog")
    assert bad == [], bad
    type_query(page, "icy")  # a new answer: nothing selected, so Enter searches the whole site
    assert page.get_attribute("#okf-dialog-q", "aria-activedescendant") is None
    page.keyboard.press("Enter")
    page.wait_for_url("**/search.html?q=retry*")
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    assert [(r["href"], r["heading"]) for r in page_results(page)] == expected_page_results(folder, "retry policy")
    assert errors == []
    # the theme's own search index is never downloaded: okf answered everything
    assert not [u for u in requests if "search_index" in u or u.endswith("/search/worker.js")], requests
    page.close()


# the keys each theme's own search answers to (okf's dialog takes them over) besides Ctrl+K and "/"
THEME_KEYS = {"mkdocs": ["s"], "material": ["s", "f"], "readthedocs": []}


@pytest.mark.parametrize("theme", THEMES)
def test_theme_shortcuts_open_the_dialog(browser: Any, sites: dict[str, Path], servers: dict[str, str], theme: str) -> None:
    page = browser.new_page()
    page.goto(servers[theme] + "retry/index.html")
    page.wait_for_load_state("load")
    for key in ["Control+k", "/", *THEME_KEYS[theme]]:
        page.evaluate("() => { const a = document.querySelector('a[href]'); a.id = a.id || 'okf-test-link'; a.focus(); }")
        open_by_key(page, key)
        assert page.input_value("#okf-dialog-q") == ""  # the key was not typed into the box
        assert not _theme_search_open(page, theme), key
        page.keyboard.press("Escape")
        wait_closed_with_focus_on(page, "document.activeElement.id === 'okf-test-link'")
        assert not _theme_search_open(page, theme), key
    # a checkbox (Material's drawer toggle is one) is no text field: the theme's keys open the dialog there too
    page.evaluate("() => { const c = document.createElement('input'); c.type = 'checkbox'; c.id = 'okf-test-box'; document.body.prepend(c); }")
    for key in ["/", *THEME_KEYS[theme]]:
        page.focus("#okf-test-box")
        open_by_key(page, key)
        assert not _theme_search_open(page, theme), key
        page.keyboard.press("Escape")
        wait_closed_with_focus_on(page, "document.activeElement.id === 'okf-test-box'")
    # the keys still type into a text field
    page.evaluate("() => { const t = document.createElement('textarea'); t.id = 'other'; document.body.prepend(t); }")
    page.focus("#other")
    page.keyboard.type("s/f")
    assert page.input_value("#other") == "s/f"
    assert page.evaluate("!document.querySelector('dialog.okf-dialog[open]')")
    page.close()


def test_material_q_link_opens_the_dialog(browser: Any, sites: dict[str, Path], servers: dict[str, str]) -> None:
    """Material opens its search for ?q= on any page; okf's dialog does the same, with the query."""
    page = browser.new_page()
    page.goto(servers["material"] + "guide/containers/?q=" + urllib.parse.quote("inside tab"))
    page.wait_for_selector("dialog.okf-dialog[open][data-okf-state=done]")
    assert page.input_value("#okf-dialog-q") == "inside tab"
    want = expected_groups(sites["material"], servers["material"], "inside tab")
    assert [[o["href"] for o in g["options"]] for g in shown_groups(page)] == [w["hrefs"] for w in want]
    assert not _theme_search_open(page, "material")
    page.close()


@pytest.fixture(scope="module")
def material_beside(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """Material with replace_builtin: false: its own search stays, okf's beside it."""
    base = tmp_path_factory.mktemp("material-beside")
    project = copy_example(base / "src", "material")
    (project / "mkdocs-beside.yml").write_text(
        "INHERIT: mkdocs-material.yml\nplugins:\n  - search\n  - okf:\n      replace_builtin: false\n"
        "      unmatched_headings: info\n", encoding="utf-8")
    out = base / "site"
    mkdocs_build(project, out, config="mkdocs-beside.yml")
    with serve_folder(out) as (url, _requests):
        yield url, out


def _press_until(page: Any, key: str, condition: str, tries: int = 60) -> None:
    """Press ``key`` until ``condition`` holds: Material binds its keys from its own scripts after
    the load event (its search worker starts asynchronously), so on a busy machine the first press
    can come before anything listens; a press that found a listener makes the condition true."""
    for _ in range(tries):
        page.keyboard.press(key)
        try:
            page.wait_for_function(condition, timeout=1000)
            return
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: not listening yet, press again
            continue
    state = page.evaluate("() => ({active: document.activeElement && document.activeElement.outerHTML.slice(0, 120),"
                          " dialog: !!document.querySelector('dialog.okf-dialog[open]'), url: location.href})")
    raise AssertionError(f"pressing {key!r} never made {condition} true; the page: {state}")


def test_material_search_kept_beside_okf(browser: Any, material_beside: tuple[str, Path]) -> None:
    url, out = material_beside
    assert (out / "okf-search.html").is_file()
    html = (out / "retry" / "index.html").read_text(encoding="utf-8")
    assert 'data-md-component="search"' in html and "okf-mkdocs.js" not in html  # Material's search is untouched
    page = browser.new_page()
    page.goto(url + "retry/index.html")
    page.wait_for_load_state("load")
    # Material's own key opens Material's search ...
    # "/" is the one key both searches bind (okf's dialog leaves it to the theme here; "s" and "f"
    # are Material's alone, so pressing them would test Material, not okf)
    _press_until(page, "/", "document.getElementById('__search').checked")
    assert page.evaluate("!document.querySelector('dialog.okf-dialog[open]')")
    # Escape is handled by Material's search component, which mounts once its index is loaded
    # (later than the page's own key bindings): press until it closes
    _press_until(page, "Escape", "!document.getElementById('__search').checked")
    # ... and Ctrl+K opens okf's dialog, whose full results are on okf-search.html
    open_by_key(page, "Control+k")
    type_query(page, "retry policy")
    assert shown_groups(page)
    page.keyboard.press("Enter")
    page.wait_for_url("**/okf-search.html?q=retry*")
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    assert [(r["href"], r["heading"]) for r in page_results(page)] == expected_page_results(out, "retry policy")
    page.close()


def test_without_dialog_the_box_leads_to_the_search_page(browser: Any, tmp_path: Path) -> None:
    """dialog: false: no dialog on the pages; Enter in the theme's box opens search.html?q=."""
    project = copy_example(tmp_path / "src", "material")
    (project / "mkdocs-nodialog.yml").write_text(
        "INHERIT: mkdocs-material.yml\nplugins:\n  - search\n  - okf:\n      dialog: false\n"
        "      unmatched_headings: info\n", encoding="utf-8")
    out = tmp_path / "site"
    mkdocs_build(project, out, config="mkdocs-nodialog.yml")
    html = (out / "retry" / "index.html").read_text(encoding="utf-8")
    assert "okf-dialog.js" not in html and "okf-search.js" not in html  # the runtime only on the search page
    page = browser.new_page()
    page.goto((out / "retry" / "index.html").as_uri())
    box = "input.md-search__input"
    page.click(box)
    page.fill(box, "retry policy")
    page.press(box, "Enter")
    page.wait_for_url("**/search.html?q=retry*")
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    assert [(r["href"], r["heading"]) for r in page_results(page)] == expected_page_results(out, "retry policy")
    assert page.evaluate("!document.querySelector('dialog.okf-dialog')")
    page.close()


def test_result_link_lands_on_the_section(browser: Any, sites: dict[str, Path], servers: dict[str, str]) -> None:
    page = browser.new_page()
    page.goto(servers["material"] + "search.html?q=" + urllib.parse.quote("inside a macos tab"))
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    link = page.locator("li.okf-hit a.okf-link").first
    assert link.get_attribute("href") == "./guide/containers/#inside-a-macos-tab"
    link.click()
    page.wait_for_url("**/guide/containers/#inside-a-macos-tab")
    assert page.locator("#inside-a-macos-tab").count() == 1
    page.close()


@pytest.fixture(scope="module")
def material_instant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """Material with instant loading (``navigation.instant``): links swap the page in place."""
    base = tmp_path_factory.mktemp("material-instant")
    project = copy_example(base / "src", "material")
    out = base / "site"
    out.mkdir()
    with serve_folder(out) as (url, _requests):
        # instant loading follows the links its sitemap lists, on the site_url's port: so the
        # site_url is this server's URL, known before the build
        (project / "mkdocs-instant.yml").write_text(
            f"INHERIT: mkdocs-material.yml\nsite_url: {url}\ntheme:\n  name: material\n  features:\n"
            "    - navigation.instant\n", encoding="utf-8")
        mkdocs_build(project, out, config="mkdocs-instant.yml")
        yield url, out


def test_material_instant_loading_keeps_the_dialog_working(browser: Any, material_instant: tuple[str, Path]) -> None:
    """With Material's instant loading a followed link replaces the page without reloading it
    (and okf's scripts are not run again): the dialog opened from the new page's header box
    and by its keys still answers as the Python API, with links right for the new page."""
    base, folder = material_instant
    page = browser.new_page()
    errors = okf_page_errors(page)
    page.goto(base + "retry/")
    page.wait_for_load_state("load")
    page.wait_for_function("() => typeof window.document$ !== 'undefined'")  # Material's scripts are running
    page.evaluate("() => { window.okfSamePage = true; }")  # survives an instant page change, not a reload
    page.locator("input.md-search__input").locator("visible=true").first.click()
    page.wait_for_selector("dialog.okf-dialog[open]")
    type_query(page, "inside a macos tab")
    want = expected_groups(folder, base, "inside a macos tab")
    assert [[o["href"] for o in g["options"]] for g in shown_groups(page)] == [w["hrefs"] for w in want]
    target = want[0]["hrefs"][0]
    page.locator(".okf-dialog-list a[role=option]").first.click()
    page.wait_for_url(lambda u: urllib.parse.urldefrag(u)[0].split("?")[0] == urllib.parse.urldefrag(target)[0])
    page.wait_for_selector("#inside-a-macos-tab", state="attached")
    assert page.evaluate("() => window.okfSamePage === true"), "the link reloaded the page: instant loading is off"
    assert page.evaluate("!document.querySelector('dialog.okf-dialog[open]')")
    # the landing marks the query's words on the page swapped in, as after a load
    page.wait_for_selector(".okf-hl-bar[data-okf-state=done]")
    assert page.locator("#inside-a-macos-tab ~ * mark.okf-hl, #inside-a-macos-tab mark.okf-hl").count() > 0
    # the new page's header box (a new element) opens the dialog; the answer is the API's
    page.locator("input.md-search__input").locator("visible=true").first.click()
    page.wait_for_selector("dialog.okf-dialog[open]")
    assert page.evaluate("document.activeElement.id") == "okf-dialog-q"
    page.fill("#okf-dialog-q", "")
    type_query(page, "retry policy")
    want = expected_groups(folder, base, "retry policy")
    assert want and [[o["href"] for o in g["options"]] for g in shown_groups(page)] == [w["hrefs"] for w in want]
    assert page.evaluate("document.querySelectorAll('dialog.okf-dialog').length") == 1
    page.keyboard.press("Escape")  # the focus goes back to the new page's header box
    wait_closed_with_focus_on(page, "document.activeElement.classList.contains('md-search__input')")
    # and by key (from outside the box), then follow the first result with the keyboard (another
    # instant change)
    page.evaluate("() => document.activeElement.blur()")
    open_by_key(page, "/")
    type_query(page, "retry policy")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda u: urllib.parse.urldefrag(u)[0].split("?")[0] == urllib.parse.urldefrag(want[0]["hrefs"][0])[0])
    page.wait_for_selector("#retry-policy", state="attached")
    assert page.evaluate("() => window.okfSamePage === true")
    page.wait_for_function("() => { const b = document.querySelectorAll('.okf-hl-bar'); return b.length === 1 &&"
                           " b[0].getAttribute('data-okf-state') === 'done' && b[0].textContent.includes('retry policy'); }")
    assert page.locator("mark.okf-hl").count() > 0  # one bar, the new page's query, its words marked
    open_by_key(page, "Control+k")
    assert not _theme_search_open(page, "material")
    assert errors == []
    page.close()


@pytest.mark.parametrize("output_dir", ['in"dex', "idx#1/a b", "q?x&amp;<b>"])
def test_an_output_dir_of_any_characters_still_searches(browser: Any, tmp_path: Path, output_dir: str) -> None:
    """output_dir is written into every page's data-okf-index: a quote ended the attribute,
    a # or ? cut the URL — search broke on every page (issue 20, point 13). It is now
    escaped for HTML and for a URL path."""
    from support.mkdocs_sites import write_mkdocs_project

    project = write_mkdocs_project(tmp_path / "src", {"index.md": "# Home\n\nThe walrus swims.\n",
                                                       "more.md": "# More\n\nA walrus again.\n"},
                                   "plugins:\n  - search\n  - okf:\n      output_dir: '" + output_dir.replace("'", "''") + "'\n")
    out = tmp_path / "site"
    mkdocs_build(project, out)
    assert (out / output_dir / "manifest.js").is_file()
    want = [h["locator"] for h in open_index(out / output_dir).search("walrus")["hits"]]
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    for where in ("more/index.html", "search.html?q=walrus"):
        page.goto((out / where.split("?")[0]).as_uri() + ("?" + where.split("?")[1] if "?" in where else ""))
        if "?" not in where:  # a page loads the runtime when the reader reaches for search (okf-boot.js)
            page.keyboard.press("Control+k")
            page.wait_for_function("() => window.OkfDialog.boot.loaded")
        got = page.evaluate("OkfSearch.search('walrus').then(r => r.hits.map(h => h.locator))")
        assert got == want, (where, got)
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    assert len(page_results(page)) == len(want)
    assert [e for e in errors if "hljs" not in e] == []  # the mkdocs theme's highlight.js comes from a CDN: offline here
    page.close()
