"""Captured files the site ships no copy of are not stored twice (index format 6, issue 24).

A MkDocs site ships no ``_sources/``, so the index packs each page's Markdown into ``f/``;
the same text is already in the section rows of ``s/``.  A pack record now names a
section by its sid where the section's exact range text is the file's own, and writes the
rest out (``parts``).  Real MkDocs builds: every captured file reads back byte for byte
(front matter, CRLF line ends, a BOM, text between and after sections, a file without
sections), by SHA-256 through the Python API and the CLI; a damaged ``parts`` is
``index_corrupt``, never a wrong file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import okf_sphinx
from support.build import index_value, logical_files, rewrite_index_value
from support.cli import code_of, envelope_of, okf
from support.mkdocs_sites import mkdocs_build, write_mkdocs_project

LONG = "A paragraph long enough to be worth naming by its section: retry policy, backoff and jitter.\n"
PAGES: dict[str, str | bytes] = {
    "index.md": "---\ntitle: Home\n---\n\n# Home\n\n" + LONG + "\n## Retry\n\n" + LONG * 3 + "\n## Backoff\n\n" + LONG,
    "crlf.md": ("# Line ends\r\n\r\n" + LONG.replace("\n", "\r\n") + "\r\n## Second\r\n\r\n" + LONG.replace("\n", "\r\n")).encode(),
    "bom.md": "\ufeff# With a BOM\n\n" + LONG + "\n## Part\n\n" + LONG + "\n\n\n",
    "short.md": "# S\n\nx\n",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shared")
    project = write_mkdocs_project(root / "p", PAGES)
    out = root / "site"
    mkdocs_build(project, out)
    return out


def _records(site: Path) -> dict[str, dict]:
    out = {}
    for name in sorted(n for n in logical_files(site / "_okf") if n.startswith("f/")):
        for r in index_value(site / "_okf", name)["files"]:
            out[r["path"]] = r
    return out


def test_pack_records_name_their_sections_and_read_back_exactly(site: Path) -> None:
    records = _records(site)
    assert set(records) == set(PAGES)
    for name in ("index.md", "crlf.md", "bom.md"):  # the long sections are named, not copied
        parts = records[name]["parts"]
        assert "text" not in records[name] and sum(isinstance(p, int) for p in parts) >= 2, parts
        assert LONG.strip() not in "".join(p for p in parts if isinstance(p, str))
    index = okf_sphinx.open_index(site)
    for n, entry in enumerate(index.files()):
        want = PAGES[entry["path"]]
        want = want if isinstance(want, bytes) else want.encode("utf-8")
        got = index.file_bytes(n)
        assert got == want and hashlib.sha256(got).hexdigest() == entry["sha256"], entry["path"]
    lines = index.read_lines("crlf.md", [1, 5])
    assert lines["status"] == "ok" and lines["content"].startswith("# Line ends\r\n\r\n" + LONG.strip() + "\r\n\r\n## Second")
    proc = okf("lines", str(site), "index.md", "1", "3", "--json")
    assert proc.returncode == 0 and '"content":"---\\ntitle: Home\\n---"' in proc.stdout


@pytest.mark.parametrize("damage", ["sid past the end", "a float", "not a list", "a literal changed", "a sid swapped"])
def test_damaged_parts_are_index_corrupt(site: Path, tmp_path: Path, damage: str) -> None:
    import shutil

    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    name = next(n for n in logical_files(copy / "_okf") if n.startswith("f/"))
    pack = index_value(copy / "_okf", name)
    record = next(r for r in pack["files"] if r["path"] == "index.md")
    parts = record["parts"]
    sids = [i for i, p in enumerate(parts) if isinstance(p, int)]
    if damage == "sid past the end":
        parts[sids[0]] = 10**6
    elif damage == "a float":
        parts[sids[0]] = float(parts[sids[0]])
    elif damage == "not a list":
        record["parts"] = "".join(p for p in parts if isinstance(p, str))
    elif damage == "a literal changed":
        at = next(i for i, p in enumerate(parts) if isinstance(p, str))
        parts[at] = parts[at].replace("Home", "Hone")
    else:
        parts[sids[0]], parts[sids[1]] = parts[sids[1]], parts[sids[0]]
    rewrite_index_value(copy / "_okf", name, lambda _v: pack)
    assert code_of(lambda: okf_sphinx.open_index(copy).read_lines("index.md", [1, 2])) == "index_corrupt"
    proc = okf("lines", str(copy), "index.md", "1", "2", "--json")
    assert proc.returncode == 5 and envelope_of(proc)["code"] == "index_corrupt"
