"""Semantic vectors for an index (docs/index-format.md, "Semantic vectors").

Only a site that names a static embedding model (``okf_search_semantic_model`` in
conf.py, ``semantic_model`` in the MkDocs plugin) gets them; without one nothing
here is imported and the index is what it always was.  The model is read with
model2vec (the ``[semantic]`` extra: numpy-level, no torch); its WordPiece
vocabulary and token vectors become the token table ``w/<shard>``, every
searchable section's vector goes into one of the clusters ``v/<k>``, whose
centroids are ``semantic.js`` (with the code points that start a piece of two or more
code points, so a query reads fewer token shards).  Vectors are 4-bit integers (core/semantic.py).

Every step is deterministic: integer sums, elementwise IEEE operations, and
matrix products whose every partial sum is an integer below 2**53 (so exact in
float64 whatever order a BLAS adds them in).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core import semantic as sem
from okf_sphinx.core.errors import BuildError
from okf_sphinx.core.terms import terms

if TYPE_CHECKING:
    import numpy as np

#: Pieces per token shard (about 1 KB of gzip each: a query reads about one per word piece).
TOKENS_PER_SHARD = 16
#: Clusters a query reads (the nearest centroids'); the manifest says it to every reader.
PROBE = 4
#: Vectors a cluster aims at (about 4.5 KB of gzip): a cold query reads PROBE of them.
CLUSTER_VECTORS = 80
#: Rounds of k-means over the section vectors.
CLUSTER_ROUNDS = 8
#: No cluster holds more than this × the mean cluster's vectors (k-means leaves some clusters
#: many times the mean: a cold query reading one of them would read most of its bytes there).
CLUSTER_CAP = 1.5


@dataclass
class StaticModel:
    """A static embedding model as the index needs it: its name, WordPiece rules, and one
    integer vector per vocabulary piece (``scale × 4-bit components``)."""

    name: str
    prefix: str
    max_chars: int
    dims: int
    pieces: dict[str, int]  # piece -> row of ``vectors``
    entries: list[str]  # the token shard text of each row (scale + components)
    vectors: Any  # numpy int64 array (pieces × dims)


def load_model(spec: str, base: Path, setting: str) -> StaticModel:
    """The model ``spec`` names: a folder (relative to ``base``, the folder of conf.py or
    mkdocs.yml) in the model2vec format, or a model id model2vec fetches where a model hub is
    reachable.  ``setting`` is the option as the author writes it, for messages."""
    if not isinstance(spec, str) or not spec.strip():
        raise BuildError(f"okf_sphinx: {setting} must name a static embedding model (a folder or a model id), "
                         f"got {spec!r}. No search index was written")
    try:
        import numpy as np
        from model2vec import StaticModel as M2V
    except ImportError as exc:
        raise BuildError(f"okf_sphinx: {setting} needs the model2vec package ({exc}): "
                         'pip install "okf_sphinx[semantic]". No search index was written') from None
    folder = (base / spec).expanduser()
    where = str(folder) if folder.is_dir() else spec
    try:
        model = M2V.from_pretrained(where)
    except Exception as exc:  # noqa: BLE001 - the loader's reasons are many (no such folder, no hub, bad files)
        raise BuildError(f"okf_sphinx: {setting} = {spec!r}: the model could not be loaded ({type(exc).__name__}: "
                         f"{exc}); give a folder in the model2vec format (make one from a sentence-transformer "
                         "folder with `okf model distill SRC OUT`). No search index was written") from None
    tok = json.loads(model.tokenizer.to_str())
    wp = tok.get("model", {})
    if wp.get("type") != "WordPiece" or not isinstance(wp.get("vocab"), dict):
        raise BuildError(f"okf_sphinx: {setting} = {spec!r}: its tokenizer is {wp.get('type')!r}; okf_sphinx reads "
                         "WordPiece vocabularies (BERT-style models). No search index was written")
    emb = np.asarray(model.embedding, dtype=np.float64)
    if getattr(model, "token_mapping", None) is not None:
        emb = emb[np.asarray(model.token_mapping)]
    if getattr(model, "weights", None) is not None:
        emb = emb * np.asarray(model.weights, dtype=np.float64)[:, None]
    prefix = str(wp.get("continuing_subword_prefix") or "##")
    special = {t.get("content") for t in tok.get("added_tokens") or () if t.get("special")}
    rows = []
    for piece, tid in sorted(wp["vocab"].items(), key=lambda kv: kv[1]):
        body = piece[len(prefix):] if piece.startswith(prefix) and len(piece) > len(prefix) else piece
        # only pieces a query word can be made of: one whole term (no separator, already case folded)
        if piece not in special and 0 <= tid < len(emb) and terms(body) == [body]:
            rows.append((piece, tid))
    if not rows:
        raise BuildError(f"okf_sphinx: {setting} = {spec!r}: the vocabulary holds no word pieces. "
                         "No search index was written")
    dims = min(sem.MAX_DIMS, emb.shape[1])
    table = emb[[tid for _p, tid in rows], :dims]
    biggest = float(np.abs(table).max()) or 1.0
    top = np.abs(table).max(axis=1)
    scales = np.clip(np.floor(sem.MAX_SCALE * top / biggest + 0.5), 1, sem.MAX_SCALE).astype(np.int64)
    values = quantize(table, top)
    entries = [f"{s:02x}" + sem.encode_vector(v) for s, v in zip(scales.tolist(), values.tolist())]
    name = folder.name if folder.is_dir() else spec
    return StaticModel(name=name, prefix=prefix, max_chars=int(wp.get("max_input_chars_per_word") or 100), dims=dims,
                       pieces={p: i for i, (p, _t) in enumerate(rows)}, entries=entries,
                       vectors=values * scales[:, None])


def quantize(rows: np.ndarray, top: np.ndarray | None = None) -> np.ndarray:
    """Each row scaled so that its largest component is ±LEVELS, rounded half up (a zero row stays zero)."""
    import numpy as np

    if top is None:
        top = np.abs(rows).max(axis=1)
    safe = np.where(top > 0, top, 1.0)
    return np.clip(np.floor(rows * sem.LEVELS / safe[:, None] + 0.5), -sem.LEVELS, sem.LEVELS).astype(np.int64)


def multi_starts(pieces: Iterable[str], prefix: str) -> tuple[str, str]:
    """The code points that start a vocabulary piece of two or more code points: of the
    pieces without the continuation ``prefix``, then of those with it (each sorted, once);
    a query's ``word_pieces`` (core/semantic.py) skips the longer tries elsewhere.  Without a prefix both
    are the same."""
    plain: set[str] = set()
    cont: set[str] = set()
    for piece in pieces:
        if prefix and piece.startswith(prefix) and len(piece) > len(prefix):
            body, into = piece[len(prefix):], cont
        else:
            body, into = piece, plain
        if len(body) >= 2:
            into.add(body[0])
    first = "".join(sorted(plain))
    return first, ("".join(sorted(cont)) if prefix else first)


def section_text(title: str, heading: str, text: str) -> str:
    """What a section's vector reads: its page title, heading and the first
    :data:`~okf_sphinx.core.semantic.TEXT_CODE_POINTS` code points of its text."""
    return f"{title} {heading} {text[:sem.TEXT_CODE_POINTS]}"


def embed(model: StaticModel, words: list[str], cache: dict[str, list[int] | None]) -> np.ndarray:
    """The integer sum of the words' piece vectors (unknown words add nothing)."""
    import numpy as np

    total = np.zeros(model.dims, dtype=np.int64)
    for word in words:
        if word not in cache:
            cache[word] = sem.word_pieces(word, model.pieces.get, model.prefix, model.max_chars)
        for row in cache[word] or ():
            total += model.vectors[row]
    return total


