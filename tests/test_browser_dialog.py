"""The search-as-you-type dialog (okf-dialog.js) in a real browser (Playwright driving Debian's Chromium).

example_site is built with real Sphinx and opened over http://127.0.0.1 and file://; the dialog's
answers are compared with the Python API's smart answer (prefix on the last word).  Accessibility is
checked with axe-core (npm), injected into the page with the dialog open.  No timing is asserted:
the tests wait for the dialog's data-okf-state / data-okf-query.
"""

from __future__ import annotations

import json

import re
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from support.build import sphinx_build, write_project
from support.browser import THEMES, fetched
from support.dialog import DIALOG_PAGES, axe_violations, expected_groups, landing_of, open_by_key, plain_url, shown_groups, type_query, wait_closed_with_focus_on

pytestmark = pytest.mark.browser



def test_typing_matches_python_smart_answer(browser: Any, site: tuple[str, Path]) -> None:
    base, site_dir = site
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "guide/installation.html")
    open_by_key(page, "Control+k")
    combo = page.locator("#okf-dialog-q")
    assert combo.get_attribute("role") == "combobox"
    assert combo.get_attribute("aria-expanded") == "false"
    # every prefix of the query, one keystroke at a time: the shown answer is the last one's
    typed = ""
    for chunk in ("ret", "ry", " pol"):
        type_query(page, chunk)
        typed += chunk
        want = expected_groups(site_dir, base, typed)
        got = shown_groups(page)
        assert [g["label"] for g in got] == [w["label"] for w in want], typed
        assert [[o["href"] for o in g["options"]] for g in got] == [w["hrefs"] for w in want], typed
    assert combo.get_attribute("aria-expanded") == "true"
    assert combo.get_attribute("aria-controls") == "okf-dialog-list"
    assert page.get_attribute("#okf-dialog-list", "role") == "listbox"
    status = page.inner_text("#okf-dialog-status")
    assert "match" in status and page.get_attribute("#okf-dialog-status", "aria-live") == "polite"
    marks = [m for g in shown_groups(page) for o in g["options"] for m in o["marks"]]
    assert marks  # matched words are highlighted
    assert errors == []
    if base.startswith("http"):  # (file:// pages keep no Resource Timing)
        # the spelling part of the runtime is read beside the first query ("r" is no word of the site)
        scripts = [k.rsplit("/", 1)[1] for k in fetched(page) if "/okf-" in k]
        assert "okf-search.js" in scripts and "okf-spelling.js" in scripts, scripts
    page.close()


def test_arrow_enter_lands_on_section(browser: Any, site: tuple[str, Path]) -> None:
    base, site_dir = site
    page = browser.new_page()
    page.goto(base + "index.html")
    open_by_key(page, "/")
    type_query(page, "retry policy")
    want = [h for w in expected_groups(site_dir, base, "retry policy") for h in w["hrefs"]]
    assert len(want) >= 2
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    opts = [o for g in shown_groups(page) for o in g["options"]]
    assert [o["selected"] for o in opts[:2]] == ["false", "true"]
    assert page.get_attribute("#okf-dialog-q", "aria-activedescendant") == opts[1]["id"]
    page.keyboard.press("ArrowUp")
    assert page.get_attribute("#okf-dialog-q", "aria-activedescendant") == opts[0]["id"]
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda u: plain_url(u) == want[1])
    assert landing_of(page.url) == "retry policy"
    frag = urllib.parse.urlsplit(page.url).fragment
    assert frag and page.evaluate("id => !!document.getElementById(id)", urllib.parse.unquote(frag))
    page.close()


def test_ctrl_enter_opens_new_tab(browser: Any, site: tuple[str, Path]) -> None:
    base, site_dir = site
    context = browser.new_context()
    page = context.new_page()
    page.goto(base + "index.html")
    open_by_key(page, "Control+k")
    type_query(page, "retry policy")
    first = expected_groups(site_dir, base, "retry policy")[0]["hrefs"][0]
    page.keyboard.press("ArrowDown")
    with context.expect_page() as info:
        page.keyboard.press("Control+Enter")
    new = info.value
    new.wait_for_load_state()
    assert plain_url(new.url) == first and landing_of(new.url) == "retry policy"
    assert page.url == base + "index.html"  # this tab stays
    context.close()


def test_escape_and_backdrop_restore_focus(browser: Any, site: tuple[str, Path]) -> None:
    base, _ = site
    page = browser.new_page()
    page.goto(base + "index.html")
    # focus a link, open with "/", Esc: focus is back on the link
    page.evaluate("() => { const a = document.querySelector('a[href]'); a.id = a.id || 'okf-test-link'; a.focus(); }")
    before = page.evaluate("document.activeElement.id")
    open_by_key(page, "/")
    page.keyboard.press("Escape")
    wait_closed_with_focus_on(page, "document.activeElement.id === " + json.dumps(before))
    # a click outside (on the backdrop) closes it too
    open_by_key(page, "Control+k")
    page.mouse.click(5, 5)
    wait_closed_with_focus_on(page, "document.activeElement.id === " + json.dumps(before))
    page.close()


