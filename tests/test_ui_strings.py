"""The dialog's and the search page's own message catalogue (okf_sphinx/locale,
capture/ui_strings.py): every language complete and compiled in step, the placeholders
kept, and real Sphinx and MkDocs builds passing the site language's strings to the dialog
and the search page."""

from __future__ import annotations

import gettext
import html
import io
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from support.build import sphinx_build, write_project
from support.mkdocs_sites import mkdocs_build, write_mkdocs_project
from support.node import require_node

from okf_sphinx.capture.ui_strings import (
    LOCALE_DIR, MESSAGES, PAGE_STRINGS, PAGE_TEMPLATE, SPHINX, STRINGS, dialog_strings, page_strings)

ROOT = Path(__file__).resolve().parent.parent
POS = sorted(LOCALE_DIR.glob("*/LC_MESSAGES/okf_sphinx.po"))
#: the languages the issue asks for at least, and the two shipped before
REQUIRED = {"zh_CN", "zh_TW", "ja", "ko", "ru", "fr", "pt_BR", "de", "ar", "es", "it"}
_FIELD = re.compile(r"\{(\w+)\}")


def test_the_languages_are_there() -> None:
    assert {p.parts[-3] for p in POS} >= REQUIRED


@pytest.mark.parametrize("po", POS, ids=[p.parts[-3] for p in POS])
def test_catalogue_is_complete_and_compiled(po: Path) -> None:
    """Every dialog string translated, its {placeholders} kept, nothing fuzzy; the .mo is exactly
    what ``pybabel compile -d okf_sphinx/locale -D okf_sphinx`` makes of the .po."""
    with po.open("rb") as f:
        catalog = read_po(f)
    assert not catalog.fuzzy, po
    messages = [m for m in catalog if m.id]
    assert sorted(m.id for m in messages) == MESSAGES, po
    for m in messages:
        assert m.string and not m.fuzzy, (po, m.id)
        assert sorted(_FIELD.findall(m.string)) == sorted(_FIELD.findall(m.id)), (po, m.id, m.string)
        assert m.string.strip() == m.string, (po, m.id)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    assert po.with_suffix(".mo").read_bytes() == compiled.getvalue(), f"{po}: recompile (pybabel compile -d okf_sphinx/locale -D okf_sphinx)"
    mo = gettext.GNUTranslations(po.with_suffix(".mo").open("rb"))
    assert all(mo.gettext(m.id) == m.string for m in messages)


@pytest.mark.parametrize(("script", "name", "table"), [("okf-boot.js", "STRINGS", STRINGS),
                                                     ("okf-search-page.js", "PAGE_STRINGS", PAGE_STRINGS)])
def test_the_tables_are_the_scripts(script: str, name: str, table: dict[str, str]) -> None:
    """capture/ui_strings.py's STRINGS are the dialog's keys and English defaults (okf-boot.js holds
    them: it builds the dialog before the rest of the code arrives), its
    PAGE_STRINGS okf-search-page.js's."""
    node = require_node()
    code = f"process.stdout.write(JSON.stringify(require({json.dumps(str(ROOT / 'okf_sphinx/static' / script))}).{name}))"
    js = json.loads(subprocess.run([node, "-e", code], capture_output=True, text=True, check=True).stdout)
    assert js == table


@pytest.mark.parametrize(("language", "placeholder"), [
    ("ja", "ドキュメントを検索"), ("zh_CN", "搜索文档"), ("zh", "搜索文档"), ("zh-Hans", "搜索文档"),
    ("zh_TW", "搜尋文件"), ("zh-Hant", "搜尋文件"), ("ko", "문서 검색"), ("ru", "Поиск по документации"),
    ("fr", "Rechercher dans la documentation"), ("fr_FR", "Rechercher dans la documentation"),
    ("pt-BR", "Pesquisar na documentação"), ("pt_PT", "Pesquisar na documentação"), ("nb_NO", "Søk i dokumentasjonen"),
    ("no", "Søk i dokumentasjonen"), ("de", "Dokumentation durchsuchen")])
def test_language_names(language: str, placeholder: str) -> None:
    strings = dialog_strings(language)
    assert strings["placeholder"] == placeholder and set(strings) == set(STRINGS)


def test_no_strings_for_english_or_unknown_languages() -> None:
    assert dialog_strings("en") == dialog_strings(None) == dialog_strings("xx") == {}


def _strings_of(page: Path) -> dict[str, str]:
    found = re.search(r'<script[^>]*okf-boot\.js[^>]*data-okf-strings="([^"]*)"|<script[^>]*data-okf-strings="([^"]*)"[^>]*okf-boot\.js',
                      page.read_text(encoding="utf-8"))
    assert found, page
    return json.loads(html.unescape(found.group(1) or found.group(2)))


PAGES = {"index.rst": "検索\n====\n\nデータベースの設定。\n"}


