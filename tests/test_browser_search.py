"""The search page in a real browser (Playwright driving Debian's Chromium).

example_site is built with real Sphinx, then served on 127.0.0.1 *and* opened from
file://.  Results are compared with the Python API; no timing is asserted.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from support.build import sphinx_build, write_project
from support.browser import THEMES, fetched
from support.http import serve

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parent.parent / "okf_sphinx" / "static"
#: pages the search page shows per step in smart mode (the runtime's own constant)
SMART_PAGE = int(re.search(r"SMART_PAGE = (\d+)", (STATIC / "okf-search-page.js").read_text(encoding="utf-8")).group(1))  # type: ignore[union-attr]


def _section_urls(site_dir: Path) -> dict[tuple[str, int], str]:
    from okf_sphinx import open_index

    index = open_index(site_dir)
    return {
        (s["path"], s["line_start"]): s["url"]
        for s in (index.section(i) for i in range(index.sections_all))
    }


def _wait_done(page: Any) -> None:
    page.wait_for_selector("#okf-search[data-okf-state=done]")


def _results(page: Any) -> list[dict[str, str]]:
    return page.eval_on_selector_all(
        "li.okf-hit",
        """els => els.map(li => ({
            href: li.querySelector('.okf-link').getAttribute('href'),
            heading: li.querySelector('.okf-heading').textContent,
            snippet: li.querySelector('.okf-snippet').textContent,
            marks: Array.from(li.querySelectorAll('.okf-snippet mark')).map(m => m.textContent)}))""",
    )


def _expected(site_dir: Path, query: str, limit: int = SMART_PAGE) -> tuple[dict[str, Any], list[str]]:
    """The page's default (smart) answer, and the section links it shows, page after page."""
    from okf_sphinx import open_index

    result = open_index(site_dir).search(query, limit, mode="smart", prefix=True)
    urls = _section_urls(site_dir)
    result["hits"] = [h for p in result["pages"] for h in p["hits"]]
    return result, ["./" + urls[(h["path"], h["line_start"])] for h in result["hits"]]


def _stems(words: Any) -> set[str]:
    from okf_sphinx.core.stemmer import stemmer_for

    stem = stemmer_for("en")
    return {stem(w.casefold()) for w in words}


def _submit(page: Any, query: str) -> None:
    page.fill("#okf-q", query)
    page.press("#okf-q", "Enter")
    page.wait_for_function("q => new URLSearchParams(location.search).get('q') === q", arg=query)
    _wait_done(page)


def _search_from_theme_box(page: Any, box: Any, query: str) -> None:
    """The theme's box opens the dialog (okf-dialog.js); Enter there, with no result chosen, opens the search page."""
    box.click()
    page.wait_for_selector("dialog.okf-dialog[open]")
    page.keyboard.type(query)
    page.keyboard.press("Enter")


def test_search_page_has_no_dialog_its_keys_come_to_its_field(browser: Any, site: tuple[str, Path]) -> None:
    """The search page loads no dialog (its boot and CSS are the dialog's): Ctrl+K and "/" focus
    its own field, and the theme's search box searches in place, as its own form does."""
    base, site_dir = site
    page = browser.new_page()
    page.goto(base + "search.html?q=retry")
    _wait_done(page)
    assert page.evaluate("!window.OkfDialog && !document.querySelector('dialog.okf-dialog')")
    for key in ("Control+k", "/"):
        page.evaluate("document.activeElement.blur()")
        page.keyboard.press(key)
        assert page.evaluate("document.activeElement.id") == "okf-q", key
        assert page.input_value("#okf-q") == "retry"  # "/" was not typed: the field took the focus only
    # as in the dialog (okf-boot.js): a checkbox, radio or button the theme's page holds is no text field
    page.evaluate("""() => { for (const [type, id] of [['checkbox', 'c'], ['radio', 'r'], ['button', 'b']]) {
        const i = document.createElement('input'); i.type = type; i.id = 'okf-test-' + id; document.body.prepend(i); } }""")
    for id_ in ("okf-test-c", "okf-test-r", "okf-test-b"):
        page.focus("#" + id_)
        page.keyboard.press("/")
        assert page.evaluate("document.activeElement.id") == "okf-q", id_
    # a text field keeps its "/"
    page.evaluate("() => { const t = document.createElement('input'); t.id = 'okf-test-t'; document.body.prepend(t); }")
    page.focus("#okf-test-t")
    page.keyboard.type("a/b")
    assert page.input_value("#okf-test-t") == "a/b" and page.evaluate("document.activeElement.id") == "okf-test-t"
    # a theme's header box (alabaster shows none on the search page; furo, pydata and rtd do)
    page.evaluate("""() => { const f = document.createElement('form'); f.action = 'search.html'; f.id = 'theme-box';
        const i = document.createElement('input'); i.name = 'q'; f.appendChild(i); document.body.prepend(f); }""")
    box = page.locator("#theme-box input")
    box.fill("retry policy")
    box.press("Enter")
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === 'retry policy'")
    _wait_done(page)
    assert page.input_value("#okf-q") == "retry policy"
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1  # in place: no page load
    _result, hrefs = _expected(site_dir, "retry policy")
    assert [r["href"] for r in _results(page)] == hrefs
    page.close()


