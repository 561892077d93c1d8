"""Chinese, Japanese and Korean words in smart mode (okf_sphinx/core/segment.py, docs/smart.md
"Chinese, Japanese and Korean"): the units, and real Sphinx builds in Chinese and Japanese
where a reader's short word finds the page whose text runs it together with other words,
while keyword mode stays the contract's exact terms."""

from __future__ import annotations

from pathlib import Path

import pytest

import okf_sphinx
from support.build import build_html, write_project
from okf_sphinx.core import index_format as fmt
from okf_sphinx.core import segment
from okf_sphinx.core.terms import terms

# -- the units -----------------------------------------------------------------------------


def test_units_split_cjk_runs_into_pairs() -> None:
    assert segment.units("数据库") == [(0, "数据"), (1, "据库")]
    assert segment.units("表") == [(0, "表")]
    assert segment.units("install") == [(0, "install")]  # no CJK: the term itself
    # cut where scripts meet: the Latin part whole, the kana/kanji part in pairs
    assert segment.units("djangoのモデル") == [(0, "django"), (6, "のモ"), (7, "モデ"), (8, "デル")]
    assert segment.units("使用sphinx构建") == [(0, "使用"), (2, "sphinx"), (8, "构建")]
    assert segment.units("데이터베이스를") == [(0, "데이"), (1, "이터"), (2, "터베"), (3, "베이"), (4, "이스"), (5, "스를")]
    # Katakana's long vowel mark and Han iteration mark stay inside the CJK part
    assert [u for _a, u in segment.units("サーバー")] == ["サー", "ーバ", "バー"]
    assert [u for _a, u in segment.units("人々")] == ["人々"]
    # a term is what the contract's terms() makes: case folded, NFC; full-width Latin is not CJK
    assert [u for _a, u in segment.units(terms("ＡＢＣ漢字")[0])] == ["ａｂｃ", "漢字"]


def test_cjk_ranges_are_sorted_and_disjoint() -> None:
    ranges = segment.CJK_RANGES
    assert all(lo <= hi for lo, hi in ranges)
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:]))
    for ch in "漢字かなカナｶﾅ한국어ㄅ々〇ー𠀋":
        assert segment.is_cjk(ch), ch
    for ch in "aé1ßΩж٣_":
        assert not segment.is_cjk(ch), ch


def test_part_keys_of_a_section() -> None:
    freqs = {"本节介绍数据库": 1, "数据": 3, "install": 2, "表": 1, "djangoの": 2}
    parts = segment.part_freqs(freqs)
    # a term that is its own one unit ("数据", "表") adds nothing: the term's posting list is it
    assert parts == {" 本节": 1, " 节介": 1, " 介绍": 1, " 绍数": 1, " 数据": 1, " 据库": 1, " django": 2, " の": 2}
    assert fmt.posting_key(" 数据", None) == fmt.posting_key("数据", None) == "数据"


def test_query_units_and_spans() -> None:
    words = ["数据库连接", "django"]
    found = segment.query_units(words)
    assert [u for _w, _a, u in found] == ["数据", "据库", "库连", "连接", "django"]
    assert segment.spans(words, found, [0, 1]) == ["数据库"]
    assert segment.spans(words, found, [3, 0]) == ["数据", "连接"]
    assert segment.spans(words, found, [4, 2, 1]) == ["据库连", "django"]
    # distinct units, at most MAX_UNITS, in query order
    long = ["".join(chr(0x4E00 + i) for i in range(40))]
    assert len(segment.query_units(long)) == segment.MAX_UNITS
    assert [u for _w, _a, u in segment.query_units(["数据数据"])] == ["数据", "据数"]


@pytest.mark.parametrize(("language", "expected"), [
    ("zh_CN", segment.SEGMENTER), ("zh-TW", segment.SEGMENTER), ("ja", segment.SEGMENTER), ("ko", segment.SEGMENTER),
    ("zh", segment.SEGMENTER), ("en", None), ("de", None), (None, None), ("", None)])
def test_segmenter_for(language: str | None, expected: str | None) -> None:
    assert segment.segmenter_for(language) == expected


# -- a Chinese site --------------------------------------------------------------------------

ZH = {
    "index.rst": "首页\n====\n\n.. toctree::\n\n   db\n   cache\n   other\n",
    "db.rst": "数据库\n======\n\n本节介绍如何配置数据库连接和缓存。\n\n连接池\n------\n\n"
              "连接池的大小由 ``POOL_SIZE`` 设置。使用sphinx构建文档。\n",
    "cache.md": "# 缓存\n\n缓存可以减少数据库查询。默认情况下缓存是关闭的。\n",
    "other.rst": "其他\n====\n\n这里没有相关内容，只有一些说明。\n",
}


