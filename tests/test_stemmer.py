"""The pinned stemmers (okf_sphinx/core/stemmer.py, static/okf-stemmer.js).

Proof, per enabled language, over a large word list:
- the Python stemmer equals the reference implementation of the pinned Snowball release
  (``snowballstemmer==3.0.1``, its generated pure-Python class, never PyStemmer), and
- the JavaScript port equals the Python stemmer, in Node.

English words: every distinct term of the corpora in ../shared/corpora, the system
word list when installed (Debian ``wamerican``, raw and tokenised), and every word of
the corpora with the suffixes the algorithm's steps remove.  German words: the system
German word list when installed (Debian ``wngerman``), spellings with ß and ae/oe/ue,
and words with the German suffixes.  Spanish words: the system Spanish word list when
installed (Debian ``wspanish``), and words with the Spanish suffixes, verb endings and
attached pronouns.  All: the corpora's terms, and words with characters outside the
BMP (which the two languages count differently).
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from okf_sphinx.core.stemmer import (
    STEMMER_VERSION,
    algorithm_for,
    stem_english,
    stem_german,
    stem_spanish,
    stemmer_for,
    supported_languages,
)
from okf_sphinx.core.terms import terms

sys.path.insert(0, str(Path(__file__).resolve().parent / "js"))
from okf_js import HERE, require_node  # noqa: E402

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
if not CORPORA.is_dir():  # a worktree or a clone beside ../shared
    CORPORA = Path("/work/shared/corpora")
SYSTEM_WORDS = {
    "en": Path("/usr/share/dict/american-english"),
    "de": Path("/usr/share/dict/ngerman"),
    "es": Path("/usr/share/dict/spanish"),
}
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
DE_SUFFIXES = (
    "e", "em", "en", "ern", "er", "es", "s", "ln", "lns", "erin", "erinnen", "nisse", "nissen",
    "et", "st", "est", "end", "ung", "ig", "igend", "igung", "isch", "ik", "lich", "heit",
    "keit", "igkeit", "lichkeit", "erlich", "enheit", "ungen", "lichen", "ischen", "heiten",
)
ES_SUFFIXES = (
    "a", "o", "os", "e", "es", "é", "á", "í", "ó", "gue", "guen", "guéis", "guemos", "ya", "yendo",
    "yó", "yeron", "ica", "osas", "ismo", "amiento", "ables", "ancia", "adora", "antes",
    "aciones", "ación", "icación", "logía", "logías", "ución", "uciones", "encia", "encias",
    "amente", "icamente", "ativamente", "osamente", "mente", "ablemente", "antemente", "idad",
    "idades", "abilidad", "icidad", "ividad", "iva", "ativo", "ivos", "aba", "ieran", "arían",
    "iesen", "ieron", "arán", "ando", "iendo", "ar", "er", "ir", "aríamos", "iésemos", "éis",
    "emos", "ió", "ándolo", "iéndose", "ársela", "érselos", "írnos", "ámoslo", "arlo", "erse",
    "irlas", "yéndole", "lo", "la", "le", "se", "nos", "me", "selo", "selas", "los", "les",
)
MIN_WORDS = 50_000
# the reference implementation (module, class) of each enabled language
ORACLES = {
    "en": ("english_stemmer", "EnglishStemmer"),
    "de": ("german_stemmer", "GermanStemmer"),
    "es": ("spanish_stemmer", "SpanishStemmer"),
}
# code points outside the BMP count as one character in Python, two in JavaScript
ASTRAL = (
    "\U0001d400ing", "x\U0001d400sses", "\U0001d400\U0001d401ation", "\U00020000ly",
    "\U0001d41a\U0001d41bed", "ab\U00020000y", "\U00020000\U00020001", "a\uffffing",
    "\uffff\U00020000ational", "\U00020000ungen", "\U0001d400\u00e4uer", "a\U00020000uen",
    "caf\u00e9s", "na\u00efvely", "stra\u00dfe", "\u00e9t\u00e9", "\u0444\u0430\u0439\u043b\u044b",
    "\u6587\u6863",
)


@functools.lru_cache(maxsize=1)
def corpus_terms() -> frozenset[str]:
    found: set[str] = set()
    for path in sorted(CORPORA.rglob("*")):
        if path.is_file() and path.suffix in TEXT_SUFFIXES:
            found.update(terms(path.read_text("utf-8", "replace")))
    return frozenset(found)


def system_words(language: str) -> set[str]:
    path = SYSTEM_WORDS[language]
    if not path.is_file():
        return set()
    raw = {w.casefold() for w in path.read_text("utf-8").split()}
    return raw | set(terms(" ".join(raw)))  # raw keeps apostrophes: English handles "'s"


def derived(bases: list[str], suffixes: tuple[str, ...], step: int) -> set[str]:
    """Every ``step``-th base with every suffix: each rule meets hundreds of stems while
    the list stays quick to stem."""
    return {base + suffix for base in bases[::step] for suffix in suffixes}


@functools.lru_cache(maxsize=None)
def word_list(language: str = "en") -> tuple[str, ...]:
    corpus = corpus_terms()
    words = set(ASTRAL)
    if language == "en":
        words |= corpus | system_words("en")
        bases = sorted(t for t in corpus if t.isascii() and t.isalpha() and 3 <= len(t) <= 8)
        words |= derived(bases, SUFFIXES, 16)
    elif language == "es":
        spanish = sorted(system_words("es"))
        words |= set(spanish) | set(sorted(corpus)[::2])
        bases = sorted(t for t in (spanish or corpus) if t.isalpha() and 3 <= len(t) <= 9)
        words |= derived(bases, ES_SUFFIXES, 160)
    else:
        # every 4th German word and every 2nd corpus term keep the oracle's run short
        german = sorted(system_words("de"))[::4]
        words |= set(german) | set(sorted(corpus)[::2])
        bases = sorted(t for t in (german or corpus) if t.isalpha() and 3 <= len(t) <= 9)
        words |= derived(bases, DE_SUFFIXES, 24)
        # the prelude's spellings: ß, and ae / oe / ue for ä / ö / ü
        words |= {w.replace("ss", "\u00df") for w in bases[::7] if "ss" in w}
        words |= {w.replace("\u00e4", "ae").replace("\u00f6", "oe").replace("\u00fc", "ue") for w in bases[::5]}
    return tuple(sorted(words))


def test_every_enabled_language_is_proven() -> None:
    """A language is enabled only with a reference oracle and a word list here."""
    assert set(supported_languages()) == set(ORACLES)
    assert CORPORA.is_dir(), f"the corpora are missing at {CORPORA}"


@pytest.mark.parametrize("language", sorted(ORACLES))
def test_word_list_is_large(language: str) -> None:
    assert len(word_list(language)) >= MIN_WORDS, len(word_list(language))


@pytest.mark.parametrize("language", sorted(ORACLES))
def test_equals_snowball_3_0_1_reference(language: str) -> None:
    """Exact equality with the generated pure-Python class of the pinned release."""
    import importlib

    module_name, class_name = ORACLES[language]
    reference = importlib.import_module(f"snowballstemmer.{module_name}")
    header = Path(reference.__file__).read_text("utf-8")[:400]
    assert "by Snowball 3.0.1" in header, (
        "the oracle must be snowballstemmer 3.0.1 (pip install 'snowballstemmer==3.0.1'), got: "
        + header.splitlines()[1]
    )
    assert STEMMER_VERSION == "snowball-3.0.1"
    oracle = getattr(reference, class_name)()
    stem = stemmer_for(language)
    assert stem is not None
    words = word_list(language)
    differences = [(w, stem(w), oracle.stemWord(w)) for w in words if stem(w) != oracle.stemWord(w)]
    assert differences == [], f"{len(differences)} of {len(words)} words differ: {differences[:20]}"


def node_stems(language: str | None, words: tuple[str, ...]) -> dict:
    node = require_node()
    proc = subprocess.run(
        [node, str(STEMMER_RUNNER)] + ([language] if language is not None else []),
        input=json.dumps(words, ensure_ascii=True), capture_output=True, text=True,
        encoding="utf-8", timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("language", sorted(ORACLES))
def test_node_equals_python(language: str) -> None:
    words = word_list(language)
    answer = node_stems(language, words)
    assert answer["version"] == STEMMER_VERSION
    assert answer["algorithm"] == algorithm_for(language) == ORACLES[language][0].split("_")[0]
    assert answer["languages"] == list(supported_languages())
    stem = stemmer_for(language)
    assert stem is not None
    differences = [(w, js, stem(w)) for w, js in zip(words, answer["stems"]) if js != stem(w)]
    assert len(answer["stems"]) == len(words)
    assert differences == [], f"{len(differences)} of {len(words)} words differ: {differences[:20]}"


@pytest.mark.parametrize("language, algorithm", [
    (None, "english"), ("", "english"), ("en", "english"), ("en_US", "english"),
    ("en-GB", "english"), ("EN", "english"), ("de", "german"), ("de_AT", "german"),
    ("es", "spanish"), ("es_MX", "spanish"),
    ("zh_CN", None), ("fr", None), ("ja", None),
])
def test_language_mapping_same_in_node(language: str | None, algorithm: str | None) -> None:
    assert algorithm_for(language) == algorithm
    assert (stemmer_for(language) is None) == (algorithm is None)
    words = ("running", "internal", "häuser", "ergebnisse", "haciéndolo")
    answer = node_stems(language, words)
    assert answer["algorithm"] == algorithm
    if algorithm is None:
        assert answer["stems"] is None
    else:
        stem = stemmer_for(language)
        assert stem is not None
        assert answer["stems"] == [stem(w) for w in words]
        expected = {
            "english": ["run", "intern"], "german": ["running", "internal", "haus", "ergebnis"],
            "spanish": ["running", "internal", "häus", "ergebniss", "hac"],
        }
        assert answer["stems"][: len(expected[algorithm])] == expected[algorithm]


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
    # German examples from the algorithm's description, and its prelude's spellings
    german = {
        "aufeinanderfolgenden": "aufeinanderfolg", "kategorischen": "kategor",
        "häuser": "haus", "haeuser": "haus", "straße": "strass", "ergebnisse": "ergebnis",
        "system": "system", "systemen": "system", "planet": "planet", "freundlichkeit": "freundlich",
    }
    assert {w: stem_german(w) for w in german} == german
    spanish = {
        "corriendo": "corr", "cómetelo": "cometel", "haciéndolo": "hac", "nacionalidades": "nacional",
        "rápidamente": "rapid", "huyendo": "huyend", "persiguen": "persig", "canciones": "cancion",
    }
    assert {w: stem_spanish(w) for w in spanish} == spanish


def test_memoised_stemmer_is_shared() -> None:
    assert stemmer_for("en") is stemmer_for("en_US") is stemmer_for(None)
    stem = stemmer_for("en")
    assert stem is not None and stem("running") == stem("running") == "run"
