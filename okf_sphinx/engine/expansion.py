"""Link expansion (docs/smart.md, "Link expansion"): the sections a smart answer's hits link to.

The site's own cross-references, per searchable section, in link shards
``l/<shard>`` (the manifest's ``smart.link_firsts``).  The browser runtime's twin
is ``okf_sphinx/js/engine/expansion.js``.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from .query import hit
from .validators import check_link_firsts, check_links, check_smart, corrupt

if TYPE_CHECKING:
    from .index import Index

#: Sections that link expansion adds to an answer.
MAX_EXPANDED = 5


def links(index: Index, sid: int) -> list[list[Any]]:
    """``[[to sid, via], …]`` of a searchable section, in document order (``l/<shard>``)."""
    firsts = check_link_firsts(check_smart(index.manifest.get("smart")).get("link_firsts"))
    k = bisect.bisect_right(firsts, sid) - 1
    if k < 0:
        return []
    return index.load(f"l/{k:x}", check_links).get(str(sid), [])


def expanded(index: Index, sources: list[int], keep: Callable[[int], bool]) -> list[dict[str, Any]]:
    """The sections the answer's hits (``sources``, in answer order) link to, each hit's links
    in document order: none already a hit, each once, those ``keep`` allows; at most
    :data:`MAX_EXPANDED`, each with ``via`` and the locator of the hit it came ``from``."""
    seen = set(sources)
    picked: list[tuple[int, str, int]] = []
    for sid in sources:
        if len(picked) >= MAX_EXPANDED:
            break
        for to, via in links(index, sid):
            if len(picked) >= MAX_EXPANDED:
                break
            if to in seen:
                continue
            if to >= index.section_count:
                raise corrupt("manifest", "a link shard refers to a section past the searchable ones")
            seen.add(to)
            if keep(to):
                picked.append((to, via, sid))
    return [linked(index, to, via, sid) for to, via, sid in picked]


def linked(index: Index, to: int, via: str, source: int) -> dict[str, Any]:
    """One entry of an answer's ``expanded``: section ``to``, linked ``via`` from hit ``source``."""
    h = hit(index, to, 0.0, [])
    s = index.section(to)
    return {"concept_id": h["concept_id"], "title": s["title"], "path": h["path"], "heading": h["heading"],
            "url": s["url"], "locator": h["locator"], "line_start": h["line_start"],
            "line_end": h["line_end"], "content_sha256": h["content_sha256"], "snippet": h["snippet"],
            "via": via, "from": index.section(source)["locator"]}
