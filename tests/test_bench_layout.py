"""bench/bench_layout.py: the section-file layout simulation prices the files the writer
writes, and records the sections a real engine reads."""

from __future__ import annotations

from pathlib import Path

import bench_layout

from okf_sphinx import open_index
from okf_sphinx.core import index_format as fmt


def test_today_layout_rewrites_every_section_file_byte_for_byte(example_html: Path) -> None:
    okf = example_html / "_okf"
    manifest = fmt.unwrap("manifest", (okf / "manifest.js").read_bytes())
    rows = bench_layout.section_rows(okf)
    ranges = bench_layout.ranges_of(fmt.section_starts(manifest["section_files"]), len(rows))
    assert len(ranges) > 1 and len(rows) == manifest["sections_all"]
    for k, r in enumerate(ranges):
        assert fmt.wrap(f"s/{k}", bench_layout.file_value(rows, [r]), manifest["build"]) == (okf / f"s/{k}.js").read_bytes()


def test_recorded_sections_hold_every_hit_shown(example_html: Path) -> None:
    okf = example_html / "_okf"
    reqs = [{"query": "install", "opts": {"mode": "keyword", "limit": 5}, "kind": "keyword", "n": 0}]
    recorded = bench_layout.record(okf, reqs)[0]
    index = open_index(example_html)
    hits = index.search("install", limit=5)["hits"]
    read = [index.section(sid) for sid in recorded["sids"]]
    assert hits and {(h["path"], h["line_start"], h["heading"]) for h in hits} <= {
        (s["path"], s["line_start"], s["heading"]) for s in read}
    assert any(n.startswith("t/") for n in recorded["other"]) and not any(n.startswith("s/") for n in recorded["other"])


def test_layouts_at_fewer_files_cost_what_their_files_cost(example_html: Path) -> None:
    okf = example_html / "_okf"
    rows = bench_layout.section_rows(okf)
    costs = bench_layout.costs(rows)
    pages = [page for page, _file, _row in rows]
    whole = bench_layout.ranges_of(bench_layout.starts_for(costs, pages, 1), len(rows))
    assert whole == [(0, len(rows))]
    recs = [{"sids": [0]}, {"sids": [0, len(rows) - 1]}]
    reqs = [{"kind": k, "n": n} for k in bench_layout.KINDS for n in (0, 1)]
    out = bench_layout.evaluate(rows, [whole], recs * 4, reqs)
    one = round(bench_layout.file_gzip(rows, whole) / 1024, 1)
    assert out["files"] == 1 and set(out["tune"].values()) == {one} and set(out["held"].values()) == {one}
