"""The MkDocs / ProperDocs plugin, with real builds of example_mkdocs and small projects."""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import okf_sphinx
from support.mkdocs_sites import (
    EXAMPLE_MKDOCS,
    build_env,
    built_example,
    copy_example,
    declared_entry_points,
    index_bytes,
    mkdocs_build,
    write_mkdocs_project,
)
from support.build import boot_files, logical_files, page_priors

EXPECTED = json.loads((EXAMPLE_MKDOCS / "expected_sections.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mkdocs")


@pytest.fixture(scope="module")
def site(base: Path) -> Path:
    return built_example(base)


def outline(site: Path) -> dict[str, Any]:
    index = okf_sphinx.open_index(site)
    out = {}
    for concept_id, title, n, searchable, _paths in index.concepts():
        page = index.page(n)
        out[concept_id] = {
            "title": title, "path": page["path"], "searchable": searchable,
            "sections": [[s["heading"], s["level"], s["line_start"], s["line_end"], s["anchor"]]
                         + ([s["path"]] if s["path"] != page["path"] else []) for s in page["sections"]],
        }
    return out


# -- sections ---------------------------------------------------------------------------


@pytest.mark.parametrize("concept", sorted(EXPECTED["pages"]))
def test_example_sections_match_hand_written_expectations(site: Path, concept: str) -> None:
    assert outline(site)[concept] == EXPECTED["pages"][concept]


def test_example_captures_every_page(site: Path) -> None:
    index = okf_sphinx.open_index(site)
    assert [f["path"] for f in index.files()] == sorted(EXPECTED["captured_files"])
    assert sorted(outline(site)) == sorted(EXPECTED["pages"])
    manifest = index.manifest
    assert manifest["builder"] == "mkdocs" and manifest["search_page"] == "search.html"
    assert manifest["project"] == "okf MkDocs example"  # the site_name


def test_urls_point_at_rendered_ids(site: Path) -> None:
    """Every section URL names a page that exists and an id that page really has."""
    index = okf_sphinx.open_index(site)
    for sid in range(index.sections_all):
        s = index.section(sid)
        page, _, anchor = s["url"].partition("#")
        html_file = site / page / "index.html" if page.endswith("/") or not page else site / page
        html = html_file.read_text(encoding="utf-8")
        if anchor:
            assert re.search(rf'<h[1-6][^>]*\bid="{re.escape(anchor)}"', html), (s["url"], s["heading"])


def test_hits_read_back_through_read_lines(site: Path) -> None:
    """Agents: every hit's locator reads back with matching SHA-256 and exact text."""
    index = okf_sphinx.open_index(site)
    files = {f["path"]: f for f in index.files()}
    src = EXAMPLE_MKDOCS
    for query in ("retry policy", "heading", "text", "tab", "lone", "front matter", "meta", "deprecation"):
        result = index.search(query, 100)
        assert result["hits"], query
        for hit in result["hits"]:
            read = index.read_lines(hit["path"], [hit["line_start"], hit["line_end"]])
            assert read["content_sha256"] == hit["content_sha256"] == files[hit["path"]]["sha256"]
            data = (src / hit["path"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == hit["content_sha256"]
            assert hit["snippet"].replace("\r", "") in read["content"].replace("\r", "")
            assert read["locator"] == hit["locator"]


def test_cli_search_section_and_lines_work_unchanged(site: Path) -> None:
    def okf(*args: str) -> dict[str, Any]:
        proc = subprocess.run([sys.executable, "-m", "okf_sphinx", *args, "--json"], capture_output=True, text=True,
                              env=build_env(), timeout=120)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    found = okf("search", str(site), "--query", "retry policy")
    assert found["hits"][0]["locator"] == "docs/retry.md#L1-L5"
    assert found == okf_sphinx.open_index(site).search("retry policy")
    section = okf("section", str(site), "docs/retry.md#L6-L13")
    assert "The retry policy never exceeds the request deadline;" in json.dumps(section)
    lines = okf("lines", str(site), "docs/retry.md", "14", "17")
    assert lines["content"].startswith("Cache\n-----")


def test_properdocs_builds_the_same_index(base: Path, site: Path) -> None:
    other = built_example(base, tool="properdocs")
    a, b = index_bytes(site), index_bytes(other)
    assert sorted(a) == sorted(b)
    assert {k for k in a if a[k] != b[k]} == {"manifest.js"}
    ma, mb = okf_sphinx.open_index(site).manifest, okf_sphinx.open_index(other).manifest
    assert mb["builder"] == "properdocs"
    assert {**ma, "builder": "x"} == {**mb, "builder": "x"}


def test_material_theme_gives_the_same_sections(base: Path, site: Path) -> None:
    material = built_example(base, theme="material")
    assert outline(material) == outline(site)
    assert index_bytes(material) == index_bytes(site)


def test_properdocs_with_material_builds_the_same_index(base: Path) -> None:
    a = index_bytes(built_example(base, theme="material"))
    b = index_bytes(built_example(base, theme="material", tool="properdocs"))
    assert {k for k in a if a[k] != b.get(k)} == {"manifest.js"} and sorted(a) == sorted(b)


def test_readthedocs_theme_search_page(base: Path) -> None:
    rtd = built_example(base, theme="readthedocs")
    page = (rtd / "search.html").read_text(encoding="utf-8")
    assert 'id="okf-search"' in page and 'data-okf-index="./_okf/"' in page
    assert "okf-search.js" in page
    assert outline(rtd) == outline(built_example(base))


# -- builds -----------------------------------------------------------------------------


def test_builds_are_deterministic(base: Path, site: Path, tmp_path: Path) -> None:
    project = copy_example(tmp_path / "elsewhere" / "deeper")
    out = tmp_path / "again"
    mkdocs_build(project, out)
    assert index_bytes(out) == index_bytes(site)


def test_strict_build_passes_and_our_warnings_fail_it(tmp_path: Path) -> None:
    project = copy_example(tmp_path / "p")
    mkdocs_build(project, tmp_path / "ok", "--strict")
    config = (project / "mkdocs.yml").read_text(encoding="utf-8").replace("unmatched_headings: info", "unmatched_headings: warn")
    (project / "mkdocs.yml").write_text(config, encoding="utf-8")
    ok = mkdocs_build(project, tmp_path / "lenient")
    assert "WARNING" in ok.stderr and "changelog.md (1)" in ok.stderr and "inline-html.md (1 of 3)" in ok.stderr
    assert "release.md" not in ok.stderr
    strict = mkdocs_build(project, tmp_path / "strict", "--strict", check=False)
    assert strict.returncode != 0
    assert "changelog.md" in strict.stderr and "Traceback" not in strict.stderr


def test_dirty_rebuild_leaves_a_correct_index(tmp_path: Path) -> None:
    project = copy_example(tmp_path / "p")
    out = tmp_path / "site"
    mkdocs_build(project, out)
    page = project / "docs" / "retry.md"
    page.write_text(page.read_text(encoding="utf-8").replace("## Deadline", "## Deadline\n\nNew paragraph.\n\n## Budget"),
                    encoding="utf-8")
    dirty = mkdocs_build(project, out, "--dirty")
    full = tmp_path / "full"
    mkdocs_build(project, full)
    assert index_bytes(out) == index_bytes(full)
    assert "Budget" in [s[0] for s in outline(out)["retry"]["sections"]]
    assert "not rendered" not in dirty.stderr


def test_index_files_packs_and_splits_without_changing_answers(tmp_path: Path) -> None:
    """``index_files: 4``: smaller files (here: the sections in more ``s/`` files; the captured
    Markdown is in one ``f/`` pack, naming its sections), the same answers and the same bytes read back."""
    pages = {f"p{i}.md": f"# Page {i}\n\n" + "".join(f"## Part {i}.{k}\n\nwalrus text {k} " + "lorem ipsum " * 60 + "\n\n"
                                                      for k in range(8)) for i in range(6)}
    sites = {}
    for scale in (1, 4):
        project = write_mkdocs_project(tmp_path / f"p{scale}", {"index.md": "# Home\n", **pages},
                                       f"plugins:\n  - okf:\n      index_files: {scale}\n")
        sites[scale] = tmp_path / f"site{scale}"
        mkdocs_build(project, sites[scale], "--strict")
    packs = {scale: len([n for n in logical_files(site / "_okf") if n.startswith("f/")]) for scale, site in sites.items()}
    sections = {scale: len(list((site / "_okf" / "s").glob("*.js"))) for scale, site in sites.items()}
    assert packs == {1: 1, 4: 1} and sections[1] < sections[4], (packs, sections)
    one, four = (okf_sphinx.open_index(sites[s]) for s in (1, 4))
    for query, options in (("walrus", {}), ("walrus lorem", {"mode": "smart"}), ("wal", {"mode": "smart", "prefix": True})):
        assert one.search(query, 20, **options) == four.search(query, 20, **options), query
    for n, entry in enumerate(one.files()):
        assert one.file_bytes(n) == four.file_bytes(n) and len(one.file_bytes(n)) == entry["size"]


def test_dirty_rebuild_after_an_unseen_change_still_indexes_every_page(tmp_path: Path) -> None:
    """A page --dirty skips but whose bytes differ from the old index is not silently reused."""
    project = copy_example(tmp_path / "p")
    out = tmp_path / "site"
    mkdocs_build(project, out)
    page = project / "docs" / "notes.md"
    stat = page.stat()
    page.write_text("Changed without a newer mtime.\n", encoding="utf-8")
    os.utime(page, (stat.st_atime, stat.st_mtime - 3600))
    dirty = mkdocs_build(project, out, "--dirty")
    index = okf_sphinx.open_index(out)
    assert "notes" not in [c[0] for c in index.concepts()]
    assert "notes.md" in dirty.stderr


def test_serve_style_rebuilds_in_one_process(tmp_path: Path) -> None:
    """mkdocs serve reloads the config and rebuilds in one process: the index follows every change."""
    project = copy_example(tmp_path / "p")
    out = tmp_path / "site"
    script = f"""
import sys
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config
page = Path("docs/retry.md")
for n in range(3):
    if n:
        page.write_text(page.read_text(encoding="utf-8") + f"\\n## Round {{n}}\\n\\nround{{n}} text\\n", encoding="utf-8")
    build(load_config("mkdocs.yml", site_dir={str(out)!r}), dirty=n == 2)
"""
    proc = subprocess.run([sys.executable, "-c", script], cwd=project, capture_output=True, text=True, env=build_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr
    index = okf_sphinx.open_index(out)
    assert [h["heading"] for h in index.search("round2")["hits"]] == ["Round 2"]
    assert [index.section(sid)["url"] for sid in range(index.sections_all)
            if index.section(sid)["heading"] == "Round 1"] == ["retry/#round-1"]
    full = tmp_path / "full"
    mkdocs_build(project, full)
    assert index_bytes(out) == index_bytes(full)


def test_failed_limit_leaves_no_index_and_names_the_limit(tmp_path: Path) -> None:
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# A\n\n## B\n\n## C\n\n## D\n"},
                                   "plugins:\n  - okf:\n      limits: {sections: 2}\n")
    out = tmp_path / "site"
    proc = mkdocs_build(project, out, check=False)
    assert proc.returncode != 0
    assert "sections" in proc.stderr and "Traceback" not in proc.stderr
    # the setting as a MkDocs author writes it, never Sphinx's advice
    assert "raise it with limits: {sections: N} in the okf plugin's options in mkdocs.yml" in proc.stderr, proc.stderr
    assert "conf.py" not in proc.stderr and "okf_search_" not in proc.stderr
    assert not (out / "_okf").exists()


def test_an_output_dir_okf_did_not_write_is_left_untouched_and_named_as_in_mkdocs_yml(tmp_path: Path) -> None:
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# A\n\nyak\n"},
                                   "plugins:\n  - search\n  - okf:\n      output_dir: css\n")  # the theme's own folder
    out = tmp_path / "site"
    proc = mkdocs_build(project, out, check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "is not an okf_sphinx index" in proc.stderr and "left untouched" in proc.stderr
    assert "set output_dir to a free folder name in the okf plugin's options in mkdocs.yml" in proc.stderr
    # the build's own config file is named (ProperDocs' properdocs.yml, or one given with -f)
    (project / "site.yml").write_text((project / "mkdocs.yml").read_text(encoding="utf-8"), encoding="utf-8")
    proc = mkdocs_build(project, tmp_path / "site2", config="site.yml", check=False)
    assert "set output_dir to a free folder name in the okf plugin's options in site.yml" in proc.stderr, proc.stderr
    assert "conf.py" not in proc.stderr and "okf_search_" not in proc.stderr
    assert (out / "css" / "base.css").is_file()  # the theme's files are still there


def test_the_summary_names_mkdocs_settings(tmp_path: Path) -> None:
    """One summary for both hosts (writer/build.py), settings named as mkdocs.yml spells them."""
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# Home\n\nyak\n", "a.md": "# Alpha\n\nyak\n"},
                                   "plugins:\n  - search\n  - okf:\n      exclude: [index]\n")
    proc = mkdocs_build(project, tmp_path / "site")
    assert re.search(r"indexed 1 sections of 1 pages \(\d+ distinct terms, 2 captured files; smart search language "
                     r"'en'\); wrote \d+ bytes to _okf/ and llms.txt, llms-full.txt", proc.stderr), proc.stderr
    assert ("1 pages excluded from search by exclude (index); set exclude: [] in the okf plugin's options in "
            "mkdocs.yml to include them") in proc.stderr
    assert "okf_search_" not in proc.stderr and "conf.py" not in proc.stderr


def test_output_dir_follows_the_sphinx_rule(tmp_path: Path) -> None:
    """One rule for both hosts: '.' parts are dropped, the folder is named as written."""
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# Home\n", "a.md": "# Alpha\n\nalpha text\n"},
                                   "plugins:\n  - search\n  - okf:\n      output_dir: ./data/./idx/\n")
    out = tmp_path / "site"
    mkdocs_build(project, out)
    assert okf_sphinx.open_index(out / "data" / "idx").search("alpha")["total"] == 1
    assert 'data-okf-index="./data/idx/"' in (out / "search.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("output_dir", "'../outside'", "output_dir"),
        ("output_dir", "''", "output_dir"),
        ("output_dir", "/tmp/abs", "output_dir"),
        ("output_dir", "'.'", "output_dir"),
        ("limits", "lots", "limits"),
        ("limits", "{files: -1}", "limits"),
        ("exclude", "index", "exclude"),
        ("unmatched_headings", "loud", "unmatched_headings"),
        ("index_files", "0", "index_files must be a number from 0.25 to 16"),
        ("index_files", "'2'", "index_files must be a number from 0.25 to 16"),
        ("weights", "{'news/*': 0}", "weights['news/*'] must be a number above 0 and at most 100"),
        ("weights", "lots", "weights must map docname patterns to weights"),
        ("nonsense", "1", "nonsense"),
    ],
)
def test_invalid_config_is_a_mkdocs_config_error(tmp_path: Path, option: str, value: str, message: str) -> None:
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# A\n"}, f"plugins:\n  - okf:\n      {option}: {value}\n")
    out = tmp_path / "site"
    proc = mkdocs_build(project, out, "--strict", check=False)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert message in proc.stderr and "okf" in proc.stderr
    assert not (out / "_okf").exists()


