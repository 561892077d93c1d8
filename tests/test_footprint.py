"""Index format 2's footprint: packed section files, captured files served from the
site's ``_sources/`` copies, bounded file counts, and no Sphinx search index when
okf_sphinx's search replaces Sphinx's."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

import okf_sphinx
from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.hosts import SPHINX
from okf_sphinx.writer import index_writer, packing, sizing, smart_index

from support.build import index_value, logical_files, sphinx_build, write_project

PAGES = {
    "index.rst": "Home\n====\n\n.. toctree::\n\n   usage\n   other\n\n.. include:: _inc/part.rst\n",
    "_inc/part.rst": "Included part\n-------------\n\nIncluded walrus text.\n",
    "usage.rst": "Usage\n=====\n\nRetry the request.\n\n" + "".join(
        f"Section {i}\n{'-' * (8 + len(str(i)))}\n\nWalrus number {i} retries politely.\n\n" for i in range(60)
    ),
    "other.md": "# Other\n\nA walrus in Markdown.\n",
}


def _files(okf: Path) -> dict[str, bytes]:
    return {p.relative_to(okf).as_posix(): p.read_bytes() for p in sorted(okf.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = write_project(tmp_path_factory.mktemp("fp") / "src", PAGES)
    out = src.parent / "html"
    sphinx_build(src, out)
    return out


def test_sections_are_packed_into_files_each_reader_unpacks_alike(built: Path) -> None:
    index = okf_sphinx.open_index(built)
    m = index.manifest
    assert m["format_version"] == 8 and m["sections_all"] > 60
    starts = fmt.section_starts(m["section_files"])
    assert sum(fmt.decode_ints(m["section_files"])) == m["sections_all"]
    assert starts[0] == 0 and len(starts) == len(list((built / "_okf" / "s").glob("*.js"))) < m["sections_all"]
    for k, first in enumerate(starts):
        chunk = fmt.unwrap(f"s/{k}", (built / "_okf" / "s" / f"{k}.js").read_bytes())
        assert chunk["first"] == first
    usage = next(c for c in index.concepts() if c[0] == "usage")
    outline = index.page(usage[2])
    for entry in outline["sections"]:
        record = index.section(entry["sid"])
        assert (record["heading"], record["line_start"], record["line_end"]) == (
            entry["heading"], entry["line_start"], entry["line_end"])
        data = (built / "_sources" / "usage.rst.txt").read_bytes()
        lines = data.decode().split("\n")
        assert record["text"] == "\n".join(lines[record["line_start"] - 1 : record["line_end"]])
        assert record["content_sha256"] == hashlib.sha256(data).hexdigest()
        assert record["locator"] == fmt.locator("usage.rst", record["line_start"], record["line_end"])


def test_captured_files_are_served_from_the_sites_sources_copy(built: Path) -> None:
    index = okf_sphinx.open_index(built)
    entries = {e["path"]: (n, e) for n, e in enumerate(index.files())}
    for path in ("index.rst", "usage.rst", "other.md"):
        n, e = entries[path]
        assert e["copy"] == f"../_sources/{path}.txt" and "pack" not in e
        assert index.file_bytes(n) == (built / "_sources" / f"{path}.txt").read_bytes()
    # an included file has no copy of its own in _sources/: the index holds it
    n, e = entries["_inc/part.rst"]
    assert "copy" not in e and e["pack"] == 0
    assert [r["path"] for r in index_value(built / "_okf", "f/0")["files"]] == ["_inc/part.rst"]
    bundled = [n for names in index_value(built / "_okf", "manifest").get("bundles", []) for n in names]
    assert [n for n in bundled if n.startswith("f/")] + [p.name for p in (built / "_okf").glob("f/*.js")] in (["f/0"], ["0.js"])
    answer = index.read_lines("usage.rst", [1, 3])
    assert answer["content"] == "Usage\n=====\n" and answer["status"] == "ok"
    assert index.get_section(locator=index.search("politely")["hits"][0]["locator"])["status"] == "ok"


def test_without_html_copy_source_the_index_holds_every_file(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", PAGES, conf="html_copy_source = False\n")
    sphinx_build(src, tmp_path / "html")
    index = okf_sphinx.open_index(tmp_path / "html")
    assert all("copy" not in e for e in index.files())
    # the small files share one pack; every one reads back exactly
    assert [n for n in logical_files(tmp_path / "html" / "_okf") if n.startswith("f/")] == ["f/0"] and len(index.files()) > 1
    assert index.read_lines("usage.rst", [1, 2])["content"] == "Usage\n====="
    for n, e in enumerate(index.files()):
        assert e["pack"] == 0 and len(index.file_bytes(n)) == e["size"]


def test_the_copy_is_named_with_html_sourcelink_suffix(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", PAGES, conf='html_sourcelink_suffix = ".src"\n')
    sphinx_build(src, tmp_path / "html")
    index = okf_sphinx.open_index(tmp_path / "html")
    entries = {e["path"]: e for e in index.files()}
    assert entries["usage.rst"]["copy"] == "../_sources/usage.rst.src"
    assert index.read_lines("usage.rst", [1, 1])["content"] == "Usage"


def test_a_copy_whose_bytes_differ_is_not_used(tmp_path: Path) -> None:
    """The index refers to a copy only when its bytes are exactly the captured ones."""
    copy = tmp_path / "_sources" / "a.rst.txt"
    copy.parent.mkdir()
    site = index_writer.Site(host=SPHINX, builder="html", page_url=lambda d: d, anchor_ok=lambda e: True, search_page="search.html",
                             source_copy=lambda path: ("../_sources/a.rst.txt", copy))
    for data, expected in ((b"A\n", "../_sources/a.rst.txt"), (b"A\r\n", None), (b"", None)):
        copy.write_bytes(data)
        assert index_writer._verified_copy(site, "a.rst", b"A\n", "utf-8") == expected
    copy.write_bytes(b"A\n")
    assert index_writer._verified_copy(site, "a.rst", b"A\n", "latin-1") is None  # decoded otherwise: f/<n>
    copy.unlink()
    assert index_writer._verified_copy(site, "a.rst", b"A\n", "utf-8") is None


def test_copies_keep_builds_byte_identical_when_relocated(built: Path, tmp_path: Path) -> None:
    moved = tmp_path / "moved"
    shutil.copytree(built, moved)
    assert okf_sphinx.open_index(moved).read_lines("other.md", [1, 1])["content"] == "# Other"
    src = write_project(tmp_path / "elsewhere" / "src", PAGES)
    sphinx_build(src, tmp_path / "elsewhere" / "html", "-j", "2")
    a, b = _files(built / "_okf"), _files(tmp_path / "elsewhere" / "html" / "_okf")
    a.pop("manifest.js"), b.pop("manifest.js")
    assert a == b


def test_file_budgets_bound_the_number_of_files() -> None:
    """A large site gets larger files rather than more of them (the writer's large-site
    budgets); below them, the page budget makes files larger only up to a largest size."""
    def postings(files: int, cap: int) -> sizing.Budget:
        return sizing.Budget(files, cap, sizing.FOLDERS["t"].largest, sizing.FOLDERS["t"].smallest)

    def built(n: int) -> packing.PostingLists:
        lists = packing.PostingLists()
        for i in range(n):
            lists.add(i, {f"w{i % 50}": 1, "common": 2, f"u{i}": 1}, 40000)  # 4 digits a length
        return lists

    stats = built(2000)
    out, shards, _ = packing.posting_shards(stats, "t", budget=postings(2, 8))  # a large-site cap of 8
    names = [k for k in out if k.startswith("t/")]
    assert shards <= 8 and len(names) <= 10, (shards, len(names))
    assert any("-" in k for k in names)  # the biggest lists have files of their own
    # a page budget of 2 files, but no shard over SHARD_MAX_BYTES: more files than the budget
    out, shards, _ = packing.posting_shards(stats, "t", budget=postings(2, sizing.FOLDERS["t"].cap))
    total = sum(len(fmt.canonical_json(v)) for k, v in out.items() if "-" not in k)
    assert shards > 2 and total / shards <= sizing.FOLDERS["t"].largest * 1.25, (shards, total)
    # a page budget that does bind: fewer, larger shards than the smallest size would make
    assert packing.posting_shards(built(300), "t", budget=postings(2, sizing.FOLDERS["t"].cap))[1] < (
        packing.posting_shards(built(300), "t")[1])
    sections = [packing.SectionRow(0, 0, ["h", 1, i + 1, i + 1, "", "x" * 120]) for i in range(400)]

    page = ["a", "A", True, "a.html", "a.rst"]
    entries = [{"path": "a", "sha256": "0" * 64}]
    # without a budget that binds, each file holds about the smallest size of s/ (~60 KB here)
    assert len(packing.pack_sections(sections, [page], entries)[1]) > 10
    def sized(files: int, cap: int) -> sizing.Budget:
        return sizing.Budget(files, cap, sizing.FOLDERS["s"].largest, sizing.FOLDERS["s"].smallest)

    # a page budget of one file: files grow only to the largest size of s/
    assert 10 < len(packing.pack_sections(sections, [page], entries, sized(1, sizing.FOLDERS["s"].cap))[1]) < len(
        packing.pack_sections(sections, [page], entries)[1])
    # a large-site budget of 4 wins over the largest size
    _files, starts = packing.pack_sections(sections, [page], entries, sized(1, 4))
    assert 3 <= len(starts) <= 5 and starts[0] == 0
    # hashed shards (d/ n/): a power of two, at most the budget
    assert smart_index._shard_count(10**6, 2048, budget=8) == 8
    assert smart_index._shard_count(10**6, 2048, budget=12) == 8
    assert smart_index._shard_count(10**6, 2048, budget=1) == 1
    assert smart_index._shard_count(10**6, 2048) == sizing.MAX_HASHED_SHARDS
    # links: about `budget` shards
    outgoing = [[(i + 1, "doc")] for i in range(2000)]
    assert len(smart_index.build_links(outgoing, budget=3)[1]) <= 4 < 10 <= len(smart_index.build_links(outgoing)[1])


LARGE_SITE = {k: f.cap for k, f in sizing.FOLDERS.items() if k != "l"}


def test_file_budgets_follow_the_number_of_pages() -> None:
    """A small or mid-size site gets about FILES_PER_PAGE files per page in all; from about
    2,731 pages on, every folder has its large-site budget."""
    previous = 0
    for pages in (0, 1, 3, 10, 27, 30, 100, 109, 300, 500):
        budgets = {k: b.files for k, b in sizing.file_budgets(pages).items()}
        total = sum(budgets.values())
        assert all(b >= 1 for b in budgets.values()) and set(budgets) == {*LARGE_SITE, "l"}
        # at least one file per folder; the shares add up to 1.03 files per FILES_PER_PAGE
        assert total <= len(budgets) + sizing.FILES_PER_PAGE * pages * 1.04, (pages, budgets)
        assert total >= previous  # more pages never means fewer files
        assert all(budgets[k] <= cap for k, cap in LARGE_SITE.items())
        previous = total
    assert sizing.file_budgets(30)["s"].files == 22 and sizing.file_budgets(100)["t"].files == 46
    for pages in (2731, 5000):
        assert {k: sizing.file_budgets(pages)[k].files for k in LARGE_SITE} == LARGE_SITE, pages
    assert sizing.file_budgets(2730)["s"].files < sizing.FOLDERS["s"].cap
    # okf_search_index_files scales every count (page budget and large-site cap) and divides the sizes
    for scale in (0.25, 2.0, 4.0):
        for pages in (30, 5000):
            one, scaled = sizing.file_budgets(pages), sizing.file_budgets(pages, scale)
            for k in one:
                assert scaled[k].cap == max(1, int(one[k].cap * scale)) and scaled[k].smallest == int(one[k].smallest / scale)
                assert abs(scaled[k].files - one[k].files * scale) <= max(1, scale), (k, pages, scale)


def test_a_small_site_gets_files_in_proportion_to_its_pages(tmp_path: Path) -> None:
    """A real build of a few text-heavy pages: each folder keeps to its budget, so the
    whole index is a few files per page (format 1 gave each small piece a file)."""
    pages = {**PAGES, "long.rst": "Long\n====\n\n" + "".join(
        f"Part {i}\n{'-' * (5 + len(str(i)))}\n\nThe {i}th walrus word{i} meets token{i * 7} and "
        f"identifier ``mod.fn_{i}`` here.\n\n" for i in range(400))}
    pages["index.rst"] = pages["index.rst"].replace("   other\n", "   other\n   long\n")
    src = write_project(tmp_path / "src", pages)
    sphinx_build(src, tmp_path / "html")
    okf = tmp_path / "html" / "_okf"
    index = okf_sphinx.open_index(tmp_path / "html")
    sized = sizing.file_budgets(index.manifest["concepts"])
    budgets = {k: b.files for k, b in sized.items()}
    largest = {k: b.largest for k, b in sized.items() if b.largest}
    counts: dict[str, int] = {}
    named = logical_files(okf)  # a bundle's parts count in their own folders
    for k in budgets:
        files = [size for name, size in named.items() if name.startswith(f"{k}/")]
        counts[k] = len(files)
        if k in largest:  # more files than the page budget only where files would outgrow their largest size
            raw = sum(files)
            assert counts[k] <= max(budgets[k], 2 * (-(-raw // largest[k])) + 1), (k, counts, budgets, raw)
            if k in "sd" and counts[k] > 1:  # hashed or packed files stay near their aim
                assert max(files) <= 3 * largest[k], (k, files)
        else:
            assert counts[k] <= budgets[k], (k, counts, budgets)
    m = index.manifest["smart"]
    assert counts["s"] == len(fmt.section_starts(index.manifest["section_files"])) and "g" not in counts
    assert counts["d"] == m["dict_shards"] and len(m["link_firsts"]) == counts["l"]
    assert index.manifest["shards"] <= counts["t"]
    # the small budgets make files larger, not the index wrong: every section is found
    assert index.search("word399")["hits"][0]["heading"] == "Part 399"
    assert index.section(index.manifest["sections_all"] - 1)["sid"] == index.manifest["sections_all"] - 1
    # okf_search_index_files = 4: about four times the files where their sizes decide, the same answers
    src4 = write_project(tmp_path / "src4", pages, conf="okf_search_index_files = 4\n")
    sphinx_build(src4, tmp_path / "html4")
    more = okf_sphinx.open_index(tmp_path / "html4")
    for k in ("s", "t"):
        n4 = len(list((tmp_path / "html4" / "_okf" / k).glob("*.js")))
        assert n4 >= 3 * counts[k], (k, n4, counts[k])
    for query, options in (("walrus", {}), ("word17 token119", {}), ("walrus", {"mode": "smart"}),
                           ("wal", {"mode": "smart", "prefix": True}), ("mod.fn_3", {"mode": "smart"})):
        assert more.search(query, 20, **options) == index.search(query, 20, **options), query


@pytest.mark.parametrize("value", ["0", "0.2", "17", "'2'", "True", "None"])
def test_index_files_setting_is_checked_before_the_build(tmp_path: Path, value: str) -> None:
    src = write_project(tmp_path / "src", {"index.rst": "T\n=\n\nyak\n"}, conf=f"okf_search_index_files = {value}\n")
    proc = sphinx_build(src, tmp_path / "out", check=False)
    assert proc.returncode != 0 and "okf_search_index_files must be a number from 0.25 to 16" in proc.stderr
    assert value in proc.stderr and not (tmp_path / "out" / "_okf").exists()
    assert "reading sources" not in proc.stdout  # refused before any page was read


def test_sphinx_search_index_is_not_shipped(built: Path) -> None:
    assert not (built / "searchindex.js").exists()
    search = (built / "search.html").read_text(encoding="utf-8")
    assert "searchindex.js" not in search and "okf-search.js" in search


def test_pydata_theme_pages_load_no_sphinx_search_scripts(tmp_path: Path) -> None:
    pytest.importorskip("pydata_sphinx_theme")
    src = write_project(tmp_path / "src", PAGES, conf='html_theme = "pydata_sphinx_theme"\n')
    out = tmp_path / "html"
    sphinx_build(src, out)
    assert not (out / "searchindex.js").exists()
    for page in ("index.html", "usage.html", "other.html", "search.html"):
        html = (out / page).read_text(encoding="utf-8")
        assert "searchindex.js" not in html and "searchtools.js" not in html and "language_data.js" not in html, page
        # the dialog, loaded when the reader reaches for search (not on the search page: it is the search)
        assert ("okf-boot.js" in html) == (page != "search.html"), page
    # keeping Sphinx's search keeps all of it
    src2 = write_project(tmp_path / "src2", PAGES, conf='html_theme = "pydata_sphinx_theme"\nokf_search_replace_builtin = False\n')
    sphinx_build(src2, tmp_path / "html2")
    assert (tmp_path / "html2" / "searchindex.js").is_file()
    assert "searchindex.js" in (tmp_path / "html2" / "usage.html").read_text(encoding="utf-8")


def test_a_stale_searchindex_is_removed(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", PAGES)
    out = tmp_path / "html"
    out.mkdir()
    (out / "searchindex.js").write_text("Search.setIndex({})", encoding="utf-8")
    sphinx_build(src, out)
    assert not (out / "searchindex.js").exists()


def test_the_relative_path_cache_lives_with_one_build() -> None:
    """sphinx-autobuild keeps one process for many builds: the writer's path table belongs to
    one build's SourceRoot (nothing module-wide grows from build to build)."""
    from pathlib import PurePosixPath

    root = index_writer.SourceRoot(PurePosixPath("/r"))
    for i in range(6000):
        assert index_writer._relative(f"/r/{i}.rst", root) == f"{i}.rst"
    assert not hasattr(index_writer._relative, "cache_info")


