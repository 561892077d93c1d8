"""okf's dialog on a site built by Zensical and indexed by ``okf index``, in headless Chromium.

The project of tests/test_zensical.py is built in Zensical's modern and classic themes,
indexed, and opened over http://127.0.0.1 and from file://: the theme's search button opens
okf's dialog (Zensical's own search is not started), the dialog shows what the Python API
answers, axe-core finds no serious violation, and Enter leads to okf's search page.  No
timing is asserted; like every browser test these fail (never skip) when
OKF_REQUIRE_BROWSER is set and Chromium is missing.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.dialog import axe_violations as _axe
from support.dialog import expected_page_results, okf_page_errors, page_results
from support.dialog import expected_groups as _dialog_expected
from support.dialog import shown_groups as _shown
from support.dialog import type_query as _type
from support.http import serving_each
from support.mkdocs_sites import build_env, copy_example, mkdocs_build
from support.zensical_sites import PROJECT, make_site

pytestmark = pytest.mark.browser

VARIANTS = ["modern", "classic"]


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for variant in VARIANTS:
        root = tmp_path_factory.mktemp(f"zen-{variant}")
        files = dict(PROJECT)
        files["zensical.toml"] += f'\n[project.theme]\nvariant = "{variant}"\n'
        site = make_site(root, files)
        proc = subprocess.run([sys.executable, "-m", "okf_sphinx", "index", "site"], cwd=root, capture_output=True,
                              text=True, env=build_env(), timeout=600)
        assert proc.returncode == 0, proc.stderr
        out[variant] = site
    return out


@pytest.fixture(scope="module")
def servers(sites: dict[str, Path]) -> Iterator[dict[str, str]]:
    with serving_each(sites) as urls:
        yield urls


@pytest.fixture(params=[(v, s) for v in VARIANTS for s in ("http", "file")], ids=lambda p: f"{p[0]}-{p[1]}")
def site(request: pytest.FixtureRequest, sites: dict[str, Path]) -> tuple[str, Path]:
    variant, scheme = request.param
    folder = sites[variant]
    if scheme == "http":
        return request.getfixturevalue("servers")[variant], folder
    return folder.as_uri() + "/", folder


#: What each MkDocs theme shows as its search box (what to click to open the dialog).
SEARCH_BOX = {"mkdocs": 'a[data-bs-target="#mkdocs_search_modal"]', "material": "input.md-search__input"}


def test_search_button_opens_the_dialog_with_the_api_answer(browser: Any, site: tuple[str, Path]) -> None:
    base, folder = site
    page = browser.new_page()
    errors = okf_page_errors(page)
    page.goto(base + "guide/usage/index.html")
    page.locator('button.md-search__button, label[for="__search"]').locator("visible=true").first.click()
    page.wait_for_selector("dialog.okf-dialog[open]")
    assert page.evaluate("document.activeElement.id") == "okf-dialog-q"
    assert page.evaluate("document.querySelectorAll('dialog[open]').length") == 1
    _type(page, "toaster")
    want = _dialog_expected(folder, base, "toaster")
    got = _shown(page)
    assert want and [g["label"] for g in got] == [w["label"] for w in want]
    assert [[o["href"] for o in g["options"]] for g in got] == [w["hrefs"] for w in want]
    page.keyboard.press("ArrowDown")
    bad = _axe(page, "dialog.okf-dialog")
    assert bad == [], bad
    _type(page, "s")  # "toasts": a new answer, nothing selected, so Enter searches the whole site
    page.keyboard.press("Enter")
    page.wait_for_url("**/search.html?q=toasters*")
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    got_page = [(r["href"], r["heading"]) for r in page_results(page)]
    assert got_page and got_page == expected_page_results(folder, "toasters")
    assert errors == []
    page.close()


def test_a_result_lands_on_the_section(browser: Any, sites: dict[str, Path], servers: dict[str, str]) -> None:
    page = browser.new_page()
    page.goto(servers["modern"] + "index.html")
    page.keyboard.press("Control+k")
    page.wait_for_selector("dialog.okf-dialog[open]")
    _type(page, "quokka")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url("**/guide/usage/**#setext-heading")
    assert page.evaluate("location.hash") == "#setext-heading"
    page.close()


@pytest.mark.parametrize("theme", ["mkdocs", "material"])
def test_okf_index_after_a_mkdocs_build_gives_the_dialog(browser: Any, tmp_path: Path, theme: str) -> None:
    """A MkDocs build without the plugin, then okf index: the theme's box opens okf's dialog over file://."""
    project = copy_example(tmp_path / "src")
    config = (project / "mkdocs.yml").read_text(encoding="utf-8")
    config = config[: config.index("  - okf:")] + config[config.index("markdown_extensions:"):]
    (project / "mkdocs.yml").write_text(config.replace("  name: mkdocs\n", f"  name: {theme}\n"), encoding="utf-8")
    mkdocs_build(project, project / "site")
    proc = subprocess.run([sys.executable, "-m", "okf_sphinx", "index", "site"], cwd=project, capture_output=True,
                          text=True, env=build_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr
    folder = project / "site"
    base = folder.as_uri() + "/"
    page = browser.new_page()
    page.goto(base + "guide/headings/index.html")
    page.locator(SEARCH_BOX[theme]).locator("visible=true").first.click()
    page.wait_for_selector("dialog.okf-dialog[open]")
    _type(page, "retry pol")
    want = _dialog_expected(folder, base, "retry pol")
    got = _shown(page)
    assert want and [[o["href"] for o in g["options"]] for g in got] == [w["hrefs"] for w in want]
    page.close()
