"""Documented objects as sections (docs/contract.md, "Documented objects"): real builds."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import okf_sphinx
from support.build import EXAMPLE, sphinx_build, write_project
from support.shapes import SHAPES
from okf_sphinx.agent.answers import answer_json
from okf_sphinx.agent.dispatch import call_tool
from okf_sphinx.core.errors import OkfError

EXPECTED = json.loads((EXAMPLE / "expected_sections.json").read_text(encoding="utf-8"))
OBJECT_PAGES = sorted(d for d, p in EXPECTED["pages"].items() if any("kind" in s for s in p["sections"]))


def _sections(index: Any, docname: str) -> list[dict[str, Any]]:
    concept = next(c for c in index.concepts() if c[0] == docname)
    return index.page(concept[2])["sections"]


def test_example_site_has_pages_with_objects() -> None:
    assert OBJECT_PAGES == ["api", "reference", "reference_md"]


@pytest.mark.parametrize("docname", OBJECT_PAGES)
def test_object_sections_match_hand_written_expectations(example_html: Path, docname: str) -> None:
    index = okf_sphinx.open_index(example_html)
    got = [
        (s["path"], s["heading"], s["level"], s["line_start"], s["line_end"], s.get("kind"),
         s.get("generated", False), s.get("continued", False))
        for s in _sections(index, docname)
    ]
    want = [
        (s["path"], s["heading"], s["level"], s["line_start"], s["line_end"], s.get("kind"),
         s.get("generated", False), s.get("continued", False))
        for s in EXPECTED["pages"][docname]["sections"]
    ]
    assert got == want


def test_every_object_locator_reads_back_with_its_sha256(example_html: Path, example_src: Path) -> None:
    index = okf_sphinx.open_index(example_html)
    shas = {f["path"]: f["sha256"] for f in index.files()}
    rows = index.objects()
    assert len(rows) >= 25
    kinds = {r[1] for r in rows}
    assert {"py:module", "py:class", "py:method", "py:property", "py:attribute", "py:function", "py:exception",
            "c:function", "std:option", "std:envvar", "std:confval", "std:setting"} <= kinds
    for name, kind, page_no, i, sid in rows:
        record = index.section(sid)
        assert (record["name"], record["kind"], record["heading"]) == (name, kind, name)
        assert index.page(page_no)["sections"][i]["sid"] == sid
        path, start, end = record["path"], record["line_start"], record["line_end"]
        read = index.read_lines(path, [start, end])
        assert read["content_sha256"] == record["content_sha256"] == shas[path]
        assert hashlib.sha256((example_src / path).read_bytes()).hexdigest() == shas[path]
        if record.get("generated"):
            assert path.endswith((".rst", ".md")) and start == end
            assert ".. auto" in read["content"]  # the directive that rendered it
        else:
            assert read["content"] in (record["text"], record["text"] + "\n")  # + the file's last LF
        # the answer an agent gets by name is the same section
        got = index.get_section(object=name, include_subsections=False)
        assert got["locator"] == record["locator"] and got["object"]["kind"] == kind


def test_docstrings_are_located_in_the_python_source(example_html: Path) -> None:
    index = okf_sphinx.open_index(example_html)
    put = index.get_section(object="example_pkg.cache.CacheStore.put")
    assert put["path"] == "example_pkg/cache.py"
    # napoleon renders fields, but the section is the docstring as written (Google style)
    assert put["content"].lstrip().startswith('"""Store ``value`` under ``key``') and "Args:" in put["content"]
    assert put["object"] == {"name": "example_pkg.cache.CacheStore.put", "kind": "py:method",
                             "signature": "put(key, value, ttl=None)"}
    assert put["breadcrumb"] == ["API reference", "Cache store", "example_pkg.cache.CacheStore"]
    assert put["url"] == "api.html#example_pkg.cache.CacheStore.put"
    module = index.get_section(object="example_pkg.retry", include_subsections=False)
    assert module["object"]["kind"] == "py:module" and module["content"].startswith('"""Retry helpers')
    attr = index.get_section(object="default_ttl")
    assert attr["content"].strip() == "#: Seconds an entry lives when ``put`` is not given a ``ttl``."
    sqrt = index.get_section(object="sqrt")
    assert sqrt["object"]["generated"] is True and sqrt["locator"] == "api.rst#L24-L24"
    assert sqrt["content"].startswith("example_pkg.cache.sqrt(x, /)") and "square root" in sqrt["content"]