def test_theme_search_box_leads_to_results(browser: Any, site: tuple[str, Path]) -> None:
    base, site_dir = site
    page = browser.new_page()
    page.goto(base + "guide/installation.html")
    box = page.locator('form[action$="search.html"] input[name="q"]').first
    _search_from_theme_box(page, box, "retry policy")
    page.wait_for_url("**/search.html?q=retry*")
    _wait_done(page)
    result, hrefs = _expected(site_dir, "retry policy")
    got = _results(page)
    assert [r["href"] for r in got] == hrefs
    assert [r["heading"] for r in got] == [h["heading"] or "" for h in result["hits"]] or all(r["heading"] for r in got)
    for r, h in zip(got, result["hits"]):
        # the excerpt a reader reads: the snippet's words, none added, no source markup left
        assert r["snippet"].strip() and set(re.findall(r"\w+", r["snippet"])) <= set(re.findall(r"\w+", h["snippet"]))
        assert not re.search(r"``|:[a-z:]+:`|\{[a-z:]+\}`|^#+ |===|---|\.\. |`_", r["snippet"]), r["snippet"]
        assert _stems(r["marks"]) <= _stems(["retry", "policy"])  # word forms are marked too
        # an object's section can match by its name alone (the heading), with no query word in its docstring
        assert r["marks"] or not _stems(re.findall(r"\w+", r["snippet"])) & _stems(["retry", "policy"])
    status = page.inner_text(".okf-status")
    assert f"{result['total']} pages match" in status
    titles = page.eval_on_selector_all("li.okf-page-result > .okf-page-link", "els => els.map(e => e.textContent)")
    assert titles == [p["title"] or p["concept_id"] for p in result["pages"]]
    page.close()


def test_result_link_reaches_existing_anchor(browser: Any, site: tuple[str, Path]) -> None:
    base, site_dir = site
    page = browser.new_page()
    page.goto(base + "search.html?q=" + urllib.parse.quote("retry policy"))
    _wait_done(page)
    hrefs = [r["href"] for r in _results(page)]
    assert hrefs
    for href in hrefs:
        page.goto(base + "search.html?q=" + urllib.parse.quote("retry policy"))
        _wait_done(page)
        page.click(f'a.okf-link[href="{href}"]')
        page.wait_for_load_state()
        target = urllib.parse.urlsplit(page.url)
        assert target.path.endswith(href.split("#")[0].lstrip("."))
        if target.fragment:
            assert page.evaluate("id => !!document.getElementById(id)", urllib.parse.unquote(target.fragment))
    page.close()