def test_section_files_are_cut_at_page_boundaries() -> None:
    """``s/`` files hold whole pages while they fit; only a page larger than a file is cut
    inside, into parts of about equal size; and there are no more files than filling each
    to the aim, cutting anywhere, would make."""
    import random

    rng = random.Random(3)
    page_of: list[int] = []
    costs: list[int] = []
    for page in range(80):
        for _ in range(rng.choice([1, 2, 3, 5, 8, 30])):
            page_of.append(page)
            costs.append(rng.randint(40, 900))
    target = 4096
    starts = packing.page_aligned_starts(costs, page_of, target)
    aim, size = 0, target
    for cost in costs:
        if size + cost > target and (size or not aim):
            aim, size = aim + 1, 0
        size += cost
    assert starts[0] == 0 and starts == sorted(set(starts)) and len(starts) <= aim
    page_bytes: dict[int, int] = {}
    for p, cost in zip(page_of, costs):
        page_bytes[p] = page_bytes.get(p, 0) + cost
    inside = [s for s in starts if page_of[s] == page_of[s - 1]]
    assert inside and all(page_bytes[page_of[s]] > target for s in inside)  # only large pages are cut inside
    small = [p for p, b in page_bytes.items() if b <= target]
    assert small
    ends = [*starts[1:], len(costs)]
    for p in small:  # a small page lies in one file
        first = page_of.index(p)
        last = len(page_of) - 1 - page_of[::-1].index(p)
        assert sum(1 for a, b in zip(starts, ends) if a <= last and b > first) == 1, p


