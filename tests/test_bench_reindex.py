"""bench/reindex_doctrees.py: an index re-written from a finished build's doctrees, and its
``--pep-titles`` (each PEP titled as the PEP site's own build titles it), on a real build."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.build import sphinx_build, write_project

from okf_sphinx import open_index
from reindex_doctrees import pep_title

ROOT = Path(__file__).resolve().parent.parent

PEP = ("PEP: 8\nTitle: Style Guide for\n    Python Code\nAuthor: Guido van Rossum\nStatus: Active\n\n\n"
       "Introduction\n============\n\nConventions for the code of the standard library.\n\n"
       "Indentation\n===========\n\nUse 4 spaces per indentation level.\n")


def test_the_title_comes_from_the_pep_header() -> None:
    assert pep_title(PEP) == "PEP 8 \u2013 Style Guide for Python Code"
    assert pep_title("PEP: 0012\nTitle: Sample\n\nText\n") == "PEP 12 \u2013 Sample"
    assert pep_title("Title: No number\n\nText\n") is None
    assert pep_title("Introduction\n============\n") is None


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("peps")
    src = write_project(root / "src", {"index.rst": "PEPs\n====\n\n.. toctree::\n\n   pep-0008\n", "pep-0008.rst": PEP})
    sphinx_build(src, root / "html", "-d", str(root / "doctrees"), check=False)
    return src, root / "doctrees", root


@pytest.mark.parametrize("titles", [False, True])
def test_pep_titles_change_the_title_and_levels_not_the_lines(built: tuple[Path, Path, Path], titles: bool) -> None:
    src, doctrees, root = built
    out = root / f"out-{titles}"
    args = [sys.executable, str(ROOT / "bench" / "reindex_doctrees.py"), str(doctrees), str(src), str(out)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "bench")])}
    subprocess.run(args + (["--pep-titles"] if titles else []), check=True, env=env, capture_output=True)
    index = open_index(out)
    page = index.search("indentation spaces", mode="smart", limit=1)["pages"][0]
    plain = open_index(root / "html").search("indentation spaces", mode="smart", limit=1)["pages"][0]
    assert plain["title"] == "Introduction"  # plain Sphinx: the first heading
    assert page["title"] == ("PEP 8 \u2013 Style Guide for Python Code" if titles else "Introduction")
    hit = page["hits"][0]
    assert hit["heading"] == "Indentation" and hit["locator"] == plain["hits"][0]["locator"]
    sections = [index.section(sid) for sid in range(index.section_count)]
    levels = [(s["heading"], s["level"]) for s in sections if s["page_path"] == page["path"] and s["heading"]]
    assert levels == [("Introduction", 1 + titles), ("Indentation", 1 + titles)]