def test_xss_page_renders_inertly(browser: Any, site: tuple[str, Path]) -> None:
    base, _ = site
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for query in ("script alert", "onerror", "onmouseover bold", "escaping script friends"):
        page.goto(base + "search.html?q=" + urllib.parse.quote(query))
        _wait_done(page)
        got = _results(page)
        assert got, query
        # nothing from the index became an element: only our own nodes are there
        tags = page.eval_on_selector_all(".okf-results *", "els => [...new Set(els.map(e => e.tagName))]")
        assert set(tags) <= {"LI", "OL", "A", "SPAN", "P", "MARK"}, tags
    page.goto(base + "search.html?q=script+alert")
    _wait_done(page)
    text = page.inner_text(".okf-results")
    assert "<script>alert(1)</script>" in text
    page.goto(base + "search.html?q=onerror")
    _wait_done(page)
    assert "<img src=x onerror=alert(2)>" in page.inner_text(".okf-results")
    page.goto(base + "search.html?q=escaping+friends")
    _wait_done(page)
    assert "Escaping <script> & friends in titles" in [r["heading"] for r in _results(page)]
    page.wait_for_timeout(200)  # give any injected handler a chance to (not) fire
    assert dialogs == []
    page.close()


def test_invalid_queries_show_the_contract_message(browser: Any, site: tuple[str, Path]) -> None:
    from okf_sphinx import OkfError, open_index

    base, site_dir = site
    index = open_index(site_dir)
    page = browser.new_page()
    page.goto(base + "search.html")
    _wait_done(page)
    for query in ("!!!", "x" * 513, " ".join(f"w{i}" for i in range(33))):
        with pytest.raises(OkfError) as exc:
            index.search(query)
        _submit(page, query)
        assert page.inner_text(".okf-status") == exc.value.message
        assert "okf-error" in page.get_attribute(".okf-status", "class")
        assert _results(page) == []
    _submit(page, "zzzqqqnothing")
    assert page.inner_text(".okf-status") == "No page contains zzzqqqnothing."
    # a misspelt word: searched as the site's word at once, said above the results
    _submit(page, "retry polcy")
    assert page.inner_text(".okf-status").startswith("Showing results for \u201cretry policy\u201d. ")
    assert page.inner_text(".okf-corrected") == "Showing results for \u201cretry policy\u201d. Search for \u201cretry polcy\u201d instead"
    assert "polcy" not in [m.lower() for r in _results(page) for m in r["marks"]]
    assert "policy" in [m.lower() for r in _results(page) for m in r["marks"]]
    # no dead end as typed either: pages with some of the words, what they lack, the site's own spellings
    page.click(".okf-as-typed")
    page.wait_for_function("() => new URLSearchParams(location.search).get('as_typed') === '1'")
    _wait_done(page)
    page.wait_for_function("() => document.querySelector('.okf-status').textContent.startsWith('No page contains all of')")
    status = page.inner_text(".okf-status")
    assert status.startswith("No page contains all of: retry, polcy.") and "did you mean policy?" in status
    assert page.inner_text("li.okf-page-result .okf-missing") == "Missing: polcy"
    assert not page.locator(".okf-corrected").count()
    page.reload()  # the state is in the URL
    _wait_done(page)
    assert page.inner_text(".okf-status").startswith("No page contains all of: retry, polcy.")
    _submit(page, "retry polcy ")  # a new search corrects again
    assert page.locator(".okf-corrected").count() == 1
    page.close()


def test_questions_mark_only_the_words_that_matched(browser: Any, site: tuple[str, Path]) -> None:
    """A question on the search page: its stop words are marked in no excerpt, each excerpt marks
    the words its section matched, and the last word is completed where it matched."""
    base, site_dir = site
    page = browser.new_page()
    page.goto(base + "search.html")
    _wait_done(page)
    _submit(page, "how do I set the retry polic")
    marks = {m.lower() for r in _results(page) for m in r["marks"]}
    assert "retry" in marks and "policy" in marks, marks
    assert not marks & {"how", "do", "i", "the"}, marks
    page.close()


def test_history_back_and_forward(browser: Any, site: tuple[str, Path]) -> None:
    base, site_dir = site
    page = browser.new_page()
    page.goto(base + "search.html")
    _wait_done(page)
    _submit(page, "retry")
    first = _results(page)
    _submit(page, "install")
    second = _results(page)
    assert first != second
    page.go_back()
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === 'retry'")
    _wait_done(page)
    assert page.input_value("#okf-q") == "retry"
    assert _results(page) == first
    page.go_forward()
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === 'install'")
    _wait_done(page)
    assert page.input_value("#okf-q") == "install"
    assert _results(page) == second
    page.close()


