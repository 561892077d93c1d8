"""``okf index SITE_DIR`` after a real Zensical build (and a MkDocs build without the plugin).

Zensical (``pip install zensical``, in the test set-up of the README) builds a small project
the tests write; ``python -m okf_sphinx index`` then adds the index, the agent files and
the dialog.  Sections are checked against the source bytes (exact lines, SHA-256), the
agent tools read them over the CLI and MCP, the dialog answers in Chromium as the Python
API does, and bad input is refused with a named code, the site left as it was.  On
example_mkdocs, ``okf index`` after a plain MkDocs build writes the very bytes the plugin
writes.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import zensical  # noqa: F401 - in the test extras: a missing Zensical fails, never skips

from support.build import write_files
from support.mkdocs_sites import EXAMPLE_MKDOCS, build_env, index_bytes, mkdocs_build
from support.zensical_sites import PROJECT, make_site, run_okf, snapshot, zensical_build

@pytest.fixture(scope="module")
def zen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("zen")
    site = make_site(root)
    proc = run_okf("index", "site", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return site


def test_okf_index_writes_the_index_agent_files_and_dialog(zen: Path) -> None:
    assert (zen / "_okf" / "manifest.js").is_file()
    assert (zen / "llms.txt").read_text(encoding="utf-8").startswith("# Zen test\n\n> A small Zensical site")
    assert (zen / "search.html").is_file() and 'id="okf-search"' in (zen / "search.html").read_text(encoding="utf-8")
    for rel in ("index.html", "guide/install/index.html", "guide/usage/index.html", "notes/index.html", "search.html"):
        text = (zen / rel).read_text(encoding="utf-8")
        assert text.count("okf-boot.js") == (rel != "search.html"), rel  # the search page has no dialog: it is the search
        assert 'data-md-component="search"' not in text  # Zensical's own search is not started
    assert "okf-boot.js" not in (zen / "404.html").read_text(encoding="utf-8")
    for name in ("okf-boot.js", "okf-search.js", "okf-dialog.js", "okf-mkdocs.js", "okf-stemmer-english.js"):
        assert (zen / "assets" / "okf" / name).is_file()


def test_sections_have_exact_source_lines(zen: Path) -> None:
    from okf_sphinx import open_index

    index = open_index(zen)
    docs = zen.parent / "docs"
    got = {}
    for sid in range(index.sections_all):
        s = index.section(sid)
        lines = (docs / s["path"]).read_text(encoding="utf-8").split("\n")
        got[(s["path"], s["heading"])] = (s["line_start"], s["line_end"], s["url"])
        first = lines[s["line_start"] - 1]
        if s["heading"] and s["heading"] != "Usage" and s["path"] != "notes.md" and s["heading"] != "Setext heading":
            assert first.lstrip("#").strip() == s["heading"], (s, first)
    assert got[("guide/install.md", "Install")][:2] == (5, 8)
    assert got[("guide/install.md", "Requirements")] == (9, 12, "guide/install/#requirements")
    assert got[("guide/install.md", "Optional extras")][:2] == (13, 21)  # the fence's "#" is no heading
    assert got[("guide/usage.md", "Setext heading")][:2] == (9, 12)
    assert got[("notes.md", "")][:2] == (1, 1)  # no heading: one section
    assert index.search_concepts("notes")["concepts"][0]["title"] == "Notes"  # titled by its file name
    titles = {c["concept_id"]: c["title"] for c in index.search_concepts("install")["concepts"]}
    assert titles["guide/install"] == "Installing"  # front matter title, as Zensical titles it
    assert index.search_concepts("usage")["concepts"][0]["title"] == "Using it"  # the nav's title first


def test_agent_tools_read_exact_sections_verified_by_sha256(zen: Path) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    proc = run_okf("section", str(zen), "--concept", "guide/install", "--heading", "Requirements", "--json")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    data = (zen.parent / "docs/guide/install.md").read_bytes()
    source = data.split(b"\n")
    want = b"\n".join(source[8:21])  # with its subsection (content_locator: lines 9-21, the file's last)
    assert answer["content"].encode() == want and answer["content_locator"] == "guide/install.md#L9-L21"
    assert answer["content_sha256"] == hashlib.sha256(data).hexdigest()  # the captured file's, as on disk
    assert answer["line_start"] == 9 and answer["line_end"] == 12

    async def go() -> dict[str, Any]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "okf_sphinx", "mcp", str(zen)],
                                       env=build_env())
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("get_section", {"locator": answer["locator"]})
                return result.structured_content

    assert anyio.run(go) == answer


def test_okf_index_is_deterministic_and_idempotent(zen: Path, tmp_path: Path) -> None:
    again = make_site(tmp_path)
    assert run_okf("index", "site", cwd=tmp_path).returncode == 0
    first = snapshot(again)
    assert index_bytes(again) == index_bytes(zen)
    assert run_okf("index", "site", cwd=tmp_path).returncode == 0  # a second run changes nothing
    assert snapshot(again) == first


def test_a_rebuild_after_an_edit_is_indexed_again(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    assert run_okf("index", "site", cwd=tmp_path).returncode == 0
    with (tmp_path / "docs/guide/usage.md").open("a", encoding="utf-8") as f:
        f.write("\n## Added later\n\nA new word: capybara.\n")
    zensical_build(tmp_path)
    assert run_okf("index", "site", cwd=tmp_path).returncode == 0
    from okf_sphinx import open_index

    hits = open_index(site).search("capybara")["hits"]
    assert [(h["path"], h["heading"], h["line_start"]) for h in hits] == [("guide/usage.md", "Added later", 14)]
    assert (site / "guide/usage/index.html").read_text(encoding="utf-8").count("okf-boot.js") == 1


def test_pages_without_a_source_are_logged_and_left_out(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    (tmp_path / "docs/notes.md").unlink()  # its built page now has no source (as a generated page has none)
    proc = run_okf("index", "site", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["pages"] == 3 and any("notes/index.html" in n and "no Markdown source" in n for n in report["notes"])
    from okf_sphinx import open_index

    assert open_index(site).search_concepts("notes")["concepts"] == []


@pytest.mark.parametrize("case", ["missing", "empty", "not_a_build", "wrong_source", "bad_option"])
def test_bad_input_is_a_named_error_and_nothing_is_written(tmp_path: Path, case: str) -> None:
    site = make_site(tmp_path / "p")
    project = tmp_path / "p"
    args = ["index", "site"]
    want = {"missing": "site_not_built", "empty": "site_not_built", "not_a_build": "site_not_built",
            "wrong_source": "source_mismatch", "bad_option": "schema_validation"}[case]
    if case == "missing":
        args = ["index", "nowhere"]
    elif case == "empty":
        (project / "empty").mkdir()
        args = ["index", "empty"]
    elif case == "not_a_build":
        write_files(project / "plain", {"index.html": "<html><body><p>hand-written</p></body></html>"})
        args = ["index", "plain"]
    elif case == "wrong_source":
        write_files(project / "other", {"elsewhere/page.md": "# Page\n"})
        args += ["--source", "other"]
    else:
        toml = project / "zensical.toml"
        toml.write_text(toml.read_text(encoding="utf-8") + "\n[project.plugins.okf]\nindex_files = 99\n", encoding="utf-8")
    before = snapshot(project)
    proc = run_okf(*args, "--json", cwd=project)
    envelope = json.loads(proc.stdout)["error"]
    assert envelope["code"] == want, envelope
    assert proc.returncode == {"site_not_built": 24, "source_mismatch": 25, "schema_validation": 2}[want]
    assert "Traceback" not in proc.stderr and "Nothing was written" in envelope["message"] or want == "schema_validation"
    assert snapshot(project) == before
    assert not (site / "_okf").exists()
    text = run_okf(*args, cwd=project)  # without --json: one line on stderr, nothing on stdout
    assert text.stdout == "" and text.stderr.startswith(f"okf: error: {want}: ")


def test_a_heading_too_long_is_build_failed_with_no_index(tmp_path: Path) -> None:
    files = dict(PROJECT)
    files["docs/guide/usage.md"] = "# Usage\n\n## " + "long " * 400 + "\n\ntext\n"
    site = make_site(tmp_path, files)
    proc = run_okf("index", "site", "--json", cwd=tmp_path)
    assert json.loads(proc.stdout)["error"]["code"] == "build_failed" and proc.returncode == 26
    assert not (site / "_okf").exists() and not (site / "llms.txt").exists()


def test_mkdocs_build_then_okf_index_equals_the_plugin(tmp_path: Path) -> None:
    """example_mkdocs: the plugin's index, and okf index after a build without the plugin — the same bytes."""
    with_plugin = tmp_path / "a"
    shutil.copytree(EXAMPLE_MKDOCS, with_plugin, ignore=shutil.ignore_patterns("site", "__pycache__"))
    mkdocs_build(with_plugin, with_plugin / "site")
    plain = tmp_path / "b"
    shutil.copytree(with_plugin, plain, ignore=shutil.ignore_patterns("site"))
    config = (plain / "mkdocs.yml").read_text(encoding="utf-8")
    start = config.index("  - okf:")
    end = config.index("markdown_extensions:")
    (plain / "mkdocs.yml").write_text(config[:start] + config[end:], encoding="utf-8")
    mkdocs_build(plain, plain / "site")
    assert not (plain / "site" / "_okf").exists()
    proc = run_okf("index", "site", cwd=plain)
    assert proc.returncode == 0, proc.stderr
    assert index_bytes(plain / "site") == index_bytes(with_plugin / "site")
    for name in ("llms.txt", "llms-full.txt"):
        assert (plain / "site" / name).read_bytes() == (with_plugin / "site" / name).read_bytes()


