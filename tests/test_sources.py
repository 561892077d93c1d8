"""Sources as their authors wrote them: another encoding, headings next to underlines and
front matter, a file included by two pages, file names with reserved characters, and
composed and decomposed letters — captured with exact bytes and ranges."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import okf_sphinx
from support.build import sphinx_build, write_project
from okf_sphinx import OkfError

from support.cli import code_of, envelope_of, okf


LATIN1 = "Café title\n==========\n\nLe café est chaud, naïve zeta.\n\nSecond\n------\n\nÀ bientôt zeta\n"


def test_latin1_project_builds_searches_and_reads_exact_bytes(tmp_path: Path) -> None:
    data = LATIN1.encode("latin-1")
    assert b"\xe9" in data
    src = write_project(tmp_path / "src", {"index.rst": data}, conf='source_encoding = "latin-1"\n')
    out = tmp_path / "out"
    sphinx_build(src, out)
    index = okf_sphinx.open_index(out)
    assert index.search("café")["total"] == 2  # the page title's terms count in every section
    result = index.search("chaud naïve")
    assert [(h["heading"], h["line_start"], h["line_end"]) for h in result["hits"]] == [("Café title", 1, 5)]
    assert "Le café est chaud, naïve zeta." in result["hits"][0]["snippet"]
    assert index.search("bientôt")["hits"][0]["heading"] == "Second"
    assert index.file_bytes(0) == data  # the captured bytes stay exact
    assert index.files()[0]["sha256"] == hashlib.sha256(data).hexdigest()
    section = index.get_section(locator="index.rst#L6-L9")
    assert section["content"] == "Second\n------\n\nÀ bientôt zeta"
    lines = index.read_lines("index.rst", [1, 4])
    assert lines["content"] == "Café title\n==========\n\nLe café est chaud, naïve zeta."
    # and from a shell
    proc = okf("lines", str(out), "index.rst", "9", "9")
    assert proc.returncode == 0 and proc.stdout == "À bientôt zeta\n"


def test_rst_underline_directly_above_a_title_is_not_its_overline(tmp_path: Path) -> None:
    text = (
        "Top\n===\n\nintro zeta\n\n"       # 1-5
        "Sec AA\n------\nSec BB\n------\n"  # 6-9: no blank line between the two titles
        "\nbody of bb zeta\n\n"             # 10-12
        "======\nOver C\n======\n\n"        # 13-16: an overline title after a blank line
        "body c zeta\n\n"                    # 17-18
        "======\nOver D\n======\n"           # 19-21
        "******\nDeep E\n******\n"           # 22-24: an overline title right under another one
        "\ne zeta\n"                         # 25-26
    )
    src = write_project(tmp_path / "src", {"index.rst": text, "other.rst": "Sec AA\n------\nTitle B\n-------\n\nb zeta\n"},
                        conf="okf_search_exclude = []\n")
    sphinx_build(src, tmp_path / "out", "-E")
    index = okf_sphinx.open_index(tmp_path / "out")
    pages = {c[0]: index.page(c[2]) for c in index.concepts()}
    got = [(s["heading"], s["line_start"], s["line_end"]) for s in pages["index"]["sections"]]
    assert got == [("Top", 1, 5), ("Sec AA", 6, 7), ("Sec BB", 8, 12), ("Over C", 13, 18), ("Over D", 19, 21),
                   ("Deep E", 22, 26)]
    got = [(s["heading"], s["line_start"], s["line_end"]) for s in pages["other"]["sections"]]
    assert got == [("Sec AA", 1, 2), ("Title B", 3, 6)]
    lines = index.read_lines("index.rst", [8, 8])["content"]
    assert lines == "Sec BB"


def test_body_line_under_a_front_matter_title_is_not_a_heading(tmp_path: Path) -> None:
    md = "---\ntitle: From front matter\n---\n\nIntro text.\n\n## `Second` *part*\n\nbody\n"
    src = write_project(tmp_path / "src", {"index.rst": ".. toctree::\n\n   a\n", "a.md": md},
                        conf="myst_title_to_header = True\n")
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    with pytest.raises(OkfError) as err:
        index.get_section(concept_id="a", heading="Intro text.")
    assert err.value.code == "section_not_found"
    assert index.get_section(concept_id="a", heading="from  FRONT matter")["line_start"] == 4
    # the hit's heading and its source-markup form both still match
    assert index.get_section(concept_id="a", heading="Second part")["line_start"] == 7
    assert index.get_section(concept_id="a", heading="`Second` *part*")["line_start"] == 7
    proc = okf("section", str(tmp_path / "out"), "--concept", "a", "--heading", "Intro text.", "--json")
    assert proc.returncode == 15 and envelope_of(proc)["code"] == "section_not_found"


def test_locator_of_a_file_included_by_two_pages_needs_its_concept_id(tmp_path: Path) -> None:
    files = {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   a\n   b\n",
        "a.rst": "Page A\n======\n\n.. include:: _inc/shared.rst\n",
        "b.rst": "Page B\n======\n\nIntro of b.\n\n.. include:: _inc/shared.rst\n",
        "_inc/shared.rst": "Shared part\n-----------\n\nkiwi fruit\n",
    }
    src = write_project(tmp_path / "src", files)
    out = tmp_path / "out"
    sphinx_build(src, out)
    index = okf_sphinx.open_index(out)
    hits = index.search("kiwi")["hits"]
    assert [(h["concept_id"], h["locator"]) for h in hits] == [("a", "_inc/shared.rst#L1-L4"), ("b", "_inc/shared.rst#L1-L4")]
    with pytest.raises(OkfError) as err:
        index.get_section(locator="_inc/shared.rst#L1-L4")
    assert err.value.code == "ambiguous_section"
    assert err.value.details["candidates"] == [
        {"concept_id": "a", "heading": "Shared part", "locator": "_inc/shared.rst#L1-L4"},
        {"concept_id": "b", "heading": "Shared part", "locator": "_inc/shared.rst#L1-L4"},
    ]
    for cid, title in (("a", "Page A"), ("b", "Page B")):
        answer = index.get_section(locator="_inc/shared.rst#L1-L4", concept_id=cid)
        assert (answer["concept_id"], answer["title"], answer["breadcrumb"]) == (cid, title, [title])
    assert code_of(lambda: index.get_section(locator="_inc/shared.rst#L1-L4", concept_id="index")) == "section_not_found"
    assert code_of(lambda: index.get_section(locator="_inc/shared.rst#L1-L4", concept_id="nope")) == "not_found"
    assert code_of(lambda: index.get_section(locator="_inc/shared.rst#L1-L4", heading="Shared part")) == "schema_validation"
    # a file of one page needs no concept_id, and a right one is accepted
    assert index.get_section(locator="b.rst#L1-L6")["concept_id"] == "b"
    assert index.get_section(locator="b.rst#L1-L6", concept_id="b")["heading"] == "Page B"
    # the CLI: --concept beside the locator; the envelope lists the candidates
    proc = okf("section", str(out), "_inc/shared.rst#L1-L4", "--json")
    assert proc.returncode == 14
    assert [c["concept_id"] for c in envelope_of(proc)["candidates"]] == ["a", "b"]
    proc = okf("section", str(out), "_inc/shared.rst#L1-L4", "--concept", "b", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["concept_id"] == "b"


def test_get_section_schema_documents_concept_id_beside_locator() -> None:
    schema = json.loads((Path(okf_sphinx.__file__).parent / "contracts" / "get_section.input.json").read_text(encoding="utf-8"))
    assert "locator" in schema["properties"]["concept_id"]["description"]
    assert "concept_id" in schema["properties"]["locator"]["description"]
    error = json.loads((Path(okf_sphinx.__file__).parent / "contracts" / "error.json").read_text(encoding="utf-8"))
    assert "concept_id" in error["$defs"]["ref"]["properties"]


ODD_NAMES = {"a$&+,:;=@b.rst": "Odd one\n=======\n\nyak\n", "x<y>&z\u2028w.rst": "Odd two\n=======\n\nyak two\n"}


@pytest.fixture(scope="module")
def odd_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("odd")
    src = write_project(root / "src", {"index.rst": "Home\n====\n\n.. toctree::\n   :glob:\n\n   *\n", **ODD_NAMES})
    sphinx_build(src, root / "out")
    return root / "out"


def test_locator_keeps_the_rfc3986_sub_delims_and_escapes_the_rest(odd_site: Path) -> None:
    hits = okf_sphinx.open_index(odd_site).search("yak")["hits"]
    assert [(h["path"], h["locator"]) for h in hits] == [
        ("a$&+,:;=@b.rst", "a$&+,:;=@b.rst#L1-L4"),
        ("x<y>&z\u2028w.rst", "x%3Cy%3E&z%E2%80%A8w.rst#L1-L4"),
    ]
    index = okf_sphinx.open_index(odd_site)
    assert index.get_section(locator="a$&+,:;=@b.rst#L1-L4")["heading"] == "Odd one"
    assert index.get_section(locator="x%3Cy%3E&z%E2%80%A8w.rst#L1-L4")["heading"] == "Odd two"


def test_snapshot_revision_escapes_html_unsafe_characters_as_the_contract_says(odd_site: Path) -> None:
    index = okf_sphinx.open_index(odd_site)
    src = odd_site.parent / "src"
    entries = []
    for path in sorted(["a$&+,:;=@b.rst", "index.rst", "x<y>&z\u2028w.rst"]):
        data = (src / path).read_bytes()
        entries.append({"path": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    # snapshot_revision (the SHA-256 of the sorted file list as canonical JSON), written out independently of okf_sphinx.core.index_format
    payload = json.dumps(entries, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        payload = payload.replace(ch, esc)
    assert "\\u003c" in payload and "\\u0026" in payload and "\\u2028" in payload
    assert index.snapshot_revision == hashlib.sha256(payload.encode("utf-8")).hexdigest()
    # the U+2029 rule, on the pure function (no file system gives it a name Sphinx reads back)
    from okf_sphinx.core.index_format import snapshot_revision

    e = [{"path": "p\u2029q", "size": 1, "sha256": "0" * 64}]
    assert snapshot_revision(e) == hashlib.sha256(
        ('[{"path":"p\\u2029q","size":1,"sha256":"' + "0" * 64 + '"}]').encode("utf-8")).hexdigest()


def test_search_concepts_matches_composed_and_decomposed_forms(tmp_path: Path) -> None:
    files = {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   a\n   b\n",
        "a.rst": "Caf\u00e9 cr\u00e8me\n==========\n\nx\n",        # precomposed title
        "b.rst": "Cafe\u0301 noir\n===========\n\ny\n",          # decomposed title
    }
    src = write_project(tmp_path / "src", files)
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    for query in ("Cafe\u0301", "Caf\u00e9", "CAF\u00c9", "CAFE\u0301"):
        got = [c["concept_id"] for c in index.search_concepts(query)["concepts"]]
        assert got == ["a", "b"], (query, got)
    assert [c["concept_id"] for c in index.search_concepts("cre\u0300me")["concepts"]] == ["a"]