def test_slash_is_typed_in_other_fields(browser: Any, site: tuple[str, Path]) -> None:
    base, _ = site
    page = browser.new_page()
    page.goto(base + "index.html")
    page.evaluate("() => { const t = document.createElement('textarea'); t.id = 'other'; document.body.prepend(t); }")
    page.focus("#other")
    page.keyboard.type("a/b")
    assert page.input_value("#other") == "a/b"
    assert page.evaluate("!document.querySelector('dialog.okf-dialog[open]')")
    page.close()


def test_theme_search_box_opens_dialog(browser: Any, site: tuple[str, Path]) -> None:
    base, site_dir = site
    page = browser.new_page()
    page.goto(base + "guide/installation.html")
    box = page.locator('form[action$="search.html"] input[name="q"]').first
    box.click()
    page.wait_for_selector("dialog.okf-dialog[open]")
    assert page.evaluate("document.activeElement.id") == "okf-dialog-q"
    type_query(page, "install")
    assert [g["label"] for g in shown_groups(page)] == [w["label"] for w in expected_groups(site_dir, base, "install")]
    page.keyboard.press("Escape")
    # focus is back on the theme's box, and that does not reopen the dialog
    wait_closed_with_focus_on(page, "document.activeElement.name === 'q'")
    assert page.evaluate("!document.querySelector('dialog.okf-dialog[open]')")
    page.close()


def test_xss_pages_stay_inert(browser: Any, site: tuple[str, Path]) -> None:
    base, _ = site
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(base + "index.html")
    open_by_key(page, "Control+k")
    for query in ("script alert", "onerror", "escaping script friends"):
        page.fill("#okf-dialog-q", "")
        type_query(page, query)
        assert shown_groups(page), query
        tags = page.eval_on_selector_all(".okf-dialog-list *", "els => [...new Set(els.map(e => e.tagName))]")
        assert set(tags) <= {"DIV", "A", "SPAN", "P", "MARK"}, tags
    page.fill("#okf-dialog-q", "")
    type_query(page, "script alert")
    assert "<script>alert(1)</script>" in page.inner_text(".okf-dialog-list")
    page.wait_for_timeout(200)  # give any injected handler a chance to (not) fire
    assert dialogs == []
    page.close()


def _wait_suggest(page: Any, text: str) -> None:
    page.wait_for_function("t => { const s = document.querySelector('.okf-dialog-suggest');"
                           " return s && s.textContent.includes(t)"
                           " && document.querySelector('dialog.okf-dialog').getAttribute('data-okf-state') === 'done'; }", arg=text)


def test_misspelt_word_corrected_then_as_typed(browser: Any, site: tuple[str, Path]) -> None:
    """A misspelt word is searched as the site's word at once, and the dialog says so; the
    button searches the words as typed: the partial answer with its "Did you mean"."""
    from okf_sphinx import open_index

    base, site_dir = site
    expected = open_index(site_dir).search("retry polcy zz", DIALOG_PAGES, mode="smart", prefix=True)
    assert expected["corrected"]["query"] == "retry policy zz"
    page = browser.new_page()
    page.goto(base + "index.html")
    open_by_key(page, "Control+k")
    type_query(page, "retry polcy zz")
    suggest = page.inner_text(".okf-dialog-suggest")
    assert suggest == "Showing results for \u201cretry policy zz\u201d. Search for \u201cretry polcy zz\u201d instead"
    assert page.inner_text("#okf-dialog-status").startswith("Showing results for \u201cretry policy zz\u201d. ")
    assert [g["label"] for g in shown_groups(page)] == [p["title"] or p["concept_id"] for p in expected["pages"]]
    marks = {m.lower() for g in shown_groups(page) for o in g["options"] for m in o["marks"]}
    assert "policy" in marks and "polcy" not in marks
    if base.startswith("http"):  # read for the word no page holds (file:// pages keep no Resource Timing)
        assert "okf-spelling.js" in [k.rsplit("/", 1)[1] for k in fetched(page)]
    landings = {o["landing"] for g in shown_groups(page) for o in g["options"]}  # lands marking the words searched
    assert not any("polcy" in x for x in landings) and any("policy" in x for x in landings), landings
    assert not page.locator(".okf-dialog-did:not(.okf-dialog-as-typed)").count()  # no "Did you mean" besides
    page.click(".okf-dialog-as-typed")
    _wait_suggest(page, "Did you mean")
    assert "polcy" in page.inner_text(".okf-dialog-missing")
    assert "policy" in page.inner_text(".okf-dialog-suggest") and "Showing results" not in page.inner_text(".okf-dialog-suggest")
    assert page.get_attribute("a.okf-dialog-more", "href").endswith("?q=retry%20polcy%20zz&as_typed=1")  # All results: as typed too
    # the next keystroke corrects again
    type_query(page, "z")
    _wait_suggest(page, "Showing results for")
    page.close()


