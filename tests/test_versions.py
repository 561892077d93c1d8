"""Supported versions: MyST-Parser's include lines, and indexes built with another Unicode.

The whole suite runs on the oldest and the newest supported Sphinx / docutils /
MyST-Parser / Python (tox -e oldest, tox -e newest; docs/versions.md). Here:
the MyST-Parser release rule of the include-line correction, and cross-version
parity — an index built on one Unicode version, queried by the Python API and
the JS runtime of another, gives identical answers or one clear refusal.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

import okf_sphinx
from support.build import ROOT, sphinx_build, write_project, same_build
from support.node import python_answer, run_node, same
from okf_sphinx.capture.sphinx.myst_include import line_shift, version_tuple
from okf_sphinx.core import index_format as fmt

PAGE = """Unicode page
============

Retry the café request; die Straße and the strasse; naïve ﬁle handling.
A résumé of Σίσυφος and İstanbul, then retry once more.
"""
#: Unassigned in every Unicode version so far (a hole in the Greek block): the
#: simulated newer build below assigns it as a letter.
NEW_LETTER = 0x0378


@pytest.mark.parametrize(("version", "shift"), [("3.0.0", 1), ("4.0.1", 1), ("5.1.0", 1), ("5.2.0", 0), ("5.2.0rc1", 0), ("6.0", 0), (None, 0)])
def test_myst_include_shift_applies_before_5_2(version: str | None, shift: int) -> None:
    assert line_shift(version) == shift


def test_version_tuple_ignores_pre_release_and_local_tails() -> None:
    assert version_tuple("5.1.0") == (5, 1, 0)
    assert version_tuple("5.2.0.dev3+g123") == (5, 2, 0)


@pytest.fixture(scope="module")
def unicode_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("unicode-site")
    src = write_project(base / "src", {"index.rst": PAGE}, conf="okf_search_exclude = []\n")
    sphinx_build(src, base / "html")
    return base / "html"


def _rewrite(okf: Path, name: str, change) -> None:  # noqa: ANN001
    path = okf / f"{name}.js"
    value = fmt.unwrap(name, path.read_bytes())
    change(value)
    path.write_bytes(same_build(name, value, path))


def _insert_range(flat: list[int], cp: int) -> list[int]:
    pairs = sorted([(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)] + [(cp, cp)])
    return [x for pair in pairs for x in pair]


@pytest.fixture(scope="module")
def newer_site(unicode_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same site as if built by a Python with a newer Unicode that assigns U+0378."""
    site = tmp_path_factory.mktemp("newer") / "html"
    shutil.copytree(unicode_site, site)
    okf = site / "_okf"

    def tables(value: dict) -> None:
        t = fmt.read_unicode_file(value)
        t["unicode_version"] = "99.0.0"
        for key in ("assigned", "word", "letter_number"):
            t[key] = _insert_range(t[key], NEW_LETTER)
        value.update(fmt.unicode_file(t))

    _rewrite(okf, "unicode", tables)
    _rewrite(okf, "manifest", lambda m: m.update(unicode_version="99.0.0"))
    return site


QUERIES = ["retry", "café", "CAFE\u0301", "strasse", "STRASSE", "naïve file", "σίσυφοσ", "i\u0307stanbul",
           "résumé retry", "caf\u0378", "\u0378", "retry \u0378x", "x\U000e0100y", "retry"]


def test_an_index_from_a_newer_unicode_answers_like_node_or_refuses_clearly(newer_site: Path) -> None:
    """Python and Node both lack U+0378: a query holding it is refused with the same
    envelope by both; every other query gets the same answer as the real build."""
    index = okf_sphinx.open_index(newer_site)
    assert index.manifest["unicode_version"] == "99.0.0"
    assert index.normaliser.native is False
    requests = [{"query": q} for q in QUERIES]
    py = [python_answer(index, r) for r in requests]
    js = run_node(newer_site / "_okf", requests)
    for request, p, j in zip(requests, py, js):
        assert same(j, p) is None, (request, same(j, p))
    refused = [r["query"] for r, p in zip(requests, py) if "error" in p]
    assert refused == ["caf\u0378", "\u0378", "retry \u0378x"]
    error = py[QUERIES.index("\u0378")]["error"]
    assert error["code"] == "index_version_unsupported"
    assert error["unicode_version"] == "99.0.0" and error["code_point"] == "U+0378"
    assert "99.0.0" in error["message"] and "U+0378" in error["message"]


def test_queries_a_newer_unicode_build_knows_answer_as_the_real_build(unicode_site: Path, newer_site: Path) -> None:
    real = okf_sphinx.open_index(unicode_site)
    newer = okf_sphinx.open_index(newer_site)
    for q in QUERIES:
        if "\u0378" in q:
            continue
        a, b = python_answer(real, {"query": q}), python_answer(newer, {"query": q})
        assert a == b, q
    for q in ("retry", "CAFE\u0301", "STRASSE", "σίσυφοσ", "i\u0307stanbul"):
        assert python_answer(newer, {"query": q})["total"] >= 1, q


