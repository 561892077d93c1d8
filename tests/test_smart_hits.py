"""Which sections of a page are its hits in smart mode (docs/smart.md, "Which sections"):
the page's best section always, a further one only when it scores at least
SUB_HIT_FLOOR × the best's — in Python and in the JS runtime (Node), on a real build."""

from __future__ import annotations

from pathlib import Path

import pytest

import okf_sphinx
from support.build import build_html, write_project
from okf_sphinx.engine import smart

from support.node import node_answers

# "quokka": three times in a short section, once in a long one (the weak one falls below the
# floor); "island": once in the short section, twice in the long one (the other one clears it)
PAGES = {
    "index.rst": "Home\n====\n\n.. toctree::\n\n   floor\n   other\n",
    "floor.rst": "Floor\n=====\n\nStrong\n------\n\nThe quokka naps. The quokka eats. The quokka hops on the island.\n\n"
                 "Weak\n----\n\nA wombat digs all day and all night long near the quokka burrows and the other "
                 "holes in the island ground of the island.\n\nNone\n----\n\nNothing to see.\n",
    "other.rst": "Other\n=====\n\nA page without the animal.\n",
}
REQUESTS = [{"query": "quokka", "mode": "smart"}, {"query": "island", "mode": "smart"},
            {"query": "quokka island", "mode": "smart", "limit": 1}]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_html(write_project(tmp_path_factory.mktemp("subhits") / "src", PAGES, conf='language = "en"\n'))


def hits(index: okf_sphinx.Index, query: str) -> list[tuple[str, float]]:
    (page,) = index.search(query, mode="smart")["pages"]
    assert page["concept_id"] == "floor"
    return [(h["heading"], h["score"]) for h in page["hits"]]


