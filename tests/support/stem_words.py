"""The word lists that prove each stemmer (tests/test_stemmer.py, bench/bench_stemmer.py).

Per language, at least 50,000 distinct words, from what every machine with the test extras
has (no system dictionary):

- real words: a fixed sample of the inflected forms and lemmas that ``simplemma`` (a test
  dependency: pure Python, no dependencies of its own) ships for all 15 languages, as
  :func:`okf_sphinx.core.terms.terms` makes them (casefolded, NFC, split at punctuation);
- for English also every term of the corpora in ../shared/corpora (when present);
- made-up words: real stems with every string the algorithm's tables name (suffixes at the
  end, prefixes at the start: stemgen's definition lists them), so that every ending meets
  many stems; every letter of the algorithm's groupings alone and doubled before endings;
- words with characters outside the BMP (which Python and JavaScript count differently).
"""

from __future__ import annotations

import functools
from pathlib import Path

from okf_sphinx.core.stemmer import algorithm_for
from okf_sphinx.core.terms import terms

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT.parent / "shared" / "corpora"
if not CORPORA.is_dir():  # a worktree or a clone beside ../shared
    CORPORA = Path("/work/shared/corpora")
TEXT_SUFFIXES = {".rst", ".md", ".txt", ".py", ".yml", ".yaml", ".html", ".toml"}
MIN_WORDS = 50_000
REAL_WORDS = 40_000  # sampled from the vocabulary
MADE_UP = 16_000  # stems x table strings, about
# simplemma's language code where it differs from Sphinx's
VOCABULARY = {"no": "nb"}
# code points outside the BMP count as one character in Python, two in JavaScript
ASTRAL = (
    "\U0001d400ing", "x\U0001d400sses", "\U0001d400\U0001d401ation", "\U00020000ly",
    "\U0001d41a\U0001d41bed", "ab\U00020000y", "\U00020000\U00020001", "a\uffffing",
    "\uffff\U00020000ational", "\U00020000ungen", "\U0001d400\u00e4uer", "a\U00020000uen",
    "caf\u00e9s", "na\u00efvely", "stra\u00dfe", "\u00e9t\u00e9", "\u0444\u0430\u0439\u043b\u044b",
    "\u6587\u6863", "\U0001d400\u0430\u043c\u0438", "\u043a\u043d\u0438\u0433\U0001d400\u0430\u043c\u0438",
    "ev\U0001d400ler", "\U0001d400kt\u00e4", "\U0001d400\U0001d401\U0001d402ment",
)


@functools.lru_cache(maxsize=1)
def corpus_terms() -> frozenset[str]:
    found: set[str] = set()
    if CORPORA.is_dir():
        for path in sorted(CORPORA.rglob("*")):
            if path.is_file() and path.suffix in TEXT_SUFFIXES:
                found.update(terms(path.read_text("utf-8", "replace")))
    return frozenset(found)


def vocabulary(language: str) -> list[str]:
    """Every term of simplemma's word forms and lemmas of ``language``, sorted."""
    from simplemma.strategies.dictionaries.dictionary_factory import DefaultDictionaryFactory

    table = DefaultDictionaryFactory().get_dictionary(VOCABULARY.get(language, language))
    found: set[str] = set()
    for form, lemma in table.items():
        for word in (form, lemma):
            found.update(terms(word.decode("utf-8") if isinstance(word, bytes) else word))
    return sorted(found)


def _definition(language: str):  # type: ignore[no-untyped-def]
    from stemgen.__main__ import ALGORITHMS
    from stemgen.definitions import read_algorithm

    return read_algorithm(ALGORITHMS / f"{algorithm_for(language)}.sx")


def table_strings(language: str) -> tuple[list[str], list[str], str]:
    """The strings the algorithm's tables and tests name: (suffixes, prefixes, letters)."""
    definition = _definition(language)
    suffixes: set[str] = set()
    prefixes: set[str] = set()
    for among in definition.amongs:
        for s, _result, _cond in among.entries:
            (suffixes if among.mode == "b" else prefixes).add(s)
    letters = "".join(sorted(set("".join(definition.groupings.values()))))
    return sorted(suffixes), sorted(prefixes), letters


@functools.cache
def word_list(language: str) -> tuple[str, ...]:
    """At least MIN_WORDS distinct words for ``language``'s stemmer, the same on every run."""
    real = vocabulary(language)
    words = set(real[:: max(1, len(real) // REAL_WORDS)])
    if language == "en":
        words |= corpus_terms()
    suffixes, prefixes, letters = table_strings(language)
    # stems: real words of 3 to 9 letters with their last letters cut at random-looking places
    stems = sorted({w[: max(2, len(w) - (len(w) * 7 % 4))] for w in real if w.isalpha() and 3 <= len(w) <= 9})
    per_string = max(1, MADE_UP // max(1, len(suffixes) + len(prefixes)))
    step = max(1, len(stems) // per_string)
    for i, ending in enumerate(suffixes):
        words.update(stem + ending for stem in stems[i % step::step])
    for i, start in enumerate(prefixes):
        words.update(start + stem for stem in stems[i % step::step])
    for letter in letters:
        words.add(letter)
        words.update(stems[j] + letter + letter + ending for j, ending in enumerate(suffixes[:40]))
    words |= set(ASTRAL)
    words.discard("")
    return tuple(sorted(words))
