"""BM25 scores cross-checked against a naive reimplementation written here, from the raw texts."""

from __future__ import annotations

import math
import random
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

import okf_sphinx


def naive_terms(text: str) -> list[str]:
    """Char-by-char tokenizer, independent of okf_sphinx.core.terms."""
    norm = unicodedata.normalize("NFC", text.casefold())
    out, cur = [], []
    for ch in norm:
        if unicodedata.category(ch)[0] in "LNM":
            cur.append(ch)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


class NaiveBM25:
    """The contract's formula over (body, heading, title) of every searchable section."""

    def __init__(self, index: okf_sphinx.Index) -> None:
        self.sections = []
        for sid in range(index.section_count):
            s = index.section(sid)
            body, head, title = naive_terms(s["text"]), naive_terms(s["heading"]), naive_terms(s["title"])
            f: Counter[str] = Counter()
            for words, weight in ((body, 1), (head, 3), (title, 2)):
                for w in words:
                    f[w] += weight
            self.sections.append((s, f, len(body) + 3 * len(head) + 2 * len(title)))
        n = len(self.sections)
        avg = 0.0
        for _, _, length in self.sections:
            avg += float(length)
        avg = avg / n if n else 0.0
        self.avg = avg or 1.0
        self.n = n

    def search(self, terms: list[str]) -> list[tuple[float, str, int, str]]:
        df = {t: sum(1 for _, f, _ in self.sections if f[t] > 0) for t in terms}
        out = []
        for s, f, length in self.sections:
            if not all(f[t] > 0 for t in terms):
                continue
            score = 0.0
            for t in terms:
                idf = math.log(1 + (self.n - df[t] + 0.5) / (df[t] + 0.5))
                tf = float(f[t])
                score += idf * (tf * 2.2) / (tf + 1.2 * (0.25 + 0.75 * float(length) / self.avg))
            out.append((score, s["concept_id"], s["line_start"], s["path"]))
        out.sort(key=lambda x: (-x[0], x[1], x[2], x[3]))
        return out


@pytest.fixture(scope="module")
def pair(example_html: Path) -> tuple[okf_sphinx.Index, NaiveBM25]:
    index = okf_sphinx.open_index(example_html)
    return index, NaiveBM25(index)


def _queries(naive: NaiveBM25) -> list[str]:
    vocab = sorted({t for _, f, _ in naive.sections for t in f})
    rng = random.Random(20261129)
    qs = ["retry policy", "cache", "the", "install linux", "Кэш", "café", "script alert", "policy retry backoff"]
    for _ in range(100):
        qs.append(" ".join(rng.sample(vocab, rng.choice([1, 2, 3]))))
    for _ in range(100):  # terms drawn from one section, so the AND matches
        _, f, _ = rng.choice(naive.sections)
        qs.append(" ".join(rng.sample(sorted(f), min(len(f), rng.choice([1, 2, 3])))))
    return qs


def test_scores_equal_an_independent_bm25(pair: tuple[okf_sphinx.Index, NaiveBM25]) -> None:
    index, naive = pair
    assert index.avglen == naive.avg
    checked = 0
    for q in _queries(naive):
        result = index.search(q, limit=100)
        expected = naive.search(result["terms"])
        got = [(h["score"], h["concept_id"], h["line_start"], h["path"]) for h in result["hits"]]
        assert result["total"] == len(expected), q
        assert got == expected[:100], q  # exact float equality
        checked += len(got)
    assert checked > 500