def test_keyboard_only(browser: Any, site: tuple[str, Path]) -> None:
    base, _ = site
    page = browser.new_page()
    page.goto(base + "search.html")
    _wait_done(page)
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.id") == "okf-q":
            break
    else:
        pytest.fail("the search field cannot be reached with Tab")
    page.keyboard.type("retry policy")
    page.keyboard.press("Enter")
    _wait_done(page)
    page.wait_for_selector("a.okf-link")
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('okf-link')"):
            break
    else:
        pytest.fail("the first result cannot be reached with Tab")
    href = page.evaluate("document.activeElement.getAttribute('href')")
    page.keyboard.press("Enter")
    page.wait_for_url("**" + href.lstrip(".").split("#")[0] + "*")
    page.close()


def test_cold_query_bytes(browser: Any, http_root: str, example_html: Path) -> None:
    """A cold query loads the runtime, the manifest, its shards and its hits' sections: nothing else
    from the index, and never Sphinx's searchindex.js."""
    from okf_sphinx.core import index_format as fmt
    from okf_sphinx import open_index

    from okf_sphinx.engine import smart

    index = open_index(example_html)
    page = browser.new_page()
    page.goto(http_root + "search.html?q=retry+policy")
    _wait_done(page)
    # the page's own record of what it fetched: complete once the results show, where Playwright's
    # "requestfinished" events may still be on their way to this process when the page is done
    loaded = fetched(page)
    result, _ = _expected(example_html, "retry policy")
    okf = {p.split("/_okf/", 1)[1][:-3] for p in loaded if "/_okf/" in p}
    stem = smart.stemmer(index)
    last = len(result["terms"]) - 1  # the page completes the last word (prefix), as the dialog does
    forms = [t for i, w in enumerate(result["terms"]) for t, _w in smart.variants(index, w, stem, i == last)[0]]
    shards = {index.shard_of(t) for t in forms}
    groups = {fmt.shard_name(stem(t), index.shards) for t in result["terms"] + forms}  # a word's forms sit with its group
    groups.add(fmt.dict_shard_name(fmt.dict_key(result["terms"][last]), index.manifest["smart"]["dict_shards"]))  # completions
    # the object-name shard of the whole query (the exact-name boost; a site with objects)
    name_shard = fmt.name_shard_name(fmt.name_key(fmt.object_name_query("retry policy")), index.manifest["smart"]["name_shards"])
    assert name_shard in okf
    # the heading shard of the query's first term (the heading tiers)
    heading_shard = fmt.heading_shard_name(fmt.dict_key(result["terms"][0]), index.manifest["smart"]["heading_shards"])
    assert heading_shard in okf
    # smart mode: the page table, one stem-group shard per word, the forms' postings, the sections shown
    assert okf - shards - groups - {"manifest", "smart", name_shard, heading_shard} == {n for n in okf if n.startswith("s/")}
    starts = fmt.section_starts(index.manifest["section_files"])
    sids = {index.section(sid)["locator"]: sid for sid in range(index.section_count)}
    def locators(v: object) -> list[str]:  # every hit shown, at any depth (pages hold their sections' hits)
        if isinstance(v, dict):
            return ([v["locator"]] if "locator" in v else []) + [x for w in v.values() for x in locators(w)]
        return [x for w in v for x in locators(w)] if isinstance(v, list) else []

    shown = {fmt.section_file_of(starts, sids[loc]) for loc in locators(result["hits"])}
    assert {n for n in okf if n.startswith("s/")} == {f"s/{k}" for k in shown}
    assert "unicode" not in okf and "/searchindex.js" not in loaded
    # okf's own files: the stemmer, the runtime, the page's script and CSS — not the dialog (this
    # page has none), not the runtime's parts a cold query needs none of (filters and expansion,
    # spelling: every word is the site's, semantic mode: this index has no vectors)
    assert sorted(k.rsplit("/", 1)[1] for k in loaded if "/_okf/" not in k and "/okf-" in k) == [
        "okf-search-page.js", "okf-search.css", "okf-search.js", "okf-stemmer-english.js", "okf-stemmer.js"]
    index_bytes = sum(v for k, v in loaded.items() if "/_okf/" in k)
    assert 0 < index_bytes < 50_000
    # a non-ASCII query adds the Unicode tables, once
    page.evaluate("performance.clearResourceTimings()")
    _submit(page, "Straße")
    assert any(k.endswith("/_okf/unicode.js") for k in fetched(page))
    # a word no page holds adds the spelling part of the runtime, which corrects it as Python does
    page.evaluate("performance.clearResourceTimings()")
    _submit(page, "retry polcy")
    assert [k.rsplit("/", 1)[1] for k in fetched(page) if "/okf-" in k and "/_okf/" not in k] == ["okf-spelling.js"]
    result, links = _expected(example_html, "retry polcy")
    assert result["corrected"]["query"] == "retry policy"
    assert [r["href"] for r in _results(page)] == links[:len(_results(page))] and _results(page)
    page.close()