def test_a_weak_section_is_a_hit_only_above_the_floor(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    floor = smart.SUB_HIT_FLOOR
    assert 0 < floor < 1
    index = okf_sphinx.open_index(site)
    # without a floor every matching section is a hit (best first): the page's sections and their scores
    monkeypatch.setattr(smart, "SUB_HIT_FLOOR", 0.0)
    weak_quokka = hits(index, "quokka")
    near_island = hits(index, "island")
    assert [h for h, _ in weak_quokka] == ["Strong", "Weak"] and [h for h, _ in near_island] == ["Weak", "Strong"]
    low, high = weak_quokka[1][1] / weak_quokka[0][1], near_island[1][1] / near_island[0][1]
    assert low < floor - 0.1 and high > floor + 0.1, (low, high)  # the page's design
    monkeypatch.undo()
    # with the floor: the weak "quokka" section is not a hit, the near "island" one is; the best one is unchanged
    assert hits(index, "quokka") == weak_quokka[:1]
    assert hits(index, "island") == near_island
    # a floor above every ratio leaves the best section alone; the page and its score never move
    before = index.search("quokka island", mode="smart")
    monkeypatch.setattr(smart, "SUB_HIT_FLOOR", 1.0)
    after = index.search("quokka island", mode="smart")
    assert [h["heading"] for h in after["pages"][0]["hits"]] == ["Strong"]
    assert [(p["concept_id"], p["score"]) for p in after["pages"]] == [(p["concept_id"], p["score"]) for p in before["pages"]]
    assert after["pages"][0]["hits"][0] == before["pages"][0]["hits"][0]


@pytest.mark.node
def test_node_applies_the_same_floor(site: Path) -> None:
    js = node_answers(site, REQUESTS)
    assert [h["heading"] for h in js[0]["pages"][0]["hits"]] == ["Strong"]
    assert [h["heading"] for h in js[1]["pages"][0]["hits"]] == ["Weak", "Strong"]


# "a numbat that eats termites": the "Many" section says numbat and termites far more often, the
# "Pasted" one holds the sentence word for word (docs/smart.md, "A pasted sentence")
SAID = {
    "index.rst": "Home\n====\n\n.. toctree::\n\n   numbats\n",
    "numbats.rst": "Numbats\n=======\n\nMany\n----\n\nNumbat termites. The numbat finds termites; termites feed the "
                   "numbat, and a numbat eats termites all day.\n\nPasted\n------\n\nSpot a numbat that eats termites "
                   "at dawn, then sleeps in a hollow log far from the road until the evening comes back again.\n",
}
SAID_REQUESTS = [{"query": "a numbat that eats termites", "mode": "smart"},
                 {"query": "numbat that eats termi", "mode": "smart", "prefix": True},
                 {"query": "numbat termites", "mode": "smart"},
                 {"query": "\"numbat that eats\" termites", "mode": "smart"}]


@pytest.fixture(scope="module")
def said_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_html(write_project(tmp_path_factory.mktemp("said") / "src", SAID, conf='language = "en"\n'))


def test_a_pasted_sentence_puts_the_section_holding_it_first(said_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = okf_sphinx.open_index(said_site)

    def first(req: dict[str, object]) -> str:
        (page,) = index.search(**req)["pages"]
        return page["hits"][0]["heading"]

    # by score alone the section saying the words most often comes first
    assert first({"query": "numbat termites", "mode": "smart"}) == "Many"
    monkeypatch.setattr(smart, "SENTENCE_TERMS", 99)
    assert first(SAID_REQUESTS[0]) == "Many"
    monkeypatch.undo()
    # a sentence (its stop words too) pasted, or still being typed, lands on the section holding it
    assert first(SAID_REQUESTS[0]) == "Pasted"
    assert first(SAID_REQUESTS[1]) == "Pasted"
    # the page's score does not move; the best-scoring section stays a hit (it clears the floor)
    said = index.search("a numbat that eats termites", mode="smart")["pages"][0]
    monkeypatch.setattr(smart, "SENTENCE_TERMS", 99)
    scored = index.search("a numbat that eats termites", mode="smart")["pages"][0]
    assert said["score"] == scored["score"]
    assert [h["heading"] for h in said["hits"]] == ["Pasted", "Many"] and [h["heading"] for h in scored["hits"]] == ["Many"]
    # keyword mode is the contract's, sentence or not
    monkeypatch.undo()
    keyword = index.search("a numbat that eats termites")
    monkeypatch.setattr(smart, "SENTENCE_TERMS", 99)
    assert index.search("a numbat that eats termites") == keyword


@pytest.mark.node
def test_node_puts_the_same_sentence_first(said_site: Path) -> None:
    js = node_answers(said_site, SAID_REQUESTS)
    assert [a["pages"][0]["hits"][0]["heading"] for a in js[:2]] == ["Pasted", "Pasted"]


# "Weak" holds every word of the sentence, once each and far apart in a long text: it scores
# below the floor of the page's first hit, so no check of it can change the page's hits
CHECKED = {**SAID, "numbats.rst": SAID["numbats.rst"] + (
    "\nWeak\n----\n\nA numbat " + "walks along the dry creek bed past gum trees and fallen bark, " * 12
    + "then eats a little, " + "and rests under the scrub in the shade of the old fence posts, " * 12
    + "far from the termites.\n")}


def test_the_sentence_check_reads_only_the_sections_that_can_change_the_hits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = okf_sphinx.open_index(build_html(write_project(tmp_path / "src", CHECKED, conf='language = "en"\n')))
    query = "a numbat that eats termites"
    monkeypatch.setattr(smart, "SUB_HIT_FLOOR", 0.0)
    unfloored = {h["heading"]: h["score"] for h in index.search(query, mode="smart")["pages"][0]["hits"]}
    monkeypatch.undo()
    assert set(unfloored) == {"Pasted", "Many", "Weak"}  # "Weak" holds every counted word (the page's design)
    assert unfloored["Weak"] < smart.SUB_HIT_FLOOR * unfloored["Pasted"] - 0.1  # and scores below the floor

    read: list[str] = []
    section = index.section

    def recorded(sid: int) -> dict[str, object]:
        record = section(sid)
        read.append(record["heading"])
        return record

    monkeypatch.setattr(index, "section", recorded)
    (page,) = index.search(query, mode="smart")["pages"]
    assert [h["heading"] for h in page["hits"]] == ["Pasted", "Many"]
    # the first tier's best ("Many") is checked, then the first holding the sentence ("Pasted"); "Weak" never
    assert "Weak" not in read and {"Many", "Pasted"} <= set(read), read
