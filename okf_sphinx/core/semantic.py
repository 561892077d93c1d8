"""Semantic mode's shared rules (docs/index-format.md, "Semantic vectors").

A static embedding model (the model2vec format: a WordPiece vocabulary and one
vector per token) gives every text a vector: the sum of its word pieces'
vectors.  The build stores each token's vector and each section's vector as
small integers; a query adds up its pieces' integer vectors and ranks sections
by :func:`cosine` — integer dot products and squared norms, then one fixed
order of correctly rounded IEEE operations, so Python and JavaScript give the
same score bits.

Shared by the writer (build side) and the engine (query side); numpy-free.  The browser
runtime's twin is ``okf_sphinx/js/core/semantic.js``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Iterable
from typing import Any

from . import index_format as fmt

#: A vector component is an integer from -LEVELS to LEVELS (4 bits), written as the
#: hexadecimal digit of ``component + 8`` (so ``1``–``f``; ``0`` never occurs).
LEVELS = 7
#: A token's scale: an integer from 1 to MAX_SCALE (its largest component against the model's).
MAX_SCALE = 255
HEX = "0123456789abcdef"
#: Code points of a section's text (after its page title and heading) that its vector reads.
TEXT_CODE_POINTS = 300
#: The dimensions an index keeps: the model's first ones (model2vec's distillation orders them
#: by PCA variance), at most this many.
MAX_DIMS = 128
#: How many code points of a piece's text (after the continuation prefix) name its token shard.
KEY_CODE_POINTS = 4


def piece_key(piece: str, prefix: str) -> str:
    """The text that places a vocabulary piece in a token shard: the continuation prefix (when
    the piece has it) and the first :data:`KEY_CODE_POINTS` code points after it.  Every piece
    a word's greedy match tries at one position shares the key of the longest one, so one shard
    answers a position unless no piece of 4 or more code points starts there."""
    if prefix and piece.startswith(prefix) and len(piece) > len(prefix):
        return prefix + piece[len(prefix) : len(prefix) + KEY_CODE_POINTS]
    return piece[:KEY_CODE_POINTS]


def token_shard(piece: str, prefix: str, shards: int) -> str:
    """``w/<hex>``: the token shard of a vocabulary piece."""
    return f"w/{fmt.fnv1a32(piece_key(piece, prefix)) % shards:x}"


def word_pieces(word: str, lookup: Callable[[str], Any], prefix: str, max_chars: int,
                multi: tuple[Container[str], Container[str]] | None = None) -> list[Any] | None:
    """WordPiece: the greedy longest-match-first split of ``word`` (a term) into vocabulary
    pieces, as BERT's tokenizer does it; ``lookup(piece)`` is the piece's entry or None.  A
    word longer than ``max_chars`` code points, or one some position of which no piece
    matches, is unknown (None; BERT's ``[UNK]``, which model2vec drops).  ``multi`` (the
    index's ``semantic.js``, written by the writer's ``multi_starts``), when given, names the code points a piece of two or more
    code points starts with (without, then with the prefix): at a position whose code point
    is not there only the one-code-point piece can match, so only it is looked up (the
    split is the same, with fewer token shards read)."""
    if len(word) > max_chars:
        return None
    out = []
    start = 0
    while start < len(word):
        end = len(word) if multi is None or word[start] in multi[0 if start == 0 else 1] else start + 1
        entry = None
        while start < end:
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            entry = lookup(piece)
            if entry is not None:
                break
            end -= 1
        if entry is None:
            return None
        out.append(entry)
        start = end
    return out


def encode_vector(values: Iterable[int]) -> str:
    """Components in -LEVELS…LEVELS as hexadecimal digits of ``value + 8``."""
    return "".join(HEX[v + 8] for v in values)


def decode_vector(text: str, start: int, dims: int) -> list[int] | None:
    """The ``dims`` components written at ``text[start:]``; None when a digit is not ``1``–``f``."""
    out = []
    for ch in text[start : start + dims]:
        d = HEX.find(ch)
        if d < 1:
            return None
        out.append(d - 8)
    return out if len(out) == dims else None


def token_entry(text: Any, dims: int) -> list[int] | None:
    """A token shard's entry (``SS`` the scale as two hexadecimal digits, then the vector)
    as the token's integer vector ``scale × component``; None when malformed."""
    if not isinstance(text, str) or len(text) != 2 + dims or not all(c in HEX for c in text[:2]):
        return None
    scale = int(text[:2], 16)
    values = decode_vector(text, 2, dims)
    if scale < 1 or values is None:
        return None
    return [scale * v for v in values]


def add_into(total: list[int], vector: list[int]) -> None:
    for i, v in enumerate(vector):
        total[i] += v


def dot(a: list[int], b: list[int]) -> int:
    return sum(x * y for x, y in zip(a, b))


def cosine(d: int, qq: int, vv: int) -> float:
    """The score of a section: ``d / (sqrt(qq) * sqrt(vv))`` for the integer dot product ``d``
    of the query's and the section's vectors and their integer squared norms — every value an
    integer below 2**53 until ``sqrt``; sqrt, × and ÷ are correctly rounded in Python and
    JavaScript alike, so the bits agree."""
    return d / (math.sqrt(qq) * math.sqrt(vv))
