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
    # every sharded folder is compared (the example's 20 pages make ~27 files under the page budget, the rare
    # ones bundled in b/)
    assert len(reference) > 20 and {k.split("/")[0] for k in reference} >= {"s", "t", "d", "n", "x", "b"}
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


# -- symbolic links and files from outside the project (issue 20, point 4) ---------------------------


def _published(out: Path) -> bytes:
    """Everything the build publishes that names captured files: the index, llms.txt, llms-full.txt."""
    parts = [p.read_bytes() for p in sorted((out / "_okf").rglob("*.js"))]
    parts += [(out / name).read_bytes() for name in ("llms.txt", "llms-full.txt") if (out / name).exists()]
    return b"\n".join(parts)


def test_a_symlinked_page_keeps_its_own_path_and_reveals_nothing_of_the_machine(tmp_path: Path) -> None:
    """``notes.rst`` is a link to a file outside the source folder, and a page includes a
    file from outside the project (``../../elsewhere/``): the link's page is ``notes.rst`` (never
    its target's path), the outside file is captured as ``_outside/<digest>/<name>``, no
    published byte names a folder of the machine, and every other locator is what it is
    without them."""
    private = tmp_path / "private-notes"
    private.mkdir()
    (private / "notes.rst").write_text("Notes\n=====\n\nPrivate walrus notes.\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "snippet.rst").write_text("The walrus snippet.\n", encoding="utf-8")
    pages = {"index.rst": "Home\n====\n\nThe walrus home.\n\n.. toctree::\n\n   guide\n   notes\n",
             "guide.rst": "Guide\n=====\n\nA walrus guide.\n\nMore\n----\n\nText.\n"}
    plain = write_project(tmp_path / "plain" / "docs", pages)
    sphinx_build(plain, tmp_path / "plain-out")
    src = write_project(tmp_path / "proj" / "docs", {
        **pages, "guide.rst": pages["guide.rst"] + "\n.. include:: ../../elsewhere/snippet.rst\n"})
    (src / "notes.rst").symlink_to(private / "notes.rst")
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    paths = [f["path"] for f in index.files()]
    digest = __import__("hashlib").sha256((elsewhere / "snippet.rst").read_bytes()).hexdigest()[:12]
    assert paths == [f"_outside/{digest}/snippet.rst", "guide.rst", "index.rst", "notes.rst"], paths
    hits = {h["path"] for h in index.search("walrus")["hits"]}
    assert hits == {"index.rst", "guide.rst", "notes.rst", f"_outside/{digest}/snippet.rst"}, hits
    assert index.read_lines("notes.rst", [4, 4])["content"] == "Private walrus notes.\n"
    # the locators of the other pages are the plain build's
    before = okf_sphinx.open_index(tmp_path / "plain-out")
    for concept in ("index",):
        assert index.get_section(concept_id=concept)["outline"] == before.get_section(concept_id=concept)["outline"]
    published = _published(tmp_path / "out")
    # (the include directive itself, ../../elsewhere/snippet.rst, is the author's text, published as written)
    for secret in (b"private-notes", str(tmp_path).encode(), tmp_path.name.encode(), b"proj/docs"):
        assert secret not in published, secret


def test_a_symlinked_folder_keeps_its_pages_paths(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "a.md").write_text("# A\n\nThe quokka page.\n", encoding="utf-8")
    src = write_project(tmp_path / "proj" / "docs", {"index.md": "# Home\n\n```{toctree}\nlinked/a\n```\n"})
    (src / "linked").symlink_to(shared, target_is_directory=True)
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    assert [f["path"] for f in index.files()] == ["index.md", "linked/a.md"]
    assert index.search("quokka")["hits"][0]["locator"] == "linked/a.md#L1-L3"
    assert b"shared" not in _published(tmp_path / "out")


# -- html_copy_source = False (issue 20, point 6) ---------------------------------------------------


def test_html_copy_source_off_is_said_loudly_and_the_choice_is_the_authors(tmp_path: Path) -> None:
    import subprocess
    import sys

    pages = {"index.rst": "Home\n====\n\nThe walrus home.\n"}

    def build(name: str, conf: str, *args: str) -> subprocess.CompletedProcess[str]:
        src = write_project(tmp_path / name, pages, "html_copy_source = False\n" + conf)
        return subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", *args, str(src), str(tmp_path / f"{name}-out")],
                              capture_output=True, text=True)

    # not chosen: a warning names both settings (so -W fails the build) and the index is written
    proc = build("default", "")
    assert proc.returncode == 0 and "html_copy_source = False" in proc.stderr
    assert "okf_search_publish_sources" in proc.stderr and "exact text" in proc.stderr
    assert (tmp_path / "default-out" / "_okf" / "manifest.js").is_file()
    strict = build("strict", "", "-W")
    assert strict.returncode != 0 and "okf_search_publish_sources" in strict.stderr
    # chosen: publish, said in the log, no warning
    proc = build("publish", "okf_search_publish_sources = True\n")
    assert proc.returncode == 0 and "WARNING" not in proc.stderr, proc.stderr
    assert "exact text" in proc.stdout and "okf_search_publish_sources = True" in proc.stdout
    assert okf_sphinx.open_index(tmp_path / "publish-out").search("walrus")["total"] == 1
    # chosen: never publish — the build stops before reading a page, naming the setting; nothing written
    proc = build("never", "okf_search_publish_sources = False\n")
    assert proc.returncode != 0 and "okf_search_publish_sources = False, but okf_sphinx publishes" in proc.stderr
    out = tmp_path / "never-out"
    assert not (out / "_okf").exists() and not (out / "llms-full.txt").exists() and not (out / "index.html").exists()
    # with html_copy_source on, nothing is said
    src = write_project(tmp_path / "on", pages)
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", str(src), str(tmp_path / "on-out")],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "okf_search_publish_sources" not in proc.stderr + proc.stdout
