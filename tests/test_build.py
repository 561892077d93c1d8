"""Build behaviour: determinism across -j/incremental/relocation, limits, atomicity."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import okf_sphinx
from support.build import EXAMPLE, sphinx_build, write_project


def snapshot(site: Path) -> dict[str, bytes]:
    root = site / "_okf"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def copy_example(dest: Path) -> Path:
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("_build"))
    return dest


def test_serial_parallel_incremental_and_relocated_builds_are_byte_identical(tmp_path: Path) -> None:
    a = copy_example(tmp_path / "a" / "src")
    sphinx_build(a, tmp_path / "serial", "-E")
    sphinx_build(a, tmp_path / "parallel", "-E", "-j", "2")
    reference = snapshot(tmp_path / "serial")
    # every sharded folder is compared (the example's 20 pages make ~40 files under the page budget)
    assert len(reference) > 30 and {k.split("/")[0] for k in reference} >= {"s", "t", "d", "n", "x", "p", "l", "f"}
    assert snapshot(tmp_path / "parallel") == reference

    b = copy_example(tmp_path / "elsewhere" / "deeper" / "src")
    sphinx_build(b, tmp_path / "relocated", "-E")
    assert snapshot(tmp_path / "relocated") == reference

    # incremental: build, edit (a page and a shared include), rebuild; equals a clean build of the edit
    c = copy_example(tmp_path / "c" / "src")
    out = tmp_path / "incr"
    sphinx_build(c, out, "-j", "2")
    for rel, extra in (("guide/faq.md", "\n## Added later\n\nA zeppelin paragraph.\n"), ("_includes/shared.rst", "\nMore zeppelin text.\n")):
        with open(c / rel, "a", encoding="utf-8") as fh:
            fh.write(extra)
    (c / "orphan_notes.rst").unlink()
    sphinx_build(c, out)
    sphinx_build(c, tmp_path / "clean", "-E")
    assert snapshot(out) == snapshot(tmp_path / "clean")
    assert snapshot(out) != reference
    hits = okf_sphinx.open_index(out).search("zeppelin")["hits"]
    assert {h["path"] for h in hits} == {"guide/faq.md", "_includes/shared.rst"}


LIMIT_CASES = [
    ("files", {"files": 2}),
    ("bytes", {"bytes": 100}),
    ("file_bytes", {"file_bytes": 50}),
    ("sections", {"sections": 3}),
    ("terms", {"terms": 10}),
]


@pytest.mark.parametrize(("limit", "value"), LIMIT_CASES)
def test_each_limit_fails_the_build_and_leaves_no_index(tmp_path: Path, limit: str, value: dict[str, int]) -> None:
    files = {
        "index.rst": "Home\n====\n\nSome words here for the index.\n\n.. toctree::\n\n   a\n   b\n",
        "a.rst": "A\n=\n\nalpha beta gamma delta\n\nA2\n--\n\nmore words\n",
        "b.md": "# B\n\nbravo words and more words\n",
    }
    src = write_project(tmp_path / "src", files)
    out = tmp_path / "out"
    sphinx_build(src, out)  # a good index first: a failed build must not leave it stale
    assert (out / "_okf" / "manifest.js").exists()
    (src / "conf.py").write_text((src / "conf.py").read_text() + f"okf_search_limits = {value!r}\n")
    proc = sphinx_build(src, out, check=False)
    assert proc.returncode != 0
    message = proc.stderr
    assert f"'{limit}'" in message and "okf_search_limits" in message
    assert f"> {next(iter(value.values()))}" in message
    assert not (out / "_okf").exists()
    assert not list(out.glob(".okf-*"))


def test_reference_preset_and_invalid_limits_config(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\nx\n"}, conf='okf_search_limits = "reference"\n')
    sphinx_build(src, tmp_path / "ok")
    assert (tmp_path / "ok" / "_okf" / "manifest.js").exists()
    bad = write_project(tmp_path / "bad", {"index.rst": "T\n=\n\nx\n"}, conf='okf_search_limits = {"filez": 3}\n')
    proc = sphinx_build(bad, tmp_path / "bad-out", check=False)
    assert proc.returncode != 0 and "okf_search_limits" in proc.stderr and "filez" in proc.stderr
    assert not (tmp_path / "bad-out" / "_okf").exists()


def test_output_dir_is_configurable(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\nyak\n"}, conf='okf_search_output_dir = "_search"\nokf_search_exclude = []\n')
    sphinx_build(src, tmp_path / "out")
    assert not (tmp_path / "out" / "_okf").exists()
    assert okf_sphinx.open_index(tmp_path / "out" / "_search").search("yak")["total"] == 1


def test_includes_from_outside_srcdir_use_a_common_root(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "CHANGES.md").write_text("# Changes\n\nquokka release\n", encoding="utf-8")
    src = write_project(tmp_path / "proj" / "docs", {"index.md": "# Home\n\n```{include} ../CHANGES.md\n```\n"},
                        conf="okf_search_exclude = []\n")
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    assert [f["path"] for f in index.files()] == ["CHANGES.md", "docs/index.md"]
    hit = index.search("quokka")["hits"][0]
    assert (hit["concept_id"], hit["path"], hit["heading"], hit["line_start"]) == ("index", "CHANGES.md", "Changes", 1)


def test_build_log_summarises_and_says_how_to_include_excluded_pages(tmp_path: Path) -> None:
    import subprocess
    import sys

    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\nx\n\n.. toctree::\n\n   a\n", "a.rst": "A\n=\n\ny\n"},
                        conf='okf_search_exclude = ["index"]\n')
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", str(src), str(tmp_path / "out")],
                          capture_output=True, text=True, check=True)
    assert "okf_sphinx: indexed 1 sections of 1 pages" in proc.stdout
    assert "1 pages excluded" in proc.stdout and "okf_search_exclude = []" in proc.stdout


def test_a_source_edited_during_the_build_fails_it_without_an_index(tmp_path: Path) -> None:
    conf = (
        "from pathlib import Path\n"
        "def _edit(app, env):\n"
        "    Path(app.srcdir, 'a.rst').write_text('A\\n=\\n\\nedited meanwhile\\n')\n"
        "def setup(app):\n"
        "    app.connect('env-updated', _edit)\n"
    )
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\n.. toctree::\n\n   a\n", "a.rst": "A\n=\n\nfirst\n"}, conf=conf)
    proc = sphinx_build(src, tmp_path / "out", check=False)
    assert proc.returncode != 0
    assert "a.rst changed after Sphinx read it" in proc.stderr and "run the build again" in proc.stderr
    assert not (tmp_path / "out" / "_okf").exists()