def test_questions_mark_only_the_words_that_matched(browser: Any, site: tuple[str, Path]) -> None:
    """A question's stop words are marked nowhere (not in an excerpt, not on the landing page):
    each excerpt marks the words its section matched."""
    from okf_sphinx import open_index

    base, site_dir = site
    query = "how do I set the retry policy for a client"
    expected = open_index(site_dir).search(query, DIALOG_PAGES, mode="smart", prefix=True)
    page = browser.new_page()
    page.goto(base + "index.html")
    open_by_key(page, "Control+k")
    type_query(page, query)
    shown = shown_groups(page)
    assert [g["label"] for g in shown] == [p["title"] or p["concept_id"] for p in expected["pages"]]
    marks = {m.lower() for g in shown for o in g["options"] for m in o["marks"]}
    assert marks and not marks & {"how", "do", "i", "the", "for", "a"}, marks
    for g in shown:
        for o in g["options"]:
            assert not set(o["landing"].split()) & {"how", "do", "i", "the", "for", "a"}, o["landing"]
    # more pages than shown: the status says how many are shown
    cache = open_index(site_dir).search("cache", DIALOG_PAGES, mode="smart", prefix=True)
    assert cache["truncated"] and not cache["pages"][0]["partial"]
    page.fill("#okf-dialog-q", "")
    type_query(page, "cache")
    assert page.inner_text("#okf-dialog-status") == f"{cache['total']} pages match; showing the first {DIALOG_PAGES}."
    type_query(page, " ")  # (back to the question's answer for the check below)
    page.fill("#okf-dialog-q", "")
    type_query(page, query)
    # no option repeats its page's title as its heading (the page's first section shows its excerpt)
    assert page.eval_on_selector_all(".okf-dialog-list [role=group]", """gs => gs.filter(g => Array.from(
        g.querySelectorAll('.okf-dialog-heading')).some(h => h.textContent === g.getAttribute('aria-label'))).length""") == 0
    page.close()


@pytest.mark.parametrize("theme", THEMES)
def test_themes_open_and_axe(browser: Any, example_src: Path, tmp_path: Path, theme: str) -> None:
    out = tmp_path / "html"
    sphinx_build(example_src, out, "-D", f"html_theme={theme}", "-d", str(tmp_path / "doctrees"))
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(out.as_uri() + "/guide/installation.html")
    if theme == "pydata_sphinx_theme":
        # its own Ctrl+K dialog is taken over: ours opens, its dialog stays closed
        page.keyboard.press("Control+k")
        page.wait_for_selector("dialog.okf-dialog[open]")
        assert page.evaluate("!document.querySelector('#pst-search-dialog[open]')")
        page.keyboard.press("Escape")
        page.wait_for_selector("dialog.okf-dialog:not([open])", state="attached")
        page.locator(".search-button__button").locator("visible=true").first.click()
    else:
        page.locator('form[action$="search.html"] input[name="q"]').locator("visible=true").first.click()
    page.wait_for_selector("dialog.okf-dialog[open]")
    assert page.evaluate("document.querySelectorAll('dialog[open]').length") == 1
    type_query(page, "retry pol")
    assert shown_groups(page)
    page.keyboard.press("ArrowDown")
    bad = axe_violations(page, "dialog.okf-dialog")
    assert bad == [], bad
    # the chosen result lands with its words marked in the theme's main content, and a bar
    page.keyboard.press("Enter")
    page.wait_for_url(lambda u: landing_of(u) == "retry pol")
    _land(page)
    assert page.evaluate("document.querySelectorAll('[role=main] mark.okf-hl, main mark.okf-hl').length") > 0
    assert page.locator(".okf-hl-bar").is_visible()
    assert axe_violations(page, ".okf-hl-bar") == []
    assert errors == []
    page.close()


def test_dialog_can_be_turned_off(browser: Any, tmp_path: Path) -> None:
    files = {"index.rst": "Home\n====\n\n.. toctree::\n\n   usage\n", "usage.rst": "Usage\n=====\n\nRetry the request.\n"}
    src = write_project(tmp_path / "src", files, conf="okf_search_dialog = False\n")
    out = tmp_path / "html"
    sphinx_build(src, out)
    html = (out / "usage.html").read_text(encoding="utf-8")
    assert "okf-boot.js" not in html and "okf-dialog.js" not in html and "okf-search.js" not in html
    on = write_project(tmp_path / "on", files)
    sphinx_build(on, tmp_path / "on-html")
    on_page = (tmp_path / "on-html" / "usage.html").read_text(encoding="utf-8")
    assert "okf-boot.js" in on_page and "okf-search.js" not in on_page  # the boot loads the rest when asked
    page = browser.new_page()
    page.goto((out / "usage.html").as_uri())
    page.keyboard.press("Control+k")
    assert page.evaluate("!document.querySelector('dialog.okf-dialog')")
    page.close()


