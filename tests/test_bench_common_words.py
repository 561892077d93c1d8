"""bench/bench_common_words.py: the measured (not shipped) rule that lets meaning stand in for
a site's commonest words reads no posting shard for them, and only where the brief allows."""

from __future__ import annotations

from pathlib import Path

import bench_common_words as bcw
from bench_semantic_cost import Recording

from okf_sphinx.core import index_format as fmt
from okf_sphinx.engine import smart
from okf_sphinx.engine.index import Index
from okf_sphinx.engine.source import open_source


def _shards_read(site: Path, query: str, listed: list[str], stand: bcw.StandIn) -> set[str]:
    source = Recording(open_source(site))
    stand.ask(Index(source), listed, query, 5)
    return {n for n in source.read_names if n.startswith("t/")}


def test_common_list_is_the_stems_over_the_cutoff_commonest_first(example_html: Path) -> None:
    df, sections = bcw.section_df(example_html)
    assert sections > 0 and df and max(df.values()) <= sections
    listed = bcw.common_list(df, sections, 0.1)
    assert listed == sorted((s for s in df if df[s] >= 0.1 * sections), key=lambda s: (-df[s], s))
    assert bcw.common_list(df, sections, 0) == [] and len(bcw.common_list(df, sections, 0.05)) >= len(listed)


def test_a_common_word_is_not_read_when_another_word_counts(example_html: Path) -> None:
    index = Index(open_source(example_html))
    df, sections = bcw.section_df(example_html)
    stops = smart.stop_words("en")
    # the commonest stem that is no stop word, its word as the site writes it, and a rarer word
    # whose posting shard is another
    common = next(s for s in bcw.common_list(df, sections, 0.0001) if s not in stops and s.isalpha())
    word = next(t for t in smart.group(index, common)[2] if t.isalpha())
    rare = next(s for s in sorted(df, key=lambda s: (df[s], s)) if s.isalpha() and s not in stops and len(s) > 3
                and fmt.shard_name(s, index.shards) != fmt.shard_name(common, index.shards))
    rare_word = smart.group(index, rare)[2][0]
    own = fmt.shard_name(common, index.shards)
    stand = bcw.StandIn(1)
    try:
        assert own in _shards_read(example_html, f"{word} {rare_word}", [], stand)  # no list: read as today
        assert own not in _shards_read(example_html, f"{word} {rare_word}", [common], stand)
        assert own in _shards_read(example_html, word, [common], stand)  # no other word: read
        assert own in _shards_read(example_html, f'"{word} {rare_word}"', [common], stand)  # quoted: read
        assert smart.counting == stand.counting
    finally:
        stand.restore()
    assert smart.counting is stand.inner