def test_output_dir_elsewhere_and_site_search_page_kept(tmp_path: Path) -> None:
    project = write_mkdocs_project(
        tmp_path / "p", {"index.md": "# Home\n", "a.md": "# Alpha\n\nalpha text\n"},
        "plugins:\n  - search\n  - okf:\n      output_dir: data/okf-index\n      replace_builtin: false\n      exclude: []\n",
    )
    out = tmp_path / "site"
    mkdocs_build(project, out)
    index = okf_sphinx.open_index(out / "data" / "okf-index")
    assert index.manifest["search_page"] == "okf-search.html"
    assert [h["concept_id"] for h in index.search("alpha")["hits"]] == ["a"]
    page = (out / "okf-search.html").read_text(encoding="utf-8")
    assert 'data-okf-index="./data/okf-index/"' in page
    assert "okf-mkdocs.js" not in (out / "a" / "index.html").read_text(encoding="utf-8")
    assert [c[0] for c in index.concepts() if c[3]] == ["a", "index"]


def test_readthedocs_keeps_its_search_page_unless_replaced_and_custom_dir_overrides_ours(tmp_path: Path) -> None:
    files = {"index.md": "# Home\n", "a.md": "# Alpha\n\nalpha text\n"}
    kept = write_mkdocs_project(tmp_path / "kept", files, "theme:\n  name: readthedocs\nplugins:\n  - search\n"
                                "  - okf:\n      replace_builtin: false\n")
    mkdocs_build(kept, tmp_path / "kept-site")
    assert 'id="mkdocs-search-results"' in (tmp_path / "kept-site" / "search.html").read_text(encoding="utf-8")
    assert 'id="okf-search"' in (tmp_path / "kept-site" / "okf-search.html").read_text(encoding="utf-8")
    custom = write_mkdocs_project(tmp_path / "custom", files, "theme:\n  name: readthedocs\n  custom_dir: overrides\n")
    (custom / "overrides").mkdir()
    (custom / "overrides" / "okf-search-body.html").write_text('<p id="author-search">mine</p>\n', encoding="utf-8")
    mkdocs_build(custom, tmp_path / "custom-site")
    page = (tmp_path / "custom-site" / "search.html").read_text(encoding="utf-8")
    assert 'id="author-search"' in page and "okf-search.js" in page