def test_older_answer_never_overwrites_newer(browser: Any, site: tuple[str, Path]) -> None:
    """The answer to "retry" is held back until the answer to "retry policy" is shown; then released."""
    base, site_dir = site
    page = browser.new_page()
    page.goto(base + "index.html")
    open_by_key(page, "Control+k")  # the runtime loads now (okf-boot.js): then its engine is wrapped
    page.wait_for_function("() => window.OkfDialog.boot.loaded")
    page.evaluate("""() => {
        const eng = OkfSearch.index(), real = eng.search.bind(eng), norm = eng.normaliserFor.bind(eng);
        window.okfHeld = [];
        window.okfSettled = [];  // queries whose answer the dialog has handled (a macrotask after it)
        eng.normaliserFor = q => norm(q).then(n => { setTimeout(() => window.okfSettled.push(q), 0); return n; });
        eng.search = (q, opts) => q === 'retry'
            ? new Promise(resolve => window.okfHeld.push(() => resolve(real(q, opts))))
            : real(q, opts);
    }""")
    page.keyboard.type("retry")
    page.wait_for_function("() => window.okfHeld.length === 1")  # "retry" was asked for and is pending
    type_query(page, " policy")
    want = expected_groups(site_dir, base, "retry policy")
    assert [g["label"] for g in shown_groups(page)] == [w["label"] for w in want]
    page.evaluate("() => window.okfHeld.forEach(f => f())")
    page.wait_for_function("() => window.okfSettled.includes('retry')")  # the old answer arrived, and was dropped
    assert [[o["href"] for o in g["options"]] for g in shown_groups(page)] == [w["hrefs"] for w in want]
    assert page.get_attribute("dialog.okf-dialog", "data-okf-query") == "retry policy"
    page.close()


def test_no_runtime_until_the_reader_reaches_for_search(browser: Any, http_root: str) -> None:
    """A page loads okf-boot.js (and the dialog's CSS) only; the shortcut then loads the stemmer,
    the runtime and the dialog's code, each once, in that order."""
    page = browser.new_page()
    loaded: list[str] = []
    page.on("request", lambda r: loaded.append(r.url.rsplit("/", 1)[-1].split("?")[0]) if "/_static/okf" in r.url else None)
    page.goto(http_root + "guide/installation.html")
    page.wait_for_load_state("load")
    assert sorted(loaded) == ["okf-boot.js", "okf-dialog.css"]
    assert page.evaluate("typeof OkfSearch") == "undefined"
    open_by_key(page, "Control+k")
    page.wait_for_function("() => window.OkfDialog.boot.loaded")
    assert loaded[2:] == ["okf-stemmer.js", "okf-stemmer-english.js", "okf-search.js", "okf-dialog.js"]
    page.keyboard.press("Escape")
    open_by_key(page, "Control+k")
    type_query(page, "retry")
    assert [name for name in loaded if name.endswith(".js")].count("okf-search.js") == 1
    page.close()


@pytest.mark.parametrize("key", ["Control+k", "/"])
def test_keys_typed_while_the_runtime_loads_are_kept(browser: Any, http_root: str, example_html: Path, key: str) -> None:
    """The runtime is held back until the reader has typed: the dialog opened at once, the field
    has every key, and the first answer is for all of them (the same as Python's)."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    held: list[Any] = []
    page.route("**/_static/okf-search.js*", lambda route: held.append(route))
    page.goto(http_root + "guide/installation.html")
    open_by_key(page, key)
    page.keyboard.type("retry pol")
    assert page.input_value("#okf-dialog-q") == "retry pol"
    page.wait_for_function("() => true")
    assert len(held) == 1 and page.evaluate("typeof OkfSearch") == "undefined"  # nothing could answer yet
    held[0].continue_()
    page.wait_for_function(
        "() => { const d = document.querySelector('dialog.okf-dialog');"
        " return d.getAttribute('data-okf-state') === 'done' && d.getAttribute('data-okf-query') === 'retry pol'; }")
    want = expected_groups(example_html, http_root, "retry pol")
    assert want and [[o["href"] for o in g["options"]] for g in shown_groups(page)] == [w["hrefs"] for w in want]
    assert errors == []
    page.close()


def test_enter_before_the_runtime_opens_the_search_page(browser: Any, http_root: str) -> None:
    """With the runtime still on its way, Enter does what it does with no result chosen: the search page."""
    page = browser.new_page()
    page.route("**/_static/okf-search.js*", lambda route: None)  # never arrives
    page.goto(http_root + "guide/installation.html")
    open_by_key(page, "Control+k")
    page.keyboard.type("retry")
    with page.expect_navigation(wait_until="commit"):  # (the search page needs the held runtime too)
        page.keyboard.press("Enter")
    assert page.url == http_root + "search.html?q=retry"
    page.close()


def test_read_the_docs_addons_keep_slash(browser: Any, site: tuple[str, Path]) -> None:
    """With Read the Docs' search element on the page, "/" is left to it; Ctrl+K still opens ours."""
    base, _ = site
    page = browser.new_page()
    page.goto(base + "index.html")
    page.evaluate("() => document.body.appendChild(document.createElement('readthedocs-search'))")
    page.keyboard.press("/")
    assert page.evaluate("!document.querySelector('dialog.okf-dialog[open]')")
    open_by_key(page, "Control+k")
    page.close()


# -- landing highlights -----------------------------------------------------------------------

def _land(page: Any) -> None:
    page.wait_for_selector(".okf-hl-bar[data-okf-state=done]")


