"""The words a reader sees on a translated site (docs/contract.md, "Translated sites").

A site translated with gettext (``language`` and ``locale_dirs`` holding the
documents' ``.mo`` catalogues, as the translations of Python's documentation
are built) renders each translatable message — a paragraph, a title, a list
item's text — from its catalogue; the source files still hold the original
words.  Sphinx's ``Locale`` transform has replaced those messages in the doctree
by the time ``doctree-read`` runs, and marks each message node it looked up
with ``translated`` (True when the catalogue had a translation).

A section whose range holds at least one translated message gets the rendered
text of its part of the doctree as its text — what is indexed, what snippets
are cut from — while its range (``line_start``, ``line_end``) stays the exact
source lines.  A section with no translated message keeps its range text, and a
document without a catalogue is untouched, so an untranslated site's index is
byte for byte what it was.

Each text block of the doctree (an outermost ``TextElement``: a paragraph, a
title, a term, a literal block …; comments, targets, index entries and raw
output are not text) belongs to the section that starts last before it in
document order among the sections of its own source file (an include's blocks
go to the include's sections), or among all sections when its source is not a
captured file (an autodoc docstring).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from docutils import nodes

from okf_sphinx.core.records import Section

#: Elements whose words the reader does not see as text (or that carry none).
_NOT_TEXT = (nodes.Invisible, nodes.raw, nodes.system_message, nodes.comment)


def is_translated(doctree: nodes.document) -> bool:
    """Did a catalogue translate at least one message of this document?"""
    return any(node.get("translated") is True for node in doctree.findall(nodes.Element))


def _blocks(doctree: nodes.document) -> list[tuple[int, str | None, bool, str]]:
    """``(order, source, translated, text)`` of every text block in document order; ``order``
    counts elements as :func:`~okf_sphinx.capture.sphinx.sections.split_document`'s markers do."""
    order_of = {id(n): k for k, n in enumerate(doctree.findall(nodes.Element), start=1)}
    out: list[tuple[int, str | None, bool, str]] = []
    stack: list[tuple[nodes.Element, str | None, bool]] = [(doctree, doctree.get("source"), False)]
    while stack:
        node, source, translated = stack.pop()
        if isinstance(node, _NOT_TEXT):
            continue
        source = node.source or source
        translated = translated or node.get("translated") is True
        if isinstance(node, nodes.TextElement):
            text = node.astext().strip()
            if text:
                out.append((order_of[id(node)], source, translated, text))
            continue
        stack.extend((child, source, translated) for child in reversed(node.children) if isinstance(child, nodes.Element))
    return out


def rendered_texts(doctree: nodes.document, found: list[tuple[float, Section]],
                   file_of: Callable[[str], str | None]) -> dict[int, str]:
    """The rendered text of every section of ``found`` (``(its marker's order, section)`` in
    document order) that holds a translated message, by its position in ``found``; {} for a
    document no catalogue translated.  ``file_of`` resolves a node's ``source`` to a captured
    file's path."""
    if not is_translated(doctree):
        return {}
    everywhere: list[tuple[float, int]] = sorted((order, i) for i, (order, _s) in enumerate(found))
    by_file: dict[str, list[tuple[float, int]]] = {}
    for order, i in everywhere:
        by_file.setdefault(found[i][1].file, []).append((order, i))
    keys = {file: [o for o, _i in starts] for file, starts in by_file.items()}
    all_keys = [o for o, _i in everywhere]
    texts: dict[int, list[str]] = {}
    translated: set[int] = set()
    for order, source, is_translated_block, text in _blocks(doctree):
        file = file_of(source.split(":docstring of ", 1)[0]) if source else None
        starts, key = (by_file[file], keys[file]) if file in by_file else (everywhere, all_keys)
        at = bisect.bisect_right(key, order) - 1
        if at < 0:
            if starts is everywhere:
                continue
            at = 0  # before the file's first section: its intro
        i = starts[at][1]
        texts.setdefault(i, []).append(text)
        if is_translated_block:
            translated.add(i)
    return {i: "\n\n".join(texts[i]) for i in sorted(translated)
            if not (found[i][1].obj is not None and found[i][1].obj.generated)}
