"""How the index's tables are cut into files: section files that keep a page together,
page outlines, captured-file packs and posting shards, each sized by its folder's
:class:`~okf_sphinx.writer.sizing.Budget`.  Every packer returns the files it makes
(``{name: JSON value}``); the index writer merges them."""

from __future__ import annotations

import base64
from array import array
from collections import defaultdict
from typing import Any, NamedTuple

from okf_sphinx.core import index_format as fmt

from .sizing import BIG_POSTING_BYTES, MAX_POSTING_SHARDS, OVERFULL, Budget, file_aim, large_site


class SectionRow(NamedTuple):
    """One section's row in a section file, with the page and captured file it belongs to."""

    page: int  # page number (concepts.js order)
    file: int  # captured file number (files.js order)
    row: list[Any]  # [heading, level, line_start, line_end, anchor, text] (+ object fields)


class PostingLists:
    """Posting lists built section by section in ascending sid order: ``term → [Δsid, f,
    len, …]`` (format: docs/index-format.md), as 32-bit machine integers — one Python int
    object per number would be most of a large site's build memory."""

    def __init__(self) -> None:
        self.lists: dict[str, array[int]] = {}
        self._last: dict[str, int] = {}

    def add(self, sid: int, freqs: dict[str, int], length: int) -> None:
        """Section ``sid`` (above every sid added before) with its weighted frequencies and length."""
        lists, last = self.lists, self._last
        for term, f in freqs.items():
            flat = lists.get(term)
            if flat is None:
                lists[term] = array("i", (sid, f, length))
            else:
                flat.extend((sid - last[term], f, length))
            last[term] = sid


