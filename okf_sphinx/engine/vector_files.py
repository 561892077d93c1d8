"""The checks semantic mode's files pass before an engine trusts them (docs/index-format.md,
"Semantic vectors"): the manifest's ``semantic`` block, the token shards (``w/``), the centroid
table (``semantic.js``) and the clusters (``v/``) — :mod:`.validators`' rules for the files only
semantic mode reads, apart so that the browser runtime's twin
(``okf_sphinx/js/engine/vector_files.js``) ships in semantic mode's part (``okf-semantic.js``).
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from okf_sphinx.core.errors import OkfError, json_text
from okf_sphinx.core.index_format import decode_ints, is_int

from .validators import corrupt


def check_semantic(m: Any, setting: str) -> dict[str, Any]:
    """The manifest's ``semantic`` block; an index without vectors answers
    ``semantic_unavailable``, naming ``setting``, the config value that adds them."""
    if m is None:
        raise OkfError(
            "semantic_unavailable",
            f"this index has no semantic vectors: its site names no embedding model. Add {setting} = "
            "\"<model folder>\" to conf.py (semantic_model in the MkDocs plugin's options) and rebuild the "
            "site, or use mode='smart'",
            setting=setting,
        )
    ints = ("dims", "max_chars", "token_shards", "clusters", "probe", "vectors")
    if not (isinstance(m, dict) and all(is_int(m.get(k)) and m[k] >= 0 for k in ints) and m["dims"] >= 1
            and m["token_shards"] >= 1 and m["probe"] >= 1 and isinstance(m.get("prefix"), str)
            and isinstance(m.get("model"), str)):
        raise corrupt("manifest", "the semantic block is missing or invalid")
    return m


def check_tokens(dims: int) -> Callable[[str, Any], dict[str, list[int]]]:
    """``w/<shard>``: ``{piece: entry}``, each entry the token's integer vector once read."""
    from okf_sphinx.core.semantic import token_entry

    def check(name: str, v: Any) -> dict[str, list[int]]:
        if not isinstance(v, dict):
            raise corrupt(name, "a token shard is malformed")
        out = {}
        for piece, text in v.items():
            vector = token_entry(text, dims)
            if vector is None:
                raise corrupt(name, f"the entry of piece {json_text(piece)} is malformed")
            out[piece] = vector
        return out

    return check


def _vectors(name: str, text: Any, count: int, dims: int) -> list[tuple[list[int], int]]:
    """``count`` vectors written one after another, each with its squared norm."""
    from okf_sphinx.core.semantic import decode_vector, dot

    if not isinstance(text, str) or len(text) != count * dims:
        raise corrupt(name, "the vectors are malformed")
    out = []
    for i in range(count):
        v = decode_vector(text, i * dims, dims)
        if v is None:
            raise corrupt(name, "the vectors are malformed")
        out.append((v, dot(v, v)))
    return out


def check_centroids(clusters: int, dims: int) -> Callable[[str, Any], dict[str, Any]]:
    """``semantic.js``: ``centroids``, one per cluster with its squared norm, and ``multi``,
    the two sets of code points that start a piece of two or more code points (from the file's
    two strings, once per load; None when the index does not say)."""
    def check(name: str, v: Any) -> dict[str, Any]:
        if not isinstance(v, dict):
            raise corrupt(name, "the centroid table is malformed")
        multi = v.get("multi")
        if multi is not None and not (isinstance(multi, list) and len(multi) == 2 and all(isinstance(s, str) for s in multi)):
            raise corrupt(name, "the piece starts are malformed")
        return {"centroids": _vectors(name, v.get("centroids"), clusters, dims),
                "multi": None if multi is None else (frozenset(multi[0]), frozenset(multi[1]))}

    return check


def check_cluster(dims: int, sections: int) -> Callable[[str, Any], list[tuple[int, list[int], int]]]:
    """``v/<k>``: ``(sid, vector, squared norm)`` of the cluster's sections, sids ascending."""
    def check(name: str, v: Any) -> list[tuple[int, list[int], int]]:
        deltas = decode_ints(v.get("sids")) if isinstance(v, dict) else None
        if not deltas:
            raise corrupt(name, "a cluster is malformed")
        sids = []
        sid = -1
        for i, d in enumerate(deltas):
            if i and d == 0:
                raise corrupt(name, "a cluster's sections are out of order")
            sid = d if i == 0 else sid + d
            if sid >= sections:
                raise corrupt(name, "a cluster refers to a section past the searchable ones")
            sids.append(sid)
        return [(sid, vec, vv) for sid, (vec, vv) in zip(sids, _vectors(name, v.get("vectors"), len(sids), dims))]

    return check
