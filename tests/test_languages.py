"""Sites in the newly stemmed languages, end to end: real Sphinx builds in French and in
Russian (``language = "fr"`` / ``"ru"``), searched in smart mode by Python and by the browser
runtime in Node, with the same answers; the site ships its own language's stemmer only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import okf_sphinx
from support.build import boot_files, sphinx_build, write_project

from support.node import python_answer, run_node, same

SITES = {
    "fr": {
        "index.rst": "Accueil\n=======\n\n.. toctree::\n\n   parametres\n   installation\n",
        "parametres.rst": "Paramètres\n==========\n\nLes paramètres du serveur se règlent dans le fichier de "
                          "configuration.\n\nDélais\n------\n\nChaque connexion attend trente secondes.\n",
        "installation.rst": "Installation\n============\n\nInstaller le paquet, puis lancer les tests "
                            "automatiques.\n",
    },
    "ru": {
        "index.rst": "Главная\n=======\n\n.. toctree::\n\n   nastroiki\n   knigi\n",
        "nastroiki.rst": "Настройки\n=========\n\nНастройками сервера управляют в файле конфигурации.\n\n"
                         "Соединения\n----------\n\nКаждое соединение ждёт тридцать секунд.\n",
        "knigi.rst": "Книги\n=====\n\nМы работаем с книгами и читаем документацию.\n",
    },
}
ALGORITHMS = {"fr": "french", "ru": "russian"}
# (query, the page smart mode must find: a form of a word the page has in another form)
FINDS = {
    "fr": [("paramètre", "parametres"), ("paramètres", "parametres"), ("installé", "installation"),
           ("seconde", "parametres"), ("lancé", "installation"), ("configurations", "parametres")],
    "ru": [("настройка", "nastroiki"), ("настройки", "nastroiki"), ("книга", "knigi"), ("книгами", "knigi"),
           ("соединение", "nastroiki"), ("ёлка", None)],
}


@pytest.fixture(scope="module", params=sorted(SITES))
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, str]:
    language = request.param
    root = tmp_path_factory.mktemp(f"site-{language}")
    src = write_project(root / "src", SITES[language], conf=f'language = "{language}"\n')
    proc = sphinx_build(src, root / "html", "-d", str(root / "doctrees"))
    return language, root / "html", proc.stderr


def test_the_index_records_the_stemmer_and_no_warning(site: tuple[str, Path, str]) -> None:
    language, html, stderr = site
    assert "no stemmer" not in stderr, stderr
    smart = okf_sphinx.open_index(html).manifest["smart"]
    assert (smart["language"], smart["stemmer"], smart["stemmer_version"]) == (language, True, "snowball-3.0.1")


def test_the_site_ships_its_language_stemmer_only(site: tuple[str, Path, str]) -> None:
    language, html, _stderr = site
    shipped = sorted(p.name for p in (html / "_static").glob("okf-stemmer*.js"))
    assert shipped == sorted(["okf-stemmer.js", f"okf-stemmer-{ALGORITHMS[language]}.js"])
    # the search page loads them before the runtime; every other page's boot loads them in that order when the reader searches
    page = (html / "search.html").read_text("utf-8")
    assert page.index("okf-stemmer.js") < page.index(f"okf-stemmer-{ALGORITHMS[language]}.js") < page.index("okf-search.js")
    assert "okf-stemmer" not in (html / "index.html").read_text("utf-8")
    files = boot_files(html / "_static" / "okf-boot.js")
    assert files == ["okf-stemmer.js", f"okf-stemmer-{ALGORITHMS[language]}.js", "okf-search.js", "okf-dialog.js"]


def test_other_forms_of_a_word_find_the_page(site: tuple[str, Path, str]) -> None:
    language, html, _stderr = site
    index = okf_sphinx.open_index(html)
    for query, page in FINDS[language]:
        found = [p["concept_id"] for p in index.search(query, mode="smart")["pages"]]
        if page is None:
            assert found == [], (query, found)
        else:
            assert found[:1] == [page], (query, found)
    # keyword mode stays exact: the singular is not on the page
    if language == "fr":
        assert index.search("paramètre")["hits"] == []
        assert index.search("paramètres")["hits"] != []


def test_node_answers_as_python(site: tuple[str, Path, str]) -> None:
    language, html, _stderr = site
    index = okf_sphinx.open_index(html)
    queries = [q for q, _page in FINDS[language]] + ["fichier", "серверов", "тесты", "lancé", "xyz"]
    requests = [{"query": q, "mode": "smart"} for q in queries] + [{"query": q} for q in queries]
    requests += [{"query": q[:-1], "mode": "smart"} for q in queries if len(q) > 3]  # prefixes, suggestions
    answers = run_node(html / "_okf", requests)
    for request, js in zip(requests, answers):
        diff = same(js, python_answer(index, request))
        assert diff is None, f"{json.dumps(request, ensure_ascii=False)}: {diff}"