def test_sphinx_site_in_japanese(tmp_path: Path) -> None:
    """Sphinx's own words for the strings Sphinx has (検索, 検索結果 …), okf_sphinx's for the rest."""
    src = write_project(tmp_path / "src", PAGES, conf='language = "ja"\n')
    sphinx_build(src, tmp_path / "html")
    strings = _strings_of(tmp_path / "html" / "index.html")
    assert strings["label"] == "検索" and strings["results"] == "検索結果" and strings["hide"] == "検索結果を隠す"
    assert strings["searching"] == "検索中"
    assert strings["placeholder"] == "ドキュメントを検索" and strings["next"] == "次へ"
    assert set(strings) == set(STRINGS)
    assert set(SPHINX) < set(STRINGS)


def test_mkdocs_site_in_japanese(tmp_path: Path) -> None:
    """The MkDocs plugin passes the theme language's strings, all from okf_sphinx's catalogue."""
    project = write_mkdocs_project(tmp_path / "proj", {"index.md": "# 検索\n\nデータベースの設定。\n"},
                                   config="theme:\n  name: mkdocs\n  locale: ja\n")
    mkdocs_build(project, tmp_path / "site")
    strings = _strings_of(tmp_path / "site" / "index.html")
    assert strings == dialog_strings("ja") and strings["label"] == "検索"
    # and an English MkDocs site passes none
    en = write_mkdocs_project(tmp_path / "en", {"index.md": "# Search\n\nText.\n"})
    mkdocs_build(en, tmp_path / "en-site")
    assert "data-okf-strings" not in (tmp_path / "en-site" / "index.html").read_text(encoding="utf-8")


# -- the search page -------------------------------------------------------------------------

_SECTION = re.compile(r'<section id="okf-search"[^>]*>')


def _page_strings_of(page: Path) -> dict[str, str] | None:
    tag = _SECTION.search(page.read_text(encoding="utf-8"))
    assert tag, page
    found = re.search(r'data-okf-strings="([^"]*)"', tag.group(0))
    return json.loads(html.unescape(found.group(1))) if found else None


def _labels_of(page: Path) -> tuple[str, str, str]:
    text = page.read_text(encoding="utf-8")
    label = re.search(r'<label for="okf-q">([^<]*)</label>', text)
    more = re.search(r'<button type="button" class="okf-more" hidden>([^<]*)</button>', text)
    noscript = re.search(r'<noscript><p class="okf-error">([^<]*)</p></noscript>', text)
    assert label and more and noscript, page
    return html.unescape(label.group(1)), html.unescape(more.group(1)), html.unescape(noscript.group(1))


def test_search_page_in_japanese_sphinx(tmp_path: Path, browser: Any) -> None:
    """The search page's labels and its script's words come from the catalogue the dialog's do;
    in Chromium the status line reads in Japanese."""
    src = write_project(tmp_path / "src", PAGES, conf='language = "ja"\nokf_search_page_mode = "keyword"\n')
    sphinx_build(src, tmp_path / "html")
    ja = page_strings("ja")
    assert _labels_of(tmp_path / "html" / "search.html") == (ja["label_keyword"], ja["more"], ja["noscript"])
    assert _page_strings_of(tmp_path / "html" / "search.html") == {k: v for k, v in ja.items() if k not in PAGE_TEMPLATE}
    assert set(ja) == set(PAGE_STRINGS)  # every word of the page has its Japanese
    page = browser.new_page()
    page.goto((tmp_path / "html" / "search.html").as_uri() + "?q=データベースの設定")  # keyword: the whole run
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    status = page.inner_text(".okf-status")
    page.goto((tmp_path / "html" / "search.html").as_uri() + "?q=データベース&mode=smart&under=index")
    page.wait_for_selector("#okf-search[data-okf-state=done]")
    smart = page.inner_text(".okf-status")
    page.close()
    assert status == ja["sections_match_one"] + " " + ja["shown_all"].replace("{n}", "1")
    assert smart == " ".join((ja["match_one"], ja["shown_all"].replace("{n}", "1"),
                              ja["filters"].replace("{filters}", ja["filter_under"].replace("{path}", "index"))))


def test_search_page_in_english_has_no_strings(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", {"index.rst": "Home\n====\n\nText.\n"})
    sphinx_build(src, tmp_path / "html")
    assert _page_strings_of(tmp_path / "html" / "search.html") is None
    assert _labels_of(tmp_path / "html" / "search.html") == (
        "Search the documentation", "Show more results",
        "Search needs JavaScript. You can still browse the pages from the table of contents.")


def test_search_page_in_japanese_mkdocs(tmp_path: Path) -> None:
    project = write_mkdocs_project(tmp_path / "proj", {"index.md": "# 検索\n\nデータベースの設定。\n"},
                                   config="theme:\n  name: mkdocs\n  locale: ja\n")
    mkdocs_build(project, tmp_path / "site")
    page = next(p for p in (tmp_path / "site").rglob("*.html") if 'id="okf-search"' in p.read_text(encoding="utf-8"))
    ja = page_strings("ja")
    assert _labels_of(page) == (ja["label"], ja["more"], ja["noscript"])
    assert _page_strings_of(page) == {k: v for k, v in ja.items() if k not in PAGE_TEMPLATE}