def test_an_extension_failing_on_the_shadow_parse_is_loud_not_fatal(tmp_path: Path) -> None:
    """A (contrived, real) Markdown extension that fails on okf's marked copy: the page is one section."""
    # a fenced '## Beta' line after the heading '## Beta' makes okf parse a.md a second time (the real
    # render's headings could come from either line)
    a = "# Alpha\n\n## Beta\n\nbeta text\n\n```\n## Beta\n```\n"
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# Home\n", "a.md": a},
                                   "markdown_extensions:\n  - picky_ext\n")
    (project / "picky_ext.py").write_text(
        "from markdown.extensions import Extension\nfrom markdown.preprocessors import Preprocessor\n\n"
        "class Picky(Preprocessor):\n    def run(self, lines):\n"
        "        if any('OKF7H' in line for line in lines):\n            raise ValueError('unexpected text')\n"
        "        return lines\n\n"
        "class PickyExtension(Extension):\n    def extendMarkdown(self, md):\n"
        "        md.preprocessors.register(Picky(md), 'picky', 40)\n\n"
        "def makeExtension(**kwargs):\n    return PickyExtension(**kwargs)\n", encoding="utf-8")
    out = tmp_path / "site"
    proc = mkdocs_build(project, out)
    assert "a.md" in proc.stderr and "ValueError" in proc.stderr and "Traceback" not in proc.stderr
    assert outline(out)["a"]["sections"] == [["", 0, 1, 9, ""]]
    assert mkdocs_build(project, tmp_path / "strict", "--strict", check=False).returncode != 0


def test_heading_too_long_fails_naming_file_and_line(tmp_path: Path) -> None:
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# A\n\n## " + "x" * 1100 + "\n"})
    proc = mkdocs_build(project, tmp_path / "site", check=False)
    assert proc.returncode != 0
    assert "index.md:3" in proc.stderr and "1024" in proc.stderr and "Traceback" not in proc.stderr


def test_theme_search_box_is_hooked_on_every_page(site: Path) -> None:
    from okf_sphinx.capture.mkdocs.theme import THEME_BOXES
    from okf_sphinx.surfaces.browser import shipped

    page = (site / "guide" / "headings" / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r'<script src="([^"]*assets/okf/[^"]*)"([^>]*)>', page)
    assert [(src, re.findall(r'data-okf-([\w-]+)="([^"]*)"', attrs)) for src, attrs in scripts] == [
        ("../../assets/okf/okf-mkdocs.js", [("search", "../../search.html"), ("theme", "mkdocs")]),
        ("../../assets/okf/okf-boot.js", [("root", "../../"), ("index", "../../_okf/"), ("search-page", "search.html"),
                                          ("box", html.escape(THEME_BOXES))]),
    ]  # the theme hook, then the boot: no runtime on a page until the reader reaches for search
    assets = site / "assets" / "okf"
    # what the boot loads then, in order: the stemmers (the site language's only), the runtime, the dialog
    assert boot_files(assets / "okf-boot.js") == ["okf-stemmer.js", "okf-stemmer-english.js", "okf-search.js", "okf-dialog.js"]
    assert sorted(p.name for p in assets.glob("okf-stemmer*.js")) == ["okf-stemmer-english.js", "okf-stemmer.js"]
    head = page[: page.index("</head>")]
    assert '<link rel="stylesheet" href="../../assets/okf/okf-dialog.css">' in head
    assert "search/main.js" not in page  # the theme's own search client is not loaded
    # only HTML pages: the sitemap and the 404 page (served from any depth) are left alone
    assert "okf" not in (site / "sitemap.xml").read_text(encoding="utf-8")
    assert "okf-mkdocs.js" not in (site / "404.html").read_text(encoding="utf-8")
    for name in ("okf-mkdocs.js", "okf-dialog.js", "okf-search.js", "okf-stemmer.js"):  # minified, their maps beside them
        made = shipped(name, "en")
        assert (assets / name).read_text(encoding="utf-8") == made.text
        assert (assets / (name + ".map")).read_text(encoding="utf-8") == made.map
    for name in ("okf-search.css", "okf-dialog.css"):
        assert (assets / name).read_bytes() == (Path(okf_sphinx.__file__).parent / "static" / name).read_bytes()