def test_result_lands_with_highlights(browser: Any, site: tuple[str, Path]) -> None:
    """A result opens its section with ?okf-hl=<query>; the page marks the query's words (and their
    word forms), starts at the first match inside or after the section, steps next/previous, and
    "Hide Search Matches" removes every mark, the bar and the parameter."""
    base, site_dir = site
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "index.html")
    open_by_key(page, "Control+k")
    type_query(page, "retry policy")
    page.keyboard.press("ArrowDown")
    target = shown_groups(page)[0]["options"][0]["href"]
    page.keyboard.press("Enter")
    page.wait_for_url(lambda u: plain_url(u) == target)
    _land(page)
    from okf_sphinx.core.stemmer import stemmer_for
    stem = stemmer_for("en")
    marks = page.eval_on_selector_all("mark.okf-hl", "ms => ms.map(m => m.textContent)")
    assert marks
    assert {stem(m.lower()) for m in marks} <= {stem("retry"), stem("policy")}, set(marks)
    n = len(marks)
    # the current match is the first one inside or after the section the link points to
    frag = urllib.parse.unquote(urllib.parse.urlsplit(page.url).fragment)
    first = page.evaluate("""id => { const t = document.getElementById(id), ms = [...document.querySelectorAll('mark.okf-hl')];
        return ms.findIndex(m => t.contains(m) || (t.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING)); }""", frag)
    bar = page.locator(".okf-hl-bar")
    assert bar.get_attribute("data-okf-current") == str(first)
    assert page.eval_on_selector_all("mark.okf-hl-current", "ms => ms.length") == 1
    assert f"{first + 1} of {n}" in page.inner_text(".okf-hl-count")
    page.get_by_role("button", name="next").click()
    assert bar.get_attribute("data-okf-current") == str((first + 1) % n)
    page.get_by_role("button", name="previous").click()
    page.get_by_role("button", name="previous").click()
    assert bar.get_attribute("data-okf-current") == str((first - 1) % n)
    assert page.get_attribute(".okf-hl-bar", "role") == "region" and page.get_attribute(".okf-hl-bar", "aria-label")
    assert axe_violations(page, ".okf-hl-bar") == []
    text_with = page.evaluate("document.body.innerText")
    page.get_by_role("button", name="Hide Search Matches").click()
    assert page.evaluate("document.querySelectorAll('mark.okf-hl, .okf-hl-bar').length") == 0
    assert landing_of(page.url) is None and plain_url(page.url) == target
    # focus is not lost with the removed button: it is on the page's main content
    assert page.evaluate("document.activeElement.matches('[role=main], main, article, div.body')")
    # the page's text is what it was: the marks only wrapped existing text
    assert page.evaluate("document.body.innerText").replace("\n", "") in text_with.replace("\n", "")
    assert errors == []
    page.close()


def test_landing_query_is_inert(browser: Any, site: tuple[str, Path]) -> None:
    """A crafted ?okf-hl= puts nothing but <mark>s of the page's own text into the page."""
    base, _ = site
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    hostile = '<img src=x onerror=alert(1)><script>alert(2)</script> script alert "><svg onload=alert(3)>'
    page.goto(base + "xss.html?okf-hl=" + urllib.parse.quote(hostile) + "#top")
    _land(page)
    before = page.evaluate("document.querySelectorAll('img, svg, script').length")
    marks = page.eval_on_selector_all("mark.okf-hl", "ms => ms.map(m => m.textContent.toLowerCase())")
    assert marks and set(marks) <= {"img", "src", "x", "onerror", "alert", "1", "2", "3", "script", "svg", "onload"}, marks
    assert hostile not in page.evaluate("document.body.innerHTML")
    assert page.evaluate("[...document.querySelectorAll('.okf-hl-bar *')].every(e => ['SPAN', 'BUTTON'].includes(e.tagName))")
    page.get_by_role("button", name="Hide Search Matches").click()
    assert page.evaluate("document.querySelectorAll('img, svg, script').length") == before
    page.wait_for_timeout(200)  # give any injected handler a chance to (not) fire
    assert dialogs == []
    # too long a parameter (more than the contract's 512 characters) is ignored
    page.goto(base + "index.html?okf-hl=" + "retry+" * 100)
    page.wait_for_function("() => window.OkfSearch && document.readyState === 'complete'")
    assert page.evaluate("document.querySelectorAll('mark.okf-hl, .okf-hl-bar').length") == 0
    page.close()


# -- breadcrumbs, load more, recent searches -------------------------------------------------

def test_breadcrumbs_of_deep_sections(browser: Any, site: tuple[str, Path]) -> None:
    base, site_dir = site
    from okf_sphinx import open_index

    index = open_index(site_dir)
    concepts = {row[0]: row[2] for row in index.concepts()}
    page = browser.new_page()
    page.goto(base + "index.html")
    open_by_key(page, "Control+k")
    type_query(page, "fourth level")
    result = index.search("fourth level", DIALOG_PAGES, mode="smart", prefix=True)
    checked = 0
    for pg in result["pages"]:
        outline = index.page(concepts[pg["concept_id"]])["sections"]
        for h in pg["hits"][:3]:
            at = next(i for i, s in enumerate(outline) if s["path"] == h["path"] and s["line_start"] == h["line_start"])
            chain, j = [], outline[at]["parent"]
            while j is not None:
                chain.insert(0, outline[j]["heading"])
                j = outline[j]["parent"]
            if chain and chain[0] != pg["title"]:
                chain.insert(0, pg["title"])
            if outline[at]["level"] < 3 or len(chain) < 2:
                continue
            want = " \u203a ".join(chain)
            page.wait_for_function("want => [...document.querySelectorAll('.okf-dialog-crumbs')].some(c => c.textContent === want)", arg=want)
            checked += 1
    assert checked >= 1
    page.close()


