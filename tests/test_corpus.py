"""A real documentation set written by another project: MyST-Parser's docs (../shared/corpora).

Built read-only from its own folder (output and doctrees under tmp_path), with okf_sphinx
appended to its own extensions by bench/sphinx_driver.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import okf_sphinx
from support.build import CORPORA, ROOT

pytestmark = pytest.mark.slow  # builds real corpora

MYST = CORPORA / "myst" / "docs"


@pytest.fixture(scope="module")
def myst_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (MYST / "conf.py").is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{MYST} is missing: CI must have ../shared beside the repository")
        pytest.skip("../shared/corpora is not here")
    out = tmp_path_factory.mktemp("myst-corpus")
    cmd = [sys.executable, str(ROOT / "bench" / "sphinx_driver.py"), "--okf", "-q", "-b", "html",
           "-d", str(out / ".doctrees"), str(MYST), str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=MYST)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_every_section_of_a_real_corpus_is_consistent(myst_site: Path) -> None:
    index = okf_sphinx.open_index(myst_site)
    assert index.section_count > 150
    by_file: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for sid in range(index.sections_all):
        s = index.section(sid)
        if s.get("generated"):  # a generated object sits on its directive's line (docs/contract.md)
            continue
        # one file can be a page of its own and be included by others: disjoint per page and file
        by_file.setdefault((s["concept_id"], s["path"]), []).append((s["line_start"], s["line_end"]))
        if "kind" in s and not s.get("continued"):
            # a hand-written object's range starts at its directive (RST or MyST)
            first = s["text"].split("\n")[0]
            assert "::" in first or "{" in first, (s["locator"], s["heading"])
        elif s["heading"] and not s.get("continued"):
            # the heading is what the range starts with (markup aside)
            words = [w for w in okf_sphinx.core.terms.terms(s["heading"]) if w.isascii()][:1]
            head = "\n".join(s["text"].split("\n")[:3]).casefold()
            assert all(w in head for w in words), (s["locator"], s["heading"])
    files = {f["path"]: n for n, f in enumerate(index.files())}
    for (_, path), ranges in by_file.items():
        ranges.sort()
        assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), path  # disjoint within a file
        total = index.file_bytes(files[path]).decode("utf-8").count("\n") + 1
        assert ranges[-1][1] <= total, path


def test_real_corpus_queries(myst_site: Path) -> None:
    index = okf_sphinx.open_index(myst_site)
    hits = index.search("directive option", limit=100)["hits"]
    assert len(hits) > 5 and hits == sorted(hits, key=lambda h: (-h["score"], h["concept_id"], h["line_start"], h["path"]))
    # the CHANGELOG is included from outside docs/: captured with a path under the common root
    paths = {f["path"] for f in index.files()}
    assert "CHANGELOG.md" in paths and "docs/index.md" in paths
    assert index.search("changelog")["total"] >= 1