@pytest.mark.parametrize("theme", THEMES)
def test_themes(browser: Any, example_src: Path, tmp_path: Path, theme: str) -> None:
    out = tmp_path / "html"
    sphinx_build(example_src, out, "-D", f"html_theme={theme}", "-d", str(tmp_path / "doctrees"))
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(out.as_uri() + "/guide/installation.html")
    box = page.locator('form[action$="search.html"] input[name="q"], .search-button__button')
    _search_from_theme_box(page, box.locator("visible=true").first, "retry policy")
    page.wait_for_url("**/search.html?q=retry*")
    _wait_done(page)
    _, hrefs = _expected(out, "retry policy")
    assert [r["href"] for r in _results(page)] == hrefs
    assert errors == []
    page.close()


@pytest.mark.parametrize("builder", ["dirhtml", "singlehtml"])
def test_other_builders(browser: Any, example_src: Path, tmp_path: Path, builder: str) -> None:
    out = tmp_path / builder
    sphinx_build(example_src, out, "-d", str(tmp_path / "doctrees"), builder=builder)
    url, server = serve(out)
    try:
        page = browser.new_page()
        search = "search/" if builder == "dirhtml" else "search.html"
        page.goto(url + search + "?q=retry+policy")
        _wait_done(page)
        got = _results(page)
        assert got
        for r in got:
            if r["href"] is None:  # a section this build renders nowhere (singlehtml: orphan page)
                assert builder == "singlehtml"
                continue
            page.goto(url + search + "?q=retry+policy")
            _wait_done(page)
            page.click(f'a.okf-link[href="{r["href"]}"]')
            page.wait_for_load_state()
            frag = urllib.parse.urlsplit(page.url).fragment
            assert page.evaluate("() => document.querySelector('h1') !== null")
            if frag:
                assert page.evaluate("id => !!document.getElementById(id)", urllib.parse.unquote(frag))
        page.close()
    finally:
        server.shutdown()
        server.server_close()


def test_keep_builtin_search_page(browser: Any, tmp_path: Path) -> None:
    src = write_project(
        tmp_path / "src",
        {"index.rst": "Home\n====\n\n.. toctree::\n\n   usage\n", "usage.rst": "Usage\n=====\n\nRetry the request.\n"},
        conf="okf_search_replace_builtin = False\n",
    )
    out = tmp_path / "html"
    sphinx_build(src, out)
    assert "searchtools.js" in (out / "search.html").read_text(encoding="utf-8")
    usage = (out / "usage.html").read_text(encoding="utf-8")
    assert "okf-search.css" not in usage  # the search page's assets stay on it; other pages get the dialog only
    assert "okf-boot.js" in usage
    assert '"search_page":"okf-search.html"' in (out / "_okf" / "manifest.js").read_text(encoding="utf-8")
    page = browser.new_page()
    page.goto(out.as_uri() + "/okf-search.html?q=retry")
    _wait_done(page)
    assert [r["href"] for r in _results(page)] == ["./usage.html#usage"]
    page.close()


