"""A damaged index or an out-of-range request is a named refusal on every surface (Python,
CLI, Node), never a traceback or a wrong answer: huge locators, non-finite statistics,
bad base64, unbounded timeouts, answers over one mebibyte."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import okf_sphinx
from support.build import sphinx_build, write_project, same_build
from okf_sphinx import OkfError
from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.index_format import unwrap

from support.cli import code_of, envelope_of, okf


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


def _tamper_group(site: Path, word: str, at: int, value: object) -> None:
    index = okf_sphinx.open_index(site)
    name = index.shard_of(word)
    path = site / "_okf" / f"{name}.js"
    shard = unwrap(name, path.read_bytes())
    shard["groups"][fmt.posting_key(word, index.stem)][at] = value
    path.write_bytes(same_build(name, shard, path))


def _refused_alike(site: Path, request: dict) -> None:  # type: ignore[type-arg]
    """Python, the CLI and Node all answer ``request`` with the same ``index_corrupt``."""
    from support.node import run_node

    with pytest.raises(OkfError) as err:
        okf_sphinx.open_index(site).search(**request)
    assert err.value.code == "index_corrupt"
    proc = okf("search", str(site), "--query", request["query"], "--mode", request.get("mode", "keyword"), "--json")
    assert proc.returncode == 5 and envelope_of(proc) == err.value.envelope["error"]
    js = run_node(site / "_okf", [request])[0]
    assert js == err.value.envelope, (js, err.value.envelope)


@pytest.mark.parametrize(("at", "value"), [(0, 0), (0, 10**6), (0, 1.5), (1, 0), (1, 10**6), (0, "1")])
def test_stem_group_df_out_of_range_is_index_corrupt_in_python_cli_and_node(site: Path, at: int, value: object) -> None:
    """A stem group's section (0) or page (1) df must be an integer within 1 … N: its idf is computed from it."""
    _tamper_group(site, "retry", at, value)
    _refused_alike(site, {"query": "retry", "mode": "smart"})


@pytest.mark.parametrize("steps", ["B", "AB", "BA", "BhE", 7, None])
def test_invalid_idf_steps_are_index_corrupt_in_python_cli_and_node(site: Path, steps: object) -> None:
    """The manifest's idf steps: pairs (Δdf ≥ 1, zigzagged step 1 … 128) as an integer list."""
    path = site / "_okf" / "manifest.js"
    value = unwrap("manifest", path.read_bytes())
    value["idf_steps"] = steps
    path.write_bytes(same_build("manifest", value, path))
    _refused_alike(site, {"query": "retry"})


@pytest.mark.parametrize("number", ["1e999", "NaN"])
def test_non_finite_avglen_is_index_corrupt_in_python_and_node(site: Path, number: str) -> None:
    from support.node import run_node

    path = site / "_okf" / "manifest.js"
    value = unwrap("manifest", path.read_bytes())
    value["avglen"] = 12345.5
    path.write_bytes(same_build("manifest", value, path).replace(b"12345.5", number.encode()))
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
        files.write_bytes(same_build("files", entries, files))
        (site / "_okf" / "f").mkdir(exist_ok=True)
        (site / "_okf" / "f" / "99.js").write_bytes(same_build("f/99", {"files": [{"path": "retry.md", "text": index.file_bytes(n).decode()}]}, (site / "_okf" / "f" / "99.js")))
        assert okf_sphinx.open_index(site).read_lines("retry.md", [1, 2])["status"] == "ok"
    k = entries[n]["pack"]
    path = site / "_okf" / "f" / f"{k}.js"
    pack = unwrap(f"f/{k}", path.read_bytes())
    value = next(r for r in pack["files"] if r["path"] == "retry.md")
    value.pop("text", None)
    value.pop("parts", None)
    value["base64"] = b64
    path.write_bytes(same_build(f"f/{k}", pack, path))
    assert code_of(lambda: okf_sphinx.open_index(site).read_lines("retry.md", [1, 2])) == "index_corrupt"
    proc = okf("lines", str(site), "retry.md", "1", "2", "--json")
    assert proc.returncode == 5 and envelope_of(proc)["code"] == "index_corrupt"
    value["base64"] = "QUJD"
    value["encoding"] = "rot13"  # a codec, but not a text encoding
    path.write_bytes(same_build(f"f/{k}", pack, path))
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
