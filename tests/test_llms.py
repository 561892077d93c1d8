"""llms.txt / llms-full.txt written by real Sphinx builds."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from conftest import sphinx_build, write_project

from okf_sphinx import open_index

FILES: dict[str, str | bytes] = {
    "index.rst": (
        "Widget docs\n===========\n\nWidgets turn *levers* into answers, quickly.\n\nSecond paragraph.\n\n"
        ".. toctree::\n   :caption: Start here\n\n   install\n   usage/index\n\n"
        ".. toctree::\n   :hidden:\n\n   notes\n"
    ),
    "install.rst": "Install [beta]\n==============\n\nRun pip.\n\nFrom source\n-----------\n\nClone it.\n\n"
                   ".. include:: _inc/shared.rst\n",
    "_inc/shared.rst": "Shared part\n^^^^^^^^^^^\n\nShared words.\n",
    "usage/index.rst": "Usage\n=====\n\n.. toctree::\n\n   deep\n",
    "usage/deep.md": "# Deep page\n\nDeep text.\n\n## Part two\n\nMore.\n",
    "notes.rst": b"Notes\r\n=====\r\n\r\nWindows lines.\r\n",
    "orphan.rst": ":orphan:\n\nOrphan\n======\n\nNobody links here.\n",
}


def _build(tmp_path: Path, name: str, *args: str, conf: str = "", builder: str = "html") -> Path:
    src = write_project(tmp_path / f"src-{name}", FILES, conf='project = "Widget Docs"\n' + conf)
    out = tmp_path / f"out-{name}"
    sphinx_build(src, out, "-d", str(tmp_path / f"doctrees-{name}"), *args, builder=builder)
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("llms")
    return _build(tmp, "serial"), _build(tmp, "parallel", "-j", "2")


def test_llms_txt_layout(built):
    text = (built[0] / "llms.txt").read_text(encoding="utf-8")
    lines = text.split("\n")
    assert lines[0] == "# Widget Docs" and lines[2] == "> Widgets turn levers into answers, quickly."
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert "## Start here" in lines and "## Docs" in lines and "## Optional" in lines
    links = re.findall(r"^- \[(.*?)\]\((.*?)\): (\S+)$", text, re.M)
    assert [(t, u) for t, u, _ in links] == [
        ("Install \\[beta\\]", "install.html"), ("Usage", "usage/index.html"), ("Deep page", "usage/deep.html"),
        ("Notes", "notes.html"), ("Orphan", "orphan.html"),
    ]
    # grouped by the root toctree: the captioned one first, then the uncaptioned, then the unreachable
    assert lines.index("## Start here") < lines.index("## Docs") < lines.index("## Optional")
    index = open_index(built[0])
    for _, _, locator in links:  # every page locator reads back with read_lines
        path, start, end = re.match(r"(.*)#L(\d+)-L(\d+)$", locator).groups()
        assert index.read_lines(path, [int(start), int(end)])["locator"] == locator


def test_llms_full_txt_has_every_section_verifiable(built):
    data = (built[0] / "llms-full.txt").read_bytes()
    index = open_index(built[0])
    files = {f["path"]: f["sha256"] for f in index.files()}
    pages = re.findall(rb"^<!-- okf:page concept=(\S+) source=(\S+) sha256=([0-9a-f]{64}) url=(\S*) -->$", data, re.M)
    assert {p[0].decode() for p in pages} == {c[0] for c in index.concepts()}
    for _, source, sha, _ in pages:
        assert files[source.decode()] == sha.decode()
    seen = 0
    for m in re.finditer(rb"^<!-- okf:section locator=(\S+) sha256=([0-9a-f]{64}) bytes=(\d+) -->\n", data, re.M):
        body = data[m.end(): m.end() + int(m.group(3))]
        assert hashlib.sha256(body).hexdigest() == m.group(2).decode()
        section = index.get_section(locator=m.group(1).decode(), include_subsections=False)
        assert section["content"].encode("utf-8") == body  # the exact captured text
        seen += 1
    assert seen == sum(len(index.page(c[2])["sections"]) for c in index.concepts())
    assert b"Notes\r\n=====\r\n\r\nWindows lines." in data  # CRLF kept as captured
    assert b"Shared words." in data  # included files come with their page


def test_serial_and_parallel_builds_write_the_same_bytes(built):
    serial, parallel = built
    for name in ("llms.txt", "llms-full.txt"):
        assert (serial / name).read_bytes() == (parallel / name).read_bytes(), name
    assert not list(serial.glob(".llms*"))  # no temporary file left behind


def test_config_summary_baseurl_and_off_switch(tmp_path):
    out = _build(tmp_path, "conf", conf='okf_llms_summary = "A  custom\\nsummary."\n'
                 'html_baseurl = "https://docs.example.org/widgets/"\n')
    text = (out / "llms.txt").read_text(encoding="utf-8")
    assert "> A custom summary.\n" in text
    assert "- [Usage](https://docs.example.org/widgets/usage/index.html): usage/index.rst#L1-L6" in text
    off = _build(tmp_path, "off", conf="okf_llms_txt = False\n")
    assert not (off / "llms.txt").exists() and not (off / "llms-full.txt").exists()
    assert (off / "_okf" / "manifest.js").exists()
    text_builder = _build(tmp_path, "text", builder="text")
    assert not (text_builder / "llms.txt").exists()
    dirhtml = _build(tmp_path, "dirhtml", builder="dirhtml")
    assert "- [Deep page](usage/deep/)" in (dirhtml / "llms.txt").read_text(encoding="utf-8")
    single = (_build(tmp_path, "single", builder="singlehtml") / "llms.txt").read_text(encoding="utf-8")
    assert "- [Deep page](index.html#deep-page)" in single  # one page: each link has its anchor
    assert "(orphan" not in single and "[Orphan]" not in single  # not rendered on the single page