def test_failed_build_leaves_no_old_index(tmp_path: Path) -> None:
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# A\n", "b.md": "# B\n"})
    out = tmp_path / "site"
    mkdocs_build(project, out)
    assert (out / "_okf" / "manifest.js").is_file()
    (project / "docs" / "b.md").write_text("# B\n\n## " + "y" * 1100 + "\n", encoding="utf-8")
    proc = mkdocs_build(project, out, "--dirty", check=False)
    assert proc.returncode != 0 and "b.md:3" in proc.stderr
    assert not (out / "_okf").exists()


def test_pyproject_registers_the_plugin_for_both_hosts() -> None:
    declared = declared_entry_points()
    assert declared["mkdocs.plugins"] == {"okf": "okf_sphinx.capture.mkdocs.plugin:OkfPlugin"}
    assert declared["properdocs.plugins"] == {"okf": "okf_sphinx.capture.mkdocs.plugin:OkfPlugin"}


def test_every_plugin_option_is_documented() -> None:
    from okf_sphinx.capture.mkdocs.config import OkfConfig

    options = {name for name, _ in OkfConfig._schema}
    assert {"exclude", "limits", "output_dir", "source_root", "replace_builtin", "title"} <= options
    text = (EXAMPLE_MKDOCS.parent / "docs" / "mkdocs.md").read_text(encoding="utf-8")
    reference = text.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    assert set(re.findall(r"^### (\w+)$", reference, re.M)) == options


def test_mkdocs_serve_rebuilds_the_index_it_serves(tmp_path: Path) -> None:
    """A real ``mkdocs serve``: the index it serves follows an edited page (polled, no timing asserted)."""
    import socket
    import time

    project = copy_example(tmp_path / "p")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
                            cwd=project, env=build_env(), stdout=log, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/"

    def served_headings(query: str) -> list[str] | None:
        try:
            return [h["heading"] for h in okf_sphinx.open_index(url).search(query)["hits"]]
        except okf_sphinx.OkfError:
            return None  # not serving yet, or rebuilding

    def wait_for(query: str, want: list[str]) -> None:
        deadline = time.monotonic() + 300  # generous: a busy machine is slow, never wrong
        while time.monotonic() < deadline and proc.poll() is None:
            if served_headings(query) == want:
                return
            time.sleep(0.5)
        proc.kill()
        proc.wait(timeout=60)
        raise AssertionError(f"mkdocs serve never served {want} for {query!r}:\n{(tmp_path / 'serve.log').read_text()}")

    try:
        wait_for("deadline", ["Deadline"])
        page = project / "docs" / "retry.md"
        page.write_text(page.read_text(encoding="utf-8") + "\n## Served later\n\nzebraword text\n", encoding="utf-8")
        wait_for("zebraword", ["Served later"])
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=60)
        log.close()


def _manifest(site: Path) -> dict[str, Any]:
    from okf_sphinx.core import index_format as fmt

    return fmt.unwrap("manifest", (site / "_okf" / "manifest.js").read_bytes())


@pytest.mark.parametrize(
    ("theme", "option", "language", "stemmed"),
    [
        ("theme:\n  name: material\n  language: de\n", "", "de", True),  # Material's theme: language:
        ("theme:\n  name: mkdocs\n  locale: es\n", "", "es", True),  # the mkdocs theme's locale
        ("theme:\n  name: mkdocs\n", "", "en", True),  # the theme's own default
        ("theme:\n  name: material\n  language: de\n", "      language: en\n", "en", True),  # okf's option wins
        ("theme:\n  name: material\n  language: fr\n", "", "fr", True),  # every language Sphinx stems
        ("theme:\n  name: material\n  language: pl\n", "", "pl", False),  # no stemmer: said loudly (CJK: pairs, tests/test_cjk.py)
    ],
)
def test_smart_language_comes_from_the_site(tmp_path: Path, theme: str, option: str, language: str, stemmed: bool) -> None:
    plugins = "plugins:\n  - search\n  - okf:\n      title: Suche\n" + option
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# Häuser\n\nDie Häuser und Katzen.\n"}, theme + plugins)
    proc = mkdocs_build(project, tmp_path / "site")
    smart = _manifest(tmp_path / "site")["smart"]
    assert smart["language"] == language and bool(smart["stemmer"]) is stemmed
    assert f"smart search language '{language}'" in proc.stderr
    warned = "WARNING" in proc.stderr and f"no stemmer for language '{language}'" in proc.stderr
    assert warned is (not stemmed)
    if not stemmed:  # a warning: --strict fails on it
        assert mkdocs_build(project, tmp_path / "strict", "--strict", check=False).returncode != 0
    from okf_sphinx.core.stemmer import stemmer_script

    shipped = sorted(p.name for p in (tmp_path / "site" / "assets" / "okf").glob("okf-stemmer*.js"))
    assert shipped == (sorted(["okf-stemmer.js", stemmer_script(language)]) if stemmed else [])  # no stemmer: none shipped


def test_snippet_line_ranges_and_sections_are_captured_exactly(tmp_path: Path) -> None:
    """pymdownx.snippets line ranges and named sections: the included file is captured under its
    own path, its sections hold exactly the physical lines the page includes (a lone CR breaks a
    line for the parser but not for the contract), a second inclusion of the same lines renders
    (``ranged_1``) but starts no section, and the ids are the rendered ones."""
    config = "markdown_extensions:\n  - toc\n  - pymdownx.snippets:\n      base_path: [snips]\n      check_paths: true\n"
    page = '# Home\n\n--8<-- "parts.md:3:4"\n\n--8<-- "parts.md:3:4"\n\n--8<-- "parts.md:cut"\n'
    project = write_mkdocs_project(tmp_path / "p", {"index.md": page}, config)
    (project / "snips").mkdir()
    (project / "snips" / "parts.md").write_bytes(
        b"# Parts\r\n\r\n## Ranged\r\nText one.\rtext two.\n\n<!-- --8<-- [start:cut] -->\n## Cut part\ncut text\n"
        b"<!-- --8<-- [end:cut] -->\n\n## Never included\n"
    )
    out = tmp_path / "site"
    mkdocs_build(project, out, "--strict")
    html = (out / "index.html").read_text(encoding="utf-8")
    assert 'id="ranged"' in html and 'id="ranged_1"' in html and 'id="cut-part"' in html
    assert outline(out)["index"]["sections"] == [
        ["Home", 1, 1, 7, "home"],
        ["Ranged", 2, 3, 4, "ranged", "snips/parts.md"],
        ["Cut part", 2, 7, 8, "cut-part", "snips/parts.md"],
    ]
    index = okf_sphinx.open_index(out)
    assert [f["path"] for f in index.files()] == ["docs/index.md", "snips/parts.md"]
    data = (project / "snips" / "parts.md").read_bytes()
    read = index.read_lines("snips/parts.md", [3, 4])  # what an agent reads for the Ranged section
    assert read["content"] == "## Ranged\r\nText one.\rtext two."  # lines without their last break
    assert read["content_sha256"] == hashlib.sha256(data).hexdigest()


