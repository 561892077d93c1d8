"""A missing, foreign, corrupt or linked index gets a named error, never a traceback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import okf_sphinx
from okf_sphinx import OkfError
from support.build import index_value, rewrite_index_value, same_build
from okf_sphinx.core.index_format import FORMAT_VERSION, decode_ints, encode_ints, unwrap
from support.cli import code_of


@pytest.fixture
def site(example_html: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "site"
    shutil.copytree(example_html, dest, ignore=shutil.ignore_patterns(".doctrees"))
    return dest


def search(site: Path, q: str = "retry policy") -> dict:
    return okf_sphinx.open_index(site).search(q)


def test_missing_and_foreign_locations(tmp_path: Path, site: Path) -> None:
    assert code_of(lambda: okf_sphinx.open_index(tmp_path / "nope")) == "index_not_found"
    (tmp_path / "empty").mkdir()
    assert code_of(lambda: okf_sphinx.open_index(tmp_path / "empty")) == "index_not_found"
    assert code_of(lambda: okf_sphinx.open_index("ftp://example.invalid/x")) == "schema_validation"
    assert okf_sphinx.open_index(site / "_okf").search("retry")["total"] > 0  # the index folder itself works


def test_truncated_manifest(site: Path) -> None:
    m = site / "_okf" / "manifest.js"
    m.write_bytes(m.read_bytes()[:40])
    assert code_of(lambda: search(site)) == "index_corrupt"


def test_section_file_counts_must_add_up(site: Path) -> None:
    m = site / "_okf" / "manifest.js"
    value = unwrap("manifest", m.read_bytes())
    counts = decode_ints(value["section_files"])
    assert counts and encode_ints(counts) == value["section_files"]
    for bad in ([*counts, 1], [counts[0] + 1, *counts[1:]], [0, *counts]):
        value["section_files"] = encode_ints(bad)
        m.write_bytes(same_build("manifest", value, m))
        assert code_of(lambda: search(site)) == "index_corrupt", bad
    # not an integer list: a JSON list (format 3's form), a foreign digit, a cut or padded integer
    written = value["section_files"] = encode_ints(counts)
    for bad in (counts, "1", written + "g", written + "=", "gA" + written, None):
        value["section_files"] = bad
        m.write_bytes(same_build("manifest", value, m))
        assert code_of(lambda: search(site)) == "index_corrupt", bad


def test_foreign_version(site: Path) -> None:
    m = site / "_okf" / "manifest.js"
    value = unwrap("manifest", m.read_bytes())
    for old in (1, 2, 3, 4, 5, 6, 7, 9):  # 1 (a file per section), 2 (word forms apart), 3 (JSON posting numbers), 4 (no build),
        # 5 (captured files written out beside their sections' texts), 6 (idf floats, postings by the whole key, no bundles),
        # 7 (no shard_depths: a reader of 8 would look for a deep start's stems in other shards), a future one
        value["format_version"] = old
        m.write_bytes(same_build("manifest", value, m))
        assert code_of(lambda: search(site)) == "index_version_unsupported"
        with pytest.raises(OkfError) as err:
            search(site)
        assert "rebuild the site" in err.value.message and err.value.details["supported"] == [FORMAT_VERSION]
    value["format"] = "something-else"
    m.write_bytes(same_build("manifest", value, m))
    assert code_of(lambda: search(site)) == "index_corrupt"


def _shard(site: Path, term: str) -> Path:
    index = okf_sphinx.open_index(site)
    return site / "_okf" / f"{index.shard_of(term)}.js"


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b.replace(b"okfLoad(", b"evil("),  # wrapper
        lambda b: b"\xff\xfe" + b,  # not UTF-8
        lambda b: b.replace(b'"t/', b'"s/', 1),  # wrong name
        lambda b: b.replace(b"],", b"]],", 1),  # invalid JSON
    ],
)
def test_damaged_shard(site: Path, damage) -> None:  # type: ignore[no-untyped-def]
    shard = _shard(site, "retry")
    shard.write_bytes(damage(shard.read_bytes()))
    assert code_of(lambda: search(site, "retry")) == "index_corrupt"


def test_tampered_values(site: Path) -> None:
    shard = _shard(site, "retry")
    name = shard.relative_to(site / "_okf").as_posix()[:-3]
    value = unwrap(name, shard.read_bytes())
    for bad in (["x", 1, [0, 1, 1]], [1.0, 2, [0, 1, 1]], [1.0, 1, [999999, 1, 1]], [1.0, 1, "../../etc/passwd"], [1.0, 1, [0, True, 1]]):
        value["terms"]["retry"] = bad
        shard.write_bytes(same_build(name, value, shard))
        assert code_of(lambda: search(site, "retry")) == "index_corrupt", bad


def test_tampered_section_and_files(site: Path) -> None:
    index = okf_sphinx.open_index(site)
    sid = 0
    s = site / "_okf" / "s" / "0.js"
    original = s.read_bytes()
    for damage in (
        lambda v: v["sections"][0].__setitem__(4, "1"),  # line_start not an integer
        lambda v: v["sections"][0].__setitem__(0, len(v["pages"])),  # page past the file's page table
        lambda v: v["sections"].pop(),  # fewer rows than the manifest's section_files say
        lambda v: v.__setitem__("first", 1),  # not the first sid the manifest names
        lambda v: v["files"][0].__setitem__(1, "0" * 63),  # not a SHA-256
        lambda v: v["sections"][0].append({"kind": 3}),  # object fields of the wrong type
    ):
        value = unwrap("s/0", original)
        damage(value)
        s.write_bytes(same_build("s/0", value, s))
        assert code_of(lambda: okf_sphinx.open_index(site).section(sid)) == "index_corrupt"
    s.write_bytes(original)
    assert okf_sphinx.open_index(site).section(sid)["sid"] == sid
    files = site / "_okf" / "files.js"
    entries = unwrap("files", files.read_bytes())
    entries[0]["size"] += 1
    files.write_bytes(same_build("files", entries, files))
    assert code_of(lambda: okf_sphinx.open_index(site).files()) == "index_corrupt"
    assert index.snapshot_revision


def test_tampered_captured_file_fails_its_sha256(site: Path) -> None:
    entries = okf_sphinx.open_index(site).files()
    n = next(i for i, e in enumerate(entries) if "copy" not in e)  # a file held in the index (f/<pack>)
    k = entries[n]["pack"]
    okf = site / "_okf"
    saved = {p: p.read_bytes() for p in okf.rglob("*.js")}
    value = index_value(okf, f"f/{k}")
    record = next(r for r in value["files"] if r["path"] == entries[n]["path"])
    if "parts" in record:  # format 6: the file's text named by its sections' sids, the rest written out
        record["parts"] = [*record["parts"], "x"]
    else:
        record["text"] = record["text"] + "x"
    rewrite_index_value(okf, f"f/{k}", lambda _v: value)
    assert code_of(lambda: okf_sphinx.open_index(site).file_bytes(n)) == "index_corrupt"
    # a pack that lacks the file, is empty, or is not a pack
    value["files"].remove(record)
    for bad in (value, {"files": []}, {"files": [{"text": "x"}]}, [record]):
        rewrite_index_value(okf, f"f/{k}", lambda _v: bad)
        assert code_of(lambda: okf_sphinx.open_index(site).file_bytes(n)) == "index_corrupt", bad
    for p, data in saved.items():
        p.write_bytes(data)
    # a files.js entry without a pack (and without a copy), or with a bad one
    files = site / "_okf" / "files.js"
    listed = unwrap("files", files.read_bytes())
    for bad in (None, -1, "0", True):
        listed[n]["pack"] = bad
        if bad is None:
            del listed[n]["pack"]
        files.write_bytes(same_build("files", listed, files))
        assert code_of(lambda: okf_sphinx.open_index(site).file_bytes(n)) == "index_corrupt", bad


def test_tampered_source_copy_fails_its_sha256(site: Path) -> None:
    """A captured file served from the site's ``_sources/`` copy is checked like ``f/<n>``."""
    index = okf_sphinx.open_index(site)
    n, entry = next((i, e) for i, e in enumerate(index.files()) if "copy" in e)
    assert index.file_bytes(n) == (site / "_okf" / entry["copy"]).read_bytes()
    assert "pack" not in entry
    copy = site / "_okf" / entry["copy"]
    copy.write_bytes(copy.read_bytes() + b"x")
    assert code_of(lambda: okf_sphinx.open_index(site).file_bytes(n)) == "index_corrupt"
    copy.unlink()
    assert code_of(lambda: okf_sphinx.open_index(site).file_bytes(n)) == "index_corrupt"


