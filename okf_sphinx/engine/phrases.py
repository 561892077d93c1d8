"""Quoted phrases of a smart query (docs/smart.md, "Quoted phrases"): the sections that hold one;
and a query that is a sentence (a phrase pasted from a docstring or a page): the sections of a
shown page that hold it word for word come first among its hits.

The browser runtime's twin is ``okf_sphinx/js/engine/phrases.js``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

if TYPE_CHECKING:
    from .index import Index

#: Quoted phrases of a query that are checked.
MAX_PHRASES = 4
#: Sections whose text one phrase is checked in; beyond, holding its words suffices.
MAX_PHRASE_SECTIONS = 200
#: A query of at least this many terms, with no quoted phrase, is also read as a sentence
#: (chosen on the tune half of the docstring-phrase sets of bench/bench_objects.py).
SENTENCE_TERMS = 2
#: Of a shown page's sections holding every counted word, the best-scoring ones that may be checked
#: for the sentence (each check reads the section's text; the smallest cap within 1 % of no cap on
#: the tune half; engine/smart.py ``sentence_hits`` checks only those that can change the hits shown).
SENTENCE_SECTIONS = 20
_QUOTE = re.compile("[\"\u201c\u201d]")


def phrases(normaliser: Any, query: str) -> list[list[str]]:
    """The quoted phrases of a query (``"…"``, ``“…”``; quote marks pair up in order), as terms:
    those of at least two terms, distinct, in order, at most :data:`MAX_PHRASES`."""
    marks = [m.start() for m in _QUOTE.finditer(query)]
    out: list[list[str]] = []
    for a, b in zip(marks[0::2], marks[1::2]):
        terms = normaliser.terms(query[a + 1 : b])
        if len(terms) >= 2 and terms not in out and len(out) < MAX_PHRASES:
            out.append(terms)
    return out


def holds_phrase(terms: list[str], phrase: list[str]) -> bool:
    """Do ``terms`` hold ``phrase``'s terms consecutively, in order?"""
    return holds_sentence(terms, phrase, False)


def phrase_sections(index: Index, phrase: list[str], keep: Callable[[int], bool]) -> set[int]:
    """Sections (that ``keep`` allows) holding the phrase's words in order, checked in their
    text: the first :data:`MAX_PHRASE_SECTIONS` by sid that hold all its words exactly;
    later ones count as holding it."""
    postings = [index.posting(t) for t in phrase]
    if any(p is None for p in postings):
        return set()
    rest = [p.positions for p in postings[1:]]
    both = [sid for sid in postings[0].sids if all(sid in r for r in rest) and keep(sid)]
    return sections_holding(index, both[:MAX_PHRASE_SECTIONS], phrase, False) | set(both[MAX_PHRASE_SECTIONS:])


def holds_sentence(terms: list[str], sentence: list[str], prefix: bool) -> bool:
    """Do ``terms`` hold ``sentence``'s terms consecutively, in order (with ``prefix``, its last
    term as the start of a term)?"""
    n = len(sentence)
    last = sentence[-1]
    for i in range(len(terms) - n + 1):
        if terms[i : i + n - 1] == sentence[:-1] and (terms[i + n - 1] == last or (prefix and terms[i + n - 1].startswith(last))):
            return True
    return False


def sections_holding(index: Index, sids: list[int], run: list[str], prefix: bool) -> set[int]:
    """Those of ``sids`` whose text, as terms, holds ``run`` (:func:`holds_sentence`)."""
    return {sid for sid in sids if section_holds(index, sid, run, prefix)}


def section_holds(index: Index, sid: int, run: list[str], prefix: bool) -> bool:
    """Does section ``sid``'s text, as terms, hold ``run`` (:func:`holds_sentence`)?"""
    return holds_sentence(index.normaliser.terms(index.section(sid)["text"]), run, prefix)