@pytest.mark.parametrize("query, name", [
    ("CacheStore.filter", "example_pkg.cache.CacheStore.filter"),
    ("filter", "example_pkg.cache.CacheStore.filter"),
    ("example_pkg.cache.CacheStore.filter", "example_pkg.cache.CacheStore.filter"),
    ("RetryPolicy.delay", "example_pkg.retry.RetryPolicy.delay"),
    ("evict_expired", "example_pkg.cache.evict_expired"),
    ("CacheError", "example_pkg.cache.CacheError"),
    ("sqrt", "example_pkg.cache.sqrt"),
    ("okf_cache.connect", "okf_cache.connect"),
    ("Client.fetch", "okf_cache.Client.fetch"),
    ("OKF_CACHE_DIR", "OKF_CACHE_DIR"),
    ("OKF_CACHE_DEBUG", "OKF_CACHE_DEBUG"),
    ("cache_capacity", "cache_capacity"),
    ("CACHE_BACKEND", "CACHE_BACKEND"),
    ("okf_cache_put", "okf_cache_put"),
    ("okf_cache.disconnect", "okf_cache.disconnect"),
])
def test_a_query_naming_an_object_finds_its_section_first(example_html: Path, query: str, name: str) -> None:
    index = okf_sphinx.open_index(example_html)
    hit = index.search(query)["hits"][0]
    assert hit["heading"] == name
    assert index.section(next(r[4] for r in index.objects() if r[0] == name))["locator"] == hit["locator"]


def test_keyword_hits_keep_the_contract_fields_for_objects(example_html: Path) -> None:
    index = okf_sphinx.open_index(example_html)
    hit = index.search("CacheStore.put")["hits"][0]
    assert list(hit) == ["concept_id", "path", "heading", "locator", "line_start", "line_end", "content_sha256",
                         "snippet", "score", "matched_terms"]
    assert hit["snippet"] in index.section(next(r[4] for r in index.objects() if r[0] == hit["heading"]))["text"]


def test_text_after_an_object_block_continues_its_section(example_html: Path) -> None:
    index = okf_sphinx.open_index(example_html)
    client_api = index.get_section(concept_id="reference", heading="Client API")
    assert client_api["locator"] == "reference.rst#L6-L8"  # the section itself, not its continuation
    assert "Connections are cheap" in client_api["content"] and "okf_cache_put" in client_api["content"]
    cls = index.get_section(concept_id="reference", heading="okf_cache.Client")
    assert cls["locator"] == "reference.rst#L16-L19"
    assert [s["heading"] for s in cls["subsections"]] == ["okf_cache.Client.fetch", "okf_cache.Client.retries", "okf_cache.Client"]
    assert cls["content"].rstrip().endswith("Clients are not thread-safe.")
    hit = index.search("thread safe")["hits"][0]
    assert (hit["heading"], hit["locator"]) == ("okf_cache.Client", "reference.rst#L28-L29")


def test_object_lookup_refusals_and_search_concepts(example_html: Path) -> None:
    index = okf_sphinx.open_index(example_html)
    with pytest.raises(OkfError) as err:
        index.get_section(object="CacheStor")
    assert err.value.code == "section_not_found"
    assert err.value.details["suggestions"][0]["heading"] == "example_pkg.cache.CacheStore"
    with pytest.raises(OkfError) as err:
        index.get_section(object="put", concept_id="api")
    assert err.value.code == "schema_validation"
    assert index.get_section(object="cachestore.PUT", include_subsections=False)["heading"] == "example_pkg.cache.CacheStore.put"
    found = call_tool(index, "search_concepts", {"query": "CacheStore", "limit": 3})
    assert found["objects_total"] == 6 and found["objects_truncated"] is True
    assert found["objects"][0] == {"heading": "example_pkg.cache.CacheStore", "locator": "example_pkg/cache.py#L21-L25",
                                   "kind": "py:class", "concept_id": "api"}


def _shapes(tmp_path: Path, autoclass_content: str = "both") -> Path:
    proj = tmp_path / "proj"
    (proj / "src" / "shapes").mkdir(parents=True)
    (proj / "src" / "shapes" / "__init__.py").write_text(SHAPES, encoding="utf-8")
    rst = "Shapes\n======\n\n.. automodule:: shapes\n   :members:\n\n.. autofunction:: json.dumps\n"
    conf = (
        'import os, sys\nsys.path.insert(0, os.path.abspath("../src"))\n'
        'extensions += ["sphinx.ext.autodoc"]\nokf_search_exclude = []\n'
        f'autoclass_content = "{autoclass_content}"\n'
    )
    return write_project(proj / "docs", {"index.rst": rst}, conf=conf)


