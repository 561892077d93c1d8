"""Section splitting and line ranges, against hand-written expectations and focused builds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import myst_parser
import okf_sphinx
from okf_sphinx.capture.sphinx.myst_include import version_tuple
from support.build import EXAMPLE, sphinx_build, write_project

EXPECTED = json.loads((EXAMPLE / "expected_sections.json").read_text(encoding="utf-8"))


def outline(site: Path) -> dict[str, tuple]:
    index = okf_sphinx.open_index(site)
    pages = {}
    for concept_id, title, n, searchable, _paths in index.concepts():
        page = index.page(n)
        pages[concept_id] = (
            title, page["path"], searchable,
            [(s["path"], s["heading"], s["level"], s["line_start"], s["line_end"], s["anchor"]) for s in page["sections"]],
        )
    return pages


def expected_anchor(section: dict) -> str:
    """The rendered section id: MyST-Parser < 5.2 renders a labelled heading's slug first."""
    if "anchor_before_myst_5_2" in section and version_tuple(myst_parser.__version__) < (5, 2):
        return section["anchor_before_myst_5_2"]
    return section.get("url_anchor", section["anchor"]) or ""


@pytest.mark.parametrize("docname", sorted(EXPECTED["pages"]))
def test_example_site_sections_match_hand_written_expectations(example_html: Path, docname: str) -> None:
    page = EXPECTED["pages"][docname]
    expected = (
        page["title"], page["path"], page["searchable"],
        [(s["path"], s["heading"], s["level"], s["line_start"], s["line_end"], expected_anchor(s)) for s in page["sections"]],
    )
    assert outline(example_html)[docname] == expected


def test_example_site_captures_every_source_and_include(example_html: Path) -> None:
    index = okf_sphinx.open_index(example_html)
    assert [f["path"] for f in index.files()] == sorted(EXPECTED["captured_files"])
    assert sorted(outline(example_html)) == sorted(EXPECTED["pages"])


def test_reference_fixture_retry_policy_and_cache(example_html: Path) -> None:
    """The reference's own case: setext + CRLF + front matter + fenced pseudo-heading."""
    index = okf_sphinx.open_index(example_html)
    hits = index.search("retry policy", limit=100)["hits"]
    retry = [h for h in hits if h["concept_id"] == "retry"]
    assert [(h["heading"], h["line_start"], h["line_end"]) for h in retry] == [("Retry policy", 8, 14)]
    cache = index.search("Кэш")["hits"]
    assert [(h["concept_id"], h["heading"], h["line_start"]) for h in cache if h["concept_id"] == "retry"] == [("retry", "Кэш", 15)]
    # the fenced "# not a heading" line is body text of Retry policy, not a section
    assert "# not a heading" in retry[0]["snippet"]
    assert not [h for h in index.search("heading", limit=100)["hits"] if h["heading"] == "not a heading"]


def _lines(site: Path, docname: str) -> list[tuple[str, int, int]]:
    return [(s[1], s[3], s[4]) for s in outline(site)[docname][3]]


def test_lone_cr_and_line_separators_map_to_physical_lines(tmp_path: Path) -> None:
    rst = "Top\n===\n\nIntro with a lone\rCR and a\u2028line separator.\n\nNext\n----\n\nbody\r\nmore\n"
    md = "# Top\n\nText\rwith lone CR\n\n## Next\nbody\n"
    src = write_project(tmp_path / "src", {"index.rst": ".. toctree::\n\n   a\n   b\n", "a.rst": rst, "b.md": md})
    sphinx_build(src, tmp_path / "out")
    assert _lines(tmp_path / "out", "a") == [("Top", 1, 5), ("Next", 6, 10)]
    assert _lines(tmp_path / "out", "b") == [("Top", 1, 4), ("Next", 5, 6)]


def test_two_headings_on_one_physical_line_later_names_the_section(tmp_path: Path) -> None:
    # the lone CR makes "## B" a separate heading for the parser, on physical line 3
    md = "# A\n\n## B0\r## B\nbody\n"
    src = write_project(tmp_path / "src", {"index.rst": ".. toctree::\n\n   a\n", "a.md": md})
    sphinx_build(src, tmp_path / "out")
    assert _lines(tmp_path / "out", "a") == [("A", 1, 2), ("B", 3, 4)]


