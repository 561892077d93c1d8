"""llms.txt / llms-full.txt written by real Sphinx and MkDocs builds."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.build import sphinx_build, write_project
from support.mkdocs_sites import build_env, built_example, copy_example, mkdocs_build, write_mkdocs_project

from okf_sphinx import open_index
from okf_sphinx.core.guide import LLMS_TOOLS

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
    assert lines[4] == LLMS_TOOLS
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


def test_the_commands_llms_txt_names_answer_on_the_site(built) -> None:
    """The paragraph's commands, run as written on this site: a smart search, the first hit read
    alone by its locator (the same bytes as get_section), and an object lookup that refuses clearly."""
    commands = re.findall(r"`(okf [^`]+)`", LLMS_TOOLS)
    assert [c.split()[1] for c in commands] == ["search", "section", "object", "mcp"]
    site = str(built[0])

    def run(command: str, **words: str) -> subprocess.CompletedProcess[str]:
        argv = command.split()[1:]
        argv = [site if a == "SITE" else words.get(a, a) for a in argv]
        return subprocess.run([sys.executable, "-m", "okf_sphinx", *argv, "--json"], capture_output=True, text=True,
                              timeout=120)

    found = run(commands[0], WORDS="pip")
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert answer["mode"] == "smart" and 1 <= len(answer["pages"]) <= 3
    hit = answer["pages"][0]["hits"][0]
    read = run(commands[1], LOCATOR=hit["locator"])
    assert read.returncode == 0, read.stderr
    section = json.loads(read.stdout)
    assert section["locator"] == hit["locator"] and section["content_sha256"] == hit["content_sha256"]
    assert section == open_index(built[0]).get_section(locator=hit["locator"], include_subsections=False)
    missing = run(commands[2], NAME="Widget")  # a site without API objects: a named refusal, no traceback
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    assert json.loads(missing.stdout)["error"]["code"] == "section_not_found"


# -- MkDocs sites get the same agent files -------------------------------------------------------


def _okf(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "okf_sphinx", *args], capture_output=True, timeout=120, env=build_env())
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _reads_back(site: Path) -> None:
    """Every locator of llms.txt and llms-full.txt reads back through the okf command: a page's
    lines with its file's SHA-256, a section's lines byte for byte with the section's own."""
    short = (site / "llms.txt").read_text(encoding="utf-8")
    full = (site / "llms-full.txt").read_bytes()
    index = open_index(site)
    pages = {m[0].decode(): (m[1].decode(), m[2].decode()) for m in re.findall(
        rb"^<!-- okf:page concept=(\S+) source=(\S+) sha256=([0-9a-f]{64}) url=\S* -->$", full, re.M)}
    assert set(pages) == {c[0] for c in index.concepts()}
    source_sha = dict(pages.values())
    links = re.findall(r"^- \[.*?\]\(.*?\): (\S+)$", short, re.M)
    assert links
    for locator in links:  # `okf lines` of each page's locator, with the file's SHA-256 of llms-full.txt
        path, start, end = re.fullmatch(r"(.*)#L(\d+)-L(\d+)", locator).groups()
        answer = _okf("lines", str(site), path, start, end, "--json")
        assert answer["locator"] == locator and answer["content_sha256"] == source_sha[path]
    sections = [(m.group(1).decode(), m.group(2).decode(), full[m.end(): m.end() + int(m.group(3))]) for m in re.finditer(
        rb"^<!-- okf:section locator=(\S+) sha256=([0-9a-f]{64}) bytes=(\d+) -->\n", full, re.M)]
    assert len(sections) == sum(len(index.page(c[2])["sections"]) for c in index.concepts())
    requests = []
    for locator, sha, body in sections:
        assert hashlib.sha256(body).hexdigest() == sha
        path, start, end = re.fullmatch(r"(.*)#L(\d+)-L(\d+)", locator).groups()
        requests.append({"tool": "read_lines", "arguments": {"path": path, "lines": [int(start), int(end)]}})
    answers = []
    for k in range(0, len(requests), 20):  # `okf batch`: the read_lines tool, 20 reads a call
        batch = site.parent / f"batch-{k}.json"
        batch.write_text(json.dumps({"items": requests[k: k + 20]}), encoding="utf-8")
        answer = _okf("batch", str(site), str(batch))
        assert "unread" not in answer
        answers += answer["items"]
    for (locator, _sha, body), answer in zip(sections, answers, strict=True):
        assert answer["locator"] == locator and body == _range_text(answer), locator