def test_object_hits_show_kind_badge_and_signature(browser: Any, site: tuple[str, Path]) -> None:
    base, site_dir = site
    from okf_sphinx import open_index

    index = open_index(site_dir)
    page = browser.new_page()
    page.goto(base + "search.html?q=" + urllib.parse.quote("CacheStore.put"))
    _wait_done(page)
    shown = page.eval_on_selector_all(
        "li.okf-hit",
        """els => els.map(li => ({
            kind: (li.querySelector('.okf-kind') || {}).textContent || null,
            signature: (li.querySelector('.okf-signature') || {}).textContent || null,
            heading: li.querySelector('.okf-heading').textContent}))""",
    )
    # the page answers in smart mode: each page's best sections, in rank order
    hits = [h for pg in index.search("CacheStore.put", 10, mode="smart", prefix=True)["pages"] for h in pg["hits"]]
    records = {(s["path"], s["line_start"]): s for s in (index.section(i) for i in range(index.section_count))}
    assert [x["heading"] for x in shown] == [h["heading"] for h in hits]
    for x, h in zip(shown, hits):
        record = records[(h["path"], h["line_start"])]
        assert x["kind"] == record.get("kind")
        assert x["signature"] == (record.get("signature") or None)
    assert shown[0] == {"kind": "py:method", "signature": "put(key, value, ttl=None)",
                        "heading": "example_pkg.cache.CacheStore.put"}
    # an ordinary section has neither
    page.goto(base + "search.html?q=" + urllib.parse.quote("clearing cache"))
    _wait_done(page)
    assert page.eval_on_selector_all(".okf-kind, .okf-signature", "els => els.length") == 0
    page.close()
def test_page_mode_keyword_and_bad_value(browser: Any, tmp_path: Path) -> None:
    """okf_search_page_mode = "keyword" keeps the section list of the contract; a bad value fails the build."""
    files = {"index.rst": "Home\n====\n\n.. toctree::\n\n   usage\n",
             "usage.rst": "Usage\n=====\n\nRetries happen.\n\nMore\n----\n\nRetry the request.\n"}
    src = write_project(tmp_path / "src", files, conf='okf_search_page_mode = "keyword"\n')
    out = tmp_path / "html"
    sphinx_build(src, out)
    page = browser.new_page()
    page.goto(out.as_uri() + "/search.html?q=retry")
    _wait_done(page)
    assert [r["href"] for r in _results(page)] == ["./usage.html#more"]  # exact word only, no page grouping
    assert page.eval_on_selector_all("li.okf-page-result", "els => els.length") == 0
    assert page.inner_text(".okf-status").startswith("1 section matches")
    page.close()
    bad = write_project(tmp_path / "bad", files, conf='okf_search_page_mode = "fuzzy"\n')
    proc = sphinx_build(bad, tmp_path / "bad-html", check=False)
    assert proc.returncode != 0 and "okf_search_page_mode must be 'smart', 'keyword' or 'semantic'" in proc.stderr


def _page_links(page: Any) -> list[str]:
    return page.eval_on_selector_all("li.okf-page-result > .okf-page-link", "els => els.map(a => a.getAttribute('href'))")