def test_rubrics_fences_and_comment_only_intros_make_no_sections(tmp_path: Path) -> None:
    md = "(top)=\n% a comment\n\n# Title\n\n> ## Quoted heading\n\n```\n# fenced\n```\n\n- ## list heading\n\n## Real\nx\n"
    rst = ".. _label:\n\n.. a comment\n   continued\n\nTitle\n=====\n\n.. note::\n\n   text\n"
    src = write_project(tmp_path / "src", {"index.rst": ".. toctree::\n\n   a\n   b\n", "a.md": md, "b.rst": rst})
    sphinx_build(src, tmp_path / "out")
    assert _lines(tmp_path / "out", "a") == [("Title", 4, 13), ("Real", 14, 15)]
    assert _lines(tmp_path / "out", "b") == [("Title", 6, 11)]


def test_page_without_title_has_empty_title_and_one_body_section(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", {"index.rst": ".. toctree::\n\n   a\n", "a.rst": ":orphan:\n\nJust text.\n"})
    sphinx_build(src, tmp_path / "out")
    title, _, _, sections = outline(tmp_path / "out")["a"]
    assert title == ""
    assert [(s[1], s[2], s[3], s[4]) for s in sections] == [("", 0, 2, 3)]


def test_overlong_heading_fails_the_build_naming_file_and_line(tmp_path: Path) -> None:
    long = "x" * 1025
    src = write_project(tmp_path / "src", {"index.rst": f"Title\n=====\n\n{long}\n{'-' * 1025}\n\ntext\n"})
    proc = sphinx_build(src, tmp_path / "out", check=False)
    assert proc.returncode != 0
    assert "index.rst:5" in proc.stderr and "1024" in proc.stderr
    assert not (tmp_path / "out" / "_okf").exists()


def test_only_directive_sections_link_to_a_rendered_anchor(example_html: Path) -> None:
    index = okf_sphinx.open_index(example_html)
    for sid in range(index.sections_all):
        s = index.section(sid)
        if not s["anchor"]:
            continue
        page = (example_html / s["url"].split("#")[0]).read_text(encoding="utf-8")
        assert f'id="{s["anchor"]}"' in page, s["locator"]


@pytest.mark.parametrize("builder", ["text", "json"])
def test_non_html_builders_write_no_index(tmp_path: Path, builder: str) -> None:
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\nx\n"})
    sphinx_build(src, tmp_path / "out", builder=builder)
    assert not (tmp_path / "out" / "_okf").exists()


def test_dirhtml_and_singlehtml_urls(example_dirhtml: Path, example_singlehtml: Path) -> None:
    d = okf_sphinx.open_index(example_dirhtml)
    s = okf_sphinx.open_index(example_singlehtml)
    hit_d = d.search("retry policy")["hits"][0]
    hit_s = s.search("retry policy")["hits"][0]
    assert hit_d == hit_s  # the contract answer does not depend on the builder
    urls_d = {d.section(i)["url"] for i in range(d.section_count)}
    urls_s = {s.section(i)["url"] for i in range(s.section_count)}
    assert "retry/#retry-policy" in urls_d
    assert all(u.startswith("index.html#") for u in urls_s - {""})
    # an id two documents share is ambiguous on the single page: those link to the document
    retry = [s.section(i) for i in range(s.section_count) if s.section(i)["heading"] == "Retry policy"]
    assert len(retry) >= 2 and all(r["url"] != "index.html#retry-policy" for r in retry)
    assert len({r["url"] for r in retry}) == len(retry)  # each lands on its own document
    # singlehtml renders only documents reachable from the root toctree: an orphan has no URL
    orphans = [s.section(i) for i in range(s.section_count) if s.section(i)["concept_id"] == "orphan_notes"]
    assert orphans and all(o["url"] == "" for o in orphans)


def test_myst_title_to_header_heading_starts_after_the_front_matter(tmp_path: Path) -> None:
    md = "---\ntitle: From front matter\n---\n\nIntro text.\n\n## Second\n\nbody\n"
    src = write_project(tmp_path / "src", {"index.rst": ".. toctree::\n\n   a\n", "a.md": md},
                        conf='myst_title_to_header = True\n')
    sphinx_build(src, tmp_path / "out")
    title, _, _, sections = outline(tmp_path / "out")["a"]
    assert title == "From front matter"
    assert [(s[1], s[2], s[3], s[4]) for s in sections] == [("From front matter", 1, 4, 6), ("Second", 2, 7, 9)]
