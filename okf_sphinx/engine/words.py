"""Which of a smart query's words count, and how much (docs/smart.md, "Which pages").

A reader's query is often a question: "how do I deploy with gunicorn", "why is my class
unhashable".  Its stop words and question words ("how", "do", "i", "with", "my") say
nothing about which page is meant, and its words are not equally telling: "gunicorn" names
one page, "deploy" many.  So, in smart mode:

- a **stop word** of the site's language (:data:`STOP_WORDS`) is left out of the query's
  words when the query has another word (it is matched nowhere and marked nowhere), unless
  it is the last word being completed (``prefix``) or a word of a quoted phrase;
- the words left **count by their page idf** (the stem group's, stored by the build): a
  page's *coverage* is the idf of the words (and quoted phrases) it holds over the idf of
  them all, and its score is multiplied by ``coverage ** COVERAGE_POWER``;
- a page is **shown** when it holds every word, or — when some page does — when its
  coverage is at least :data:`MIN_COVERAGE`, or when it holds the query's most specific
  word (the largest idf); when no page holds every word, every page holding one is shown.

The browser runtime's twin is ``okf_sphinx/js/engine/words.js``; every float operation
runs in the same order there.
"""

from __future__ import annotations

from typing import Any

#: Stop words and question words, by the site language's primary subtag: words that never
#: decide whether a page is shown.  English only for now: on a site in another language
#: every word counts (by its idf).
STOP_WORDS: dict[str, tuple[str, ...]] = {
    "en": (
        "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "aren", "as", "at", "be", "been",
        "before", "being", "both", "but", "by", "can", "could", "did", "didn", "do", "does", "doesn", "doing", "don",
        "each", "for", "from", "had", "has", "have", "having", "he", "her", "here", "him", "his", "how", "i", "if",
        "in", "into", "is", "isn", "it", "its", "just", "me", "might", "must", "my", "no", "nor", "not", "of", "on",
        "onto", "or", "our", "s", "shall", "she", "should", "so", "some", "such", "t", "than", "that", "the", "their",
        "them", "then", "there", "these", "they", "this", "those", "to", "too", "up", "us", "very", "was", "wasn",
        "we", "were", "what", "when", "where", "which", "while", "who", "whom", "whose", "why", "will", "with",
        "won", "would", "you", "your",
    ),
}
#: A page's score is multiplied by its coverage to this power (chosen on the tune half of
#: bench/bench_readers.py's question sets, bench_quality's known items not lower).
COVERAGE_POWER = 2
#: When some page holds every word, the pages whose coverage is at least this are shown too.
MIN_COVERAGE = 0.5


def stop_words(language: str | None) -> frozenset[str]:
    """The stop words of a site language (``"en"``, ``"en_GB"``, ``"pt-BR"`` …): those of its
    primary subtag, none for a language without a list."""
    primary = (language or "en").replace("_", "-").split("-", 1)[0].lower()
    return frozenset(STOP_WORDS.get(primary, ()))


def counting(words: list[str], stops: frozenset[str], kept: set[int]) -> list[bool]:
    """Per word: does it count?  A stop word does not, unless its index is in ``kept`` (the
    word being completed, a phrase's word) or every word is a stop word."""
    out = [w not in stops or i in kept for i, w in enumerate(words)]
    return out if any(out) else [True] * len(words)


def power(coverage: float) -> float:
    """``coverage ** COVERAGE_POWER`` by repeated multiplication (the same bits in every engine)."""
    out = 1.0
    for _ in range(COVERAGE_POWER):
        out = out * coverage
    return out


class Coverage:
    """The idf share of the query's words and phrases each page holds."""

    def __init__(self, weights: list[float], holders: list[Any]) -> None:
        """``weights``: each word's (then each phrase's) idf; ``holders``: the pages holding
        each, in the same order (anything with ``in``)."""
        self.weights = weights
        self.holders = holders
        total = 0.0
        for w in weights:
            total += w
        self.total = total
        top = max(weights) if weights else 0.0
        #: the most specific words: those of the largest idf
        self.rarest = [k for k, w in enumerate(weights) if w == top]

    def of(self, page: int) -> float:
        """The page's coverage: the idf of what it holds over the idf of all (1 when every
        idf is 0: a word in every page tells nothing apart)."""
        if self.total == 0.0:
            return 1.0
        held = 0.0
        for w, pages in zip(self.weights, self.holders):
            if page in pages:
                held += w
        return held / self.total

    def shown(self, page: int, coverage: float) -> bool:
        """Is a page that lacks some word shown beside the pages that hold them all?"""
        return coverage >= MIN_COVERAGE or any(page in self.holders[k] for k in self.rarest)