def test_a_small_site_index_has_fewer_files_than_the_site(example_html: Path) -> None:
    """Issue 24: on a small site ``_okf/`` holds no more files than the plain HTML output
    (pages, ``_sources/``, ``_static/``, without okf's own files)."""
    okf = sum(1 for p in (example_html / "_okf").rglob("*") if p.is_file())
    plain = [p for p in example_html.rglob("*") if p.is_file() and not (
        p.relative_to(example_html).parts[0] in ("_okf", ".doctrees") or p.name.startswith("okf-")
        or p.name in ("llms.txt", "llms-full.txt"))]
    assert 0 < okf <= len(plain), (okf, len(plain))


def test_rare_files_share_a_bundle_that_both_engines_read_alike(built: Path, tmp_path: Path) -> None:
    """Format 7: on a small site the files no plain query reads (concepts, meta, paths, l/, f/,
    p/) are the parts of one bundle ``b/0``; the engines read each part as its own file, a
    filter query (paths, meta) answers alike in Python and Node, and a bundle that lacks a part
    or a manifest whose ``bundles`` is malformed is ``index_corrupt`` in both."""
    from support.build import rewrite_index_value
    from support.node import node_answers, python_answer, run_node

    okf = built / "_okf"
    bundles = index_value(okf, "manifest")["bundles"]
    assert bundles == [["concepts", "meta", "paths", "l/0", "f/0", "p/0"]]
    assert not any((okf / f"{n}.js").exists() for n in bundles[0]) and (okf / "b" / "0.js").is_file()
    index = okf_sphinx.open_index(built)
    assert [c[0] for c in index.concepts()] == ["index", "other", "usage"]
    assert index.page(2)["sections"][0]["heading"] == "Usage"
    requests = [{"query": "walrus", "mode": "smart", "under": "usage"}, {"query": "walrus", "mode": "smart", "meta": {"orphan": ""}},
                {"query": "walrus retries", "mode": "smart", "limit": 3}]
    answers = node_answers(built, requests)
    assert answers[0]["pages"] and all(p["concept_id"] == "usage" for p in answers[0]["pages"])
    site = tmp_path / "site"
    shutil.copytree(built, site)
    rewrite_index_value(site / "_okf", "b/0", lambda v: {k: x for k, x in v.items() if k != "paths"})
    for answer in [python_answer(okf_sphinx.open_index(site), requests[0]), run_node(site / "_okf", requests[:1])[0]]:
        assert answer["error"]["code"] == "index_corrupt" and "b/0.js" in answer["error"]["message"], answer
    for bad in ([["paths"], ["paths"]], [[]], [["manifest"]], {"b/0": ["paths"]}):
        shutil.rmtree(site)
        shutil.copytree(built, site)
        rewrite_index_value(site / "_okf", "manifest", lambda m: {**m, "bundles": bad})
        with pytest.raises(okf_sphinx.OkfError) as err:
            okf_sphinx.open_index(site).search("walrus", mode="smart", under="usage")
        assert err.value.code == "index_corrupt", bad
        assert run_node(site / "_okf", requests[:1])[0]["error"]["code"] == "index_corrupt", bad