def _other_pythons() -> list[str]:
    """Interpreters whose Unicode version differs from this one's (``OKF_OTHER_PYTHONS``,
    os.pathsep-separated, else python3.11 … python3.14 on PATH or installed by pyenv)."""
    given = os.environ.get("OKF_OTHER_PYTHONS")
    if given:
        names = given.split(os.pathsep)
    else:
        names = [shutil.which(f"python3.{m}") or "" for m in range(11, 15)]
        names += sorted(str(p) for p in (Path.home() / ".pyenv" / "versions").glob("3.1[1-9]*/bin/python3"))
    found: dict[str, str] = {}
    for exe in names:
        if not exe:
            continue
        try:
            proc = subprocess.run([exe, "-c", "import unicodedata; print(unicodedata.unidata_version)"],
                                  capture_output=True, text=True)
        except OSError:
            continue
        version = proc.stdout.strip()
        if proc.returncode == 0 and version != unicodedata.unidata_version and version not in found:
            found[version] = exe
    return sorted(found.values())


def test_another_pythons_api_answers_like_this_one_and_node(unicode_site: Path) -> None:
    """A real other interpreter (other Unicode version) queries this build's index."""
    others = _other_pythons()
    if not others:
        if os.environ.get("OKF_REQUIRE_CROSS_PYTHON"):
            pytest.fail("no python3.11-3.14 with another Unicode version found (set OKF_OTHER_PYTHONS)")
        pytest.skip("no other Python with another Unicode version here")
    requests = [{"query": q} for q in QUERIES]
    index = okf_sphinx.open_index(unicode_site)
    here = [python_answer(index, r) for r in requests]
    js = run_node(unicode_site / "_okf", requests)
    script = (
        "import json, sys, unicodedata\n"
        "from okf_sphinx import OkfError, open_index\n"
        "index = open_index(sys.argv[1])\n"
        "out = []\n"
        "for q in json.load(sys.stdin):\n"
        "    try:\n"
        "        out.append(index.search(q))\n"
        "    except OkfError as exc:\n"
        "        out.append(exc.envelope)\n"
        "print(json.dumps({'unicode': unicodedata.unidata_version, 'native': index.normaliser.native, 'answers': out}))\n"
    )
    for exe in others:
        # the query path imports neither Sphinx nor docutils: the bare interpreter suffices
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([exe, "-c", script, str(unicode_site)], input=json.dumps(QUERIES),
                              capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)
        assert result["unicode"] != unicodedata.unidata_version and result["native"] is False
        for q, mine, theirs, node in zip(QUERIES, here, result["answers"], js):
            assert same(theirs, mine) is None, (exe, q, same(theirs, mine))
            assert same(node, mine) is None, (q, same(node, mine))


def test_the_cli_refuses_an_unknown_code_point_with_exit_6(newer_site: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run([sys.executable, "-m", "okf_sphinx", "search", str(newer_site), "--query", "caf\u0378", "--json"],
                          capture_output=True, env=env)
    assert proc.returncode == 6, proc.stderr
    envelope = json.loads(proc.stdout)
    assert envelope["error"]["code"] == "index_version_unsupported"
    assert envelope == python_answer(okf_sphinx.open_index(newer_site), {"query": "caf\u0378"})


def test_the_include_correction_touches_only_markdown_included_by_markdown(tmp_path: Path) -> None:
    """On a real doctree: with a shift of 1, exactly the nodes of the {include}d Markdown
    file move up one line; the including page's own nodes, and an RST page's
    include of the same file, stay as the parser reported them."""
    import pickle

    from docutils import nodes

    from okf_sphinx.capture.sphinx.myst_include import correct_included_lines

    src = write_project(tmp_path / "src", {
        "index.md": "# Home\n\nintro\n\n```{include} _inc/part.md\n```\n\n## After\n\ntail\n",
        "guide.rst": "Guide\n=====\n\n.. include:: _inc/part.md\n",
        "_inc/part.md": "### Part\n\nsome text\n\nmore text\n",
    }, conf="exclude_patterns = ['_inc']\nokf_search_exclude = []\n")
    sphinx_build(src, tmp_path / "out")
    part = (src / "_inc" / "part.md").resolve().as_posix()

    def lines(doctree: nodes.document) -> list[tuple[str, int | None]]:
        return [(n.source or "", n.line) for n in doctree.findall(nodes.Element)]

    for docname, moved in (("index", True), ("guide", False)):
        doctree = pickle.loads((tmp_path / "out" / ".doctrees" / f"{docname}.doctree").read_bytes())
        main = next(p for p in src.glob(f"{docname}.*")).resolve().as_posix()
        before = lines(doctree)
        changed = correct_included_lines(doctree, main, [part], [".md"], src, shift=1)
        after = lines(doctree)
        expected = [(s, line - 1 if moved and line and line > 1 and Path(s).resolve().as_posix() == part else line) for s, line in before]
        assert after == expected
        assert (changed > 0) == moved, (docname, changed)
