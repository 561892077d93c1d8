"""The browser runtime (okf-search.js, run in Node) answers exactly like the Python API.

Same index + same request → the same JSON: terms, total, truncated, every hit
field, scores compared bit for bit, and error envelopes (code, message, details).
Indexes come from real Sphinx builds: example_site and a generated Unicode-heavy
project whose text holds the code points where Node's Unicode (17) and the
build's Python (14) disagree.
"""

from __future__ import annotations

import json
import random
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from support.build import build_html, index_value, write_project
from support.node import python_answer, run_node, same, unicode_differences

pytestmark = pytest.mark.node

SPECIAL_WORDS = [
    "straße", "STRASSE", "Strasse", "ẞ", "ß", "ss", "İstanbul", "istanbul", "i̇stanbul", "ı",
    "ΣΊΣΥΦΟΣ", "σίσυφος", "σίσυφοσ", "ὈΔΥΣΣΕΎΣ", "ᏣᎳᎩ", "ꮳꮃꭹ", "Café", "Cafe\u0301", "CAFÉ",
    "ﬁle", "file", "𝐀𝐁𝐂", "𐐀𐐁", "𐐨𐐩", "😀", "𠀀𠀁", "\u212aelvin", "kelvin", "ſpeed", "µs", "μs",
    "ŉ", "ǰ", "ΐ", "ͅ", "한국어", "한국어", "हिन्दी", "العربية", "ไทย", "٣٤", "½", "Ⅻ", "ⅻ", "①",
    "ǅ", "ǆ", "Ǆ", "ﬀ", "ﬆ", "Å", "Å", "Ω", "q\u0323\u0307", "q\u0307\u0323", "e\u0301\u0301",
    "x\U000e0100y", "a\u200db", "a\u00adb", "naïve", "nai\u0308ve", "ǈ", "ᾼ", "ᾳ", "ᾈ",
]
ASCII_WORDS = (
    "retry policy install configure sphinx search index section heading title body query term "
    "parser build cache token limit error python node browser shard posting score rank snippet "
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
    "sigma tau upsilon phi chi psi omega the a of to and in is it for on with as"
).split()


def _stress_project(root: Path, diff: list[int]) -> Path:
    rng = random.Random(20261129)
    usable = [cp for cp in diff if unicodedata.category(chr(cp)) not in ("Cc", "Cs", "Zl", "Zp") and cp not in (0x85,)]
    files: dict[str, str] = {}
    toc = []
    for p in range(24):
        name = f"p{p:02d}"
        toc.append(name)
        lines = [f"Page {p} {rng.choice(SPECIAL_WORDS)} {rng.choice(ASCII_WORDS)}", "=" * 60, ""]
        for s in range(6):
            words = []
            for _ in range(rng.randint(20, 120)):
                r = rng.random()
                if r < 0.6:
                    words.append(rng.choice(ASCII_WORDS))
                elif r < 0.85:
                    words.append(rng.choice(SPECIAL_WORDS))
                else:  # a word built around code points the engines disagree on
                    cps = rng.sample(usable, 2)
                    words.append(rng.choice(ASCII_WORDS) + chr(cps[0]) + rng.choice(ASCII_WORDS) + chr(cps[1]))
            # "common" in almost every section: a posting list big enough for its own file
            words.insert(rng.randint(0, len(words)), "common")
            heading = f"{rng.choice(ASCII_WORDS).title()} {rng.choice(SPECIAL_WORDS)} {s}"
            lines += [heading, "-" * 60, ""]
            text = " ".join(words)
            # wrap, and keep RST inline markup characters out of the way
            text = text.replace("*", " ").replace("`", " ").replace("|", " ").replace("_", " ")
            for i in range(0, len(text), 70):
                lines.append(text[i : i + 70].strip() or "x")
            lines.append("")
        files[f"{name}.rst"] = "\n".join(lines)
    # many short sections, each with "common": its posting list (~2,150 entries, a few digits each) outgrows half a shard
    # (the writer's page budget makes a small site's shards up to t/'s largest size, 12 KB), so it gets a file
    for p in range(10):
        name = f"q{p}"
        toc.append(name)
        files[f"{name}.rst"] = f"Notes {p}\n{'=' * 60}\n\n" + "".join(
            f"Note {p} {k}\n{'-' * 60}\n\nA common note number {k}.\n\n" for k in range(200))
    files["index.rst"] = "Stress\n======\n\n.. toctree::\n\n" + "".join(f"   {n}\n" for n in toc)
    return write_project(root, files)


