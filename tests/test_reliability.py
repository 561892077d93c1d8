"""Issue 14: data loss, crashes, tracebacks and wrong ranges — each on a real build.

Every test here failed before its fix (see the issue's closing note for which).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import okf_sphinx
from support.build import EXAMPLE, sphinx_build, write_project
from okf_sphinx import OkfError
from okf_sphinx.core.hosts import SPHINX
from okf_sphinx.core.index_format import unwrap, wrap


def okf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "okf_sphinx", *args], capture_output=True, text=True, encoding="utf-8")


def envelope_of(proc: subprocess.CompletedProcess[str]) -> dict:
    """The CLI's --json refusal: stdout is exactly one line holding the envelope, nothing else."""
    assert proc.stdout.count("\n") == 1, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)["error"]


def code_of(fn) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(OkfError) as err:
        fn()
    return err.value.code


# -- 1. okf_search_output_dir never deletes outside the index's own folder -----------------------


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


# -- 2. source_encoding -------------------------------------------------------------------------

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


# -- 3. envelopes, never tracebacks ---------------------------------------------------------------


@pytest.fixture
def site(example_html: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "site"
    shutil.copytree(example_html, dest, ignore=shutil.ignore_patterns(".doctrees"))
    return dest


def test_locator_with_thousands_of_digits_is_invalid_line_range(example_html: Path) -> None:
    index = okf_sphinx.open_index(example_html)
    for locator in ("retry.md#L" + "9" * 5000, "retry.md#L1-L" + "1" * 5000, "retry.md#L" + "0" * 5000 + "1-L" + "9" * 17):
        assert code_of(lambda: index.get_section(locator=locator)) == "invalid_line_range"
    # leading zeros are still the same line number
    assert index.get_section(locator="retry.md#L0008-L014")["line_start"] == 8
    proc = okf("section", str(example_html), "retry.md#L" + "9" * 5000, "--json")
    assert proc.returncode == 12 and envelope_of(proc)["code"] == "invalid_line_range"


def _tamper_shard(site: Path, term: str, text_of) -> None:  # type: ignore[no-untyped-def]
    index = okf_sphinx.open_index(site)
    name = index.shard_of(term)
    path = site / "_okf" / f"{name}.js"
    value = unwrap(name, path.read_bytes())
    value["terms"][term][0] = 12345.5
    raw = path.read_bytes().decode("utf-8")
    marker = "12345.5"
    path.write_bytes(wrap(name, value).decode("utf-8").replace(marker, text_of).encode("utf-8"))
    assert raw != path.read_text(encoding="utf-8")


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1" + "0" * 400])
def test_non_finite_idf_is_index_corrupt_in_python_cli_and_node(site: Path, number: str) -> None:
    from support.node import run_node

    _tamper_shard(site, "retry", number)
    with pytest.raises(OkfError) as err:
        okf_sphinx.open_index(site).search("retry")
    assert err.value.code == "index_corrupt"
    proc = okf("search", str(site), "--query", "retry", "--json")
    assert proc.returncode == 5 and envelope_of(proc) == err.value.envelope["error"]
    js = run_node(site / "_okf", [{"query": "retry"}])[0]
    assert js == err.value.envelope, (js, err.value.envelope)


@pytest.mark.parametrize("number", ["1e999", "NaN"])
def test_non_finite_avglen_is_index_corrupt_in_python_and_node(site: Path, number: str) -> None:
    from support.node import run_node

    path = site / "_okf" / "manifest.js"
    value = unwrap("manifest", path.read_bytes())
    value["avglen"] = 12345.5
    path.write_bytes(wrap("manifest", value).replace(b"12345.5", number.encode()))
    with pytest.raises(OkfError) as err:
        okf_sphinx.open_index(site)
    assert err.value.code == "index_corrupt"
    assert run_node(site / "_okf", [{"query": "retry"}])[0] == err.value.envelope


@pytest.mark.parametrize("b64", ["abc", "!!!!", "QUJD\n", "QUJD===="])
def test_invalid_base64_in_a_captured_file_is_index_corrupt(site: Path, b64: str) -> None:
    index = okf_sphinx.open_index(site)
    n = next(i for i, e in enumerate(index.files()) if e["path"] == "retry.md")
    files = site / "_okf" / "files.js"
    entries = unwrap("files", files.read_bytes())
    if entries[n].pop("copy", None) is not None:  # served from _sources/: hold it in the index instead
        entries[n]["pack"] = 99
        files.write_bytes(wrap("files", entries))
        (site / "_okf" / "f").mkdir(exist_ok=True)
        (site / "_okf" / "f" / "99.js").write_bytes(wrap("f/99", {"files": [{"path": "retry.md", "text": index.file_bytes(n).decode()}]}))
        assert okf_sphinx.open_index(site).read_lines("retry.md", [1, 2])["status"] == "ok"
    k = entries[n]["pack"]
    path = site / "_okf" / "f" / f"{k}.js"
    pack = unwrap(f"f/{k}", path.read_bytes())
    value = next(r for r in pack["files"] if r["path"] == "retry.md")
    del value["text"]
    value["base64"] = b64
    path.write_bytes(wrap(f"f/{k}", pack))
    assert code_of(lambda: okf_sphinx.open_index(site).read_lines("retry.md", [1, 2])) == "index_corrupt"
    proc = okf("lines", str(site), "retry.md", "1", "2", "--json")
    assert proc.returncode == 5 and envelope_of(proc)["code"] == "index_corrupt"
    value["base64"] = "QUJD"
    value["encoding"] = "rot13"  # a codec, but not a text encoding
    path.write_bytes(wrap(f"f/{k}", pack))
    assert code_of(lambda: okf_sphinx.open_index(site).read_lines("retry.md", [1, 2])) == "index_corrupt"


@pytest.mark.parametrize("timeout", ["inf", "-inf", "1e300", "nan", "-1", "0", "3601", "1" + "0" * 400])
def test_timeout_must_be_finite_positive_and_bounded(example_html: Path, timeout: str) -> None:
    from okf_sphinx.agent.sites import open_site

    proc = okf("search", str(example_html), "--query", "retry", "--json", f"--timeout={timeout}")
    assert proc.returncode == 2
    err = envelope_of(proc)
    assert err["code"] == "schema_validation" and "--timeout" in err["message"] and "3600" in err["message"]
    assert code_of(lambda: open_site(str(example_html), float(timeout))) == "schema_validation"
    proc = okf("search", str(example_html), "--query", "retry", f"--timeout={timeout}")
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert okf("search", str(example_html), "--query", "retry", "--timeout=3600").returncode == 0


# -- 4. RST: an underline is not the next title's overline -----------------------------------------


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


# -- 5. get_section does not guess a heading from body text ----------------------------------------


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


# -- 6. a file included by two pages: locator + concept_id, or ambiguous_section --------------------


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


# -- 7. the path limit names the real limit -------------------------------------------------------


def test_too_deep_path_names_components_and_the_real_numbers(tmp_path: Path) -> None:
    deep = "/".join(["d"] * 65) + "/page.rst"
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\n.. toctree::\n\n   " + deep[:-4] + "\n", deep: "P\n=\n\nx\n"})
    proc = sphinx_build(src, tmp_path / "out", check=False)
    assert proc.returncode != 0
    assert "has 66 components" in proc.stderr and "at most 64" in proc.stderr, proc.stderr
    assert "okf_search_limits = {'path'" not in proc.stderr and "not an okf_search_limits key" in proc.stderr
    assert not (tmp_path / "out" / "_okf").exists()


def test_too_long_path_names_bytes_and_the_real_numbers() -> None:
    from okf_sphinx.core.errors import PathLimitError
    from okf_sphinx.writer.limits import check_path

    rel = "/".join(["é" * 100] * 21)  # 20 separators + 21 * 200 bytes = 4220 bytes, 21 components
    with pytest.raises(PathLimitError) as err:
        check_path(rel, SPHINX)
    assert "has 4220 bytes in UTF-8" in str(err.value) and "at most 4096" in str(err.value)
    check_path("/".join(["é" * 100] * 20), SPHINX)  # 4019 bytes: fine


# -- 8. tests that kill the issue's surviving mutations ------------------------------------------

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


def test_an_answer_over_one_mebibyte_is_resource_limit_in_python_and_node(tmp_path: Path) -> None:
    """100 hits whose path (12 folders of 200 '&', each six bytes as \\u0026) make a multi-megabyte answer."""
    from support.node import run_node

    folder = "/".join(["&" * 200] * 12)
    body = "".join(f"S{i}\n{'-' * len(f'S{i}')}\n\nwombat {i}\n\n" for i in range(100))
    src = write_project(tmp_path / "src", {"index.rst": f"Home\n====\n\n.. toctree::\n\n   {folder}/p\n",
                                           f"{folder}/p.rst": "P\n=\n\n" + body})
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    with pytest.raises(OkfError) as err:
        index.search("wombat", limit=100)
    assert err.value.code == "resource_limit"
    assert err.value.details["limit"] == 1 << 20 and err.value.details["actual"] > 1 << 20
    small = index.search("wombat", limit=10)  # 10 hits fit
    assert small["total"] == 100 and len(small["hits"]) == 10
    js = run_node(tmp_path / "out" / "_okf", [{"query": "wombat", "limit": 100}])[0]
    assert js == err.value.envelope
    proc = okf("search", str(tmp_path / "out"), "--query", "wombat", "--limit", "100", "--json")
    assert proc.returncode == 3 and envelope_of(proc) == err.value.envelope["error"]


NAV = {
    "index.rst": "Home\n====\n\nkudu\n\n.. toctree::\n\n   log\n   api/index\n   api/log\n   catalog\n   api/login\n",
    "log.md": "# Log\n\nkudu\n",
    "api/index.md": "# API\n\nkudu\n",
    "api/log.md": "# API log\n\nkudu\n",
    "catalog.md": "# Catalog\n\nkudu\n",
    "api/login.md": "# Login\n\nkudu\n",
}


def test_nothing_is_excluded_by_default(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", NAV)
    sphinx_build(src, tmp_path / "out")
    hits = okf_sphinx.open_index(tmp_path / "out").search("kudu", limit=100)["hits"]
    assert sorted(h["concept_id"] for h in hits) == ["api/index", "api/log", "api/login", "catalog", "index", "log"]


def test_the_seed_convention_excludes_nested_index_and_log_pages_exactly(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", NAV, conf='okf_search_exclude = ["index", "*/index", "log", "*/log"]\n')
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", str(src), str(tmp_path / "out")],
                          capture_output=True, text=True, check=True)
    index = okf_sphinx.open_index(tmp_path / "out")
    hits = index.search("kudu", limit=100)["hits"]
    assert sorted(h["concept_id"] for h in hits) == ["api/login", "catalog"]
    assert "4 pages excluded from search by okf_search_exclude" in proc.stdout
    # excluded pages are captured and readable
    assert index.get_section(concept_id="api/log", heading="API log")["content"] == "# API log\n\nkudu"


def test_example_site_follows_the_seed_convention_explicitly() -> None:
    conf = (EXAMPLE / "conf.py").read_text(encoding="utf-8")
    assert 'okf_search_exclude = ["index", "*/index", "log", "*/log"]' in conf


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


def test_exclude_patterns_match_the_whole_docname() -> None:
    from okf_sphinx.core.records import excluded

    seed = ["index", "*/index", "log", "*/log"]
    assert excluded("api/log", seed) and excluded("a/b/log", seed) and excluded("a/b/index", seed)
    assert not excluded("api/log", ["log"]) and not excluded("catalog", seed) and not excluded("api/login", seed)
    assert not excluded("index", [])