def test_load_more(browser: Any, site: tuple[str, Path]) -> None:
    base, site_dir = site
    from okf_sphinx import open_index

    index = open_index(site_dir)
    assert index.search("cache", DIALOG_PAGES, mode="smart", prefix=True)["total"] > DIALOG_PAGES
    page = browser.new_page()
    page.goto(base + "index.html")
    open_by_key(page, "Control+k")
    type_query(page, "cache")
    assert len(shown_groups(page)) == DIALOG_PAGES
    first = len([o for g in shown_groups(page) for o in g["options"]])
    page.get_by_role("button", name="Load more").click()
    page.wait_for_function("() => document.querySelectorAll('.okf-dialog-list [role=group]').length > " + str(DIALOG_PAGES) + "")
    page.wait_for_selector("dialog.okf-dialog[data-okf-state=done]")
    want = index.search("cache", 2 * DIALOG_PAGES, mode="smart", prefix=True)
    assert [g["label"] for g in shown_groups(page)] == [p["title"] or p["concept_id"] for p in want["pages"]]
    # focus is back in the combobox, on the first new result
    assert page.evaluate("document.activeElement.id") == "okf-dialog-q"
    opts = [o for g in shown_groups(page) for o in g["options"]]
    assert page.get_attribute("#okf-dialog-q", "aria-activedescendant") == opts[first]["id"]
    assert page.locator(".okf-dialog-load").is_hidden() == (not want["truncated"])
    page.close()


def _recentshown_groups(page: Any) -> list[str]:
    return page.eval_on_selector_all(".okf-dialog-list [data-okf-recent]", "os => os.map(o => o.textContent)")


def test_recent_searches(browser: Any, site: tuple[str, Path]) -> None:
    base, _ = site
    context = browser.new_context()
    page = context.new_page()
    page.goto(base + "index.html")
    open_by_key(page, "Control+k")
    assert _recentshown_groups(page) == []  # nothing yet
    for q in ("retry policy", "cache size"):
        page.fill("#okf-dialog-q", "")
        type_query(page, q)
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        page.wait_for_url(lambda u: landing_of(u) == q)
        page.goto(base + "index.html")
        open_by_key(page, "Control+k")
    page.wait_for_selector("dialog.okf-dialog[data-okf-state=done]")
    assert _recentshown_groups(page) == ["cache size", "retry policy"]  # newest first
    assert page.get_attribute("#okf-dialog-q", "aria-expanded") == "true"
    assert page.eval_on_selector(".okf-dialog-list [role=group]", "g => g.getAttribute('aria-label')") == "Recent searches"
    # Enter on a recent search searches it again
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('dialog.okf-dialog').getAttribute('data-okf-query') === 'retry policy'")
    assert page.input_value("#okf-dialog-q") == "retry policy" and shown_groups(page)
    # cleared: gone from the dialog and from storage
    page.fill("#okf-dialog-q", "")
    page.wait_for_function("() => document.querySelector('dialog.okf-dialog').getAttribute('data-okf-query') === ''")
    page.get_by_role("button", name="Clear recent searches").click()
    assert _recentshown_groups(page) == []
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('okf-recent:'))") == []
    assert page.evaluate("document.activeElement.id") == "okf-dialog-q"
    context.close()


def test_recent_searches_without_storage(browser: Any, site: tuple[str, Path]) -> None:
    """Storage refused (as some browsers do for file:// or in private modes): nothing is kept, nothing fails."""
    base, _ = site
    context = browser.new_context()
    context.add_init_script("""Object.defineProperty(window, 'localStorage', {get() { throw new DOMException('denied', 'SecurityError'); }});
        window.okfErrors = [];  // Sphinx's own sphinx_highlight.js throws then too: only ours count
        addEventListener('error', e => { if (/okf/.test(e.filename || '')) okfErrors.push(e.message); });
        addEventListener('unhandledrejection', e => okfErrors.push(String(e.reason)));""")
    page = context.new_page()
    page.goto(base + "index.html")
    open_by_key(page, "Control+k")
    type_query(page, "retry policy")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda u: landing_of(u) == "retry policy")
    page.goto(base + "index.html")
    open_by_key(page, "Control+k")
    page.wait_for_selector("dialog.okf-dialog[data-okf-state=done]")
    assert _recentshown_groups(page) == [] and page.locator(".okf-dialog-recent-bar").is_hidden()
    assert page.evaluate("window.okfErrors") == []
    context.close()


# -- language and direction -------------------------------------------------------------------

I18N_FILES = {
    "index.rst": "Start\n=====\n\n.. toctree::\n\n   usage\n",
    "usage.rst": "Usage\n=====\n\nRetry the request.\n\nDetails\n-------\n\nRetry policy and backoff.\n",
}