def test_an_overfull_posting_shard_sends_its_largest_lists_to_files_of_their_own() -> None:
    """Stem groups that start alike share a shard, so a common start would make one shard many
    times its aim (format 8 keys such a start deeper, ``shard_depths``, but no depth parts stems
    that agree in their first MAX_SHARD_DEPTH code points): over OVERFULL times, its largest lists
    (down to BIG_POSTING_BYTES) get files of their own until it holds about its aim; the other
    shards are as before."""
    budget = sizing.Budget(8, 512, 4096, 2048)  # shards aim at 4,096 bytes
    lists = packing.PostingLists()
    common = "con" + "x" * (fmt.MAX_SHARD_DEPTH - 3)
    for i in range(300):  # 40 words starting alike in every section (~1.5 KB lists), and 200 others
        lists.add(i, {**{f"{common}{k:02d}": 1 + (i + k) % 3 for k in range(40)}, f"w{i % 200}": 1}, 40000 + i)
    out, shards, depths = packing.posting_shards(lists, "t", budget=budget)
    assert depths == {"con": fmt.MAX_SHARD_DEPTH}
    home = fmt.shard_name(common, shards, depths=depths)
    terms = out[home]["terms"]
    moved = sorted(t for t, e in terms.items() if not isinstance(e, str))
    assert moved and all(t.startswith("con") for t in moved) and len(moved) < 40
    kept = [e for e in terms.values() if isinstance(e, str)]
    assert len(fmt.canonical_json(out[home])) <= 4096 * 1.5 < sizing.OVERFULL * 4096 < sum(len(e) + 2 for e in kept) + sum(
        len(out[terms[t][1][0]]) + 2 for t in moved)
    for t in moved:  # each moved list is in its own file, named after its shard, with its df
        df, (ref,) = terms[t]
        assert ref.startswith(home + "-") and out[ref] == fmt.encode_ints(lists.lists[t]) and df == 300
    # the same lists with no common start: nothing moves
    plain = packing.PostingLists()
    for i in range(300):
        plain.add(i, {f"w{i % 200}": 1, f"u{i % 7}": 1}, 40000 + i)
    out, _, _ = packing.posting_shards(plain, "t", budget=budget)
    assert not [k for k in out if "-" in k]