def test_mkdocstrings_and_macros_keep_exact_lines(tmp_path: Path) -> None:
    """Real mkdocstrings (``::: pkg``) and mkdocs-macros builds: every section keeps its exact
    source lines; the API objects mkdocstrings renders are object sections at their ``:::`` line
    (a note in the log), the page's own headings keep their rendered ids; headings a macro generates start no
    section (a warning naming the page, a note with unmatched_headings: info)."""
    files = {
        "index.md": "# Home\n\nIntro text.\n\n## API\n\n::: pkg\n    options:\n      show_root_heading: true\n\n"
                    "## After the API\n\nMore text.\n",
        "macros.md": "# Macros page\n\nThe project is {{ config.site_name }}.\n\n{{ heading_macro(\"Generated heading\") }}\n\n"
                     "## Real heading\n\nText under a real heading with {{ 2 + 3 }} things.\n\n{% for n in [1, 2] %}\n"
                     "## Loop heading {{ n }}\n{% endfor %}\n\n## Last heading\n\nEnd.\n",
    }
    config = ("theme:\n  name: material\nplugins:\n  - search\n  - macros\n  - mkdocstrings:\n      handlers:\n"
              "        python:\n          paths: [src]\n  - okf\nmarkdown_extensions:\n  - toc:\n      permalink: true\n")
    project = write_mkdocs_project(tmp_path / "p", files, config)
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "src" / "pkg" / "__init__.py").write_text(
        '"""A package."""\n\n\ndef retry(times: int = 3) -> int:\n    """Retry a call."""\n    return times\n\n\n'
        'class Client:\n    """A client."""\n\n    def fetch(self, url: str) -> str:\n        """Fetch a URL."""\n        return url\n',
        encoding="utf-8")
    (project / "main.py").write_text(
        "def define_env(env):\n    @env.macro\n    def heading_macro(text):\n        return '## ' + text + '\\n\\nMacro body.'\n",
        encoding="utf-8")
    out = tmp_path / "site"
    proc = mkdocs_build(project, out)
    html = (out / "index.html").read_text(encoding="utf-8")
    assert 'id="pkg.Client.fetch"' in html  # mkdocstrings really rendered the API
    assert outline(out)["index"]["sections"] == [
        ["Home", 1, 1, 4, "home"], ["API", 2, 5, 10, "api"],
        ["pkg", 3, 7, 7, "pkg"], ["pkg.Client", 4, 7, 7, "pkg.Client"], ["pkg.Client.fetch", 5, 7, 7, "pkg.Client.fetch"],
        ["pkg.retry", 4, 7, 7, "pkg.retry"],  # the API's objects, at their ':::' line (test_mkdocstrings_objects_...)
        ["After the API", 2, 11, 13, "after-the-api"]]
    assert outline(out)["macros"]["sections"] == [
        ["Macros page", 1, 1, 6, "macros-page"], ["Real heading", 2, 7, 14, "real-heading"],
        ["Last heading", 2, 15, 17, "last-heading"]]
    assert 'id="generated-heading"' in (out / "macros" / "index.html").read_text(encoding="utf-8")
    log = proc.stderr
    assert re.search(r"INFO .*mkdocstrings.*documented-object.* index\.md \(4\)", log), log
    assert re.search(r"WARNING .*rewritten.* macros\.md \(3\)", log), log
    assert "Traceback" not in log
    # --strict fails on the macro warning only; once acknowledged, it passes
    assert mkdocs_build(project, tmp_path / "strict", "--strict", check=False).returncode != 0
    (project / "mkdocs.yml").write_text(
        (project / "mkdocs.yml").read_text(encoding="utf-8").replace("  - okf\n", "  - okf:\n      unmatched_headings: info\n"),
        encoding="utf-8")
    mkdocs_build(project, tmp_path / "strict-ok", "--strict")


_BUILD_WITH = """
import sys
from okf_sphinx.capture.mkdocs import page as mkdocs_page
original = mkdocs_page.headings_from_tree
taken = []
def patched(*args, **kwargs):
    found = None if sys.argv[1] == "shadow-only" else original(*args, **kwargs)
    taken.append(found is not None)
    return found
mkdocs_page.headings_from_tree = patched
from mkdocs.__main__ import cli
try:
    cli.main(args=["build", "-q", "-d", sys.argv[2]], prog_name="mkdocs", standalone_mode=False)
finally:
    print("OKF-FAST-PATH", sum(taken), len(taken))
"""


def _fast_path_runs(project: Path, tmp_path: Path) -> dict[str, list[int]]:
    """Build ``project`` normally and with the shadow parse only (into ``tmp_path/<mode>``):
    per mode, [pages that took their headings from the real render, pages]."""
    runs = {}
    for mode in ("normal", "shadow-only"):
        proc = subprocess.run([sys.executable, "-c", _BUILD_WITH, mode, str(tmp_path / mode)], cwd=project,
                              capture_output=True, text=True, env=build_env(), timeout=600)
        assert proc.returncode == 0, proc.stderr
        runs[mode] = [int(n) for n in re.search(r"OKF-FAST-PATH (\d+) (\d+)", proc.stdout).groups()]
    return runs


def test_headings_from_the_real_render_equal_the_shadow_parse(tmp_path: Path) -> None:
    """Most pages take their headings from the real render's block tree (no second parse);
    the index is byte for byte the one the shadow parse of every page gives."""
    project = copy_example(tmp_path / "p")
    runs = _fast_path_runs(project, tmp_path)
    assert runs["normal"][0] >= 5 and runs["shadow-only"][0] == 0  # the real render served several pages
    assert index_bytes(tmp_path / "normal") == index_bytes(tmp_path / "shadow-only")


def test_lines_that_look_like_headings_but_are_none_keep_the_real_render_exact(tmp_path: Path) -> None:
    """Pages with ``#`` lines that are no headings (comments in fenced blocks, indented code)
    take their headings from the real render when only one placement fits, and the index is
    byte for byte the shadow parse's; an ambiguous page (a comment with a heading's own text
    before it) and a page with a heading on a list item line are shadow-parsed."""
    fence = "```yaml\n# {text}\nkey: value\n```\n\n"
    files = {
        "index.md": "# Home\n\n" + fence.format(text="a comment") + "## Install\n\n    # indented code\n\n"
                    "## Use\n\n" + fence.format(text="another comment") + "Text.\n",
        "setext.md": "Title\n=====\n\n" + fence.format(text="not a title") + "Second\n------\n\nBody.\n",
        "ambiguous.md": "# Page\n\n" + fence.format(text="Options") + "# Options\n\nText.\n",
        "listed.md": "# Listed\n\n" + fence.format(text="Item heading") + "- # Item heading\n\n## After\n\nEnd.\n",
    }
    project = write_mkdocs_project(tmp_path / "p", files, "markdown_extensions:\n  - toc:\n      permalink: true\n"
                                   "  - pymdownx.superfences\n  - admonition\n")
    runs = _fast_path_runs(project, tmp_path)
    # index.md and setext.md from the real render; ambiguous.md and listed.md shadow-parsed
    assert runs["normal"] == [2, 4] and runs["shadow-only"] == [0, 4]
    assert index_bytes(tmp_path / "normal") == index_bytes(tmp_path / "shadow-only")
    sections = outline(tmp_path / "normal")
    assert [s[:2] + s[4:] for s in sections["index"]["sections"]] == [["Home", 1, "home"], ["Install", 2, "install"], ["Use", 2, "use"]]
    assert [s[:3] for s in sections["ambiguous"]["sections"]] == [["Page", 1, 1], ["Options", 1, 8]]


