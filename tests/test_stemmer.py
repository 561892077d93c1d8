"""The pinned stemmers (okf_sphinx/core/stemmer.py + core/snowball/, static/okf-stemmer*.js).

Proof, per language, over a word list of at least 50,000 words (tests/support/stem_words.py: real
inflected vocabulary, words made from the algorithm's own tables, characters outside the BMP):
- the Python stemmer equals the reference implementation of the pinned Snowball release
  (``snowballstemmer==3.0.1``, its generated pure-Python class, never PyStemmer), and
- the JavaScript stemmer equals the Python stemmer, in Node;
and the generated files are what ``python -m stemgen`` writes from the definitions.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import subprocess
from pathlib import Path

import pytest

from okf_sphinx.core.stemmer import STEMMER_VERSION, algorithm_for, stemmer_for, supported_languages

from support.node import JS_DIR, require_node
from support.stem_words import MIN_WORDS, ROOT, word_list

from support import stem_words

pytestmark = pytest.mark.slow  # stems 50,000+ words per language in Python and Node

STEMMER_RUNNER = JS_DIR / "stemmer_runner.js"
# the Sphinx languages with a stemmer, as sphinx.search has them
LANGUAGES = ("da", "de", "en", "es", "fi", "fr", "hu", "it", "nl", "no", "pt", "ro", "ru", "sv", "tr")


def test_every_language_sphinx_stems_is_proven() -> None:
    """A language is enabled only with a reference oracle and a word list here."""
    assert supported_languages() == LANGUAGES


def test_generated_files_are_what_stemgen_writes() -> None:
    from stemgen.__main__ import main

    assert main(["--check"]) == 0, "run python -m stemgen"


def oracle(language: str):  # type: ignore[no-untyped-def]
    algorithm = algorithm_for(language)
    reference = importlib.import_module(f"snowballstemmer.{algorithm}_stemmer")
    header = Path(reference.__file__).read_text("utf-8")[:400]
    assert "by Snowball 3.0.1" in header, (
        "the oracle must be snowballstemmer 3.0.1 (pip install 'snowballstemmer==3.0.1'), got: "
        + header.splitlines()[1]
    )
    return getattr(reference, f"{str(algorithm).capitalize()}Stemmer")()


def cached_word_list(language: str, cache: pytest.Cache | None) -> tuple[str, ...]:
    """word_list(language), kept in pytest's cache: reading simplemma's vocabularies takes a
    minute of CPU for all languages; the key changes with the list's recipe and sources."""
    import simplemma

    if cache is None:  # -p no:cacheprovider
        return word_list(language)
    recipe = Path(stem_words.__file__).read_bytes() + simplemma.__version__.encode()
    recipe += (ROOT / "stemgen" / "algorithms" / f"{algorithm_for(language)}.sx").read_bytes()
    key = f"okf/stem-words/{language}-{hashlib.sha256(recipe).hexdigest()[:16]}"
    words = cache.get(key, None)
    if not isinstance(words, list):
        words = list(word_list(language))
        cache.set(key, words)
    return tuple(words)


@pytest.mark.parametrize("language", LANGUAGES)
def test_equals_snowball_3_0_1_and_node_equals_python(language: str, request: pytest.FixtureRequest) -> None:
    """Exact equality with the generated pure-Python class of the pinned release, then of
    the JavaScript (in Node) with the Python, on the language's word list."""
    assert STEMMER_VERSION == "snowball-3.0.1"
    words = cached_word_list(language, getattr(request.config, "cache", None))
    assert len(words) >= MIN_WORDS, len(words)
    reference = oracle(language)
    stem = stemmer_for(language)
    assert stem is not None
    ours = [stem(w) for w in words]
    differences = [(w, s, reference.stemWord(w)) for w, s in zip(words, ours) if s != reference.stemWord(w)]
    assert differences == [], f"{len(differences)} of {len(words)} words differ: {differences[:20]}"
    answer = node_stems(language, words)
    assert answer["version"] == STEMMER_VERSION
    assert answer["algorithm"] == algorithm_for(language)
    assert answer["languages"] == list(supported_languages())
    assert len(answer["stems"]) == len(words)
    differences = [(w, js, s) for w, js, s in zip(words, answer["stems"], ours) if js != s]
    assert differences == [], f"{len(differences)} of {len(words)} words differ: {differences[:20]}"
    changed = sum(1 for w, s in zip(words, ours) if w != s)
    assert changed > len(words) // 4, "most words of the list should lose an ending"


def node_stems(language: str | None, words: tuple[str, ...]) -> dict:
    node = require_node()
    proc = subprocess.run(
        [node, str(STEMMER_RUNNER)] + ([language] if language is not None else []),
        input=json.dumps(words, ensure_ascii=True), capture_output=True, text=True,
        encoding="utf-8", timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("language, algorithm", [
    (None, "english"), ("", "english"), ("en", "english"), ("en_US", "english"),
    ("en-GB", "english"), ("EN", "english"), ("de", "german"), ("de_AT", "german"),
    ("es", "spanish"), ("es_MX", "spanish"), ("fr", "french"), ("fr_CA", "french"), ("ru", "russian"),
    ("pt_BR", "portuguese"), ("nl", "dutch"), ("no", "norwegian"), ("tr", "turkish"),
    ("zh_CN", None), ("ja", None), ("ko", None), ("pl", None), ("nb", None),
])
def test_language_mapping_same_in_node(language: str | None, algorithm: str | None) -> None:
    assert algorithm_for(language) == algorithm
    assert (stemmer_for(language) is None) == (algorithm is None)
    words = ("running", "internal", "häuser", "ergebnisse", "haciéndolo", "paramètres", "книгами")
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
            "french": ["running", "internal", "häus", "ergebn", "haciéndolo", "parametr", "книгами"],
            "russian": ["running", "internal", "häuser", "ergebnisse", "haciéndolo", "paramètres", "книг"],
        }
        assert answer["stems"][: len(expected.get(algorithm, []))] == expected.get(algorithm, [])


def test_pinned_release_not_the_installed_one() -> None:
    """Words where Snowball 3.1 differs from 3.0.1 keep their 3.0.1 stems, and words the
    algorithm description uses as examples keep the stems it lists."""
    stem_english, stem_german, stem_spanish = (stemmer_for(x) for x in ("en", "de", "es"))
    assert stem_english is not None and stem_german is not None and stem_spanish is not None
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