def cluster_count(n: int) -> int:
    """Clusters for ``n`` vectors: the power of two nearest ``n / CLUSTER_VECTORS``; one (and
    no centroid to score) while a query would read every cluster anyway."""
    if n <= PROBE * CLUSTER_VECTORS:
        return 1
    return 2 ** round(math.log2(n / CLUSTER_VECTORS))


def _cosines(x: np.ndarray, xx: np.ndarray, c: np.ndarray) -> np.ndarray:
    import numpy as np

    cc = (c * c).sum(axis=1)
    d = x.astype(np.float64) @ c.T.astype(np.float64)  # integer partial sums: exact in any order
    with np.errstate(divide="ignore", invalid="ignore"):
        s = d / (np.sqrt(xx.astype(np.float64))[:, None] * np.sqrt(cc.astype(np.float64))[None, :])
    return np.where(cc[None, :] > 0, s, -np.inf)


def clusters(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Spherical k-means over the 4-bit vectors ``x``: ``(centroids, assignment)``.  Starts from
    evenly spaced vectors, ties go to the lower centroid; a centroid is its members' sum,
    quantized as a section's vector is.  The last assignment is capped (:func:`balanced`) and
    the centroids are made again from it."""
    import numpy as np

    n = len(x)
    xx = (x * x).sum(axis=1)
    cent = x[[i * n // k for i in range(k)]].copy()
    assign = np.zeros(n, dtype=np.int64)
    for _ in range(CLUSTER_ROUNDS):
        assign = np.argmax(_cosines(x, xx, cent), axis=1)
        cent = _centroids(x, assign, cent)
    assign = balanced(_cosines(x, xx, cent), math.ceil(CLUSTER_CAP * n / k))
    return _centroids(x, assign, cent), assign


def _centroids(x: np.ndarray, assign: np.ndarray, cent: np.ndarray) -> np.ndarray:
    """Each cluster's quantized sum of members (an empty cluster keeps its centroid)."""
    import numpy as np

    sums = np.zeros((len(cent), x.shape[1]), dtype=np.int64)
    np.add.at(sums, assign, x)
    nonzero = np.abs(sums).max(axis=1) > 0
    return np.where(nonzero[:, None], quantize(sums.astype(np.float64)), cent)


def balanced(cos: np.ndarray, cap: int) -> np.ndarray:
    """Each vector to its nearest centroid that has room, at most ``cap`` per centroid: in
    rounds, every vector left proposes to its nearest centroid with room, and each centroid
    takes the proposals nearest to it (ties: the lower vector) as far as its room goes."""
    import numpy as np

    n, k = cos.shape
    assign = np.full(n, -1, dtype=np.int64)
    room = np.full(k, cap, dtype=np.int64)
    while (left := np.flatnonzero(assign < 0)).size:
        c = np.where(room[None, :] > 0, np.maximum(cos[left], -2.0), -np.inf)  # an empty centroid's -inf: -2
        best = np.argmax(c, axis=1)
        near = c[np.arange(len(left)), best]
        for j in np.unique(best).tolist():
            mine = left[best == j]
            taken = mine[np.lexsort((mine, -near[best == j]))][: room[j]]
            assign[taken] = j
            room[j] -= len(taken)
    return assign


def add_semantic(out: dict[str, Any], model: StaticModel) -> dict[str, Any]:
    """Add the token table, the clusters and their centroids to the index files ``out`` (as
    build_index returned them) and the manifest's ``semantic`` block; returns that block."""
    import numpy as np

    manifest = out["manifest"]
    n_search = manifest["sections"]
    cache: dict[str, list[int] | None] = {}
    sids: list[int] = []
    sums = []
    k = 0
    while f"s/{k}" in out:
        chunk = out[f"s/{k}"]
        pages = chunk["pages"]
        for i, row in enumerate(chunk["sections"]):
            sid = chunk["first"] + i
            if sid >= n_search:
                break
            total = embed(model, terms(section_text(pages[row[0]][1], row[2], row[7])), cache)
            if total.any():
                sids.append(sid)
                sums.append(total)
        k += 1
    x = quantize(np.array(sums, dtype=np.float64)) if sums else np.zeros((0, model.dims), dtype=np.int64)
    count = cluster_count(len(x))
    if len(x):
        cent, assign = clusters(x, count) if count > 1 else (quantize(x.sum(axis=0, keepdims=True).astype(np.float64)),
                                                            np.zeros(len(x), dtype=np.int64))
    else:
        cent, assign = np.zeros((0, model.dims), dtype=np.int64), np.zeros(0, dtype=np.int64)
    kept = [c for c in range(len(cent)) if (assign == c).any()]
    for n, c in enumerate(kept):
        members = [i for i in np.flatnonzero(assign == c).tolist()]
        ids = [sids[i] for i in members]
        out[f"v/{n:x}"] = {"sids": fmt.encode_ints([ids[0], *(b - a for a, b in zip(ids, ids[1:]))]),
                           "vectors": "".join(sem.encode_vector(x[i].tolist()) for i in members)}
    out["semantic"] = {"centroids": "".join(sem.encode_vector(cent[c].tolist()) for c in kept),
                       "multi": list(multi_starts(model.pieces, model.prefix))}
    shards = 2 ** max(0, math.ceil(math.log2(max(1, len(model.entries) / TOKENS_PER_SHARD))))
    table: dict[str, dict[str, str]] = {}
    for piece, row in model.pieces.items():
        table.setdefault(sem.token_shard(piece, model.prefix, shards), {})[piece] = model.entries[row]
    for shard in range(shards):  # every shard is written, an empty one as {}: a missing file is corruption
        out[f"w/{shard:x}"] = table.get(f"w/{shard:x}", {})
    block = {"model": model.name, "dims": model.dims, "prefix": model.prefix, "max_chars": model.max_chars,
             "token_shards": shards, "clusters": len(kept), "probe": PROBE, "vectors": len(sids)}
    manifest["semantic"] = block
    return block