@pytest.fixture(scope="module")
def diff_code_points() -> list[int]:
    return unicode_differences()


@pytest.fixture(scope="module")
def stress_site(tmp_path_factory: pytest.TempPathFactory, diff_code_points: list[int]) -> Path:
    return build_html(_stress_project(tmp_path_factory.mktemp("stress") / "src", diff_code_points))


def _index_terms(site: Path) -> list[str]:
    from okf_sphinx.core import index_format as fmt

    terms: list[str] = []
    for f in sorted((site / "_okf" / "t").glob("*.js")):
        if "-" in f.stem:
            continue
        terms += sorted(fmt.unwrap(f"t/{f.stem}", f.read_bytes())["terms"])
    return terms


def _vary(rng: random.Random, word: str) -> str:
    r = rng.random()
    if r < 0.2:
        return word.upper()
    if r < 0.35:
        return word.title()
    if r < 0.5:
        return unicodedata.normalize("NFD", word)
    if r < 0.55:
        return unicodedata.normalize("NFKD", word)
    return word


def generated_queries(site: Path, diff: list[int], n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    vocab = _index_terms(site)
    seps = [" ", "  ", "-", ", ", "/", "\t", "_", ".", "\u3000", "\u00a0", "—"]
    out: list[dict[str, Any]] = []
    for _i in range(n):
        kind = rng.random()
        if kind < 0.45:  # words of the index, varied
            k = rng.choice([1, 1, 1, 2, 2, 3, 4])
            words = [_vary(rng, rng.choice(vocab)) for _ in range(k)]
            q = "".join(w + rng.choice(seps) for w in words).strip() or "x"
        elif kind < 0.6:  # the Unicode torture words
            q = " ".join(_vary(rng, rng.choice(SPECIAL_WORDS)) for _ in range(rng.randint(1, 3)))
        elif kind < 0.75:  # code points the engines disagree on, inside and between words
            parts = []
            for _ in range(rng.randint(1, 4)):
                parts.append(rng.choice(vocab) if rng.random() < 0.6 else "")
                parts.append(chr(rng.choice(diff)))
            q = "".join(parts)
        elif kind < 0.85:  # random code points (any plane), mostly matching nothing
            q = "".join(chr(rng.choice([rng.randint(0x20, 0x7E), rng.randint(0xA0, 0x2FFF), rng.randint(0x10000, 0x2FFFF), rng.choice(diff)]))
                        for _ in range(rng.randint(1, 12)))
            q = "".join(c for c in q if not 0xD800 <= ord(c) <= 0xDFFF)
        elif kind < 0.93:  # words that are in no section
            q = " ".join("".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(rng.randint(3, 9))) for _ in range(rng.randint(1, 3)))
        else:  # long and many-term queries
            k = rng.randint(25, 40)
            q = " ".join(rng.choice(vocab) for _ in range(k))
        req: dict[str, Any] = {"query": q}
        r = rng.random()
        if r < 0.2:
            req["limit"] = rng.choice([1, 2, 3, 5, 10, 50, 100])
        elif r < 0.25:
            req["limit"] = rng.choice([0, 101, -1, True, False, "5", 2.5, None, [3], 10**21])
        out.append(req)
    return out