_PKG = '''"""A package of clients."""


def retry(times: int = 3) -> int:
    """Retry a call a few times.

    Args:
        times: How many attempts.
    """
    return times


class Client:
    """A client that talks to the server."""

    timeout: float = 2.5
    """Seconds before a request gives up."""

    @property
    def address(self) -> str:
        """The server's address."""
        return "localhost"

    def fetch(self, url: str) -> str:
        """Fetch a URL and return its body."""
        return url
'''


def test_mkdocstrings_objects_are_documented_object_sections(tmp_path: Path) -> None:
    """mkdocstrings' objects become documented-object sections as Sphinx's autodoc ones do: full
    dotted name, kind, signature, generated text, located at the ``:::`` line; smart search
    ranks an object named by the query first, get_section finds it by name, the kind filter
    selects it, objects.js lists it, and keyword hits stay the contract's and read back."""
    files = {
        "index.md": "# Home\n\nIntro about clients.\n\n## Reference\n\nThe API:\n\n::: pkg\n    options:\n"
                    "      show_root_heading: true\n\n## Notes\n\nA client is cheap to make.\n",
        "retry.md": "# Retrying\n\nRetry a call when the server is busy.\n\n::: pkg.retry\n\n## Fetching\n\n"
                    "Then [fetch again](index.md#pkg.Client.fetch) or read [the reference](index.md#reference).\n",
    }
    config = ("plugins:\n  - search\n  - mkdocstrings:\n      handlers:\n        python:\n          paths: [src]\n"
              "  - okf\nmarkdown_extensions:\n  - toc:\n      permalink: true\n")
    project = write_mkdocs_project(tmp_path / "p", files, config)
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "src" / "pkg" / "__init__.py").write_text(_PKG, encoding="utf-8")
    out = tmp_path / "site"
    mkdocs_build(project, out)
    assert 'id="pkg.Client.fetch"' in (out / "index.html").read_text(encoding="utf-8")
    index = okf_sphinx.open_index(out)
    page = index.page(next(n for c, _t, n, _s, _p in index.concepts() if c == "index"))
    objects = {s["name"]: s for s in page["sections"] if "kind" in s}
    assert {n: (s["kind"], s["level"], s["line_start"], s["line_end"], s["anchor"], s["generated"]) for n, s in objects.items()} == {
        "pkg": ("py:module", 3, 9, 9, "pkg", True),
        "pkg.Client": ("py:class", 4, 9, 9, "pkg.Client", True),
        "pkg.Client.timeout": ("py:attribute", 5, 9, 9, "pkg.Client.timeout", True),
        "pkg.Client.address": ("py:property", 5, 9, 9, "pkg.Client.address", True),
        "pkg.Client.fetch": ("py:method", 5, 9, 9, "pkg.Client.fetch", True),
        "pkg.retry": ("py:function", 4, 9, 9, "pkg.retry", True),
    }
    by_sid = {s["sid"]: s for s in page["sections"]}
    assert by_sid[objects["pkg.Client.fetch"]["parent"]]["name"] == "pkg.Client"
    assert by_sid[objects["pkg"]["parent"]]["heading"] == "Reference"
    assert [s["heading"] for s in page["sections"] if "kind" not in s] == ["Home", "Reference", "Notes"]
    # the object's record: signature and the rendered text (members and source listing left out)
    fetch = index.section(objects["pkg.Client.fetch"]["sid"])
    assert fetch["signature"].startswith("fetch(") and "Fetch a URL and return its body." in fetch["text"]
    client = index.section(objects["pkg.Client"]["sid"])
    assert "A client that talks to the server." in client["text"] and "Fetch a URL" not in client["text"]
    assert fetch["url"] == "#pkg.Client.fetch" or fetch["url"].endswith("#pkg.Client.fetch")
    # objects.js, both pages (pkg.retry is rendered on two pages)
    assert sorted((r[0], r[1]) for r in index.objects()) == sorted(
        [("pkg", "py:module"), ("pkg.Client", "py:class"), ("pkg.Client.timeout", "py:attribute"),
         ("pkg.Client.address", "py:property"),
         ("pkg.Client.fetch", "py:method"), ("pkg.retry", "py:function"), ("pkg.retry", "py:function")])
    # smart mode: a query naming the object finds it first
    for query, name in (("Client.fetch", "pkg.Client.fetch"), ("fetch", "pkg.Client.fetch"), ("pkg.Client", "pkg.Client"),
                        ("timeout", "pkg.Client.timeout")):
        first = index.search(query, mode="smart")["pages"][0]["hits"][0]
        assert first["heading"] == name, (query, first)
    # get_section by object name (full or dotted tail) returns the object's section
    got = index.get_section(object="Client.fetch")
    assert got["heading"] == "pkg.Client.fetch" and got["locator"] == "index.md#L9-L9"
    # the kind filter selects objects of that kind only
    only = index.search("client", mode="smart", kind="py:class")
    assert [h["heading"] for p in only["pages"] for h in p["hits"]] == ["pkg.Client"]
    # keyword mode: the contract's fields; every hit's locator reads back with its SHA-256
    hits = index.search("fetch url")["hits"]
    assert hits and hits[0]["heading"] == "pkg.Client.fetch"
    for hit in hits:
        assert list(hit) == ["concept_id", "path", "heading", "locator", "line_start", "line_end", "content_sha256",
                             "snippet", "score", "matched_terms"]
        read = index.read_lines(hit["path"], [hit["line_start"], hit["line_end"]])
        assert read["content_sha256"] == hit["content_sha256"] and read["locator"] == hit["locator"]
    assert index.read_lines("index.md", [9, 9])["content"].startswith("::: pkg")  # an object's range: its directive
    # a link to an object's id is an object link (as a Sphinx role naming it), to a heading a ref
    expanded = index.search("fetch again", mode="smart", expand=True)["expanded"]
    assert [(e["heading"], e["via"], e["from"]) for e in expanded] == [
        ("pkg.Client.fetch", "object", "retry.md#L7-L9"), ("Reference", "ref", "retry.md#L7-L9")]
    # --dirty: the unchanged page with objects is taken from the previous index, objects and all
    retry = project / "docs" / "retry.md"
    retry.write_text(retry.read_text(encoding="utf-8") + "\n## Backoff\n\nWait longer each time.\n", encoding="utf-8")
    mkdocs_build(project, out, "--dirty")
    mkdocs_build(project, tmp_path / "full")
    assert index_bytes(out) == index_bytes(tmp_path / "full")
    # and the page its links point to: retry.md is reused, its object and ref links with it
    home = project / "docs" / "index.md"
    home.write_text(home.read_text(encoding="utf-8") + "\nOne more note.\n", encoding="utf-8")
    mkdocs_build(project, out, "--dirty")
    mkdocs_build(project, tmp_path / "full2")
    assert index_bytes(out) == index_bytes(tmp_path / "full2")
    # switched off: no object sections, the page as before
    (project / "mkdocs.yml").write_text(
        (project / "mkdocs.yml").read_text(encoding="utf-8").replace("  - okf\n", "  - okf:\n      objects: false\n"),
        encoding="utf-8")
    mkdocs_build(project, tmp_path / "off")
    off = okf_sphinx.open_index(tmp_path / "off")
    assert off.objects() == [] and [s["heading"] for s in off.page(0)["sections"]] == ["Home", "Reference", "Notes"]