def test_posting_shards_hold_the_stem_groups_that_start_alike(built: Path) -> None:
    """A stem group's posting shard is picked by its first three code points (deeper for the
    starts the manifest's ``shard_depths`` names, format 8), so the completions of a typed
    prefix are read from one file."""
    m = index_value(built / "_okf", "manifest")
    depths = m.get("shard_depths")
    home: dict[str, str] = {}
    for k in range(m["shards"]):
        name = f"t/{k:x}"
        for stem in index_value(built / "_okf", name)["groups"]:
            assert fmt.shard_name(stem, m["shards"], depths=depths) == name
            assert home.setdefault(fmt.shard_key(stem, depths), name) == name, stem
    assert len(home) > m["shards"] > 1 or m["shards"] == 1


def test_bundles_take_the_rare_files_in_order_up_to_their_size() -> None:
    """``b/<k>``: concepts, meta, paths, then l/ (hexadecimal names), f/, p/ by number, each
    bundle up to about BUNDLE_BYTES; a larger file, a lone rare file and every other file stay
    as they are, and the files given are not changed."""
    big = "x" * (packing.BUNDLE_BYTES // 3)
    files = {"manifest": {"format": "okf-sphinx-index"}, "smart": {}, "t/0": {}, "s/0": {}, "concepts": [],
             "meta": {}, "paths": [], **{f"l/{k:x}": {"k": k} for k in range(12)}, "f/0": {"files": [big]},
             "f/1": {"files": [big]}, "p/0": [big * 4], "p/1": []}
    given = dict(files)
    out = packing.bundle_rare(files)
    assert files == given and "bundles" not in files["manifest"]
    assert out["manifest"]["bundles"] == [["concepts", "meta", "paths", *[f"l/{k:x}" for k in range(12)], "f/0", "f/1", "p/1"]]
    assert out["b/0"]["l/a"] == {"k": 10} and sorted(n for n in out if n not in files) == ["b/0"]
    assert sorted(n for n in files if n not in out) == sorted(out["manifest"]["bundles"][0])
    assert out["p/0"] == files["p/0"] and out["smart"] == {} and out["t/0"] == {}  # too large; not a rare file
    assert packing.bundle_rare({"manifest": {}, "concepts": [], "t/0": {}}) == {"manifest": {}, "concepts": [], "t/0": {}}