def edge_requests(vocab: list[str]) -> list[dict[str, Any]]:
    distinct = sorted(set(w for w in vocab if w.isascii()))[:40]
    reqs: list[dict[str, Any]] = [
        {"query": ""}, {"query": " "}, {"query": "!!! ???"}, {"query": "\u0301"}, {"query": "😀"},
        {"query": "_"}, {"query": "\ud800"}, {"query": "a\udc00"}, {"query": 123}, {"query": None},
        {"query": ["retry"]}, {"query": "a" * 512}, {"query": "a" * 513}, {"query": "😀" * 512},
        {"query": "😀" * 513}, {"query": "a " * 256}, {"query": ("ab " * 171)[:512]},
        {"query": " ".join(distinct[:32])}, {"query": " ".join(distinct[:33])},
        {"query": " ".join(distinct[:32] + distinct[:10])}, {"query": " ".join(distinct[:32]) + " zzzzunknown"},
        {"query": "common"}, {"query": "common", "limit": 100}, {"query": "COMMON the", "limit": 7},
        {"query": "retry", "limit": 0}, {"query": "retry", "limit": 101}, {"query": "retry", "limit": True},
        {"query": "retry", "limit": "20"}, {"query": "retry", "limit": 1.5}, {"query": "retry", "limit": 1e-7},
        {"query": "retry", "limit": 3 * 10**16}, {"query": "retry", "limit": None}, {"query": "", "limit": 0},
        {"query": "\U000e0001x"}, {"query": "x\u0345"}, {"query": "ΣΑΣ σας"}, {"query": "ﬃ"}, {"query": "İ"},
    ]
    return reqs


def _assert_parity(site: Path, requests: list[dict[str, Any]]) -> dict[str, int]:
    from okf_sphinx import open_index

    index = open_index(site)
    answers = run_node(site / "_okf", requests)
    stats = {"hits": 0, "errors": 0, "empty": 0}
    for req, js in zip(requests, answers):
        py = python_answer(index, req)
        diff = same(js, py)
        assert diff is None, f"request {json.dumps(req, ensure_ascii=True)[:300]}: {diff}"
        if "error" in py:
            stats["errors"] += 1
        elif py["total"]:
            stats["hits"] += 1
        else:
            stats["empty"] += 1
    return stats


def test_parity_generated_unicode_site(stress_site: Path, diff_code_points: list[int]) -> None:
    requests = generated_queries(stress_site, diff_code_points, 3000, seed=1)
    requests += edge_requests(_index_terms(stress_site))
    stats = _assert_parity(stress_site, requests)
    # the generator must exercise all three outcomes substantially
    assert stats["hits"] > 800 and stats["errors"] > 100 and stats["empty"] > 300, stats


def test_parity_every_differing_code_point(stress_site: Path, diff_code_points: list[int]) -> None:
    """Each code point where Node's Unicode differs from the build's, alone and inside a word."""
    vocab = [w for w in _index_terms(stress_site) if w.isascii()]
    requests = []
    for i, cp in enumerate(diff_code_points):
        c = chr(cp)
        w = vocab[i % len(vocab)]
        requests.append({"query": c})
        requests.append({"query": w + c + vocab[(i * 7) % len(vocab)]})
    _assert_parity(stress_site, requests)


def test_parity_example_site(example_html: Path, diff_code_points: list[int]) -> None:
    requests = generated_queries(example_html, diff_code_points, 1500, seed=2)
    requests += edge_requests(_index_terms(example_html))
    requests += [{"query": q} for q in ("script", "<script>", "alert", "onerror", "retry policy", "Café", "i18n", "bom")]
    _assert_parity(example_html, requests)