def test_links_between_pages_expand_smart_answers_and_count_as_inbound(site: Path) -> None:
    """Links between pages in the rendered HTML are the site's cross-references, as on Sphinx
    sites: ``doc`` for a page, ``ref`` for an anchor (here one of a snippet's sections), so
    smart ``expand`` adds the linked sections (with ``via`` and ``from``) and the page priors
    count the pages linking in (example_mkdocs: index.md -> retry.md, retry.md ->
    snippets.md#timeout-recipe and release.md)."""
    from okf_sphinx.writer.smart_index import structure_factor

    index = okf_sphinx.open_index(site)
    # words of both linking sections, so both clear the sub-hit floor (docs/smart.md) and are hits
    answer = index.search("retry counters deadline", mode="smart", expand=True)
    hits = {h["locator"] for p in answer["pages"] for h in p["hits"]}
    assert "docs/retry.md#L6-L13" in hits and "docs/retry.md#L14-L17" in hits
    assert [(e["heading"], e["url"], e["locator"], e["via"], e["from"]) for e in answer["expanded"]] == [
        ("Timeout recipe", "snippets/#timeout-recipe", "includes/recipes.md#L12-L14", "ref", "docs/retry.md#L6-L13"),
        ("Release 1.6", "release/#release-16", "docs/release.md#L1-L5", "doc", "docs/retry.md#L14-L17"),
    ]
    assert [(e["heading"], e["via"], e["from"]) for e in index.search("fixture", mode="smart", expand=True)["expanded"]] == [
        ("Retry policy", "doc", "docs/index.md#L1-L5")]
    # the answer without expand is unchanged by it
    plain = index.search("retry counters deadline", mode="smart")
    assert {k: v for k, v in answer.items() if k != "expanded"} == plain
    # the same links in every surface: the CLI gives the same bytes
    cli = subprocess.run([sys.executable, "-m", "okf_sphinx", "search", str(site), "--query", "fixture", "--mode", "smart",
                          "--expand", "--json"], capture_output=True, text=True, timeout=120, env=build_env())
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout) == index.search("fixture", mode="smart", expand=True)
    priors = page_priors(site)
    # every page but the home page is a top-level page of the nav (depth 1: see test_nav_depths_…)
    one = float(f"{structure_factor(1, 1):.4g}")
    assert one > float(f"{structure_factor(0, 1):.4g}")
    assert priors["docs/retry.md"] == priors["docs/release.md"] == priors["docs/snippets.md"] == one
    assert priors["docs/notes.md"] == float(f"{structure_factor(0, 1):.4g}")
    assert priors["docs/index.md"] == float(f"{structure_factor(0, 0):.4g}")


NAV_PAGES = {
    "index.md": "# Home\n\nWelcome.\n",
    "top.md": "# Top\n\nA top-level page.\n",
    "guide/index.md": "# Guide\n\nThe guide's own page.\n",
    "guide/a.md": "# A\n\nFirst guide page.\n",
    "guide/deep/index.md": "# Deep\n\nThe deep section's page.\n",
    "guide/deep/b.md": "# B\n\nA deep page.\n",
    "orphan.md": "# Orphan\n\nIn no nav.\n",
}
NAV = """nav:
  - Home: index.md
  - Top: top.md
  - Guide:
    - guide/index.md
    - A: guide/a.md
    - Deep:
      - guide/deep/index.md
      - B: guide/deep/b.md
      - Top again: top.md
not_in_nav: |
  /orphan.md
"""


@pytest.mark.parametrize(("theme", "indexes"), [("material", True), ("mkdocs", False)])
def test_nav_depths_are_the_page_priors_toctree_depths(tmp_path: Path, theme: str, indexes: bool) -> None:
    """MkDocs' nav is the toctree of the structural page priors (docs/smart.md): the home page
    depth 0, top-level pages 1, a section's pages one deeper per level; with Material's
    ``navigation.indexes`` a section's index page stands at the section's level; a page listed
    twice keeps its shallowest place; a page in no nav counts as unreached.  A ``--dirty``
    rebuild gives the same priors (the same index) as a full build."""
    from okf_sphinx.writer.smart_index import UNREACHED_DEPTH, structure_factor

    features = "  features:\n    - navigation.indexes\n" if indexes else ""
    project = write_mkdocs_project(tmp_path / "p", NAV_PAGES, f"theme:\n  name: {theme}\n{features}" + NAV)
    out = tmp_path / "site"
    mkdocs_build(project, out, "--strict")
    depths = {"index.md": 0, "top.md": 1, "guide/index.md": 1 if indexes else 2, "guide/a.md": 2,
              "guide/deep/index.md": 2 if indexes else 3, "guide/deep/b.md": 3, "orphan.md": UNREACHED_DEPTH}
    assert page_priors(out) == {page: float(f"{structure_factor(0, d):.4g}") for page, d in depths.items()}
    assert len(set(page_priors(out).values())) == 4  # depths 0, 1, 2, 3 (unreached: 3) tell pages apart
    page = project / "docs" / "guide" / "a.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n## More\n\nMore text.\n", encoding="utf-8")
    mkdocs_build(project, out, "--dirty")
    full = tmp_path / "full"
    mkdocs_build(project, full)
    assert index_bytes(out) == index_bytes(full)
    assert page_priors(out)["guide/deep/b.md"] == float(f"{structure_factor(0, 3):.4g}")