@pytest.fixture(scope="module")
def zh_sites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same pages built as a Chinese site and as an English one."""
    root = tmp_path_factory.mktemp("zh")
    zh = build_html(write_project(root / "zh" / "src", ZH, conf='language = "zh_CN"\n'))
    en = build_html(write_project(root / "en" / "src", ZH, conf='language = "en"\n'))
    return zh, en


def test_a_short_word_finds_the_page_that_runs_it_together(zh_sites: tuple[Path, Path]) -> None:
    index = okf_sphinx.open_index(zh_sites[0])
    assert index.manifest["smart"]["segmenter"] == segment.SEGMENTER
    for query in ("数据库", "配置", "数据库连接", "缓存"):
        pages = index.search(query, mode="smart")["pages"]
        assert pages, query
        assert {p["concept_id"] for p in pages} >= {"db"}, query
    r = index.search("数据库连接", mode="smart")
    assert r["terms"] == ["数据库连接"]  # the contract's terms, never replaced
    top = r["pages"][0]
    assert top["concept_id"] == "db" and not top["partial"]
    hit = top["hits"][0]
    assert hit["matched_terms"] == ["数据库连接"]  # the pairs the section holds, joined back
    assert "数据库连接" in hit["snippet"]
    # no page holds every pair: partial pages, most pairs first, what each lacks said as the
    # part of the query its missing pairs cover
    r = index.search("缓存连接池", mode="smart", limit=10)
    assert [(p["concept_id"], p["partial"], p["missing_terms"]) for p in r["pages"]] == [
        ("db", True, ["存连"]), ("cache", True, ["存连接池"])]
    # a Latin word glued to Chinese text is a word of its own
    assert index.search("sphinx", mode="smart")["pages"][0]["concept_id"] == "db"
    # an unknown CJK word: no spelling suggestion (its pairs found nothing either)
    r = index.search("火车", mode="smart")
    assert r["pages"] == [] and r["suggestions"] == []
    # a mistyped character leaves the other pairs: the page is still there, partial
    assert index.search("数据车", mode="smart")["pages"][0]["concept_id"] == "db"


def test_keyword_mode_keeps_the_contracts_terms(zh_sites: tuple[Path, Path]) -> None:
    """Keyword answers on a Chinese site are those of the same pages built as an English site."""
    zh, en = (okf_sphinx.open_index(s) for s in zh_sites)
    assert zh.snapshot_revision == en.snapshot_revision
    for query in ("数据库", "数据库连接", "本节介绍如何配置数据库连接和缓存", "缓存", "pool_size", "连接池", "sphinx"):
        assert zh.search(query, limit=20) == en.search(query, limit=20), query
    assert zh.search("数据库", limit=20)["hits"][0]["heading"] == "数据库"  # only the heading is that whole term
    assert zh.search("配置", limit=20)["total"] == 0
    assert "segmenter" not in en.manifest["smart"]


def test_part_keys_live_beside_their_unit(zh_sites: tuple[Path, Path]) -> None:
    okf = zh_sites[0] / "_okf"
    manifest = fmt.unwrap("manifest", (okf / "manifest.js").read_bytes())
    shard = fmt.unwrap(fmt.shard_name("数据", manifest["shards"]), (okf / f"{fmt.shard_name('数据', manifest['shards'])}.js").read_bytes())
    assert " 数据" in shard["terms"] and " 数据" in shard["groups"]["数据"][2]
    # the dictionary (completions, suggestions) holds words only
    for f in (okf / "d").glob("*.js"):
        shard = fmt.unwrap(f"d/{f.stem}", f.read_bytes())
        assert not any(t.startswith(" ") for entries in shard.values() for t, _df in fmt.decode_word_list(entries))


# -- a Japanese site -------------------------------------------------------------------------

JA = {
    "index.rst": "ホーム\n======\n\n.. toctree::\n\n   models\n   db\n",
    "models.rst": "モデル\n======\n\nDjangoのモデルはデータベースのテーブルに対応します。\n\n"
                  "フィールド\n----------\n\n各フィールドはクラス属性として定義します。\n",
    "db.md": "# データベース接続\n\nデータベースへの接続はsettings.pyで設定します。接続プールは使いません。\n",
}


@pytest.fixture(scope="module")
def ja_index(tmp_path_factory: pytest.TempPathFactory) -> okf_sphinx.Index:
    return okf_sphinx.open_index(build_html(write_project(tmp_path_factory.mktemp("ja") / "src", JA, conf='language = "ja"\n')))


def test_japanese_words_in_kana_and_kanji(ja_index: okf_sphinx.Index) -> None:
    def pages(q: str) -> list[str]:
        return [p["concept_id"] for p in ja_index.search(q, mode="smart")["pages"]]

    assert pages("モデル")[0] == "models"
    assert pages("データベース接続")[0] == "db"
    assert pages("フィールド") == ["models"]
    assert pages("django") == ["models"]  # "Djangoのモデル": the Latin part is a word of its own
    assert pages("設定")[0] == "db"
    top = ja_index.search("クラス属性", mode="smart")["pages"][0]
    assert top["concept_id"] == "models" and top["hits"][0]["heading"] == "フィールド"
    assert top["hits"][0]["snippet"].startswith("フィールド")
    # prefix completion stays for Latin words; CJK pairs need none
    assert ja_index.search("設定 djan", mode="smart", prefix=True)["pages"][0]["concept_id"] in ("db", "models")


def test_the_browsers_units_are_pythons() -> None:
    """js/core/segment.js (in the assembled okf-search.js) splits exactly as segment.py: same
    ranges, parts, units, query units and spans."""
    import json
    import random
    import subprocess

    from support.node import RUNTIME, require_node

    node = require_node()
    rng = random.Random(7)
    alphabet = "数据库连接配置のモデルデータ한국어ｶﾀ々ー〇𠀋𪜀abcXYZ09éß_"
    terms_ = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) for _ in range(400)]
    queries = [rng.sample(terms_, rng.randint(1, 4)) for _ in range(100)]
    chosen = [sorted(rng.sample(range(len(segment.query_units(q))), rng.randint(0, len(segment.query_units(q))))) for q in queries]
    script = """
