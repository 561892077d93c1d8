"""The pinned stemmers (okf_sphinx/stemmer.py, static/okf-stemmer.js).

Proof, per enabled language, over a large word list:
- the Python stemmer equals the reference implementation of the pinned Snowball release
  (``snowballstemmer==3.0.1``, its generated pure-Python class, never PyStemmer), and
- the JavaScript port equals the Python stemmer, in Node.

The word list is every distinct term of the corpora in ../shared/corpora, the system
word list when installed (Debian ``wamerican``, raw and tokenised), every word of the
corpora with the suffixes the algorithm's steps remove, and words with characters
outside a-z and the BMP (which the two languages count differently).
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from okf_sphinx.stemmer import (
    STEMMER_VERSION, algorithm_for, stem_english, stemmer_for, supported_languages,
)
from okf_sphinx.terms import terms

sys.path.insert(0, str(Path(__file__).resolve().parent / "js"))
from okf_js import HERE, require_node  # noqa: E402

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
if not CORPORA.is_dir():  # a worktree or a clone beside ../shared
    CORPORA = Path("/work/shared/corpora")
SYSTEM_WORDS = Path("/usr/share/dict/american-english")
STEMMER_RUNNER = HERE / "stemmer_runner.js"
TEXT_SUFFIXES = {".rst", ".md", ".txt", ".py", ".yml", ".yaml", ".html", ".toml"}
# every suffix some step of the English algorithm looks at
SUFFIXES = (
    "s", "es", "ies", "ied", "sses", "ss", "us", "ed", "eed", "edly", "eedly", "ing", "ingly",
    "y", "ly", "li", "ation", "ational", "tional", "izer", "ization", "ator", "alism",
    "aliti", "iviti", "biliti", "bli", "abli", "alli", "fulli", "lessli", "ousli", "entli",
    "iveness", "fulness", "ousness", "ogist", "ogi", "icate", "ative", "alize", "iciti",
    "ical", "ful", "ness", "ic", "ance", "ence", "able", "ible", "ate", "ive", "ize", "iti",
    "al", "ism", "ion", "sion", "tion", "er", "ous", "ant", "ent", "ment", "ement", "e", "l",
    "ll", "at", "bl", "iz", "bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt",
)
MIN_WORDS = 50_000


@functools.lru_cache(maxsize=1)
def word_list() -> tuple[str, ...]:
    words: set[str] = set()
    corpus_terms: set[str] = set()
    for path in sorted(CORPORA.rglob("*")):
        if path.is_file() and path.suffix in TEXT_SUFFIXES:
            corpus_terms.update(terms(path.read_text("utf-8", "replace")))
    words |= corpus_terms
    if SYSTEM_WORDS.is_file():
        raw = {w.casefold() for w in SYSTEM_WORDS.read_text("utf-8").split()}
        words |= raw  # with apostrophes: the algorithm's own handling of "'s"
        words.update(terms(" ".join(raw)))
    # derived forms: words of 3-8 ASCII letters with every suffix (every 16th word, so the
    # list stays quick to stem while each rule meets hundreds of stems)
    bases = sorted(t for t in corpus_terms if t.isascii() and t.isalpha() and 3 <= len(t) <= 8)
    for base in bases[::16]:
        for suffix in SUFFIXES:
            words.add(base + suffix)
    # code points outside the BMP count as one character in Python, two in JavaScript
    words.update([
        "\U0001d400ing", "x\U0001d400sses", "\U0001d400\U0001d401ation", "\U00020000ly",
        "\U0001d41a\U0001d41bed", "ab\U00020000y", "\U00020000\U00020001", "a\uffffing",
        "\uffff\U00020000ational", "caf\u00e9s", "na\u00efvely", "stra\u00dfe",
        "\u00e9t\u00e9", "\u0444\u0430\u0439\u043b\u044b", "\u6587\u6863",
    ])
    return tuple(sorted(words))


def test_word_list_is_large() -> None:
    assert CORPORA.is_dir(), f"the corpora are missing at {CORPORA}"
    assert len(word_list()) >= MIN_WORDS, len(word_list())


def test_equals_snowball_3_0_1_reference() -> None:
    """Exact equality with the generated pure-Python class of the pinned release."""
    import snowballstemmer.english_stemmer as reference

    header = Path(reference.__file__).read_text("utf-8")[:400]
    assert "by Snowball 3.0.1" in header, (
        "the oracle must be snowballstemmer 3.0.1 (pip install 'snowballstemmer==3.0.1'), got: "
        + header.splitlines()[1]
    )
    assert STEMMER_VERSION == "snowball-3.0.1"
    oracle = reference.EnglishStemmer()
    stem = stemmer_for("en")
    assert stem is not None
    differences = [(w, stem(w), oracle.stemWord(w)) for w in word_list() if stem(w) != oracle.stemWord(w)]
    assert differences == [], f"{len(differences)} of {len(word_list())} words differ: {differences[:20]}"


def node_stems(language: str | None, words: tuple[str, ...]) -> dict:
    node = require_node()
    proc = subprocess.run(
        [node, str(STEMMER_RUNNER)] + ([language] if language is not None else []),
        input=json.dumps(words, ensure_ascii=True), capture_output=True, text=True,
        encoding="utf-8", timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_node_equals_python() -> None:
    words = word_list()
    answer = node_stems("en", words)
    assert answer["version"] == STEMMER_VERSION
    assert answer["algorithm"] == algorithm_for("en") == "english"
    assert answer["languages"] == list(supported_languages())
    stem = stemmer_for("en")
    assert stem is not None
    differences = [(w, js, stem(w)) for w, js in zip(words, answer["stems"]) if js != stem(w)]
    assert len(answer["stems"]) == len(words)
    assert differences == [], f"{len(differences)} of {len(words)} words differ: {differences[:20]}"


@pytest.mark.parametrize("language, algorithm", [
    (None, "english"), ("", "english"), ("en", "english"), ("en_US", "english"),
    ("en-GB", "english"), ("EN", "english"), ("de", None), ("zh_CN", None), ("fr", None),
])
def test_language_mapping_same_in_node(language: str | None, algorithm: str | None) -> None:
    assert algorithm_for(language) == algorithm
    assert (stemmer_for(language) is None) == (algorithm is None)
    answer = node_stems(language, ("running", "internal"))
    assert answer["algorithm"] == algorithm
    if algorithm is None:
        assert answer["stems"] is None
    else:
        assert answer["stems"] == ["run", "intern"]


def test_pinned_release_not_the_installed_one() -> None:
    """Words where Snowball 3.1 differs from 3.0.1 keep their 3.0.1 stems, and words the
    algorithm description uses as examples keep the stems it lists."""
    # 3.1 adds "inter" to the R1 prefixes and "skis" -> "ski"
    assert stem_english("internal") == "intern"
    assert stem_english("skis") == "skis"
    examples = {
        "consign": "consign", "consigned": "consign", "consignment": "consign",
        "consolidating": "consolid", "conspiracy": "conspiraci", "constancy": "constanc",
        "knackeries": "knackeri", "generously": "generous", "dying": "die", "hopped": "hop",
        "hoped": "hope", "succeeded": "succeed", "evening": "evening", "skies": "sky",
        "news": "news", "cries": "cri", "ties": "tie", "gas": "gas", "gaps": "gap",
    }
    assert {w: stem_english(w) for w in examples} == examples


def test_memoised_stemmer_is_shared() -> None:
    assert stemmer_for("en") is stemmer_for("en_US") is stemmer_for(None)
    stem = stemmer_for("en")
    assert stem is not None and stem("running") == stem("running") == "run"
