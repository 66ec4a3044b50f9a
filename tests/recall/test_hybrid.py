import pytest

from memdir.errors import ConfigError
from memdir.model.memory_type import MemoryType
from memdir.recall.hybrid import HybridSelector
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.registry import SelectorInputs, build_selector
from memdir.recall.selector_protocol import RankingSelector, Selection, SelectionRequest
from memdir.store.scan import MemoryHeader


def header(name, description, type_=MemoryType.PROJECT, mtime=1.0):
    return MemoryHeader(f"{name}.md", f"/m/{name}.md", mtime, 10, description, type_, name, "")


class TableRanker:
    """An embedding-like ranker with fixed similarities, for exercising fusion and floors."""

    name = "table"

    def __init__(self, similarities, min_similarity=0.5):
        self.similarities = similarities
        self.min_similarity = min_similarity

    def rank(self, query, candidates):
        scored = [(h, self.similarities.get(h.filename, 0.0)) for h in candidates]
        return sorted(scored, key=lambda item: -item[1])

    def select(self, request):
        return Selection(files=(), selector=self.name)


HEADERS = [
    header("db", "Integration tests must hit a real PostgreSQL database"),
    header("meetup", "Went to a support group for new parents on Tuesday"),
    header("freeze", "Mobile release freeze starts in March"),
]


def test_without_an_embedding_ranker_the_hybrid_is_the_lexical_ranking():
    query = "how do the integration tests use the database?"
    hybrid = HybridSelector()
    assert [h.filename for h, _ in hybrid.rank(query, HEADERS)] == [
        h.filename for h, _ in LexicalSelector().rank(query, HEADERS)
    ]
    assert hybrid.select(SelectionRequest(query, HEADERS)).files == ("db.md",)


def test_the_embedding_ranker_adds_a_paraphrase_the_words_miss():
    ranker = TableRanker({"meetup.md": 0.8, "db.md": 0.1, "freeze.md": 0.05})
    hybrid = HybridSelector(embedding=ranker)
    result = hybrid.select(SelectionRequest("which meeting did I attend this week?", HEADERS))
    assert result.files == ("meetup.md",)
    assert result.selector == "hybrid"


def test_agreement_between_rankers_ranks_first():
    ranker = TableRanker({"db.md": 0.9, "freeze.md": 0.6, "meetup.md": 0.1})
    ranked = HybridSelector(embedding=ranker).rank("integration tests database", HEADERS)
    assert ranked[0][0].filename == "db.md"


def test_nothing_relevant_surfaces_nothing():
    ranker = TableRanker({"db.md": 0.2, "meetup.md": 0.1, "freeze.md": 0.15})
    result = HybridSelector(embedding=ranker).select(SelectionRequest("bananas and kiwis in the garden", HEADERS))
    assert result.files == ()


def test_offline_selectors_by_name(tmp_path):
    missing = SelectorInputs(embed_model=str(tmp_path / "nowhere"))
    assert isinstance(build_selector("lexical", missing), LexicalSelector)
    with pytest.raises(ConfigError, match=r"model\.safetensors"):
        build_selector("embedding", missing)
    with pytest.raises(ConfigError, match="'telepathy' is not one of"):
        build_selector("telepathy")


def test_offline_is_lexical_when_no_model_is_installed(monkeypatch):
    import memdir.recall.embedding as embedding

    monkeypatch.setattr(embedding, "embedding_available", lambda path=None: False)
    selector = build_selector("offline")
    assert isinstance(selector, LexicalSelector)
    assert isinstance(selector, RankingSelector)


def test_score_fusion_prefers_a_memory_both_rankers_like_to_one_only_the_embedding_puts_first():
    headers = [
        header("trip", "Planned a camping trip to the lake with the kids"),
        header("lake", "Swam in a cold mountain lake"),
        header("other", "Bought new running shoes"),
    ]
    ranker = TableRanker({"lake.md": 0.62, "trip.md": 0.6, "other.md": 0.1})
    by_score = HybridSelector(embedding=ranker).rank("camping trip with the kids at the lake", headers)
    assert by_score[0][0].filename == "trip.md"