def test_a_copy_path_outside_the_sources_is_refused(site: Path) -> None:
    files = site / "_okf" / "files.js"
    entries = unwrap("files", files.read_bytes())
    n = next(i for i, e in enumerate(entries) if "copy" in e)
    for bad in ("../../etc/passwd", "../_sources/../conf.py", "_sources/x.txt", "../_static/x.txt"):
        entries[n]["copy"] = bad
        files.write_bytes(same_build("files", entries, files))
        assert code_of(lambda: okf_sphinx.open_index(site).file_bytes(n)) == "index_corrupt", bad


def test_missing_shard_file(site: Path) -> None:
    _shard(site, "retry").unlink()
    assert code_of(lambda: search(site, "retry")) == "index_corrupt"


def test_symlinks_are_never_followed(site: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    os.symlink(site, link)
    assert code_of(lambda: okf_sphinx.open_index(link)) == "index_not_found"
    # a link inside the tree counts as absent
    shard = _shard(site, "retry")
    outside = tmp_path / "outside.js"
    shutil.move(shard, outside)
    os.symlink(outside, shard)
    assert code_of(lambda: search(site, "retry")) == "index_corrupt"
    # a linked index folder
    real = site / "_okf"
    moved = tmp_path / "real_okf"
    shutil.move(real, moved)
    os.symlink(moved, real)
    assert code_of(lambda: okf_sphinx.open_index(site)) == "index_not_found"