def test_full_state_in_the_url(browser: Any, site: tuple[str, Path]) -> None:
    """Query, mode, filters and how many results are shown live in the URL: a shared link and a
    reload show the same results; "Show more" updates the URL in place."""
    from okf_sphinx import open_index

    base, site_dir = site
    index = open_index(site_dir)
    page = browser.new_page()
    # a shared link with a filter: the smart answer under guide/
    page.goto(base + "search.html?q=retry&under=guide")
    _wait_done(page)
    want = index.search("retry", SMART_PAGE, mode="smart", prefix=True, under="guide")
    assert _page_links(page) == ["./" + p["url"] for p in want["pages"]]
    assert "Filters: under guide." in page.inner_text(".okf-status")
    # mode=keyword: the contract's answer
    page.goto(base + "search.html?q=" + urllib.parse.quote("retry policy") + "&mode=keyword")
    _wait_done(page)
    urls = _section_urls(site_dir)
    keyword = index.search("retry policy", 10)
    assert [r["href"] for r in _results(page)] == ["./" + urls[(h["path"], h["line_start"])] for h in keyword["hits"]]
    # how many are shown: Show more writes n=10 (two steps of 5 pages), and a reload keeps 10
    page.goto(base + "search.html?q=cache")
    _wait_done(page)
    assert index.search("cache", SMART_PAGE, mode="smart", prefix=True)["truncated"]
    page.click(".okf-more")
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('n') === '{2 * SMART_PAGE}'")
    _wait_done(page)
    twenty = [p["url"] for p in index.search("cache", 2 * SMART_PAGE, mode="smart", prefix=True)["pages"]]
    assert _page_links(page) == ["./" + u for u in twenty]
    # the focus moved to the first page the click added (not to the n-th section link)
    assert page.evaluate("document.activeElement.getAttribute('href')") == "./" + twenty[SMART_PAGE]
    page.reload()
    _wait_done(page)
    assert _page_links(page) == ["./" + u for u in twenty]
    # a new query starts from the first page again, and Back returns to the 20
    _submit(page, "retry")
    assert page.evaluate("new URLSearchParams(location.search).get('n')") is None
    page.go_back()
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === 'cache'")
    _wait_done(page)
    assert _page_links(page) == ["./" + u for u in twenty]
    page.close()


def test_linked_sections_on_request(browser: Any, site: tuple[str, Path]) -> None:
    """?expand=1 shows the sections the results link to after them — the smart answer's
    ``expanded``, each with how it is linked — keeps it through "Show more", and is accessible."""
    from okf_sphinx import open_index

    from support.dialog import axe_violations

    base, site_dir = site
    index = open_index(site_dir)
    page = browser.new_page()
    page.goto(base + "search.html?q=cache&expand=1")
    _wait_done(page)
    # expansion is in the runtime's part a page reads only for a request that uses it
    # (over file:// too, where a page keeps no Resource Timing of its scripts: its modules answer)
    assert page.evaluate("typeof OkfSearch.module('engine/expansion').expanded") == "function"
    want = index.search("cache", SMART_PAGE, mode="smart", prefix=True, expand=True)["expanded"]
    assert len(want) >= 2 and {e["via"] for e in want} >= {"object", "toctree"}
    shown = page.eval_on_selector_all(".okf-related li", """els => els.map(li => ({
        href: li.querySelector('.okf-link').getAttribute('href'),
        heading: li.querySelector('.okf-heading').textContent,
        via: li.querySelector('.okf-via').textContent}))""")
    assert [(s["href"], s["heading"]) for s in shown] == [("./" + e["url"], e["heading"]) for e in want]
    assert len({s["via"] for s in shown}) == len({e["via"] for e in want})  # each way of linking said apart
    assert page.inner_text(".okf-related h2") == "Linked from these results"
    # the results themselves are the answer's pages, not the linked sections
    assert _page_links(page) == ["./" + p["url"] for p in index.search("cache", SMART_PAGE, mode="smart", prefix=True)["pages"]]
    assert axe_violations(page, "#okf-search") == []
    # Show more keeps the option (and its list follows the longer answer)
    page.click(".okf-more")
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('n') === '{2 * SMART_PAGE}'")
    _wait_done(page)
    assert page.evaluate("new URLSearchParams(location.search).get('expand')") == "1"
    more = index.search("cache", 2 * SMART_PAGE, mode="smart", prefix=True, expand=True)["expanded"]
    assert page.eval_on_selector_all(".okf-related .okf-link", "els => els.map(a => a.getAttribute('href'))") == [
        "./" + e["url"] for e in more]
    # without it (and for a query whose results link nowhere) there is no list
    page.goto(base + "search.html?q=cache")
    _wait_done(page)
    assert page.query_selector(".okf-related") is None or not page.is_visible(".okf-related")
    page.goto(base + "search.html?q=install&expand=1")
    _wait_done(page)
    assert not index.search("install", SMART_PAGE, mode="smart", prefix=True, expand=True)["expanded"]
    assert not page.is_visible(".okf-related")
    page.close()
