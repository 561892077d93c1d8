"""Semantic mode and the blend (docs/smart.md, "Meaning"): a tiny static model the tests write in
the model2vec format, loaded through the real loading code, on real Sphinx and MkDocs builds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.build import sphinx_build, write_project, same_build
from jsonschema import Draft202012Validator

from okf_sphinx import OkfError, open_index
from okf_sphinx.agent.answers import answer_json
from okf_sphinx.agent.dispatch import call_tool
from okf_sphinx.core import index_format as fmt
from okf_sphinx.core import semantic as sem
from okf_sphinx.surfaces.mcp_server import contract


BENCH = Path(__file__).resolve().parent.parent / "bench"

#: The tiny model's vocabulary: each word's topic (a dimension it points along), 0 for glue words.
TOPICS = {
    "mail": 1, "email": 1, "smtp": 1, "outbound": 1, "message": 1, "send": 1, "deliver": 1, "inbox": 1,
    "install": 2, "setup": 2, "pip": 2, "package": 2, "requirement": 2,
    "database": 3, "column": 3, "table": 3, "migration": 3, "storage": 3, "schema": 3, "field": 3,
    "cache": 4, "memory": 4, "fast": 4, "speed": 4, "slow": 4,
    "error": 5, "failure": 5, "crash": 5, "exception": 5,
    "how": 0, "do": 0, "i": 0, "the": 0, "a": 0, "to": 0, "my": 0, "of": 0, "and": 0, "after": 0, "from": 0,
    "your": 0, "in": 0, "is": 0, "it": 0, "use": 0, "run": 0, "keep": 0, "results": 0, "server": 0,
}
SUFFIXES = ("##s", "##ing", "##ed", "##er")
SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
DIMS = 12


def write_tiny_model(folder: Path) -> Path:
    """A static model in the model2vec format (tokenizer.json, model.safetensors, config.json),
    written by model2vec's own save code: topic words point along their topic's dimension."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    words = list(dict.fromkeys([*SPECIAL, *TOPICS, *SUFFIXES, *"abcdefghijklmnopqrstuvwxyz"]))
    vocab = {w: i for i, w in enumerate(words)}
    tok = Tokenizer(models.WordPiece(vocab=vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.add_special_tokens(list(SPECIAL))
    vectors = np.zeros((len(words), DIMS), dtype=np.float32)
    for i, w in enumerate(words):
        vectors[i, 6 + i % 6] = 0.05 + 0.01 * (i % 5)  # a little of everything, different per word
        if TOPICS.get(w):
            vectors[i, TOPICS[w] - 1] = 1.0
    StaticModel(vectors=vectors, tokenizer=tok, normalize=True).save_pretrained(str(folder))
    return folder


PAGES = {
    "index.rst": "Handbook\n========\n\n.. toctree::\n\n   email\n   install\n   database\n   cache\n",
    "email.rst": "Sending email\n=============\n\nConfigure the SMTP server to send mail from your application.\n\n"
                 "Templates\n---------\n\nEvery mail has a subject and a body.\n",
    "install.rst": "Installation\n============\n\nUse pip to install the package and its requirements.\n",
    "database.rst": "Storage\n=======\n\nTables and columns hold the data.\n\nMigrations\n----------\n\n"
                    "Run a migration after you add a column to a table.\n",
    "cache.rst": "Cache\n=====\n\nKeep results in memory so that pages load fast.\n",
}


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_model(tmp_path_factory.mktemp("model") / "tiny")


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path) -> dict[str, Path]:
    """The same project built without a model, with it, and with it again (a second build)."""
    base = tmp_path_factory.mktemp("semantic")
    out = {}
    for name, conf in (("plain", ""), ("vectors", f"okf_search_semantic_model = {str(tiny_model)!r}\n"),
                       ("again", "okf_search_semantic_model = '../model/tiny'\n")):
        src = write_project(base / name / "src", PAGES, conf)
        if name == "again":
            (base / name / "model").symlink_to(tiny_model.parent)
        out[name] = base / name / "html"
        sphinx_build(src, out[name], "-d", str(base / name / "doctrees"))
    return out


def files_of(site: Path) -> dict[str, bytes]:
    okf = site / "_okf"
    return {p.relative_to(okf).as_posix(): p.read_bytes() for p in sorted(okf.rglob("*.js"))}


# -- the shared rules ------------------------------------------------------------------------------


def test_word_pieces_are_bert_greedy_longest_match() -> None:
    vocab = {"send": 1, "##ing": 2, "##in": 3, "##g": 4, "s": 5, "##end": 6, "un": 7, "##aff": 8}
    assert sem.word_pieces("sending", vocab.get, "##", 100) == [1, 2]  # ##ing before ##in + ##g
    assert sem.word_pieces("send", vocab.get, "##", 100) == [1]
    assert sem.word_pieces("unaffected", vocab.get, "##", 100) is None  # one position no piece matches: [UNK]
    assert sem.word_pieces("sending", vocab.get, "##", 6) is None  # longer than max_input_chars_per_word
    assert sem.piece_key("##ending", "##") == "##endi" and sem.piece_key("sending", "##") == "send"
    assert sem.piece_key("##", "##") == "##" and sem.piece_key("a", "##") == "a"


def test_a_position_no_longer_piece_starts_at_looks_up_one_code_point() -> None:
    """With the index's piece starts, the split is the same and a position whose code point
    starts no piece of two or more code points tries only its one-code-point piece."""
    from okf_sphinx.writer.semantic_index import multi_starts

    vocab = {"send": 1, "##ing": 2, "##in": 3, "##g": 4, "s": 5, "##end": 6, "д": 7, "##е": 8, "##о": 9, "##ов": 10}
    multi = multi_starts(vocab, "##")
    assert multi == ("s", "eiо")
    for word in ("sending", "send", "дево", "дов", "дx", "x"):
        tried: list[list[str]] = [[], []]
        for k, m in enumerate((None, multi)):
            got = sem.word_pieces(word, lambda p, k=k: tried[k].append(p) or vocab.get(p), "##", 100, m)
            assert got == sem.word_pieces(word, vocab.get, "##", 100), word
        assert set(tried[1]) <= set(tried[0])
    tried = []
    assert sem.word_pieces("дево", lambda p: tried.append(p) or vocab.get(p), "##", 100, multi) is None
    assert tried == ["д", "##е", "##в"]  # no longer piece starts with "д", "##е" or "##в"
    assert multi_starts(["ab", "##cd", "e"], "") == ("#a", "#a")  # no prefix: one class


def test_vector_text_and_the_score_formula() -> None:
    text = sem.encode_vector([-7, 0, 7, 3])
    assert text == "18fb" and sem.decode_vector(text, 0, 4) == [-7, 0, 7, 3]
    assert sem.decode_vector("08fb", 0, 4) is None and sem.decode_vector("18f", 0, 4) is None
    assert sem.token_entry("0a" + text, 4) == [-70, 0, 70, 30]
    assert sem.token_entry("00" + text, 4) is None and sem.token_entry("zz" + text, 4) is None
    assert sem.cosine(3, 4, 9) == 3 / (2.0 * 3.0) == 0.5


# -- the build ------------------------------------------------------------------------------------


def test_no_cluster_is_more_than_its_share() -> None:
    """The capped assignment: every vector placed, none beyond the cap, each at its nearest
    centroid with room (the nearest of all while that one has room)."""
    from okf_sphinx.writer.semantic_index import balanced

    rng = np.random.default_rng(5)
    cos = rng.uniform(-1, 1, (200, 8))
    cos[:150, 3] = 2.0  # three quarters of the vectors want centroid 3
    assign = balanced(cos, 40)
    assert (assign >= 0).all() and np.bincount(assign, minlength=8).max() == 40
    assert (assign[:150] == 3).sum() == 40
    # the 40 that stay at 3 are its nearest (here: all tied at 2.0, so the lowest rows)
    assert np.flatnonzero(assign == 3).tolist() == list(range(40))
    # one cluster left with room: the rest fill it
    assert (balanced(np.zeros((10, 2)), 10) == 0).all()


def postings_of(files: dict[str, bytes]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every stem group and every term's posting list of an index, whichever ``t/`` file holds them."""
    groups: dict[str, Any] = {}
    terms: dict[str, Any] = {}
    for name, data in files.items():
        if name.startswith("t/") and "-" not in name:
            shard = fmt.unwrap(name[:-3], data)
            groups.update(shard["groups"])
            for term, entry in shard["terms"].items():
                terms[term] = entry if isinstance(entry, str) else fmt.unwrap(entry[1][0], files[entry[1][0] + ".js"])
    return groups, terms


def test_vectors_add_files_a_manifest_block_and_smaller_posting_files(sites: dict[str, Path]) -> None:
    plain, vectors = files_of(sites["plain"]), files_of(sites["vectors"])
    added = sorted(set(vectors) - set(plain))
    assert set(plain) - set(vectors) <= {n for n in plain if n.startswith("t/")}
    assert all(n == "semantic.js" or n.startswith(("v/", "w/", "t/")) for n in added) and "semantic.js" in added
    for name in plain:  # every other file holds what it held; only the build it names (format 5) is another
        if name != "manifest.js" and not name.startswith("t/"):
            assert fmt.unwrap(name[:-3], vectors[name]) == fmt.unwrap(name[:-3], plain[name]), name
    # t/ holds the same groups and lists, in more, smaller files (writer/sizing.py VECTOR_POSTING_SCALE)
    assert postings_of(vectors) == postings_of(plain)
    mp = fmt.unwrap("manifest", plain["manifest.js"])
    mv = fmt.unwrap("manifest", vectors["manifest.js"])
    block = mv.pop("semantic")
    own = ("index_revision", "build", "shards", "shard_depths")
    assert {k: v for k, v in mv.items() if k not in own} == {k: v for k, v in mp.items() if k not in own}
    assert mv["build"] != mp["build"] and mv["shards"] > mp["shards"]
    assert block == {"model": "tiny", "dims": DIMS, "prefix": "##", "max_chars": 100, "token_shards": block["token_shards"],
                     "clusters": 1, "probe": 4, "vectors": block["vectors"]}
    assert block["vectors"] == mv["sections"]  # every section says something the model knows
    assert sum(1 for n in added if n.startswith("w/")) == block["token_shards"]
    # a model named relative to conf.py gives the same index, byte for byte
    assert files_of(sites["again"]) == vectors


def test_a_build_without_the_setting_imports_nothing_new(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", PAGES)
    code = (
        "import sys\nfrom sphinx.cmd.build import build_main\n"
        f"rc = build_main(['-q', '-b', 'html', {str(src)!r}, {str(tmp_path / 'html')!r}])\n"
        "print(rc, sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'model2vec', 'tokenizers', "
        "'safetensors') or m == 'okf_sphinx.writer.semantic_index'))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.stdout.strip() == "0 []", r.stdout + r.stderr
    assert "semantic" not in fmt.unwrap("manifest", (tmp_path / "html" / "_okf" / "manifest.js").read_bytes())


def test_adding_vectors_to_a_built_index_is_the_build_with_the_model(sites: dict[str, Path], tiny_model: Path,
                                                                      tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, str(BENCH / "add_vectors.py"), str(sites["plain"]), str(tiny_model),
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    # the same vectors and the same answers; only t/ keeps the plain index's sizes (bench/add_vectors.py)
    added, built = files_of(tmp_path / "out"), files_of(sites["vectors"])
    for name in built:
        if name != "manifest.js" and not name.startswith("t/"):
            assert fmt.unwrap(name[:-3], added[name]) == fmt.unwrap(name[:-3], built[name]), name
    assert postings_of(added) == postings_of(built)
    a, b = open_index(tmp_path / "out"), open_index(sites["vectors"])
    for q in ("install the package", "clear the cache", "retry"):
        for mode in ("keyword", "smart", "semantic"):
            ra, rb = a.search(q, mode=mode), b.search(q, mode=mode)
            assert {k: v for k, v in ra.items() if not k.endswith("revision")} == {
                k: v for k, v in rb.items() if not k.endswith("revision")}, (q, mode)


def test_a_model_that_cannot_be_loaded_fails_the_build_naming_the_setting(tmp_path: Path) -> None:
    src = write_project(tmp_path / "src", PAGES, "okf_search_semantic_model = 'no-such-model-folder'\n")
    r = sphinx_build(src, tmp_path / "html", check=False)
    assert r.returncode != 0
    assert "okf_search_semantic_model = 'no-such-model-folder'" in r.stderr and "okf model distill" in r.stderr
    assert "Configuration error" in r.stderr and not (tmp_path / "html" / "_okf").exists()


def test_a_model_whose_tokenizer_is_not_wordpiece_is_refused(tmp_path: Path, tiny_model: Path) -> None:
    import shutil

    from okf_sphinx.core.errors import BuildError
    from okf_sphinx.writer.semantic_index import load_model

    bpe = tmp_path / "bpe"
    shutil.copytree(tiny_model, bpe)
    tok = json.loads((bpe / "tokenizer.json").read_text("utf-8"))
    tok["model"] = {"type": "WordLevel", "vocab": tok["model"]["vocab"], "unk_token": "[UNK]"}
    (bpe / "tokenizer.json").write_text(json.dumps(tok), "utf-8")
    with pytest.raises(BuildError, match="WordPiece"):
        load_model(str(bpe), tmp_path, "okf_search_semantic_model")


# -- answers -------------------------------------------------------------------------------------


def validate(answer: dict[str, Any]) -> None:
    Draft202012Validator(contract("search_sections", "output")).validate(answer)


def test_semantic_mode_ranks_by_meaning(sites: dict[str, Path]) -> None:
    index = open_index(sites["vectors"])
    r = index.search("outbound messages", mode="semantic", limit=3)
    validate(r)
    assert r["mode"] == "semantic" and r["pages"][0]["concept_id"] == "email"
    assert all(h["matched"] == "meaning" and h["matched_terms"] == [] for p in r["pages"] for h in p["hits"])
    # the words alone find nothing: no page holds "outbound"
    assert index.search("outbound", mode="smart")["pages"][0]["hits"][0]["matched"] == "meaning"
    assert open_index(sites["plain"]).search("outbound", mode="smart")["pages"] == []
    assert index.search("add a field to the schema", mode="semantic")["pages"][0]["concept_id"] == "database"
    # filters and limits as in smart mode
    assert [p["concept_id"] for p in index.search("outbound messages", mode="semantic", under="install")["pages"]] == ["install"]
    assert len(index.search("speed", mode="semantic", limit=1)["pages"]) == 1
    with pytest.raises(OkfError) as err:
        index.search("mail", mode="semantic", prefix=True)
    assert err.value.code == "schema_validation" and "prefix" in err.value.message


def test_the_blend_says_how_each_hit_matched(sites: dict[str, Path]) -> None:
    index = open_index(sites["vectors"])
    r = index.search("send mail", mode="smart", limit=5)
    validate(r)
    first = r["pages"][0]
    assert first["concept_id"] == "email" and first["hits"][0]["matched"] in ("both", "words")
    assert {h["matched"] for p in r["pages"] for h in p["hits"]} <= {"words", "meaning", "both"}
    assert "both" in {h["matched"] for h in first["hits"]}
    # the words' own pages and hits, in the words' order, when the words find the page the meaning finds
    plain = open_index(sites["plain"]).search("send mail", mode="smart", limit=5)
    assert first["concept_id"] == plain["pages"][0]["concept_id"]
    assert r["terms"] == plain["terms"] and r["suggestions"] == plain["suggestions"]


def test_meaning_counts_when_the_words_are_weak(sites: dict[str, Path]) -> None:
    """A short query some page fully matches names its page: when the words fill the answer,
    the blend is the words' answer (every hit "words") and reads no vector file; a question
    (words that do not count), a long query or one no page fully matches weighs meaning in."""
    from okf_sphinx.engine import semantic

    index = open_index(sites["vectors"])
    read: list[str] = []
    inner = index.source.read
    index.source.read = lambda name, *a, **k: read.append(name) or inner(name, *a, **k)  # type: ignore[method-assign]
    r = index.search("mail", mode="smart", limit=1)
    plain = open_index(sites["plain"]).search("mail", mode="smart", limit=1)
    assert [p["concept_id"] for p in r["pages"]] == [p["concept_id"] for p in plain["pages"]] == ["email"]
    assert [h["locator"] for h in r["pages"][0]["hits"]] == [h["locator"] for h in plain["pages"][0]["hits"]]
    assert {h["matched"] for h in r["pages"][0]["hits"]} == {"words"}
    assert not [n for n in read if n == "semantic" or n.startswith(("v/", "w/"))], read
    # fewer pages than the limit: meaning fills the rest, below every page the words found
    more = index.search("mail", mode="smart", limit=5)
    assert more["pages"][0]["concept_id"] == "email" and len(more["pages"]) > len(plain["pages"])

    def weight(query: str) -> float:
        state: dict[str, Any] = {}
        from okf_sphinx.engine import smart

        smart.search(index, query, 5, state_out=state)
        return semantic.meaning_weight(state)

    assert weight("mail") == weight("send mail") == semantic.MEANING == 0
    assert weight("how do i send mail") == semantic.MEANING_QUESTION > 0
    assert weight("mail smtp server templates subject") == semantic.MEANING_LONG > 0
    assert weight("mail cache") == semantic.MEANING_PARTIAL > 0


def test_unsure_meaning_counts_half(sites: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Meaning is sure when its first page's cosine is at least MEANING_MARGIN above its second's
    (0 without one); unsure meaning counts MEANING_UNSURE × its weight in the fused scores."""
    from okf_sphinx.engine import semantic, smart

    sure = semantic.meaning_sure
    assert not sure([])
    assert sure([(3, [(0.5, 7)])]) and not sure([(3, [(0.05, 7)])])
    assert sure([(3, [(0.9, 7), (0.1, 8)]), (1, [(0.84, 2)])])
    assert not sure([(3, [(0.9, 7)]), (1, [(0.85, 2)])])
    index = open_index(sites["vectors"])
    seen: list[bool] = []
    checked = 0
    tried: list[bool] = []
    monkeypatch.setattr(semantic, "meaning_sure", lambda pages: seen.append(sure(pages)) or seen[-1])
    for query in ("mail cache", "how do i add a column", "outbound messages", "fast memory pages", "templates speed"):
        seen.clear()
        state: dict[str, Any] = {}
        words = smart.search(index, query, 5, state_out=state)
        weight = semantic.meaning_weight(state)
        r = index.search(query, mode="smart", limit=5)
        if weight == 0 and len(words["pages"]) == 5:
            continue
        q, _known = semantic.query_vector(index, state["terms"])
        pages = semantic.by_page(index, semantic.ranked(index, q, None))
        assert seen == [sure(pages)]
        tried.append(seen[0])
        w = weight if seen[0] else weight * semantic.MEANING_UNSURE
        found = {p["concept_id"]: k for k, p in enumerate(words["pages"], 1)}
        for k, (_page, secs) in enumerate(pages[:5], 1):
            cid = index.section(secs[0][1])["concept_id"]
            expect = w / (semantic.FUSION_K + k)
            if cid in found:
                expect = semantic.WORDS / (semantic.FUSION_K + found[cid]) + expect
            got = [p["score"] for p in r["pages"] if p["concept_id"] == cid]
            assert got in ([], [expect]), (query, cid, got, expect)
            checked += bool(got)
    assert checked >= 5 and {True, False} <= set(tried)
    monkeypatch.undo()
    # both branches are taken by the requests every surface answers alike
    branches: set[bool] = set()
    monkeypatch.setattr(semantic, "meaning_sure", lambda pages: branches.add(sure(pages)) or sure(pages))
    for req in surface_requests(7, 120):
        if req["mode"] == "smart":
            try:
                index.search(**{"limit": 20, **req})
            except OkfError:
                pass
    assert branches == {True, False}


@pytest.mark.node
def test_the_blend_reads_fewer_clusters_and_trusts_a_named_title(sites: dict[str, Path], tmp_path: Path,
                                                                  tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The blend reads the BLEND_PROBE nearest clusters (semantic mode the index's probe); a
    query whose counted words are all in the title of the words' first page weighs meaning 0."""
    import shutil

    import add_vectors
    from support.node import python_answer, run_node, same

    from okf_sphinx.core.hosts import SPHINX
    from okf_sphinx.engine import semantic, smart
    from okf_sphinx.writer import semantic_index as writer
    from okf_sphinx.writer.disk import write_index

    monkeypatch.setattr(writer, "CLUSTER_VECTORS", 1)
    monkeypatch.setattr(writer, "PROBE", 3)
    files = add_vectors.read_index(sites["plain"] / "_okf")
    writer.add_semantic(files, writer.load_model(str(tiny_model), tmp_path, "m"))
    shutil.copytree(sites["plain"], tmp_path / "site", ignore=shutil.ignore_patterns("_okf"))
    write_index(tmp_path / "site" / "_okf", files, SPHINX)
    assert semantic.BLEND_PROBE < 3 < files["manifest"]["semantic"]["clusters"]
    # the runtime in Node reads and fuses as Python does, semantic mode with its 3 clusters
    requests = [{"query": q, "mode": m, "limit": 5} for q in ("how do i send email", "the sending of email", "mail cache",
                                                              "how do i send outbound messages", "fast memory pages")
                for m in ("smart", "semantic")] + surface_requests(13, 120)
    here = open_index(tmp_path / "site")
    for req, js in zip(requests, run_node(tmp_path / "site" / "_okf", requests)):
        assert same(js, python_answer(here, req)) is None, (req, same(js, python_answer(here, req)))
    for mode, probe in (("smart", semantic.BLEND_PROBE), ("semantic", 3)):
        index = open_index(tmp_path / "site")
        read: list[str] = []
        inner = index.source.read
        index.source.read = lambda name, *a, **k: read.append(name) or inner(name, *a, **k)  # type: ignore[method-assign]
        index.search("how do i send outbound messages", mode=mode, limit=5)
        assert len({n for n in read if n.startswith("v/")}) == probe, (mode, read)
    index = open_index(sites["vectors"])

    def named(query: str) -> bool:
        state: dict[str, Any] = {}
        answer = smart.search(index, query, 5, state_out=state)
        return semantic.words_name_page(index, answer, state["counted"])

    assert named("the sending of email") and named("how do i send email")  # "Sending email", stemmed
    assert not named("how do i send mail") and not named("email templates subject body and server")
    # the title names the page: the words' answer first, unchanged (meaning adds nothing to
    # its scores); meaning only fills the places left
    words = open_index(sites["plain"]).search("how do i send email", mode="smart", limit=5)
    r = index.search("how do i send email", mode="smart", limit=5)
    n = len(words["pages"])
    assert 0 < n < len(r["pages"])
    assert [p["concept_id"] for p in r["pages"][:n]] == [p["concept_id"] for p in words["pages"]]
    assert [p["score"] for p in r["pages"][:n]] == [semantic.WORDS / (semantic.FUSION_K + k) for k in range(1, n + 1)]
    assert [h["locator"] for p in r["pages"][:n] for h in p["hits"]] == [h["locator"] for p in words["pages"] for h in p["hits"]]
    assert {h["matched"] for p in r["pages"][n:] for h in p["hits"]} == {"meaning"}


def test_piece_starts_read_fewer_token_shards_for_the_same_answers(sites: dict[str, Path], tmp_path: Path) -> None:
    """``semantic.js`` names the code points that start a longer piece; without them (an older
    index) every answer is the same, read through more token shards."""
    import shutil

    site = tmp_path / "site"
    shutil.copytree(sites["vectors"], site)
    path = site / "_okf" / "semantic.js"
    value = fmt.unwrap("semantic", path.read_bytes())
    # the first letters of the tiny model's words of two letters or more; "##ing", "##ed", "##er"
    assert value["multi"] == ["".join(sorted({w[0] for w in TOPICS if len(w) > 1})), "ei"]
    path.write_bytes(same_build("semantic", {"centroids": value["centroids"]}, path))
    queries = ("xylophone mail", "zqx", "sending email", "пошта cache", "how do i install")

    def shards(where: Path, query: str, mode: str) -> tuple[dict[str, Any], set[str]]:
        index = open_index(where)
        read: list[str] = []
        inner = index.source.read
        index.source.read = lambda name, *a, **k: read.append(name) or inner(name, *a, **k)  # type: ignore[method-assign]
        return index.search(query, mode=mode, limit=5), {n for n in read if n.startswith("w/")}

    fewer = 0
    for q in queries:
        for mode in ("semantic", "smart"):
            with_starts, read = shards(sites["vectors"], q, mode)
            without, read_all = shards(site, q, mode)
            assert with_starts == without, (q, mode)
            assert read <= read_all
            fewer += len(read) < len(read_all)
    assert fewer >= 2


@pytest.mark.node
def test_node_reads_the_piece_starts_as_python_does(sites: dict[str, Path]) -> None:
    """Words whose positions start no longer piece (letters of another script, unknown
    letters): the runtime in Node splits and answers them as Python does."""
    from support.node import python_answer, run_node, same

    index = open_index(sites["vectors"])
    requests = [{"query": q, "mode": m, "limit": 5} for q in ("xylophone mail", "zqx", "пошта cache", "дево send")
                for m in ("smart", "semantic")]
    for req, js in zip(requests, run_node(sites["vectors"] / "_okf", requests)):
        assert same(js, python_answer(index, req)) is None, (req, same(js, python_answer(index, req)))


def test_semantic_on_an_index_without_vectors_names_the_setting(sites: dict[str, Path]) -> None:
    with pytest.raises(OkfError) as err:
        open_index(sites["plain"]).search("mail", mode="semantic")
    e = err.value
    assert e.code == "semantic_unavailable" and e.details == {"setting": "okf_search_semantic_model"}
    assert "okf_search_semantic_model" in e.message and "semantic_model" in e.message and "mode='smart'" in e.message
    import importlib.resources

    schema = json.loads(importlib.resources.files("okf_sphinx").joinpath("contracts", "error.json").read_text("utf-8"))
    Draft202012Validator(schema).validate(e.envelope)


@pytest.mark.node
@pytest.mark.browser
def test_every_surface_names_the_setting_without_vectors(sites: dict[str, Path]) -> None:
    """semantic_unavailable, naming the setting, from Python, the CLI, MCP, Node and Chromium
    alike; smart mode on the same index answers as before (no ``matched`` field)."""
    from support.parity import api_answer, assert_surfaces_agree

    requests = [{"query": "outbound mail", "mode": "semantic"}, {"query": "mail", "mode": "semantic", "limit": 2},
                {"query": "send mail", "mode": "smart"}]
    assert_surfaces_agree(sites["plain"], requests, cli_sample=2)
    index = open_index(sites["plain"])
    for req in requests[:2]:
        env = api_answer(index, req)
        assert env["error"]["code"] == "semantic_unavailable", env
        assert env["error"]["setting"] == "okf_search_semantic_model" and "semantic_model" in env["error"]["message"]
    assert all("matched" not in h for p in api_answer(index, requests[2])["pages"] for h in p["hits"])


def test_cli_and_mcp_give_the_python_answer(sites: dict[str, Path]) -> None:
    from support.mcp import run, session_for, structured

    site = sites["vectors"]
    index = open_index(site)
    for query, mode in (("outbound messages", "semantic"), ("how do i add a column", "smart"), ("mail", "semantic")):
        expected = answer_json(call_tool(index, "search_sections", {"query": query, "mode": mode, "limit": 4}))
        r = subprocess.run([sys.executable, "-m", "okf_sphinx", "search", str(site), "--query", query, "--mode", mode,
                            "--limit", "4", "--json"], capture_output=True, timeout=60)
        assert r.returncode == 0 and r.stdout.decode("utf-8") == expected + "\n", r.stderr

        async def go(query: str = query, mode: str = mode) -> Any:
            async with session_for(site) as s:
                return await s.call_tool("search_sections", {"query": query, "mode": mode, "limit": 4})

        assert answer_json(structured(run(go))) == expected
    text = subprocess.run([sys.executable, "-m", "okf_sphinx", "search", str(site), "--query", "outbound messages",
                           "--mode", "semantic"], capture_output=True, text=True, timeout=60)
    assert text.returncode == 0 and "[meaning]" in text.stdout and "Sending email" in text.stdout
    none = subprocess.run([sys.executable, "-m", "okf_sphinx", "search", str(sites["plain"]), "--query", "mail",
                           "--mode", "semantic", "--json"], capture_output=True, text=True, timeout=60)
    assert none.returncode == 22 and json.loads(none.stdout)["error"]["setting"] == "okf_search_semantic_model"

    async def refused() -> Any:
        async with session_for(sites["plain"]) as s:
            return await s.call_tool("search_sections", {"query": "mail", "mode": "semantic"})

    result = run(refused)
    assert result.is_error and json.loads(result.content[0].text) == json.loads(none.stdout)


@pytest.mark.parametrize("name,edit", [
    ("semantic", lambda v: {"centroids": v["centroids"][:-1]}),
    ("semantic", lambda v: {**v, "multi": ["abc"]}),
    ("v/0", lambda v: {**v, "vectors": "0" + v["vectors"][1:]}),
    ("v/0", lambda v: {**v, "sids": "_"}),
    ("w/*", lambda v: {k: "zz" + t[2:] for k, t in v.items()} or {"mail": "x"}),
    ("manifest", lambda v: {**v, "semantic": {**v["semantic"], "dims": "12"}}),
])
def test_a_damaged_vector_file_is_index_corrupt(sites: dict[str, Path], tmp_path: Path, name: str, edit: Any) -> None:
    import shutil

    site = tmp_path / "site"
    shutil.copytree(sites["vectors"], site)
    okf = site / "_okf"
    if name == "w/*":  # the shard that holds "mail"
        m = fmt.unwrap("manifest", (okf / "manifest.js").read_bytes())["semantic"]
        name = sem.token_shard("mail", "##", m["token_shards"])
    path = okf / f"{name}.js"
    path.write_bytes(same_build(name, edit(fmt.unwrap(name, path.read_bytes())), path))
    with pytest.raises(OkfError) as err:
        open_index(site).search("mail", mode="semantic")
    assert err.value.code == "index_corrupt"


# -- MkDocs and the distillation command ---------------------------------------------------------


def test_the_mkdocs_plugin_option(tmp_path: Path, tiny_model: Path) -> None:
    from support.mkdocs_sites import mkdocs_build

    project = tmp_path / "proj"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "index.md").write_text("# Mail\n\nConfigure the SMTP server to send mail.\n", "utf-8")
    (project / "docs" / "setup.md").write_text("# Setup\n\nUse pip to install the package.\n", "utf-8")
    (project / "mkdocs.yml").write_text(
        f"site_name: T\nplugins:\n  - search\n  - okf:\n      semantic_model: {str(tiny_model)!r}\n", "utf-8")
    mkdocs_build(project, tmp_path / "site")
    index = open_index(tmp_path / "site")
    assert index.manifest["semantic"]["model"] == "tiny"
    assert index.search("outbound messages", mode="semantic")["pages"][0]["concept_id"] == "index"
    (project / "mkdocs.yml").write_text("site_name: T\nplugins:\n  - search\n  - okf:\n      semantic_model: nowhere\n", "utf-8")
    r = mkdocs_build(project, tmp_path / "site2", check=False)
    assert r.returncode != 0 and "semantic_model" in r.stderr and "Traceback" not in r.stderr


def test_okf_model_distill_explains_what_it_needs(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "okf_sphinx", "model", "distill", str(tmp_path / "nothing"),
                        str(tmp_path / "out"), "--json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 8 and "sentence-transformer folder" in json.loads(r.stdout)["error"]["message"]
    src = tmp_path / "st"
    src.mkdir()
    (src / "config.json").write_text("{}", "utf-8")
    (src / "tokenizer.json").write_text("{}", "utf-8")
    r = subprocess.run([sys.executable, "-m", "okf_sphinx", "model", "distill", str(src), str(tmp_path / "out"), "--json"],
                       capture_output=True, text=True, timeout=120)
    try:
        import torch  # noqa: F401
    except ImportError:  # the test install has no torch: the command says how to get it
        assert r.returncode == 21 and "okf_sphinx[distill]" in json.loads(r.stdout)["error"]["message"]
    else:
        assert r.returncode != 0


def test_clusters_route_queries_and_every_score_is_the_formula(sites: dict[str, Path], tmp_path: Path,
                                                                tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many small clusters (the writer's sizes scaled down): a query reads the `probe` clusters
    whose centroids score best, every section score is the one formula over the stored integers,
    and with every cluster probed the ranking is the exhaustive one."""
    import add_vectors

    from okf_sphinx.engine import semantic as engine
    from okf_sphinx.writer import semantic_index as writer
    from okf_sphinx.core.hosts import SPHINX
    from okf_sphinx.writer.disk import write_index

    monkeypatch.setattr(writer, "CLUSTER_VECTORS", 2)
    monkeypatch.setattr(writer, "PROBE", 2)
    files = add_vectors.read_index(sites["plain"] / "_okf")
    block = writer.add_semantic(files, writer.load_model(str(tiny_model), tmp_path, "m"))
    assert block["clusters"] > 2
    write_index(tmp_path / "site" / "_okf", files, SPHINX)
    index = open_index(tmp_path / "site")
    m = index.manifest["semantic"]
    cents = [sem.decode_vector(files["semantic"]["centroids"], k * m["dims"], m["dims"]) for k in range(m["clusters"])]
    members = {}
    for k in range(m["clusters"]):
        chunk = files[f"v/{k:x}"]
        sids, at = [], -1
        for i, d in enumerate(fmt.decode_ints(chunk["sids"])):
            at = d if i == 0 else at + d
            sids.append(at)
        for j, sid in enumerate(sids):
            members[sid] = (k, sem.decode_vector(chunk["vectors"], j * m["dims"], m["dims"]))
    for query in ("outbound messages", "add a column to a table", "fast memory", "how do i install it"):
        q, _known = engine.query_vector(index, index.normaliser.query_terms(query))
        qq = sem.dot(q, q)
        near = sorted(range(len(cents)), key=lambda k: (-sem.cosine(sem.dot(q, cents[k]), qq, sem.dot(cents[k], cents[k])), k))
        got = engine.ranked(index, q, None)
        assert {members[sid][0] for _s, sid in got} <= set(near[: m["probe"]])
        for score, sid in got:
            v = members[sid][1]
            assert score == sem.cosine(sem.dot(q, v), qq, sem.dot(v, v))
        monkeypatch.setitem(index.manifest["semantic"], "probe", m["clusters"])
        every = engine.ranked(index, q, None)
        assert every == sorted(((sem.cosine(sem.dot(q, v), qq, sem.dot(v, v)), sid) for sid, (_k, v) in members.items()),
                               key=lambda x: (-x[0], x[1]))
        monkeypatch.setitem(index.manifest["semantic"], "probe", 2)


# -- one answer on every surface -------------------------------------------------------------------

SURFACE_WORDS = [*TOPICS, "sending", "installation", "columns", "migrations", "templates", "subject", "body",
                 "configure", "application", "zzzunknown", "Café", "Straße", "ΣΊΣΥΦΟΣ", "検索", "x" * 101, "outbounds"]


def surface_requests(seed: int, n: int) -> list[dict[str, Any]]:
    import random

    rng = random.Random(seed)
    out: list[dict[str, Any]] = [
        {"query": "outbound messages", "mode": "semantic"}, {"query": "how do i add a column", "mode": "smart"},
        {"query": "mail", "mode": "semantic", "prefix": True}, {"query": "mail", "mode": "semantic", "expand": "yes"},
        {"query": "!!!", "mode": "semantic"}, {"query": "zzzunknown", "mode": "semantic"},
        {"query": "outbound", "mode": "semantic", "limit": 0}, {"query": "speed", "mode": "semantic", "under": "/x"},
        {"query": "speed", "mode": "semantic", "kind": "py:function"}, {"query": "mail", "mode": "smart", "prefix": True},
    ]
    for _ in range(n):
        words = " ".join(rng.choice(SURFACE_WORDS) for _ in range(rng.randint(1, 6)))
        req: dict[str, Any] = {"query": words, "mode": rng.choice(["semantic", "smart"])}
        if rng.random() < 0.5:
            req["limit"] = rng.choice([1, 2, 3, 10])
        if rng.random() < 0.2:
            req["under"] = rng.choice(["email", "database", "install"])
        if rng.random() < 0.15:
            req["kind"] = "section"
        if rng.random() < 0.2:
            req["expand"] = True
        out.append(req)
    return out


@pytest.mark.node
@pytest.mark.browser
def test_python_cli_mcp_node_and_chromium_agree(sites: dict[str, Path]) -> None:
    from support.parity import assert_surfaces_agree

    assert_surfaces_agree(sites["vectors"], surface_requests(7, 120), cli_sample=12)


@pytest.mark.node
def test_node_agrees_with_many_clusters(sites: dict[str, Path], tmp_path: Path, tiny_model: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same site with many small clusters (a query reads 2 of them): the runtime in Node
    routes, scores and fuses exactly as Python does."""
    import shutil

    import add_vectors
    from support.node import python_answer, run_node, same

    from okf_sphinx.writer import semantic_index as writer
    from okf_sphinx.core.hosts import SPHINX
    from okf_sphinx.writer.disk import write_index

    monkeypatch.setattr(writer, "CLUSTER_VECTORS", 2)
    monkeypatch.setattr(writer, "PROBE", 2)
    files = add_vectors.read_index(sites["plain"] / "_okf")
    writer.add_semantic(files, writer.load_model(str(tiny_model), tmp_path, "m"))
    site = tmp_path / "site"
    shutil.copytree(sites["plain"], site, ignore=shutil.ignore_patterns("_okf"))
    write_index(site / "_okf", files, SPHINX)
    index = open_index(site)
    assert index.manifest["semantic"]["clusters"] > 2
    requests = surface_requests(11, 300)
    for req, js in zip(requests, run_node(site / "_okf", requests)):
        assert same(js, python_answer(index, req)) is None, (req, same(js, python_answer(index, req)))


@pytest.mark.browser
def test_the_search_page_in_semantic_mode(sites: dict[str, Path]) -> None:
    """?mode=semantic on the search page: pages by meaning, each hit marked "by meaning"; the
    dialog's smart answers (blended) mark the hits only meaning found."""
    from playwright.sync_api import sync_playwright

    from support.node import CHROMIUM_ARGS, require_chromium

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto((sites["vectors"] / "search.html").as_uri() + "?q=outbound+messages&mode=semantic")
        page.wait_for_function("() => document.getElementById('okf-search').getAttribute('data-okf-state') === 'done'")
        status = page.inner_text(".okf-status")
        links = page.eval_on_selector_all("li.okf-page-result > .okf-page-link", "els => els.map(a => a.getAttribute('href'))")
        marks = page.eval_on_selector_all(".okf-matched", "els => els.map(e => e.textContent)")
        page.goto((sites["vectors"] / "search.html").as_uri() + "?q=outbound+messages")
        page.wait_for_function("() => document.getElementById('okf-search').getAttribute('data-okf-state') === 'done'")
        blended = page.eval_on_selector_all(".okf-matched", "els => els.map(e => e.textContent)")
        browser.close()
    assert "by meaning" in status and links[0].startswith("./email.html")
    assert marks and set(marks) == {"by meaning"} and blended and set(blended) == {"by meaning"}


def _loaded_names(page: Any) -> list[str]:
    """The file names the page has loaded (:func:`support.browser.fetched`): an index file's
    name under ``_okf/``, any other file's last path segment."""
    from support.browser import fetched

    return [path.split("/_okf/", 1)[-1] if "/_okf/" in path else path.rsplit("/", 1)[-1] for path in fetched(page)]


@pytest.mark.browser
def test_semantic_code_only_for_an_index_with_vectors(sites: dict[str, Path]) -> None:
    """okf-semantic.js (the model's tokenizer, the vectors, the blend) is loaded only when the
    manifest says the index has vectors: the search page and the dialog of the site without
    them answer without it; the site with vectors loads it and answers by meaning (blended in
    smart mode, and mode=semantic), over http://."""
    from playwright.sync_api import sync_playwright

    from support.http import serve
    from support.node import CHROMIUM_ARGS, require_chromium

    done = "() => document.getElementById('okf-search').getAttribute('data-okf-state') === 'done'"
    dialog_done = ("() => { const d = document.querySelector('dialog.okf-dialog');"
                   " return d && d.getAttribute('data-okf-state') === 'done' && d.getAttribute('data-okf-query') === 'outbound messages'; }")
    loaded: dict[str, list[str]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        for name in ("plain", "vectors"):
            url, server = serve(sites[name])
            try:
                page = browser.new_context().new_page()
                page.goto(url + "search.html?q=outbound+messages")
                page.wait_for_function(done)
                loaded[name] = _loaded_names(page)
                loaded[name + " marks"] = page.eval_on_selector_all(".okf-matched", "els => els.map(e => e.textContent)")
                loaded[name + " hits"] = page.eval_on_selector_all("li.okf-page-result", "els => els.map(e => e.id)")
                page.context.close()
                page = browser.new_context().new_page()  # the dialog on another page, cold
                page.goto(url + "index.html")
                page.keyboard.press("Control+k")
                page.keyboard.insert_text("outbound messages")
                page.wait_for_function(dialog_done)
                loaded[name + " dialog"] = _loaded_names(page)
                page.context.close()
                if name == "vectors":
                    page = browser.new_context().new_page()
                    page.goto(url + "search.html?q=outbound+messages&mode=semantic")
                    page.wait_for_function(done)
                    loaded["semantic status"] = [page.inner_text(".okf-status")]
                    page.context.close()
            finally:
                server.shutdown()
                server.server_close()
        browser.close()
    for where in ("plain", "plain dialog"):
        assert "okf-search.js" in loaded[where], loaded[where]  # the page did answer from the runtime
        assert "okf-semantic.js" not in loaded[where], (where, loaded[where])
        # nor filters and expansion; but the spelling part, as no page holds "outbound" (the
        # search page's tests show a query of the site's words never loads it)
        assert "okf-options.js" not in loaded[where] and "okf-spelling.js" in loaded[where], (where, sorted(loaded[where]))
        assert not [n for n in loaded[where] if n.startswith(("v/", "w/"))], (where, loaded[where])
    assert not loaded["plain marks"]  # nothing "by meaning" without vectors
    for where in ("vectors", "vectors dialog"):
        assert {"okf-search.js", "okf-semantic.js"} <= set(loaded[where]), (where, loaded[where])
        assert [n for n in loaded[where] if n.startswith(("v/", "w/"))], (where, loaded[where])  # the vectors read
    assert loaded["vectors marks"] and set(loaded["vectors marks"]) == {"by meaning"}
    assert "by meaning" in loaded["semantic status"][0]
