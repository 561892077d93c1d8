"""How large the index's files are: each sharded folder's sizes and its file budget.

A small site gets small files (a query reads little); a large one gets larger
files, so that the number of files stays about each folder's large-site count
whatever its size.  A small or mid-size site gets a total file budget in
proportion to its pages: about :data:`FILES_PER_PAGE` files per page over
``s/ t/ d/ n/ h/ x/ p/ l/``, shared out by each folder's ``share`` (each folder at
least one file, at most its large-site count).  From about 2,731 pages on the
shares reach those counts (``s/``'s last).  A file never grows past its folder's largest size
for the page budget's sake (a cold browser query reads a few files of
``s/ t/ d/``, so their size bounds its bytes).  The author's
``okf_search_index_files`` (MkDocs: ``index_files``) scales it all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from okf_sphinx.core.hosts import Host


@dataclass(frozen=True)
class Budget:
    """How many files one folder aims at, and how large they may grow."""

    files: int  # the page budget's share: the aim (≥ 1, ≤ cap)
    cap: int  # the large-site budget: past it, files grow instead of multiplying
    largest: int  # bytes of JSON a file grows to for the page budget's sake (0: no such limit)
    smallest: int  # bytes of JSON a file aims at, at least (a small site's files)


@dataclass(frozen=True)
class Folder:
    """One sharded folder's fixed sizes (a :class:`Budget` for a site of some size comes from them)."""

    cap: int  # files of a large site, about
    largest: int  # bytes of JSON a file grows to for the page budget's sake (0: no such limit)
    smallest: int  # bytes of JSON a file aims at, at least
    share: float  # its part of the page budget


#: The most shards of a hashed folder (``d/``, ``n/``: shard names are hashes of the key):
#: a large site gets larger shards rather than more files.
MAX_HASHED_SHARDS = 128
#: Every sharded folder of the index (docs/index-format.md), in the page budget's order.
#: ``s/``'s large-site count decides a large site's section file size, which every hit shown
#: reads: 2,048 files keep the PEPs' cold smart step under 50 KB (at 1,216 files of 11.5 KB it
#: read 55.2 KiB; bench/NOTEBOOK.md, "What a shown hit reads from s/").
FOLDERS: dict[str, Folder] = {
    "s": Folder(cap=2048, largest=4608, smallest=4096, share=1 / 2),  # sections: a hit reads one
    "t": Folder(cap=512, largest=7168, smallest=2048, share=5 / 16),  # posting shards plus the big lists' own files
    "d": Folder(cap=64, largest=12288, smallest=4096, share=1 / 32),  # dictionary: a prefix reads it
    "e": Folder(cap=64, largest=73728, smallest=4096, share=1 / 32),  # edit keys: a word no page holds reads three
    "n": Folder(cap=64, largest=8192, smallest=4096, share=1 / 32),  # object names: an exact-name query reads one
    "h": Folder(cap=64, largest=8192, smallest=4096, share=1 / 32),  # headings by their first term: every smart query reads one
    "x": Folder(cap=64, largest=16384, smallest=2048, share=1 / 32),  # identifiers: read for a query holding one
    "p": Folder(cap=64, largest=0, smallest=64 * 1024, share=1 / 32),  # page outlines (the agent tools only)
    "l": Folder(cap=4096, largest=0, smallest=4096, share=1 / 32),  # links between sections
}
FILES_PER_PAGE = 1.5
#: The most posting shards of one folder (``t/``, ``x/``): shard names are hexadecimal numbers below it.
MAX_POSTING_SHARDS = 4096
#: Smallest size of a posting list that gets a file of its own (bytes of JSON).
BIG_POSTING_BYTES = 1024
#: A ``t/`` shard that would hold over this many times its aim (its stems share a common start:
#: ``con``, ``pro``) sends its largest lists to files of their own until it holds about its aim.
#: On the titled PEPs: +299 files (+10 %), cold smart step median 49.7 -> 44.5 KiB, the 63
#: questions' blend 136.7 -> 120.4 KiB (at 1: +499 files, 115.2 KiB; bench/NOTEBOOK.md).
OVERFULL = 2
#: An index with semantic vectors sizes ``t/`` as :func:`file_budgets` would with this factor
#: on its files (``t/`` only): a blended question reads one shard per word, six to ten of
#: them, and such an index already holds a file per token shard (``w/``, 2,048 with a
#: MiniLM vocabulary).  On the titled PEPs the 63 questions' blend read 111.9 KiB at the
#: median with the default ``t/`` (606 files), 90.7 KiB at 4 (1,759; bench/NOTEBOOK.md).
VECTOR_POSTING_SCALE = 4
#: f/<k>: captured files the site ships no copy of, packed in runs of about this many bytes
#: (a MkDocs site would otherwise get a file per page; read by the agent tools only).
FILE_PACK_BYTES = 64 * 1024
#: The author's factor on every folder's file counts (and a divisor of the largest sizes):
#: more files, smaller cold queries; fewer files, larger ones.
MIN_FILE_SCALE, MAX_FILE_SCALE = 0.25, 16.0


def check_file_scale(value: Any, host: Host) -> float:
    """The author's file-count factor: a number from 0.25 to 16 (1: the default sizes)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not MIN_FILE_SCALE <= value <= MAX_FILE_SCALE:
        raise ValueError(f"{host.setting('index_files')} must be a number from {MIN_FILE_SCALE:g} to "
                         f"{MAX_FILE_SCALE:g} (1 = the default file counts), got {value!r}")
    return float(value)


def large_site(folder: str) -> Budget:
    """The budget of ``folder`` on a site large enough to reach its large-site count."""
    f = FOLDERS[folder]
    return Budget(f.cap, f.cap, f.largest, f.smallest)


def file_budgets(pages: int, scale: float = 1.0, vectors: bool = False) -> dict[str, Budget]:
    """Each folder's :class:`Budget` for a site of ``pages`` pages (an aim: the packers make
    files larger rather than exceed it; depends on the index content and ``scale`` only):
    ``scale`` multiplies the page budget and the large-site budgets and divides the largest sizes
    (``vectors``: ``t/``'s by :data:`VECTOR_POSTING_SCALE` more)."""
    out = {}
    for k, f in FOLDERS.items():
        s = scale * (VECTOR_POSTING_SCALE if vectors and k == "t" else 1)
        cap = max(1, int(f.cap * s))
        out[k] = Budget(max(1, min(cap, int(FILES_PER_PAGE * s * pages * f.share))), cap, int(f.largest / s),
                        int(f.smallest / s))
    return out


def file_aim(total: int, budget: int, smallest: int, largest: int, cap: int) -> int:
    """The bytes one file of a folder holding ``total`` bytes aims at: ``total / budget``
    (the page budget), but at least ``smallest`` and at most ``largest``, and large enough
    that the folder has at most about ``cap`` files (the large-site budget wins over ``largest``)."""
    return max(smallest, min(largest, -(-total // max(1, budget))), -(-total // max(1, cap)))
