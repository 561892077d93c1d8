"""Link labels: smart mode weighs the words of a link to another page less on the page that
holds them (docs/smart.md, "Link labels").

"See the [troubleshooting guide](troubleshooting.md)": those words describe the page the link
leads to.  The build counts, per searchable section, how many of a term's occurrences are the
label or the address of a link to another page of the site (writer/link_labels.py) and stores
the counts in the term's stem group, in the posting shard smart mode reads anyway.  Smart mode
counts each such occurrence :data:`LABEL_WEIGHT` instead of 1 (a sum of binary fractions, exact
in both engines); keyword mode reads the posting lists as they are (the contract).  An index
without counts (an older build) weighs every occurrence 1.  The browser runtime's twin is
``okf_sphinx/js/engine/link_labels.js``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from okf_sphinx.core import index_format as fmt

from .validators import corrupt

if TYPE_CHECKING:
    from .index import Index, Posting

#: What one occurrence of a term in a link's label or address counts in smart mode, on the
#: page holding the link (chosen on the tune half of bench/bench_quality_mkdocs.py).
LABEL_WEIGHT = 0.125


def labelled_posting(index: Index, term: str, posting: Posting) -> Posting:
    """``posting`` (``term``'s) as smart mode weighs it: each section's frequency less
    ``1 − LABEL_WEIGHT`` per occurrence that is a link's label (the same object when none is)."""
    group = index.shard(index.shard_of(term))["groups"].get(fmt.posting_key(term, index.stem))
    if group is None or len(group) < 4 or term not in group[3]:
        return posting

    def weigh() -> Posting:
        counts = check_labels(index.shard_of(term), group[3][term], posting)
        cut = 1.0 - LABEL_WEIGHT
        freqs = tuple(f - cut * counts[sid] if sid in counts else f for sid, f in zip(posting.sids, posting.freqs))
        return type(posting)(posting.idf, posting.df, posting.sids, freqs, posting.lengths)

    return index.memo(f"labelled:{term}", weigh, lambda p: p.footprint())


def check_labels(name: str, text: str, posting: Posting) -> dict[int, int]:
    """A term's label counts (an integer list of pairs: sid difference, count): ``sid → count``,
    every sid one of the term's sections, sids increasing, each count from 1 to the section's
    frequency of the term."""
    flat = fmt.decode_ints(text)
    if flat is None or len(flat) % 2:
        raise corrupt(name, "a stem group's link-label counts are malformed")
    out: dict[int, int] = {}
    sid = -1
    for i in range(0, len(flat), 2):
        sid = flat[i] if i == 0 else sid + flat[i]
        at = posting.positions.get(sid) if (i == 0 or flat[i]) else None
        if at is None or not 1 <= flat[i + 1] <= posting.freqs[at]:
            raise corrupt(name, "a stem group's link-label counts are out of order or out of range")
        out[sid] = flat[i + 1]
    return out