def test_strings_follow_the_site_language(browser: Any, tmp_path: Path) -> None:
    """language = "de": Sphinx's own translations for the strings Sphinx has, okf_sphinx's catalogue for the rest."""
    src = write_project(tmp_path / "src", I18N_FILES, conf='language = "de"\n')
    out = tmp_path / "html"
    sphinx_build(src, out)
    page = browser.new_page()
    page.goto((out / "index.html").as_uri())
    open_by_key(page, "Control+k")
    assert page.get_attribute("#okf-dialog-q", "aria-label") == "Suche"  # Sphinx: "Search"
    assert page.get_attribute("#okf-dialog-list", "aria-label") == "Suchergebnisse"  # Sphinx: "Search Results"
    assert page.get_attribute("#okf-dialog-q", "placeholder") == "Dokumentation durchsuchen"  # ours
    assert page.inner_text(".okf-dialog-close") == "Schließen"
    type_query(page, "retry")
    assert page.inner_text("#okf-dialog-status") == "1 Seite gefunden."
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda u: landing_of(u) == "retry")
    _land(page)
    assert page.get_by_role("button", name="Suchergebnisse ausblenden").is_visible()  # Sphinx: "Hide Search Matches"
    # next / previous match: okf_sphinx's catalogue (Sphinx's "weiter"/"zurück" are its page links)
    assert page.get_by_role("button", name="nächster").is_visible() and page.get_by_role("button", name="vorheriger").is_visible()
    assert "von" in page.inner_text(".okf-hl-count")
    page.close()
    # the search page: Sphinx's words for its title, button and results
    page = browser.new_page()
    page.goto((out / "search.html").as_uri() + "?q=retry")
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    assert page.inner_text("#okf-search h1") == "Suche" and page.inner_text("#okf-search button[type=submit]") == "Suche"
    assert page.get_attribute(".okf-results", "aria-label") == "Suchergebnisse"
    page.close()
    # English: no strings are passed at all
    en = write_project(tmp_path / "en", I18N_FILES)
    sphinx_build(en, tmp_path / "en-html")
    assert "data-okf-strings" not in (tmp_path / "en-html" / "usage.html").read_text(encoding="utf-8")


def test_right_to_left_site(browser: Any, tmp_path: Path) -> None:
    """language = "ar": the dialog and the landing bar are laid out right to left."""
    src = write_project(tmp_path / "src", I18N_FILES, conf='language = "ar"\n')
    out = tmp_path / "html"
    sphinx_build(src, out)
    page = browser.new_page()
    page.goto((out / "usage.html").as_uri())
    assert page.evaluate("document.documentElement.lang") == "ar"
    open_by_key(page, "Control+k")
    assert page.evaluate("getComputedStyle(document.querySelector('dialog.okf-dialog')).direction") == "rtl"
    assert page.get_attribute("#okf-dialog-q", "aria-label") == "بحث"  # Sphinx's Arabic "Search"
    box_input = page.locator("#okf-dialog-q").bounding_box()
    box_close = page.locator(".okf-dialog-close").bounding_box()
    assert box_close["x"] + box_close["width"] <= box_input["x"]  # Close is at the start (left) in RTL
    type_query(page, "retry")
    assert axe_violations(page, "dialog.okf-dialog") == []
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda u: landing_of(u) == "retry")
    _land(page)
    bar = page.locator(".okf-hl-bar").bounding_box()
    width = page.evaluate("document.documentElement.clientWidth")
    assert bar["x"] + bar["width"] / 2 < width / 2  # inset-inline-end: the left side
    page.close()


def _site_page(browser: Any, tmp_path: Path, files: dict[str, str], language: str, start: str = "index.html") -> tuple[Path, Any]:
    """A small site built with ``language``, and a browser page on ``start`` in it."""
    src = write_project(tmp_path / "src", files, conf=f'language = "{language}"\n')
    out = tmp_path / "html"
    sphinx_build(src, out)
    page = browser.new_page()
    page.goto((out / start).as_uri())
    return out, page

CJK_FILES = {
    "index.rst": "首页\n====\n\n.. toctree::\n\n   db\n   cache\n",
    "db.rst": "数据库\n======\n\n本节介绍如何配置数据库连接和缓存。\n\n连接池\n------\n\n连接池的大小由 ``POOL_SIZE`` 设置。\n",
    "cache.rst": "缓存\n====\n\n缓存可以减少数据库查询。\n",
}


def test_chinese_site_finds_marks_and_speaks_chinese(browser: Any, tmp_path: Path) -> None:
    """language = "zh_CN": a short word finds the page whose text runs it together, the dialog marks
    that word (not the whole clause) in the excerpt and on the page it opens, in Chinese."""
    from okf_sphinx import open_index

    out, page = _site_page(browser, tmp_path, CJK_FILES, "zh_CN")
    expected = open_index(out).search("数据库连接", 5, mode="smart", prefix=True)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_by_key(page, "Control+k")
    assert page.get_attribute("#okf-dialog-q", "placeholder") == "搜索文档"
    type_query(page, "数据库连接")
    assert page.inner_text("#okf-dialog-status") == "找到 1 个页面。"
    shown = page.locator(".okf-dialog-page").all_inner_texts()
    assert shown == [p["title"] for p in expected["pages"]] == ["数据库"]
    marks = page.locator(".okf-dialog-option mark").all_inner_texts()
    assert marks and set(marks) == {"数据库连接"}, marks
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda u: landing_of(u) == "数据库连接")
    _land(page)
    # every place the query's pairs occur, joined where they touch: the heading 数据库, the
    # clause's 数据库连接, 连接池 twice
    assert page.locator("mark.okf-hl").all_inner_texts() == ["数据库", "数据库连接", "连接", "连接"]
    assert page.get_by_role("button", name="下一个").is_visible() and page.get_by_role("button", name="隐藏搜索结果").is_visible()
    assert re.match(r"第 \d 个，共 4 个 — 数据库连接$", page.inner_text(".okf-hl-count"))
    assert errors == []
    page.close()


