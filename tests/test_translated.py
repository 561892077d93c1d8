"""Translated Sphinx sites (gettext: ``language`` + ``locale_dirs``; docs/contract.md,
"Translated sites"): real builds with ``.mo`` catalogues the test compiles, where the index
holds the words the reader sees while every locator names the exact source lines, keyword
mode scores those words by the contract's rules, and the browser's engine reads the same
index to the same answers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo

from support.build import build_html, write_project
from support.node import python_answer, run_node, same

import okf_sphinx
from okf_sphinx.core import index_format as fmt

INDEX = """\
Connection settings
===================

The server keeps every connection open.

.. toctree::

   guide

Timeouts
--------

A request waits for the database.

::

   timeout = 30

.. include:: _inc/shared.rst

Untranslated part
-----------------

This paragraph has no translation.
"""
SHARED = "An included paragraph about caching.\n"
GUIDE = """\
# Deployment guide

Start the worker before the web server.

## Scaling

Add more workers when the queue grows.
"""
MESSAGES = {
    "index": {
        "Connection settings": "Paramètres de connexion",
        "The server keeps every connection open.": "Le serveur garde chaque connexion ouverte.",
        "Timeouts": "Délais",
        "A request waits for the database.": "Une requête attend la base de données.",
        "An included paragraph about caching.": "Un paragraphe inclus sur la mise en cache.",
    },
    "guide": {
        "Deployment guide": "Guide de déploiement",
        "Start the worker before the web server.": "Démarrez le processus avant le serveur web.",
        "Scaling": "Montée en charge",
        "Add more workers when the queue grows.": "Ajoutez des processus quand la file grandit.",
    },
}


def _project(root: Path, catalogues: bool) -> Path:
    src = write_project(root, {"index.rst": INDEX, "_inc/shared.rst": SHARED, "guide.md": GUIDE},
                        conf='language = "fr"\nlocale_dirs = ["locale"]\n')
    if catalogues:
        for domain, messages in MESSAGES.items():
            catalog = Catalog(locale="fr", domain=domain)
            for msgid, msgstr in messages.items():
                catalog.add(msgid, msgstr)
            mo = src / "locale" / "fr" / "LC_MESSAGES" / f"{domain}.mo"
            mo.parent.mkdir(parents=True, exist_ok=True)
            with mo.open("wb") as f:
                write_mo(f, catalog)
    return src


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same French project built with its catalogues and without them."""
    base = tmp_path_factory.mktemp("translated")
    return build_html(_project(base / "fr" / "src", True)), build_html(_project(base / "plain" / "src", False))


def _sections(site: Path) -> list[list]:
    rows = []
    for path in sorted((site / "_okf" / "s").glob("*.js")):
        rows += fmt.unwrap(f"s/{path.stem}", path.read_bytes())["sections"]
    return rows


def test_sections_hold_the_translation_at_the_source_lines(sites: tuple[Path, Path]) -> None:
    translated, plain = sites
    got = {(r[2], r[4], r[5]): (r[7], r[8] if len(r) > 8 else {}) for r in _sections(translated)}
    was = {(r[2], r[4], r[5]): (r[7], r[8] if len(r) > 8 else {}) for r in _sections(plain)}
    # the same ranges (the headings are the reader's): only texts of translated sections differ
    assert [k[1:] for k in got] == [k[1:] for k in was]
    assert got[("Paramètres de connexion", 1, 9)] == (
        "Paramètres de connexion\n\nLe serveur garde chaque connexion ouverte.", {"translated": True})
    assert got[("Délais", 10, 20)] == (
        "Délais\n\nUne requête attend la base de données.\n\ntimeout = 30", {"translated": True})
    # an included file's section: its own lines, its translated words
    assert got[("", 1, 1)] == ("Un paragraphe inclus sur la mise en cache.", {"translated": True})
    # a section the catalogue does not translate keeps its range text, markup and all
    assert got[("Untranslated part", 21, 24)] == was[("Untranslated part", 21, 24)]
    assert got[("Untranslated part", 21, 24)][0].startswith("Untranslated part\n-----------------\n")
    # MyST pages are translated the same way
    assert got[("Montée en charge", 5, 7)] == ("Montée en charge\n\nAjoutez des processus quand la file grandit.", {"translated": True})
    # without catalogues nothing is translated: every text is the range text
    assert all("translated" not in extra for _text, extra in was.values())
    assert was[("Connection settings", 1, 9)][0].startswith("Connection settings\n===================\n")


def test_keyword_mode_finds_the_readers_words(sites: tuple[Path, Path]) -> None:
    index = okf_sphinx.open_index(sites[0] / "_okf")
    hits = index.search("requête base", mode="keyword")["hits"]
    assert [(h["heading"], h["locator"]) for h in hits] == [("Délais", "index.rst#L10-L20")]
    assert "Une requête attend la base" in hits[0]["snippet"]
    assert index.search("request database", mode="keyword")["hits"] == []  # the source's words are not shown
    assert [h["locator"] for h in index.search("inclus", mode="keyword")["hits"]] == ["_inc/shared.rst#L1-L1"]
    # smart mode stems the site's language: "file" and "grandit" in other forms
    pages = index.search("files grandissent", mode="smart")["pages"]
    assert [h["locator"] for h in pages[0]["hits"]] == ["guide.md#L5-L7"]


def test_agents_read_the_exact_source(sites: tuple[Path, Path]) -> None:
    index = okf_sphinx.open_index(sites[0] / "_okf")
    hit = index.search("délais", mode="keyword")["hits"][0]
    section = index.get_section(locator=hit["locator"])
    source = (sites[0].parent / "src" / "index.rst").read_text(encoding="utf-8").split("\n")
    assert section["content"] == "\n".join(source[9:20])
    assert section["content_sha256"] == hit["content_sha256"]


def test_the_browser_engine_reads_a_translated_index(sites: tuple[Path, Path]) -> None:
    index = okf_sphinx.open_index(sites[0] / "_okf")
    requests = [{"query": q, "mode": m} for q in ("connexion", "requête", "processus web", "mise en cache", "timeout")
                for m in ("keyword", "smart")]
    for request, js in zip(requests, run_node(sites[0] / "_okf", requests)):
        assert same(js, python_answer(index, request)) is None, request


def test_an_untranslated_build_is_unchanged_by_the_language(tmp_path: Path, sites: tuple[Path, Path]) -> None:
    """Without catalogues, a French site's index is an English-language build's, but for the
    language itself (the manifest, the stemmer)."""
    src = _project(tmp_path / "src", False)
    (src / "conf.py").write_text((src / "conf.py").read_text(encoding="utf-8").replace('"fr"', '"en"'), encoding="utf-8")
    shutil.rmtree(src / "locale", ignore_errors=True)
    english = build_html(src)
    assert _sections(english) == _sections(sites[1])