def test_cold_ascii_query_loads_only_what_it_needs(stress_site: Path) -> None:
    """manifest, one shard per term (+ big posting files), one section per hit shown; no unicode.js
    unless a snippet's text before the match is not ASCII or the query is not ASCII."""
    from okf_sphinx.core import index_format as fmt
    from okf_sphinx import open_index

    index = open_index(stress_site)
    big = [t for t in _index_terms(stress_site) if isinstance(index.shard(index.shard_of(t))["terms"][t], list)]
    assert big, "the stress site must have a posting list in a file of its own"
    requests = [{"query": "retry policy", "limit": 5}, {"query": big[0], "limit": 3}, {"query": "Straße"}, {"query": "qqqzzz"}]
    answers = run_node(stress_site / "_okf", requests, cold=True)
    for req, a in zip(requests, answers):
        assert same(a["answer"], python_answer(index, req)) is None
        loaded = a["loaded"]
        assert loaded[0] == "manifest"
        result = a["answer"]
        terms = result["terms"]
        shards = {index.shard_of(t) for t in terms}
        sections = [n for n in loaded if n.startswith("s/")]
        starts = fmt.section_starts(index.manifest["section_files"])
        hit_sids = [next(i for i in range(index.sections_all) if index.section(i)["locator"] == h["locator"]
                         and index.section(i)["concept_id"] == h["concept_id"]) for h in result["hits"]]
        # the section files holding the hits, each once
        assert sorted(sections) == sorted({f"s/{fmt.section_file_of(starts, sid)}" for sid in hit_sids})
        assert {n for n in loaded if n.startswith("t/") and "-" not in n} == shards
        assert len(loaded) == len(set(loaded)), "a file was loaded twice"
        if not req["query"].isascii():
            assert "unicode" in loaded
        elif "unicode" in loaded:
            # only allowed when a snippet needed the tables
            texts = [index.section(sid)["text"] for sid in hit_sids]
            assert any(not t.isascii() for t in texts)
    assert "unicode" not in answers[3]["loaded"]
    # that term's postings live in a file of their own
    assert any(n.startswith("t/") and "-" in n for n in answers[1]["loaded"])


# -- smart mode -----------------------------------------------------------------------------------


def _typo(rng: random.Random, word: str) -> str:
    """A close misspelling: one edit (swap, drop, double or replace a code point)."""
    cps = list(word)
    if len(cps) < 2:
        return word + "x"
    i = rng.randrange(len(cps) - 1)
    r = rng.random()
    if r < 0.3:
        cps[i], cps[i + 1] = cps[i + 1], cps[i]
    elif r < 0.55:
        del cps[i]
    elif r < 0.8:
        cps.insert(i, cps[i])
    else:
        cps[i] = rng.choice("aeiourstn")
    return "".join(cps)


def _section_words(site: Path, rng: random.Random) -> list[str]:
    from okf_sphinx import open_index

    index = open_index(site)
    return index.normaliser.terms(index.section(rng.randrange(index.section_count))["text"])[:400]


