"""Headings that are the query: smart mode's heading tiers (``h/<shard>``, docs/smart.md).

A section whose heading's distinct terms are the query's terms (in order) is
:data:`HEADING_IS`; one whose heading starts with them — or, with ``prefix``,
whose heading's next term completes the query's last, as a reader types — is
:data:`HEADING_STARTS`.  Smart mode ranks a page by its best tier after the
number of query words it holds and before its BM25 score, as a reader expects
the page titled "Installation" first for ``installation``.  An index without
``smart.heading_shards`` (an older build) has no tiers.  The browser runtime's
twin is ``okf_sphinx/js/engine/headings.js``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from okf_sphinx.core import index_format as fmt

from .validators import check_headings, check_smart, corrupt

if TYPE_CHECKING:
    from .index import Index

#: Tiers: the heading is the query; it starts with the query; every other section.
HEADING_IS, HEADING_STARTS, NO_HEADING = 0, 1, 2


def heading_tiers(index: Index, words: list[str], prefix: bool) -> dict[int, int]:
    """``sid → tier`` of the searchable sections whose heading is, or starts with, the query's
    terms ``words``; ``prefix``: the last word may be the start of the heading's next term
    (only when it has at least :data:`~okf_sphinx.core.index_format.DICT_KEY_CODE_POINTS`
    code points or is not the first word: the shard key is its first two)."""
    shards = check_smart(index.manifest.get("smart")).get("heading_shards", 0)
    if not shards or not words:
        return {}
    n = len(words)
    complete = prefix and (n > 1 or len(words[0]) >= fmt.DICT_KEY_CODE_POINTS)
    key = fmt.dict_key(words[0])
    shard = index.load(fmt.heading_shard_name(key, shards), check_headings)
    out: dict[int, int] = {}
    for text, sid in shard.get(key, []):
        if sid >= index.section_count:
            raise corrupt("manifest", "a heading shard refers to a section past the searchable ones")
        head = text.split(" ")
        if head == words:
            out[sid] = HEADING_IS
        elif len(head) > n and head[:n] == words:
            out[sid] = HEADING_STARTS
        elif complete and len(head) >= n and head[:n - 1] == words[:n - 1] and head[n - 1].startswith(words[n - 1]):
            out[sid] = HEADING_STARTS
    return out