const seg = require(process.argv[1]).module('core/segment'), C = require(process.argv[1]).module('core/constants');
const data = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify({ranges: C.CJK_RANGES, max: C.MAX_UNITS, name: C.SEGMENTER,
  parts: data.terms.map(seg.parts), units: data.terms.map(seg.units),
  queries: data.queries.map(seg.queryUnits),
  spans: data.queries.map((q, i) => seg.spans(q, seg.queryUnits(q), data.chosen[i]))}));
"""
    out = subprocess.run([node, "-e", script, str(RUNTIME)], input=json.dumps({"terms": terms_, "queries": queries, "chosen": chosen}),
                         capture_output=True, text=True, check=True).stdout
    js = json.loads(out)
    assert js["ranges"] == [list(r) for r in segment.CJK_RANGES]
    assert js["max"] == segment.MAX_UNITS and js["name"] == segment.SEGMENTER
    assert js["parts"] == [[list(p) for p in segment.parts(t)] for t in terms_]
    assert js["units"] == [[list(u) for u in segment.units(t)] for t in terms_]
    assert js["queries"] == [[list(u) for u in segment.query_units(q)] for q in queries]
    assert js["spans"] == [segment.spans(q, segment.query_units(q), c) for q, c in zip(queries, chosen)]


def test_mkdocs_site_in_chinese(tmp_path: Path) -> None:
    """MkDocs: the theme's language makes the site Chinese (segmenter in the manifest, pairs found)."""

    from support.mkdocs_sites import mkdocs_build, write_mkdocs_project

    project = write_mkdocs_project(tmp_path / "proj", {"index.md": "# 首页\n\n本节介绍如何配置数据库连接和缓存。\n",
                                                       "other.md": "# 其他\n\n这里没有相关内容。\n"},
                                   config="theme:\n  name: mkdocs\n  locale: zh_CN\n")
    proc = mkdocs_build(project, tmp_path / "site", "--strict")
    assert "no stemmer" not in proc.stderr  # no warning: CJK words are split, not stemmed
    index = okf_sphinx.open_index(tmp_path / "site")
    assert index.manifest["smart"]["segmenter"] == segment.SEGMENTER
    assert [p["concept_id"] for p in index.search("数据库", mode="smart")["pages"]] == ["index"]
    assert index.search("数据库", limit=20)["total"] == 0  # keyword mode: the contract's terms


def test_korean_particles(tmp_path: Path) -> None:
    """Korean writes spaces between words but glues particles to them: 데이터베이스를 holds 데이터베이스."""
    files = {"index.rst": "시작\n====\n\n.. toctree::\n\n   db\n   other\n",
             "db.rst": "설정\n====\n\n데이터베이스를 설정하는 방법을 설명합니다.\n",
             "other.rst": "기타\n====\n\n다른 내용입니다.\n"}
    index = okf_sphinx.open_index(build_html(write_project(tmp_path / "src", files, conf='language = "ko"\n')))
    assert [p["concept_id"] for p in index.search("데이터베이스", mode="smart")["pages"]] == ["db"]
    assert index.search("데이터베이스", limit=20)["total"] == 0  # keyword: the contract's exact terms
