"""The words of links to other pages, where they stand: smart mode weighs them less there
(docs/smart.md, "Link labels"; docs/index-format.md, posting shards).

A link's label — "see the [troubleshooting guide](troubleshooting.md)" — describes the page it
leads to, not the page that holds it.  The hosts give its terms per section (``Site.link_labels``:
links to *other* pages of the site only; Sphinx: a reference's explicit title; MkDocs: a rendered
link's text and its address, which the Markdown writes beside it); here each term's
count in a searchable section is capped at its count in the section's text (the body, not the
heading or the title, whose words are the page's own), and the counts are added to the stem
group of the term, which the posting shard already holds: smart mode reads no further file.
Keyword mode ignores them (the contract's scores are unchanged).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.terms import terms


def label_counts(labels: Mapping[str, Iterable[tuple[int, list[str]]]], sid_of: Mapping[tuple[str, int], int],
                 searchable: int, text: Callable[[int], str]) -> dict[str, list[tuple[int, int]]]:
    """``term → [(sid, count), …]`` by sid: how many of the term's occurrences in a searchable
    section's text (``text(sid)``) are the label or address of a link to another page."""
    found: dict[int, Counter[str]] = {}
    for docname in sorted(labels):
        for section, words in labels[docname]:
            sid = sid_of.get((docname, section))
            if sid is not None and sid < searchable and words:
                found.setdefault(sid, Counter()).update(words)
    out: dict[str, list[tuple[int, int]]] = {}
    for sid in sorted(found):
        body = Counter(terms(text(sid)))
        for term in sorted(found[sid]):
            count = min(found[sid][term], body.get(term, 0))
            if count:
                out.setdefault(term, []).append((sid, count))
    return out


def attach_labels(groups: dict[str, list[Any]], counts: Mapping[str, list[tuple[int, int]]]) -> None:
    """Each stem group ``[section df, page df, [terms]]`` whose terms have label counts gets a
    fourth element ``{term: counts}``, ``counts`` an integer list of pairs (sid difference —
    the first the sid itself —, count)."""
    group_of = {term: g for g, entry in groups.items() for term in entry[2]}
    for term in sorted(counts):
        g = group_of.get(term)
        if g is None:
            continue  # a term of no posting list (cannot be: the body holds it)
        flat: list[int] = []
        last = 0
        for sid, count in counts[term]:
            flat += [sid - last, count]
            last = sid
        entry = groups[g]
        if len(entry) == 3:
            entry.append({})
        entry[3][term] = fmt.encode_ints(flat)
