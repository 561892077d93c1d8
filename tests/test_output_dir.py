"""Where the index goes: okf_search_output_dir never deletes outside the index's own
folder, a failed build cleans up only its own index, and the next build replaces it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import okf_sphinx
from support.build import sphinx_build, write_project
from okf_sphinx.core.hosts import SPHINX



def _victims(tmp_path: Path) -> tuple[Path, list[Path]]:
    """An output folder holding an old page, beside a folder of someone else's files."""
    out = tmp_path / "out"
    out.mkdir()
    keep = [out / "old-page.html", tmp_path / "neighbour.txt", tmp_path / "victim" / "precious.txt"]
    for f in keep:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("keep me\n", encoding="utf-8")
    return out, keep


@pytest.mark.parametrize("value", ["", ".", "./", "..", "../victim", "a/../..", "ABS", " "])
def test_output_dir_outside_the_output_is_a_config_error_that_deletes_nothing(tmp_path: Path, value: str) -> None:
    out, keep = _victims(tmp_path)
    if value == "ABS":
        value = str(tmp_path / "victim")
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\nyak\n"}, conf=f"okf_search_output_dir = {value!r}\n")
    proc = sphinx_build(src, out, check=False)
    assert proc.returncode != 0
    # a ConfigError: Sphinx itself prints it with its last frame, as for its own config values
    # Sphinx's own ConfigError report ("Configuration error!" + the error on 8+, "Configuration error:" on 7.x)
    assert "Configuration error" in proc.stderr and "okf_search_output_dir = " in proc.stderr
    assert repr(value) in proc.stderr, proc.stderr
    assert all(f.read_text(encoding="utf-8") == "keep me\n" for f in keep)
    assert not (out / "manifest.js").exists() and not (tmp_path / "manifest.js").exists()


def test_output_dir_through_a_symbolic_link_out_of_the_output_is_refused(tmp_path: Path) -> None:
    out, keep = _victims(tmp_path)
    os.symlink(tmp_path / "victim", out / "link")
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\nyak\n"}, conf="okf_search_output_dir = 'link/_okf'\n")
    proc = sphinx_build(src, out, check=False)
    assert proc.returncode != 0 and "'link/_okf'" in proc.stderr and "symbolic link" in proc.stderr
    assert sorted(p.name for p in (tmp_path / "victim").iterdir()) == ["precious.txt"]
    assert all(f.exists() for f in keep)


def test_output_dir_that_holds_something_else_is_left_untouched(tmp_path: Path) -> None:
    out, keep = _victims(tmp_path)
    (out / "mine").mkdir()
    (out / "mine" / "notes.txt").write_text("mine\n", encoding="utf-8")
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\nyak\n"}, conf="okf_search_output_dir = 'mine'\n")
    proc = sphinx_build(src, out, check=False)
    assert proc.returncode != 0 and "is not an okf_sphinx index" in proc.stderr and "left untouched" in proc.stderr
    assert (out / "mine" / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert sorted(p.name for p in (out / "mine").iterdir()) == ["notes.txt"]
    # Sphinx's own output folders are not ours either
    (src / "conf.py").write_text((src / "conf.py").read_text() + "okf_search_output_dir = '_static'\n")
    proc = sphinx_build(src, out, check=False)
    assert proc.returncode != 0 and "is not an okf_sphinx index" in proc.stderr
    assert (out / "_static" / "basic.css").exists()


def test_a_failed_build_cleans_up_only_its_own_index(tmp_path: Path) -> None:
    conf = (
        "okf_search_output_dir = 'mine'\n"
        "def _boom(app, doctree):\n"
        "    raise RuntimeError('boom from conf.py')\n"
        "def setup(app):\n"
        "    app.connect('doctree-read', _boom)\n"
    )
    out = tmp_path / "out"
    (out / "mine").mkdir(parents=True)
    (out / "mine" / "notes.txt").write_text("mine\n", encoding="utf-8")
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\nyak\n"}, conf=conf)
    proc = sphinx_build(src, out, check=False)
    assert proc.returncode != 0 and "boom from conf.py" in proc.stderr
    assert (out / "mine" / "notes.txt").read_text(encoding="utf-8") == "mine\n"


def test_remove_index_removes_only_what_okf_wrote(tmp_path: Path) -> None:
    from okf_sphinx.core.errors import NotAnIndexError
    from okf_sphinx.writer.disk import remove_index, write_index

    ours = tmp_path / "ours"
    write_index(ours, {"manifest": {"format": "okf-sphinx-index"}}, SPHINX)
    remove_index(ours, SPHINX)
    assert not ours.exists()
    (tmp_path / "empty").mkdir()
    remove_index(tmp_path / "empty", SPHINX)
    assert not (tmp_path / "empty").exists()
    remove_index(tmp_path / "absent", SPHINX)  # nothing to do
    victim = tmp_path / "victim"
    write_index(victim, {"manifest": {"format": "okf-sphinx-index"}}, SPHINX)
    os.symlink(victim, tmp_path / "link")
    remove_index(tmp_path / "link", SPHINX)  # the link goes, what it points at stays
    assert not (tmp_path / "link").is_symlink() and (victim / "manifest.js").exists()
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "manifest.js").write_text("var x = 1;\n", encoding="utf-8")
    (tmp_path / "file").write_text("x", encoding="utf-8")
    for path in (foreign, tmp_path / "file"):
        with pytest.raises(NotAnIndexError):
            remove_index(path, SPHINX)
    assert (foreign / "manifest.js").exists() and (tmp_path / "file").exists()


def test_nested_output_dir_is_written_and_replaced_by_the_next_build(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\nyak\n"}, conf="okf_search_output_dir = 'search/./idx'\n")
    out = tmp_path / "out"
    sphinx_build(src, out)
    assert okf_sphinx.open_index(out / "search" / "idx").search("yak")["total"] == 1
    (src / "index.rst").write_text("T\n=\n\nzebu\n", encoding="utf-8")
    sphinx_build(src, out)
    index = okf_sphinx.open_index(out / "search" / "idx")
    assert index.search("zebu")["total"] == 1 and index.search("yak")["total"] == 0