def test_autoclass_content_both_python_outside_docs_generated_and_ambiguous(tmp_path: Path) -> None:
    src = _shapes(tmp_path)
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    # the package lives outside docs/: paths are relative to the common root, as includes are;
    # json.dumps lives in the interpreter's library: never captured, a generated section instead
    assert [f["path"] for f in index.files()] == ["docs/index.rst", "src/shapes/__init__.py"]
    outline = [(s["heading"], s["path"], s["line_start"], s["line_end"], s.get("kind"), s.get("generated", False))
               for s in _sections(index, "index")]
    assert outline == [
        ("Shapes", "docs/index.rst", 1, 7, None, False),
        ("shapes", "src/shapes/__init__.py", 1, 1, "py:module", False),
        ("shapes.Circle", "src/shapes/__init__.py", 5, 5, "py:class", False),
        ("shapes.Circle.__init__", "src/shapes/__init__.py", 8, 8, "py:method", False),
        ("shapes.Circle.area", "src/shapes/__init__.py", 12, 12, "py:method", False),
        ("shapes.Labelled", "src/shapes/__init__.py", 44, 44, "py:class", False),
        # instance attributes __init__ assigns: the docstring after, or the #: comment above
        ("shapes.Labelled.hidden", "src/shapes/__init__.py", 50, 50, "py:attribute", False),
        ("shapes.Labelled.label", "src/shapes/__init__.py", 47, 47, "py:attribute", False),
        ("shapes.Square", "src/shapes/__init__.py", 17, 17, "py:class", False),
        ("shapes.Square.area", "src/shapes/__init__.py", 20, 20, "py:method", False),
        ("shapes.Unit", "src/shapes/__init__.py", 37, 37, "py:class", False),
        # an override without a docstring shows its base's (autodoc_inherit_docstrings): located there
        ("shapes.Unit.area", "src/shapes/__init__.py", 33, 33, "py:method", False),
        ("shapes.scale", "docs/index.rst", 4, 4, "py:function", True),
        ("json.dumps", "docs/index.rst", 7, 7, "py:function", True),
    ]
    scale = index.get_section(object="scale")
    assert scale["content"] == "shapes.scale(x)\n\nScale x: a docstring built at run time."
    init = index.get_section(object="Circle.__init__")
    assert init["content"].strip() == '"""Make a circle of the given ``radius``."""'
    with pytest.raises(OkfError) as err:
        index.get_section(object="area")
    assert err.value.code == "ambiguous_section"
    assert [c["heading"] for c in err.value.details["candidates"]] == ["shapes.Circle.area", "shapes.Square.area", "shapes.Unit.area"]
    envelope = json.loads(answer_json(err.value.envelope))
    assert envelope["error"]["candidates"][0]["locator"] == "src/shapes/__init__.py#L12-L12"
    assert index.search("Circle.__init__")["hits"][0]["heading"] == "shapes.Circle.__init__"


def test_autoclass_content_init_locates_the_class_at_its_init_docstring(tmp_path: Path) -> None:
    src = _shapes(tmp_path, "init")
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    circle = index.get_section(object="shapes.Circle", include_subsections=False)
    square = index.get_section(object="shapes.Square", include_subsections=False)
    assert (circle["line_start"], square["line_start"]) == (8, 17)  # Square has no __init__: its class docstring


def test_editing_a_docstring_rebuilds_its_page(tmp_path: Path) -> None:
    src = _shapes(tmp_path)
    out = tmp_path / "out"
    sphinx_build(src, out)
    module = src.parent / "src" / "shapes" / "__init__.py"
    module.write_text(SHAPES.replace('"""A square."""', '"""A square.\n\n    Its sides are equal.\n    """'), encoding="utf-8")
    sphinx_build(src, out)  # incremental: autodoc's dependency on the module re-reads the page
    index = okf_sphinx.open_index(out)
    square = index.get_section(object="Square", include_subsections=False)
    assert (square["line_start"], square["line_end"]) == (17, 20)
    assert square["content_sha256"] == hashlib.sha256(module.read_bytes()).hexdigest()
    assert index.search("sides equal")["hits"][0]["heading"] == "shapes.Square"