def test_front_matter_is_the_pages_metadata(tmp_path: Path) -> None:
    """A page's front matter (YAML or MultiMarkdown meta, as MkDocs reads it) is its metadata, as
    a Sphinx page's field list or MyST front matter: the smart `meta` filter matches it and
    ``okf-search-weight`` is the author's weight; a ``--dirty`` build that skips the page keeps both;
    a weight that is no number fails the build naming the page."""
    pages = {
        "index.md": "# Home\n\nThe walrus index.\n",
        "draft.md": "---\nstatus: draft\ntags: [sea, ice]\nokf-search-weight: 2\n---\n\n# Draft\n\nA walrus draft.\n",
        "final.md": "status: final\n\n# Final\n\nA walrus page.\n",  # MultiMarkdown meta
        "other.md": "# Other\n\nNo metadata, a walrus too.\n",
    }
    project = write_mkdocs_project(tmp_path / "p", pages)
    out = tmp_path / "site"
    mkdocs_build(project, out, "--strict")
    index = okf_sphinx.open_index(out)

    def concepts(**meta: Any) -> list[str]:
        return sorted(p["concept_id"] for p in index.search("walrus", 20, mode="smart", meta=meta)["pages"])

    assert concepts(status="draft") == ["draft"] and concepts(status="final") == ["final"]
    assert concepts(tags="ice") == ["draft"] and concepts(status="none") == []
    priors = page_priors(out)
    assert priors["draft.md"] == pytest.approx(2 * priors["other.md"], rel=1e-3)  # same depth and links: the author's 2 (4 digits kept)
    # --dirty after a change elsewhere: the skipped pages' metadata comes from their files again
    other = project / "docs" / "other.md"
    other.write_text(other.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    mkdocs_build(project, out, "--dirty")
    full = tmp_path / "full"
    mkdocs_build(project, full)
    assert index_bytes(out) == index_bytes(full)
    assert page_priors(out)["draft.md"] == priors["draft.md"]
    bad = write_mkdocs_project(tmp_path / "bad", {**pages, "draft.md": "---\nokf-search-weight: lots\n---\n\n# Draft\n"})
    proc = mkdocs_build(bad, tmp_path / "bad-site", check=False)
    assert proc.returncode != 0 and "draft" in proc.stderr and "okf-search-weight" in proc.stderr
    assert not (tmp_path / "bad-site" / "_okf").exists()


def test_weights_by_docname_with_the_change_log_default(tmp_path: Path) -> None:
    """``weights`` (okf_search_weights in Sphinx) weighs pages by docname pattern, change logs
    0.5 by default (bench/NOTEBOOK.md: with the heading tiers it no longer costs the change
    log's own queries); front matter wins over a pattern; ``weights: {}`` turns it off."""
    pages = {
        "index.md": "# Home\n\nThe walrus index.\n",
        "changelog.md": "# Changelog\n\nA walrus line.\n",
        "guide/a.md": "# A\n\nA walrus page.\n",
        "guide/b.md": "---\nokf-search-weight: 1\n---\n\n# B\n\nA walrus page.\n",
    }
    priors = {}
    for name, config in (("default", ""), ("set", "plugins:\n  - search\n  - okf:\n      weights: {'guide/*': 3}\n"),
                         ("off", "plugins:\n  - search\n  - okf:\n      weights: {}\n")):
        project = write_mkdocs_project(tmp_path / name, pages, config)
        mkdocs_build(project, tmp_path / f"{name}-site", "--strict")
        priors[name] = page_priors(tmp_path / f"{name}-site")
    default, chosen, off = priors["default"], priors["set"], priors["off"]
    assert default["changelog.md"] == pytest.approx(0.5 * off["changelog.md"], rel=1e-3)
    assert default["guide/a.md"] == off["guide/a.md"]
    assert chosen["guide/a.md"] == pytest.approx(3 * off["guide/a.md"], rel=1e-3)
    assert chosen["guide/b.md"] == off["guide/b.md"]  # its front matter says 1
    assert chosen["changelog.md"] == off["changelog.md"]  # the author's mapping replaces the default


# -- build errors in the author's own words (issue 20, points 7 and 8) -------------------------------


@pytest.mark.parametrize("weight", ["1" + "0" * 400, "1e999", "-0", ".nan"])
def test_a_huge_or_odd_weight_in_front_matter_names_the_page_and_the_field(tmp_path: Path, weight: str) -> None:
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# Home\n\nText.\n",
                                                    "draft.md": f"---\nokf-search-weight: {weight}\n---\n\n# Draft\n"})
    out = tmp_path / "site"
    proc = mkdocs_build(project, out, check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "draft" in proc.stderr and "okf-search-weight" in proc.stderr and "at most 100" in proc.stderr
    assert len(proc.stderr) < 4000  # a 400-digit value is not echoed whole
    assert not (out / "_okf").exists()


def test_output_dir_naming_a_folder_okf_did_not_write_is_refused_in_mkdocs_words(tmp_path: Path) -> None:
    """output_dir: search — the search plugin's own folder: the build fails once, naming
    the option as mkdocs.yml spells it, and leaves that folder alone."""
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# Home\n\nText.\n"},
                                   "plugins:\n  - search\n  - okf:\n      output_dir: search\n")
    out = tmp_path / "site"
    proc = mkdocs_build(project, out, check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "output_dir" in proc.stderr and "mkdocs.yml" in proc.stderr
    assert "okf_search_output_dir" not in proc.stderr and "conf.py" not in proc.stderr
    assert proc.stderr.count("is not an okf_sphinx index") == 1, proc.stderr
    assert (out / "search" / "search_index.json").is_file()  # the search plugin's index, untouched


def test_a_limit_is_named_as_mkdocs_yml_spells_it(tmp_path: Path) -> None:
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# A\n\n## B\n\n## C\n\n## D\n"},
                                   "plugins:\n  - okf:\n      limits: {sections: 2}\n")
    proc = mkdocs_build(project, tmp_path / "site", check=False)
    assert proc.returncode != 0 and "limits: {sections: N}" in proc.stderr and "mkdocs.yml" in proc.stderr
    assert "okf_search_limits" not in proc.stderr and "conf.py" not in proc.stderr


def test_symlinked_pages_keep_their_paths_and_reveal_nothing_of_the_machine(tmp_path: Path) -> None:
    """A page that is a link to a file outside the project, and a linked folder of pages:
    their paths are where MkDocs sees them (``notes.md``, ``linked/a.md``), never their
    targets', and the other pages' locators are a plain build's (issue 20, point 4)."""
    private = tmp_path / "private-notes"
    private.mkdir()
    (private / "notes.md").write_text("# Notes\n\nPrivate walrus notes.\n", encoding="utf-8")
    (private / "a.md").write_text("# A\n\nThe walrus in a linked folder.\n", encoding="utf-8")
    pages = {"index.md": "# Home\n\nThe walrus home.\n\n## More\n\nText.\n"}
    plain = write_mkdocs_project(tmp_path / "plain", pages)
    mkdocs_build(plain, tmp_path / "plain-site")
    project = write_mkdocs_project(tmp_path / "proj", pages)
    (project / "docs" / "notes.md").symlink_to(private / "notes.md")
    (project / "docs" / "linked").symlink_to(private, target_is_directory=True)
    out = tmp_path / "site"
    mkdocs_build(project, out)
    index = okf_sphinx.open_index(out)
    assert [f["path"] for f in index.files()] == ["index.md", "linked/a.md", "linked/notes.md", "notes.md"]
    assert {h["path"] for h in index.search("walrus")["hits"]} == {"index.md", "linked/a.md", "linked/notes.md", "notes.md"}
    before = okf_sphinx.open_index(tmp_path / "plain-site")
    assert index.get_section(concept_id="index")["outline"] == before.get_section(concept_id="index")["outline"]
    published = b"".join(p.read_bytes() for p in sorted((out / "_okf").rglob("*.js")))
    for secret in (b"private-notes", str(tmp_path).encode(), tmp_path.name.encode()):
        assert secret not in published, secret


def test_a_server_reading_the_site_never_sees_no_index_during_plain_rebuilds(tmp_path: Path) -> None:
    """``mkdocs build`` empties site_dir before it builds (its clean): an ``okf mcp`` reading
    the site through three plain rebuilds answers every call from the old index or the new
    one, never index_not_found (issue 20, point 11)."""
    import threading

    import anyio
    from support.mcp import session_for, structured

    pages = {"index.md": "# Home\n\nThe walrus home.\n", **{f"p{i}.md": f"# Page {i}\n\nA walrus, page {i}.\n" for i in range(40)}}
    project = write_mkdocs_project(tmp_path / "p", pages)
    out = tmp_path / "site"
    mkdocs_build(project, out)
    done = threading.Event()

    def rebuild() -> None:
        try:
            for _ in range(3):
                mkdocs_build(project, out)
        finally:
            done.set()

    async def go() -> list[Any]:
        answers: list[Any] = []
        async with session_for(out) as s:
            builder = threading.Thread(target=rebuild)
            builder.start()
            while not done.is_set() or len(answers) < 20:
                answers.append(await s.call_tool("search_sections", {"query": "walrus", "limit": 3}))
                if len(answers) > 20_000:
                    break
            builder.join()
        return answers

    answers = anyio.run(go)
    failed = [structured(a)["error"] for a in answers if a.is_error]
    assert len(answers) >= 20 and failed == [], (len(answers), failed[:3])
    assert all(structured(a)["total"] == 41 for a in answers)