def page_aligned_starts(costs: list[int], page_of: list[int], target: int) -> list[int]:
    """The first sid of each section file: whole pages while they fit in a file of about
    ``target`` bytes, a page larger than that in files of its own of about equal size — so
    the hits a smart answer shows of one page mostly share a file.  As many files as
    filling each file up to ``target``, cutting anywhere, would make: the size grows until
    the count is that low."""
    runs: list[tuple[int, int, int]] = []  # (first sid, end sid, bytes) of each page's run of sections
    for sid, cost in enumerate(costs):
        if runs and page_of[sid] == page_of[runs[-1][0]]:
            first, _end, size = runs[-1]
            runs[-1] = (first, sid + 1, size + cost)
        else:
            runs.append((sid, sid + 1, cost))

    def cuts(limit: int, exact: bool) -> list[int]:
        """The first sid of each file for files of about ``limit`` bytes (``exact=False``: a
        larger page's parts all named by its first sid, enough to count them)."""
        starts: list[int] = []
        room = 0
        for first, end, size in runs:
            if size > limit:  # cut into n parts of about size / n bytes
                n = -(-size // limit)
                if exact:
                    part, acc = size / n, 0
                    starts.append(first)
                    for sid in range(first, end):
                        if acc >= part:
                            starts.append(sid)
                            acc = 0
                        acc += costs[sid]
                else:
                    starts += [first] * n
                room = 0
            elif size > room:
                starts.append(first)
                room = limit - size
            else:
                room -= size
        return starts

    aim, size = 0, target
    for cost in costs:  # as many files as filling each up to `target`, cutting anywhere, would make
        if size + cost > target and (size or not aim):
            aim += 1
            size = 0
        size += cost
    lo, hi = target, max(target, sum(costs))
    while lo < hi:  # the smallest size whose files are at most `aim`
        mid = (lo + hi) // 2
        if len(cuts(mid, False)) > aim:
            lo = mid + 1
        else:
            hi = mid
    return cuts(lo, True)


def pack_sections(sections: list[SectionRow], page_rows: list[list[Any]], entries: list[dict[str, Any]],
                  budget: Budget | None = None) -> tuple[dict[str, Any], list[int]]:
    """``s/<k>``: consecutive sids, about the smallest size of ``s/`` each (more when that would
    make more than about ``budget`` files), with the rows of the pages (``[concept_id, title,
    searchable, base URL, path]``) and files they refer to; returns the files and the first
    sid of each."""
    costs = [48 + sum(len(v) for v in row[:6] if isinstance(v, str)) + (len(str(row[6])) if len(row) > 6 else 0)
             for _page, _file, row in sections]
    b = budget or large_site("s")
    starts = page_aligned_starts(costs, [s.page for s in sections],
                                 file_aim(sum(costs), b.files, b.smallest, b.largest, b.cap))
    out: dict[str, Any] = {}
    for k, first in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(sections)
        pages: dict[int, int] = {}
        files: dict[int, int] = {}
        rows = []
        for page, file, row in sections[first:end]:
            rows.append([pages.setdefault(page, len(pages)), files.setdefault(file, len(files)), *row])
        out[f"s/{k}"] = {
            "first": first,
            "pages": [page_rows[p] for p in pages],
            "files": [fmt.file_row(entries[f]["path"], entries[f]["sha256"]) for f in files],
            "sections": rows,
        }
    return out, starts


def pack_pages(pages: list[dict[str, Any]], budget: Budget | None = None) -> tuple[dict[str, Any], int]:
    """``p/<k>``: the outlines of pages ``k·P … k·P + P − 1``; returns the files and P, chosen so
    a file holds about the smallest size of ``p/`` (more, past about ``budget`` files)."""
    size = sum(200 + sum(80 + len(s["heading"]) + len(s["path"]) + len(s["anchor"]) for s in p["sections"]) for p in pages)
    b = budget or large_site("p")
    target = max(b.smallest, -(-size // max(1, b.files)))
    per_file = max(1, len(pages) * target // max(size, 1))
    return {f"p/{k // per_file}": pages[k : k + per_file] for k in range(0, len(pages), per_file)}, per_file


def pack_files(unshipped: list[tuple[dict[str, Any], dict[str, str]]], target: int) -> dict[str, Any]:
    """``f/<k>``: ``{"files": [record, …]}`` for runs of consecutive captured files (in
    ``files.js`` order) of about ``target`` bytes, each entry of ``files.js`` naming its
    file as ``"pack": k`` (a file larger than ``target`` has a file of its own)."""
    out: dict[str, Any] = {}
    k, size = -1, target
    for entry, record in unshipped:
        content = record.get("text") or record.get("base64") or ""
        cost = 32 + len(record["path"]) + len(content) + sum(len(p) if isinstance(p, str) else 8
                                                             for p in record.get("parts", ()))
        if size + cost > target and size:
            k += 1
            size = 0
            out[f"f/{k}"] = {"files": []}
        out[f"f/{k}"]["files"].append(record)
        entry["pack"] = k
        size += cost
    return out


#: A section's text is named by its sid in a pack's ``parts`` rather than copied when it is
#: at least this long (a shorter one costs about as much named as written out).
SHARED_TEXT_MIN = 32


def shared_parts(text: str, spans: list[tuple[int, int, str]]) -> list[str | int] | None:
    """A captured file's ``text`` as the ``parts`` of its pack record: literal strings, and
    the sids of sections whose exact text is the file's own at that place (``spans``:
    ``(offset, sid, section text)`` in offset order; a section overlapping one already used,
    shorter than :data:`SHARED_TEXT_MIN` or not found there is written out).  None when no
    section's text is used."""
    parts: list[str | int] = []
    at = 0
    for start, sid, piece in spans:
        if start < at or len(piece) < SHARED_TEXT_MIN or not text.startswith(piece, start):
            continue
        if start > at:
            parts.append(text[at:start])
        parts.append(sid)
        at = start + len(piece)
    if not parts:
        return None
    if at < len(text):
        parts.append(text[at:])
    return parts


def file_record(path: str, data: bytes, codec: str) -> dict[str, str]:
    """One captured file in an ``f/<k>`` pack: the bytes as UTF-8 text when that is what they are, else base64
    (with the project's ``encoding`` when it is not UTF-8, so readers decode as Sphinx did)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and (codec == "utf-8" or data.decode(codec, "replace") == text):
        return {"path": path, "text": text}
    record = {"path": path, "base64": base64.b64encode(data).decode("ascii")}
    if codec != "utf-8":
        record["encoding"] = codec
    return record


def _entry_bytes(term: str, size: int) -> int:
    """The bytes a posting list of ``size`` bytes (quotes included) takes in its shard as
    written: ``"term":"<list>",``."""
    return len(term) + 4 + size


def shard_depths(key_bytes: dict[str, int], target: int) -> dict[str, int]:
    """The manifest's ``shard_depths`` (format_version 8): each start (a posting key's first
    :data:`fmt.POSTING_SHARD_CODE_POINTS` code points) whose keys hold more than ``target``
    bytes in all, with the fewest code points that split them into keys of at most ``target``
    bytes (a key that still holds more is one stem, or as long as :data:`fmt.MAX_SHARD_DEPTH`).
    Keyed by three code points alone, the stems of ``con…`` made one 86 KB shard on the PEPs,
    which a question read for each of its ``con…`` words (docs/index-format.md)."""
    by_start: dict[str, dict[str, int]] = defaultdict(dict)
    for key, size in key_bytes.items():
        by_start[key[:fmt.POSTING_SHARD_CODE_POINTS]][key] = size
    out: dict[str, int] = {}
    for start, keys in sorted(by_start.items()):
        if len(start) < fmt.POSTING_SHARD_CODE_POINTS or sum(keys.values()) <= target:
            continue
        for depth in range(fmt.POSTING_SHARD_CODE_POINTS + 1, fmt.MAX_SHARD_DEPTH + 1):
            load: dict[str, int] = defaultdict(int)
            count: dict[str, int] = defaultdict(int)
            for key, size in keys.items():
                load[key[:depth]] += size
                count[key[:depth]] += 1
            if all(load[k] <= target or count[k] == 1 for k in load) or depth == fmt.MAX_SHARD_DEPTH:
                out[start] = depth
                break
    return out


def overfull_lists(sizes: dict[str, int], key_bytes: dict[str, int], group_of: dict[str, str], big_bytes: int,
                   target: int, shards: int, folder: str, depths: dict[str, int]) -> set[str]:
    """The posting lists that leave a shard of more than :data:`OVERFULL` × ``target`` bytes
    for files of their own (largest first, down to :data:`BIG_POSTING_BYTES`) until it holds
    about ``target``: ``t/`` shards are keyed by their stems' first code points, so a shard
    of a common start (``con``, ``pro``) would make every word that starts so read all its
    neighbours' lists (docs/index-format.md).  ``key_bytes``: what each posting key's group
    and inline lists take in its shard."""
    load: dict[str, int] = defaultdict(int)
    for key, size in key_bytes.items():
        load[fmt.shard_name(key, shards, folder, depths)] += size
    inline: dict[str, list[str]] = defaultdict(list)
    for term, size in sizes.items():
        if size <= big_bytes:
            inline[fmt.shard_name(group_of.get(term, term), shards, folder, depths)].append(term)
    moved: set[str] = set()
    for name, terms in inline.items():
        if load[name] <= OVERFULL * target:
            continue
        for term in sorted(terms, key=lambda t: (-sizes[t], t)):
            if load[name] <= target or sizes[term] < BIG_POSTING_BYTES:
                break
            moved.add(term)
            load[name] -= _entry_bytes(term, sizes[term])
    return moved


def posting_shards(built: PostingLists, folder: str = "t", budget: Budget | None = None,
                   groups: dict[str, list[Any]] | None = None) -> tuple[dict[str, Any], int, dict[str, int]]:
    """Posting shards (``t/`` terms, ``x/`` identifiers), the shard count and the ``t/`` shards'
    :func:`shard_depths`.

    ``t/`` shards hold ``{"groups": {stem: group}, "terms": {term: entry}}``: a term sits in
    the shard of the stem group that lists it (:func:`fmt.posting_key`), beside that group,
    so one file holds every form of a word; ``x/`` shards are ``{identifier: entry}``."""
    postings = built.lists
    group_of = {term: g for g, e in (groups or {}).items() for term in e[2]}
    encoded = {t: fmt.encode_ints(p) for t, p in postings.items()}
    sizes = {t: len(e) + 2 for t, e in encoded.items()}
    # the bytes each group takes as written: `"stem":[df,df,["term",…]],` (`[]` for a lone stem); a list's: _entry_bytes
    group_sizes = {g: len(g) + 12 + (0 if e[2] == [g] else sum(len(t) + 3 for t in e[2]))
                   + sum(len(t) + len(c) + 6 for labels in e[3:] for t, c in labels.items())
                   for g, e in (groups or {}).items()}
    # about `budget` files: shards of `target` bytes, lists over half of that in files of their own
    b = budget or large_site(folder)
    whole = sum(_entry_bytes(t, p) for t, p in sizes.items()) + sum(group_sizes.values())
    target = file_aim(whole, b.files, b.smallest, b.largest, b.cap)
    big_bytes = max(BIG_POSTING_BYTES, target // 2)
    # what each posting key (a stem group, or a term of none) takes in its shard: its group, its inline lists
    key_bytes: dict[str, int] = defaultdict(int, group_sizes)
    for t, p in sizes.items():
        if p <= big_bytes:
            key_bytes[group_of.get(t, t)] += _entry_bytes(t, p)
    shards = min(max(1, -(-sum(key_bytes.values()) // target)), MAX_POSTING_SHARDS)
    depths = shard_depths(key_bytes, target) if folder == "t" else {}
    moved = overfull_lists(sizes, key_bytes, group_of, big_bytes, target, shards, folder, depths)
    out: dict[str, Any] = {}
    content: dict[str, dict[str, Any]] = defaultdict(dict)
    big: dict[str, int] = defaultdict(int)
    keyed = folder == "t"
    for term in sorted(postings):
        df = len(postings[term]) // 3
        name = fmt.shard_name(group_of.get(term, term), shards, folder, depths)
        if sizes[term] > big_bytes or term in moved:
            ref = f"{name}-{big[name]}"
            big[name] += 1
            out[ref] = encoded[term]
            entry = [df, [ref]]
        else:
            entry = encoded[term]  # its df is the list's length / 3
        (content[name].setdefault("terms", {}) if keyed else content[name])[term] = entry
    for g in sorted(groups or {}):
        e = groups[g]  # a group whose one term is its stem lists no terms
        content[fmt.shard_name(g, shards, folder, depths)].setdefault("groups", {})[g] = [e[0], e[1], [] if e[2] == [g] else e[2], *e[3:]]
    for k in range(shards):
        shard = content.get(f"{folder}/{k:x}", {})
        out[f"{folder}/{k:x}"] = {"groups": shard.get("groups", {}), "terms": shard.get("terms", {})} if keyed else shard
    return out, shards, depths


#: Index files that only the agent tools and smart mode's filters read (never a plain query),
#: in the order they are bundled: ``concepts``, ``meta``, ``paths``, then ``l/``, ``f/``, ``p/``.
RARE_FILES = ("concepts", "meta", "paths")
RARE_FOLDERS = ("l", "f", "p")
#: A bundle ``b/<k>`` holds rare files up to about this many bytes of JSON (a larger file stays alone).
BUNDLE_BYTES = 64 * 1024


def bundle_rare(files: dict[str, Any]) -> dict[str, Any]:
    """``files`` with the rare ones (:data:`RARE_FILES`, :data:`RARE_FOLDERS`) of at most
    :data:`BUNDLE_BYTES` put into bundles ``b/<k>`` (``{name: value}``) of about that size,
    in that order, and the manifest's ``bundles`` listing each bundle's names (format_version 7):
    a small site gets one file where it had one per rare file and folder.  A file that would
    be a bundle's only one stays as it is; ``files`` itself is not changed."""
    def order(name: str) -> tuple[int, int]:
        folder, _, k = name.partition("/")  # l/ names are hexadecimal, f/ and p/ names decimal
        return (RARE_FOLDERS.index(folder) + len(RARE_FILES), int(k, 16 if folder == "l" else 10)) if k else (RARE_FILES.index(name), 0)

    rare = sorted((n for n in files if n in RARE_FILES or (n.partition("/")[0] in RARE_FOLDERS and n.partition("/")[2])),
                  key=order)
    runs: list[list[str]] = []
    size = BUNDLE_BYTES
    for name in rare:
        cost = len(fmt.canonical_json(files[name])) + len(name) + 4
        if cost > BUNDLE_BYTES:
            continue
        if size + cost > BUNDLE_BYTES:
            runs.append([])
            size = 0
        runs[-1].append(name)
        size += cost
    runs = [run for run in runs if len(run) > 1]
    if not runs:
        return files
    bundled = {n for run in runs for n in run}
    out = {n: v for n, v in files.items() if n not in bundled}
    for k, run in enumerate(runs):
        out[f"b/{k}"] = {n: files[n] for n in run}
    out["manifest"] = {**files["manifest"], "bundles": runs}
    return out