def _range_text(answer: dict) -> bytes:
    """A read_lines answer's lines as the contract's range text: without a byte-order mark
    (it belongs to no line; read_lines gives the bytes) and without the line break that ends
    the last line (read_lines leaves out the LF but keeps a CR before it, and at the end of
    the file keeps the file's final break too)."""
    lines = answer["content"].encode("utf-8")
    if answer["range"]["start"] == 1 and lines.startswith("\ufeff".encode()):
        lines = lines[3:]
    at_end = answer["range"]["end"] == answer["range"]["total_lines"]
    if at_end and not lines.endswith(b"\n"):
        return lines  # the file's last line has no break
    lines = lines[:-1] if at_end else lines
    return lines[:-1] if lines.endswith(b"\r") else lines


@pytest.fixture(scope="module")
def mkdocs_example(tmp_path_factory) -> Path:
    return built_example(tmp_path_factory.mktemp("llms-mkdocs"))


def test_a_mkdocs_site_gets_llms_txt_whose_every_locator_reads_back(mkdocs_example: Path, tmp_path: Path) -> None:
    short = (mkdocs_example / "llms.txt").read_text(encoding="utf-8")
    # no site_description: no summary line; the tools' paragraph, then the nav
    assert short.startswith(f"# okf MkDocs example\n\n{LLMS_TOOLS}\n\n## Docs\n\n- [")
    assert "- [Retry policy](retry/): docs/retry.md#L1-L" in short  # the nav's pages, in its order
    assert "okf:section locator=docs/line-endings.md#L" in (mkdocs_example / "llms-full.txt").read_text(encoding="utf-8")
    _reads_back(mkdocs_example)
    # deterministic: another copy of the sources, elsewhere, and a --dirty build of it give the same bytes
    project = copy_example(tmp_path / "elsewhere")
    mkdocs_build(project, tmp_path / "site")
    mkdocs_build(project, tmp_path / "site", "--dirty")
    for name in ("llms.txt", "llms-full.txt"):
        assert (tmp_path / "site" / name).read_bytes() == (mkdocs_example / name).read_bytes(), name
    assert not list((tmp_path / "site").glob(".llms*"))  # no temporary file left behind


NAV_SITE = {
    "index.md": "# Home\n\nWelcome.\n",
    "about.md": "# About\n\nWho.\n",
    "guide/start.md": "# Start here\n\nFirst steps.\n\n## Then\n\nMore.\n",
    "guide/deep/inner.md": "# Inner\n\nDeep.\n",
    "extra.md": "# Extra\n\nIn no nav.\n",
}
NAV = ("nav:\n  - index.md\n  - Guide:\n    - guide/start.md\n    - Deeper:\n      - guide/deep/inner.md\n"
       "  - about.md\n  - Elsewhere: https://example.org/\nnot_in_nav: extra.md\n")


def test_a_mkdocs_nav_groups_llms_txt_and_the_options_apply(tmp_path: Path) -> None:
    project = write_mkdocs_project(tmp_path / "p", NAV_SITE, "site_description: \"A  site\\nthat helps.\"\n" + NAV)
    mkdocs_build(project, tmp_path / "site")
    short = (tmp_path / "site" / "llms.txt").read_text(encoding="utf-8")
    assert short == (
        f"# test\n\n> A site that helps.\n\n{LLMS_TOOLS}\n\n"
        "## Docs\n\n- [About](about/): about.md#L1-L3\n\n"
        "## Guide\n\n- [Start here](guide/start/): guide/start.md#L1-L7\n- [Inner](guide/deep/inner/): guide/deep/inner.md#L1-L3\n\n"
        "## Optional\n\n- [Extra](extra/): extra.md#L1-L3\n"
    )
    full = (tmp_path / "site" / "llms-full.txt").read_text(encoding="utf-8")
    assert full.index("## Home") < full.index("## About") < full.index("## Start here") < full.index("## Extra")
    _reads_back(tmp_path / "site")
    config = "site_url: https://docs.example.org/w/\n" + NAV + (
        "plugins:\n  - search\n  - okf:\n      llms_summary: Our  own\n")
    mkdocs_build(write_mkdocs_project(tmp_path / "q", NAV_SITE, config), tmp_path / "site2")
    short = (tmp_path / "site2" / "llms.txt").read_text(encoding="utf-8")
    assert "> Our own\n" in short and "- [About](https://docs.example.org/w/about/): about.md#L1-L3" in short
    off = write_mkdocs_project(tmp_path / "r", NAV_SITE, "plugins:\n  - search\n  - okf:\n      llms_txt: false\n")
    mkdocs_build(off, tmp_path / "site3")
    assert not (tmp_path / "site3" / "llms.txt").exists() and not (tmp_path / "site3" / "llms-full.txt").exists()
    assert (tmp_path / "site3" / "_okf" / "manifest.js").is_file()