def test_blog_posts_are_paired_with_their_dated_pages(tmp_path: Path) -> None:
    """Zensical's blog plugin builds posts at dated URLs and archive pages of its own."""
    site = make_site(tmp_path, {
        "zensical.toml": '[project]\nsite_name = "Blog test"\n\n[project.plugins.blog]\n',
        "docs/index.md": "# Home\n\nWelcome.\n",
        "docs/blog/index.md": "# Blog\n\nNews from us.\n",
        "docs/blog/posts/hello.md": "---\ndate: 2024-05-01\n---\n\n# Hello world\n\nFirst post about pelicans.\n\n"
                                    "## Details\n\nMore pelicans.\n",
    })
    proc = run_okf("index", "site", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["pages"] == 3
    assert report["notes"] == ["1 built pages have no Markdown source (generated pages) and are not indexed: "
                               "blog/archive/2024/index.html"]
    from okf_sphinx import open_index

    index = open_index(site)
    sections = {(s["path"], s["heading"]): (s["line_start"], s["url"])
                for s in (index.section(i) for i in range(index.sections_all))}
    assert sections[("blog/posts/hello.md", "Hello world")] == (5, "blog/2024/05/01/hello-world/#hello-world")
    assert sections[("blog/posts/hello.md", "Details")] == (9, "blog/2024/05/01/hello-world/#details")
    assert sections[("blog/index.md", "Blog")] == (1, "blog/#blog")  # the blog index's own text