def smart_requests(site: Path, diff: list[int], n: int, seed: int) -> list[dict[str, Any]]:
    """The keyword generator's queries in smart mode, plus stems, prefixes, typos and mixes."""
    rng = random.Random(seed)
    vocab = _index_terms(site)
    out: list[dict[str, Any]] = []
    from okf_sphinx.core import index_format as fmt

    paths = index_value(site / "_okf", "paths")
    unders = sorted({"/".join(p.rsplit(".", 1)[0].split("/")[:k]) for p in paths for k in (1, 2)}) + ["nowhere", "p0"]
    metas = [{"orphan": ""}, {"tocdepth": "2"}, {"title": "Retry guide"}, {"status": "none"}]
    kinds = ["section", ["section", "py:function"], "py:function"]
    for req in generated_queries(site, diff, n, seed):
        req = dict(req, mode="smart")
        if rng.random() < 0.35:
            req["prefix"] = True
        r = rng.random()
        if r < 0.1:
            req["under"] = rng.choice(unders)
        elif r < 0.15:
            req["meta"] = rng.choice(metas)
        elif r < 0.2:
            req["kind"] = rng.choice(kinds)
        if rng.random() < 0.3:
            req["expand"] = True
        out.append(req)
    endings = ["s", "es", "ed", "ing", "ion", "ly", "er", "ers", "ation"]
    idents = ["SECRET_KEY", "url_for", "QuerySet.filter", "--no-deps", "retry.base_delay", "max_delay", "e.g."]
    for _ in range(n // 10):  # identifiers as written, alone and among words
        q = rng.choice(idents)
        if rng.random() < 0.5:
            q += " " + rng.choice(vocab)
        out.append({"query": q, "mode": "smart"})
    for _ in range(n // 2):
        words = [rng.choice(vocab) for _ in range(rng.choice([1, 2, 2, 3]))]
        r = rng.random()
        if r < 0.3:  # other forms of index words: stems
            words = [w + rng.choice(endings) if rng.random() < 0.6 else w for w in words]
        elif r < 0.55:  # misspellings: suggestions and partial answers
            words = [_typo(rng, w) if rng.random() < 0.5 else w for w in words]
        elif r < 0.8:  # the last word cut short while typing
            last = list(words[-1])
            words[-1] = "".join(last[: rng.randint(1, max(1, len(last)))])
        elif r < 0.9:  # a word that occurs nowhere next to real ones
            words.append("".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(rng.randint(3, 8))))
        else:  # quoted phrases: neighbours from a section's text (in order, or swapped), mixed with words
            text = _section_words(site, rng)
            i = rng.randrange(max(1, len(text) - 3))
            phrase = text[i : i + rng.randint(2, 3)] or ["retry", "policy"]
            if rng.random() < 0.3:
                phrase = phrase[::-1]
            quote = rng.choice([('"', '"'), ("\u201c", "\u201d")])
            words = [quote[0] + " ".join(phrase) + quote[1]] + (words[:1] if rng.random() < 0.4 else [])
        req: dict[str, Any] = {"query": " ".join(_vary(rng, w) for w in words), "mode": "smart"}
        if 0.55 <= r < 0.8 or rng.random() < 0.2:
            req["prefix"] = True
        if rng.random() < 0.3:
            req["limit"] = rng.choice([1, 2, 3, 10, 100])
        if rng.random() < 0.3:
            req["expand"] = rng.random() < 0.9
        if 0.3 <= r < 0.55 and rng.random() < 0.3:  # misspelt words as written: suggestions, no correction
            req["correct"] = False
        out.append(req)
    starts = ["how do I", "how to", "why is my", "what is the", "where can I find", "can I", "Is there a"]
    for _ in range(n // 10):  # questions: stop words and question words around the words, a typo sometimes
        words = [rng.choice(vocab) for _ in range(rng.choice([1, 2, 3]))]
        if rng.random() < 0.3:
            words[-1] = _typo(rng, words[-1])
        q = rng.choice(starts) + " " + (" with " if rng.random() < 0.3 else " ").join(words) + rng.choice(["", "?", " for a"])
        out.append({"query": q, "mode": "smart", **({"prefix": True} if rng.random() < 0.3 else {})})
    objects = site / "_okf" / "objects.js"
    names = [r[0] for r in fmt.unwrap("objects", objects.read_bytes())] if objects.exists() else []
    for _ in range(n // 10 if names else 0):  # object names: full, a dotted tail, the short name (the exact-name boost)
        parts = rng.choice(names).split(".")
        q = ".".join(parts[rng.randrange(len(parts)):])
        q = rng.choice([q, q.upper(), q + "()", " " + q + " "])
        req = {"query": q, "mode": "smart"}
        r = rng.random()
        if r < 0.15:
            req["kind"] = rng.choice(kinds)
        elif r < 0.3:
            req["under"] = rng.choice(unders)
        elif r < 0.4:
            req["limit"] = 1
        out.append(req)
    said = random.Random(seed + 1)  # its own draws: the requests above stay as they were
    for _ in range(n // 10):  # sentences pasted from a section's text (unquoted), sometimes still being typed
        text = _section_words(site, said)
        i = said.randrange(max(1, len(text) - 6))
        words = text[i : i + said.randint(3, 6)] or ["retry", "policy", "for"]
        req = {"query": " ".join(words), "mode": "smart"}
        if said.random() < 0.4:
            req["prefix"] = True
            words[-1] = words[-1][: said.randint(1, len(words[-1]))]
            req["query"] = " ".join(words)
        elif said.random() < 0.2:
            req["kind"] = rng.choice(kinds)
        out.append(req)
    out += [
        {"query": "retry", "mode": "smart", "prefix": 1}, {"query": "retry", "mode": "smart", "prefix": None},
        {"query": "retry", "mode": "smart", "prefix": "true"}, {"query": "retry", "mode": "smart", "under": "x"},
        {"query": "retry", "mode": "fuzzy"}, {"query": "retry", "mode": None}, {"query": "retry", "mode": 1},
        {"query": "retry", "prefix": True}, {"query": "retry", "mode": "keyword", "prefix": False},
        {"query": "", "mode": "smart"}, {"query": "retry", "mode": "smart", "limit": 0},
        {"query": "a" * 513, "mode": "smart", "prefix": True}, {"query": "common", "mode": "smart", "limit": 100},
        {"query": "retry", "mode": "smart", "under": ""}, {"query": "retry", "mode": "smart", "under": "/x"},
        {"query": "retry", "mode": "smart", "under": "a/../b"}, {"query": "retry", "mode": "smart", "under": 3},
        {"query": "retry", "mode": "smart", "meta": {}}, {"query": "retry", "mode": "smart", "meta": {"a": 1}},
        {"query": "retry", "mode": "smart", "meta": ["a"]}, {"query": "retry", "mode": "smart", "kind": "Py"},
        {"query": "retry", "mode": "smart", "kind": []}, {"query": "retry", "mode": "smart", "kind": [1]},
        {"query": "retry", "mode": "keyword", "under": "guide"}, {"query": "retry", "mode": "smart", "under": None},
        {"query": "retry", "mode": "smart", "expand": 1}, {"query": "retry", "mode": "smart", "expand": "yes"},
        {"query": "retry", "mode": "smart", "expand": None}, {"query": "retry", "mode": "keyword", "expand": True},
        {"query": "retry", "mode": "smart", "expand": True, "prefix": 0},
        {"query": "retyr", "mode": "smart", "correct": 1}, {"query": "retyr", "mode": "smart", "correct": None},
        {"query": "retyr", "mode": "keyword", "correct": True}, {"query": "the of a", "mode": "smart"},
    ]
    return out


def _assert_smart_parity(site: Path, requests: list[dict[str, Any]]) -> dict[str, int]:
    from okf_sphinx import open_index

    index = open_index(site)
    stats = {"full": 0, "partial": 0, "suggested": 0, "errors": 0, "stem_only": 0, "prefix_hits": 0, "corrected": 0}
    for req, js in zip(requests, run_node(site / "_okf", requests)):
        py = python_answer(index, req)
        diff = same(js, py)
        assert diff is None, f"request {json.dumps(req, ensure_ascii=True)[:300]}: {diff}"
        if "error" in py:
            stats["errors"] += 1
            continue
        if py.get("pages"):
            stats["partial" if py["pages"][0]["partial"] else "full"] += 1
        if "corrected" in py:
            stats["corrected"] += 1
        if any(s["candidates"] for s in py.get("suggestions", [])):
            stats["suggested"] += 1
        if req.get("prefix") and py.get("pages"):
            stats["prefix_hits"] += 1
        if py.get("pages") and py["terms"][0] not in index.normaliser.terms(py["pages"][0]["hits"][0]["snippet"]):
            stats["stem_only"] += 1
    return stats


def test_smart_parity_generated_unicode_site(stress_site: Path, diff_code_points: list[int]) -> None:
    stats = _assert_smart_parity(stress_site, smart_requests(stress_site, diff_code_points, 1500, seed=3))
    assert stats["full"] > 300 and stats["partial"] > 50 and stats["suggested"] > 20 and stats["errors"] > 50, stats
    assert stats["prefix_hits"] > 100 and stats["corrected"] > 20, stats


def test_smart_parity_example_site(example_html: Path, diff_code_points: list[int]) -> None:
    requests = smart_requests(example_html, diff_code_points, 1000, seed=4)
    requests += [{"query": q, "mode": "smart"} for q in ("retries policies", "caching", "installed", "retyr", "conf")]
    requests += [{"query": q, "mode": "smart", "prefix": True} for q in ("conf", "ret", "c", "Caf", "clearing ca")]
    stats = _assert_smart_parity(example_html, requests)
    assert stats["full"] > 200 and stats["partial"] > 30 and stats["suggested"] > 10 and stats["corrected"] > 10, stats


def test_both_engines_score_with_the_manifest_s_bm25_parameters(example_html: Path, tmp_path: Path) -> None:
    """k1 and b are the index's (Lucene's BM25Similarity model): a manifest with other values
    gives other scores, the same bits in Python and Node, in both modes."""
    import shutil

    import okf_sphinx
    from okf_sphinx.core import index_format as fmt

    site = tmp_path / "site"
    shutil.copytree(example_html / "_okf", site / "_okf")
    manifest = fmt.unwrap("manifest", (site / "_okf" / "manifest.js").read_bytes())
    assert (manifest["k1"], manifest["b"]) == (fmt.K1, fmt.B)
    requests = [{"query": "retry policy"}, {"query": "install", "limit": 5},
                {"query": "retry pol", "mode": "smart", "prefix": True}, {"query": "cache store", "mode": "smart"}]
    before = [python_answer(okf_sphinx.open_index(site), r) for r in requests]
    (site / "_okf" / "manifest.js").write_bytes(fmt.wrap("manifest", {**manifest, "k1": 2.0, "b": 0.3}, manifest["build"]))
    index = okf_sphinx.open_index(site)
    assert index.bm25 == (2.0, 0.3)
    after = [python_answer(index, r) for r in requests]
    for req, js, py, old in zip(requests, run_node(site / "_okf", requests), after, before):
        assert same(js, py) is None, (req, same(js, py))
        scores = [h["score"] for h in py["hits"]] if "hits" in py else [p["score"] for p in py["pages"]]
        old_scores = [h["score"] for h in old["hits"]] if "hits" in old else [p["score"] for p in old["pages"]]
        assert scores and scores != old_scores, req
    # a manifest without valid parameters is refused alike
    (site / "_okf" / "manifest.js").write_bytes(fmt.wrap("manifest", {**manifest, "b": 1.5}, manifest["build"]))
    with pytest.raises(okf_sphinx.OkfError) as err:
        okf_sphinx.open_index(site)
    assert run_node(site / "_okf", requests[:1]) == [err.value.envelope]
    assert "k1 and b" in err.value.message


# -- Chinese, Japanese and Korean sites: character pairs (okf_sphinx/core/segment.py) -----------

CJK_WORDS = [
    "数据库", "连接", "配置", "缓存", "查询", "默认", "参数", "函数", "文件", "目录", "编码", "字符串", "迭代器",
    "装饰器", "线程", "进程", "锁", "表", "模块", "日志", "网络", "地址", "服务器", "客户端", "元类", "𠀋",
    "モデル", "データベース", "フィールド", "設定", "インストール", "リポジトリ", "の", "を", "は", "します",
    "ファイル", "検索", "正規表現", "拡張子", "ｶﾀｶﾅ", "人々", "サーバー",
    "데이터베이스", "설정", "파일", "검색", "를", "은",
]
LATIN = ["django", "sphinx", "python", "Retry", "pool_size", "Café", "ﬁle", "straße"]


def _cjk_project(root: Path, language: str) -> Path:
    rng = random.Random(20261201)
    files: dict[str, str] = {}
    toc = []
    for p in range(16):
        name = f"c{p:02d}"
        toc.append(name)
        lines = [rng.choice(CJK_WORDS) + rng.choice(CJK_WORDS) + f" {p}", "=" * 40, ""]
        for _s in range(5):
            heading = rng.choice(CJK_WORDS) + rng.choice(["", rng.choice(LATIN)]) + rng.choice(CJK_WORDS)
            lines += [heading, "-" * 40, ""]
            sentences = []
            for _ in range(rng.randint(3, 12)):
                run = "".join(rng.choice(CJK_WORDS) if rng.random() < 0.85 else rng.choice(LATIN) for _ in range(rng.randint(1, 9)))
                sentences.append(run + rng.choice(["。", "，", "、", " ", "! ", "（" + rng.choice(LATIN) + "）"]))
            text = "".join(sentences).replace("_", " ")
            for i in range(0, len(text), 60):
                lines.append(text[i : i + 60].strip() or "x")
            lines.append("")
        files[f"{name}.rst"] = "\n".join(lines)
    files["index.rst"] = "目录\n====\n\n.. toctree::\n\n" + "".join(f"   {t}\n" for t in toc)
    return write_project(root, files, conf=f'language = "{language}"\n')


@pytest.fixture(scope="module", params=["zh_CN", "ja"])
def cjk_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_html(_cjk_project(tmp_path_factory.mktemp(f"cjk-{request.param}") / "src", request.param))


def cjk_requests(site: Path, n: int, seed: int) -> list[dict[str, Any]]:
    """Pieces of the sections' runs (1-6 code points, inside and across words), mixed scripts,
    mistyped characters, prefixes and filters, in both modes."""
    from okf_sphinx import open_index

    rng = random.Random(seed)
    index = open_index(site)
    runs = [t for sid in range(index.section_count) for t in index.normaliser.terms(index.section(sid)["text"])]
    out: list[dict[str, Any]] = []
    for _ in range(n):
        words = []
        for _k in range(rng.choice([1, 1, 1, 2, 2, 3])):
            run = rng.choice(runs)
            cps = list(run)
            a = rng.randrange(len(cps))
            piece = "".join(cps[a : a + rng.randint(1, 6)])
            r = rng.random()
            if r < 0.15:  # a mistyped character
                cps = list(piece)
                cps[rng.randrange(len(cps))] = rng.choice("车书水火木金土日月")
                piece = "".join(cps)
            elif r < 0.25:
                piece = rng.choice(LATIN) + piece
            elif r < 0.3:
                piece = run  # a whole run
            words.append(_vary(rng, piece))
        req: dict[str, Any] = {"query": rng.choice([" ", "\u3000", "、"]).join(words), "mode": "smart" if rng.random() < 0.8 else "keyword"}
        if req["mode"] == "smart":
            if rng.random() < 0.4:
                req["prefix"] = True
            if rng.random() < 0.15:
                req["expand"] = True
            if rng.random() < 0.1:
                req["under"] = rng.choice(["c01", "c1", "nowhere"])
        if rng.random() < 0.3:
            req["limit"] = rng.choice([1, 3, 10, 100])
        out.append(req)
    long = "".join(rng.choice(CJK_WORDS) for _ in range(60))[:200]
    out += [{"query": long, "mode": "smart"}, {"query": "数据库 " * 40, "mode": "smart"},
            {"query": "\u201c数据库 连接\u201d", "mode": "smart"}, {"query": "django", "mode": "smart", "prefix": True},
            {"query": "djangoのモデル", "mode": "smart"}, {"query": "火车", "mode": "smart"}, {"query": "𠀋", "mode": "smart"}]
    return out


def test_smart_parity_cjk_site(cjk_site: Path) -> None:
    """Python and the browser runtime split CJK words into the same pairs: same pages, scores,
    snippets, matched and missing terms, suggestions and errors, in both modes."""
    from okf_sphinx import open_index

    index = open_index(cjk_site)
    requests = cjk_requests(cjk_site, 700, seed=26)
    stats = _assert_smart_parity(cjk_site, requests)
    answers = [python_answer(index, r) for r in requests]
    joined = sum(any(len(t) > 2 for p in a.get("pages", []) for h in p["hits"] for t in h["matched_terms"]) for a in answers)
    assert index.manifest["smart"]["segmenter"] == "cjk-pairs-1"
    assert stats["full"] > 150 and stats["partial"] > 100 and joined > 100, (stats, joined)