def test_japanese_site_marks_words_inside_runs(browser: Any, tmp_path: Path) -> None:
    files = {"index.rst": "ホーム\n======\n\n.. toctree::\n\n   models\n",
             "models.rst": "モデル\n======\n\nDjangoのモデルはデータベースのテーブルに対応します。\n"}
    _out, page = _site_page(browser, tmp_path, files, "ja", "models.html")
    open_by_key(page, "Control+k")
    type_query(page, "データベース テーブル")
    assert page.inner_text("#okf-dialog-status") == "1 件のページが見つかりました。"
    assert page.locator(".okf-dialog-option mark").all_inner_texts() == ["データベース", "テーブル"]
    page.close()


@pytest.mark.parametrize(("language", "files", "prefix", "word", "typo", "said", "corrected"), [
    ("ru", {"index.rst": "Словари\n=======\n\nСловари OpenCorpora хранятся отдельно. Установка словарей описана ниже.\n"},
     "словар", "словари", "словори", "Возможно, вы имели в виду", "Показаны результаты для «словари»."),
    ("fr", {"index.rst": "Paramètres\n==========\n\nLes paramètres de la recherche se règlent ici.\n"},
     "paramè", "paramètres", "paramtres", "Vouliez-vous dire", "Résultats pour « paramètres »."),
])
def test_completion_suggestions_and_marks_in_other_scripts(browser: Any, tmp_path: Path, language: str, files: dict[str, str],
                                                           prefix: str, word: str, typo: str, said: str, corrected: str) -> None:
    """Russian and French sites: the word being typed is completed and marked, a misspelt word
    gets the site's own spelling (in the site's language), in the dialog as in Python."""
    from okf_sphinx import open_index

    out, page = _site_page(browser, tmp_path, files, language)
    index = open_index(out)
    assert index.search(prefix, 5, mode="smart", prefix=True)["pages"]
    assert index.search(typo, 5, mode="smart")["corrected"]["words"] == [{"from": typo, "to": word}]
    assert index.search(typo, 5, mode="smart", correct=False)["suggestions"][0]["candidates"][0] == word
    open_by_key(page, "Control+k")
    type_query(page, prefix)
    marks = [m.lower() for m in page.locator(".okf-dialog-option mark").all_inner_texts()]
    assert word in marks, marks
    page.fill("#okf-dialog-q", "")
    type_query(page, typo)
    marks = [m.lower() for m in page.locator(".okf-dialog-option mark").all_inner_texts()]
    assert word in marks, marks  # corrected at once, in the site's language
    assert corrected in page.inner_text(".okf-dialog-suggest")
    page.click(".okf-dialog-as-typed")
    _wait_suggest(page, said)
    assert page.locator(".okf-dialog-did:not(.okf-dialog-as-typed)").all_inner_texts()[0] == word
    assert said in page.inner_text(".okf-dialog-suggest")
    page.locator(".okf-dialog-did").first.click()
    page.wait_for_function("w => document.querySelector('#okf-dialog-q').value === w", arg=word)
    page.close()


def test_landing_leaves_inline_svg_and_mathml_text_alone(browser: Any, tmp_path: Path) -> None:
    """``?okf-hl=`` marks HTML text only: the words of an inline SVG diagram (``<text>``,
    ``<tspan>``) or of MathML stay as they are — an HTML ``<mark>`` there would make them
    vanish — and the bar counts only the marks it made (issue 20, point 13)."""
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><text x="5" y="20">walrus diagram</text>'
           '<text x="5" y="40"><tspan>walrus</tspan> tusk</text></svg>'
           '<math><mi>walrus</mi></math>')
    src = write_project(tmp_path / "src", {"index.rst": f"Walrus\n======\n\nThe walrus swims.\n\n.. raw:: html\n\n   {svg}\n\n"
                                                        "A walrus again.\n"}, 'html_theme = "alabaster"\n')
    out = tmp_path / "html"
    sphinx_build(src, out)
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((out / "index.html").as_uri() + "?okf-hl=walrus")
    _land(page)
    foreign = page.evaluate("[...document.querySelectorAll('svg text, svg tspan, math mi')].map(e => e.textContent)")
    assert foreign == ["walrus diagram", "walrus tusk", "walrus", "walrus"], foreign
    assert page.evaluate("document.querySelectorAll('svg mark, math mark').length") == 0
    marks = page.eval_on_selector_all("mark.okf-hl", "ms => ms.length")
    assert marks >= 3 and f"of {marks}" in page.inner_text(".okf-hl-count")  # the title and the two paragraphs
    assert errors == []
    page.close()