def test_a_site_without_objects_has_no_object_fields(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", {"index.rst": "Top\n===\n\nbody text\n\nSub\n---\n\nmore text\n"},
                        conf="okf_search_exclude = []\n")
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    assert index.objects() == [] and "objects" not in index.manifest
    assert not (tmp_path / "out" / "_okf" / "objects.js").exists()
    keys = {"sid", "concept_id", "title", "path", "heading", "level", "line_start", "line_end", "locator",
            "content_sha256", "url", "anchor", "searchable", "text", "page_path"}
    assert all(set(index.section(i)) == keys for i in range(index.sections_all))
    assert all(set(s) == {"sid", "heading", "level", "parent", "path", "line_start", "line_end", "anchor"}
               for s in index.page(0)["sections"])
    assert list(index.search_concepts("top")) == ["status", "query", "snapshot_revision", "total", "truncated", "concepts"]
    assert "object" not in index.get_section(concept_id="index", heading="Sub")


def test_mcp_and_cli_answer_object_requests_with_the_same_bytes(example_html: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    from jsonschema import Draft202012Validator
    from support.mcp import run, session_for, structured, validate

    from okf_sphinx.core.contracts import contract

    requests = [
        ("get_section", {"object": "CacheStore.put"}, ["object", "CacheStore.put"]),
        ("get_section", {"object": "sqrt", "include_subsections": False}, ["object", "sqrt", "--no-subsections"]),
        ("search_concepts", {"query": "CacheStore", "limit": 3}, ["concepts", "CacheStore", "--limit", "3"]),
        ("get_section", {"object": "nothing_like_it"}, ["object", "nothing_like_it"]),
    ]
    Draft202012Validator.check_schema(contract("get_section", "input"))
    for tool, args, _ in requests:
        Draft202012Validator(contract(tool, "input")).validate(args)

    async def go():
        async with session_for(example_html) as s:
            return [await s.call_tool(tool, args) for tool, args, _ in requests]

    results = run(go)
    for (tool, _args, argv), result in zip(requests, results):
        answer = structured(result)
        if result.is_error:
            assert answer["error"]["code"] == "section_not_found"
            errors = json.loads((Path(okf_sphinx.__file__).parent / "contracts" / "error.json").read_text(encoding="utf-8"))
            Draft202012Validator(errors).validate(answer)
        else:
            validate(tool, answer)
        cli = subprocess.run([sys.executable, "-m", "okf_sphinx", argv[0], str(example_html), *argv[1:], "--json"],
                             capture_output=True, timeout=60)
        assert cli.stdout == result.content[0].text.encode("utf-8") + b"\n"
    assert structured(results[0])["object"]["kind"] == "py:method"
    text = subprocess.run([sys.executable, "-m", "okf_sphinx", "object", str(example_html), "CacheStore.filter"],
                          capture_output=True, timeout=60, text=True)
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    assert lines[0] == "example_pkg/cache.py:50-57  example_pkg.cache.CacheStore.filter"
    assert lines[1] == "  [py:method] filter(predicate)"
    missing = subprocess.run([sys.executable, "-m", "okf_sphinx", "object", str(example_html), "CacheStor"],
                             capture_output=True, timeout=60, text=True)
    assert missing.returncode == 15 and missing.stdout == ""
    assert "did you mean \"example_pkg.cache.CacheStore\"" in missing.stderr


def test_objects_can_be_switched_off(tmp_path: Path) -> None:
    src = _shapes(tmp_path)
    sphinx_build(src, tmp_path / "out", "-D", "okf_search_objects=0")
    index = okf_sphinx.open_index(tmp_path / "out")
    assert index.objects() == []
    assert [f["path"] for f in index.files()] == ["index.rst"]  # no .py captured, root stays docs/
    assert [s["heading"] for s in index.page(0)["sections"]] == ["Shapes"]


def test_a_corrupt_or_missing_object_list_is_index_corrupt(example_html: Path, tmp_path: Path) -> None:
    import shutil

    site = tmp_path / "site"
    shutil.copytree(example_html / "_okf", site / "_okf")
    good = (site / "_okf" / "objects.js").read_text(encoding="utf-8")
    for text in (good.replace('"py:method"', "7", 1), good[: len(good) // 2] + ");\n", None):
        if text is None:
            (site / "_okf" / "objects.js").unlink()
        else:
            (site / "_okf" / "objects.js").write_text(text, encoding="utf-8")
        index = okf_sphinx.open_index(site)
        with pytest.raises(OkfError) as err:
            index.get_section(object="CacheStore.put")
        assert err.value.code == "index_corrupt"
        with pytest.raises(OkfError) as err:
            index.search_concepts("cache")
        assert err.value.code == "index_corrupt"


def test_myst_nested_colon_fences_and_eval_rst_objects(tmp_path: Path) -> None:
    md = (
        "# Top\n\n::::{py:class} pkg.Outer\nOuter doc.\n\n:::{py:method} run()\nRun doc.\n:::\n\nOuter tail.\n::::\n\n"
        "```{eval-rst}\n.. py:function:: pkg.helper(x)\n\n   Helper doc.\n\nBetween.\n```\n\nEnd text.\n"
    )
    src = write_project(tmp_path / "src", {"index.md": md},
                        conf='myst_enable_extensions = ["colon_fence"]\nokf_search_exclude = []\n')
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    got = [(s["line_start"], s["line_end"], s["heading"], s.get("kind"), s.get("continued", False))
           for s in index.page(0)["sections"]]
    assert got == [
        (1, 2, "Top", None, False),
        (3, 5, "pkg.Outer", "py:class", False),
        (6, 8, "pkg.Outer.run", "py:method", False),
        (9, 11, "pkg.Outer", "py:class", True),  # the class's text after its method, to its closing fence
        (12, 13, "Top", None, True),
        (14, 16, "pkg.helper", "py:function", False),  # an RST directive inside {eval-rst}
        (17, 21, "Top", None, True),
    ]


def test_autosummary_generated_pages_locate_docstrings(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / "src" / "shapes").mkdir(parents=True)
    (proj / "src" / "shapes" / "__init__.py").write_text(SHAPES, encoding="utf-8")
    rst = "Shapes\n======\n\n.. currentmodule:: shapes\n\n.. autosummary::\n   :toctree: generated\n\n   Square\n   scale\n"
    conf = (
        'import os, sys\nsys.path.insert(0, os.path.abspath("../src"))\n'
        'extensions += ["sphinx.ext.autodoc", "sphinx.ext.autosummary"]\nokf_search_exclude = []\n'
    )
    src = write_project(proj / "docs", {"index.rst": rst}, conf=conf)
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    rows = {r[0]: r for r in index.objects()}
    square = index.section(rows["shapes.Square"][4])
    assert (square["concept_id"], square["path"], square["line_start"]) == ("generated/shapes.Square", "src/shapes/__init__.py", 17)
    scale = index.section(rows["shapes.scale"][4])
    # a docstring set at run time: generated, at the autofunction line of the stub page autosummary wrote
    assert scale["generated"] is True and scale["path"] == "docs/generated/shapes.scale.rst"
    assert index.read_lines(scale["path"], [scale["line_start"]] * 2)["content"].startswith(".. autofunction:: scale")
    assert index.search("Square")["hits"][0]["heading"] == "shapes.Square"


def test_a_module_declared_by_hand_is_located_at_its_directive(tmp_path: Path) -> None:
    rst = ("Top\n===\n\n.. module:: okf_cache.extras\n   :synopsis: Extra helpers.\n\nExtras live here.\n\n"
           ".. py:function:: go()\n\n   Go.\n")
    md = "# Markdown\n\n```{py:module} okf_cache.more\n```\n\nMore text.\n"
    src = write_project(tmp_path / "src", {"index.rst": ".. toctree::\n\n   a\n   b\n", "a.rst": rst, "b.md": md},
                        conf="okf_search_exclude = []\n")
    sphinx_build(src, tmp_path / "out")
    index = okf_sphinx.open_index(tmp_path / "out")
    got = [(s["line_start"], s["line_end"], s["heading"], s.get("kind"), s.get("continued", False))
           for s in _sections(index, "a")]
    assert got == [
        (1, 3, "Top", None, False),
        (4, 5, "okf_cache.extras", "py:module", False),
        (6, 8, "Top", None, True),
        (9, 11, "okf_cache.extras.go", "py:function", False),
    ]
    extras = index.get_section(object="extras")
    assert extras["url"] == "a.html#module-okf_cache.extras" and extras["object"]["kind"] == "py:module"
    more = index.get_section(object="okf_cache.more", include_subsections=False)
    assert (more["concept_id"], more["line_start"], more["line_end"]) == ("b", 3, 4)
    assert index.search("okf_cache.extras")["hits"][0]["heading"] == "okf_cache.extras"
