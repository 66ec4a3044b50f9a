"""The fusion learned to rank: its features, the shipped weights and the evaluator that reads them."""

import json
import os
from importlib import resources

import pytest

np = pytest.importorskip("numpy")

from test_stored_vectors import QUERIES, WordsEncoder  # noqa: E402

from memdir.errors import ConfigError  # noqa: E402
from memdir.model.memory import Memory  # noqa: E402
from memdir.model.memory_type import MemoryType  # noqa: E402
from memdir.recall.embedding import EmbeddingRanker  # noqa: E402
from memdir.recall.hybrid import HybridSelector  # noqa: E402
from memdir.recall.learned import FEATURES, LinearRanker, candidate_features, load_ranker  # noqa: E402
from memdir.recall.lexical_selector import LexicalSelector  # noqa: E402
from memdir.recall.selector_protocol import SelectionRequest, StoreRequest  # noqa: E402
from memdir.store.directory import MemoryDir  # noqa: E402
from memdir.store.index_db import MemoryIndex  # noqa: E402
from topic_store import fill  # noqa: E402

# Fixed rows in FEATURES order: lexical, embedding, coverage, described, lexical_place, embedding_place,
# beside_best.
ROWS = [
    [1.0, 0.0, 0.3, 0.3, 1.0, 0.0, 0.0],  # the best BM25, no lift, written at another time
    [0.0, 0.8, 0.0, 0.0, 0.0, 0.5, 1.0],  # only the embedding's, written beside the best
    [0.8, 0.2, 0.2, 0.2, 0.5, 1.0, 1.0],  # a strong match written beside the best
    [0.2, -0.3, 0.9, 0.1, 0.25, 0.0, 0.0],
]


def shipped(name="hybrid"):
    text = resources.files("memdir.recall").joinpath("ranker.json").read_text(encoding="utf-8")
    return json.loads(text)["models"][name]


def test_the_evaluator_gives_the_trainers_scores_on_fixed_rows():
    """The trainer (bench/train_ranker.py) scores a question's candidates as a matrix product."""
    for name in ("hybrid", "lexical"):
        model = shipped(name)
        columns = [FEATURES.index(feature) for feature in model["features"]]
        trainer = np.array(ROWS)[:, columns] @ np.array(model["weights"])
        assert load_ranker(name).scores(ROWS) == pytest.approx(trainer.tolist(), abs=1e-12)


def test_the_shipped_hybrid_model_weighs_lexical_over_embedding_over_the_sitting():
    """Pins the learned weights: uniform weights put the embedding's memory above the best BM25, the
    hand-set ones (1 and 0.5, no time) put the best BM25 above the strong match beside it."""
    learned = load_ranker("hybrid")
    best, embedded, beside = learned.scores(ROWS[:3])
    assert best > embedded
    assert beside > best
    uniform = LinearRanker("uniform", learned.features, (1.0,) * len(learned.features))
    best, embedded, _ = uniform.scores(ROWS[:3])
    assert embedded > best
    hand = LinearRanker("hand", ("lexical", "embedding"), (1.0, 0.5))
    best, _, beside = hand.scores(ROWS[:3])
    assert best > beside


def test_the_shipped_lexical_model_gives_the_sitting_of_the_best_match_less_than_half_the_best_bm25():
    lexical = load_ranker("lexical")
    assert lexical.features == ("lexical", "beside_best")
    best, _, beside, other = lexical.scores(ROWS)
    assert beside > best > other
    assert 0.0 < lexical.weights[1] < 0.5 * lexical.weights[0]


def test_an_unknown_model_or_feature_is_refused_with_a_clear_error():
    with pytest.raises(ConfigError, match="no learned ranking named 'nope'"):
        load_ranker("nope")
    with pytest.raises(ConfigError, match="unknown features"):
        LinearRanker("bad", ("lexical", "shoe_size"), (1.0, 2.0)).checked()


def test_the_features_are_read_from_the_lexical_index_and_the_similarities(tmp_path):
    root = str(tmp_path / "mem")
    store = fill(root, count=40)
    lexical = LexicalSelector()
    ranker = EmbeddingRanker(WordsEncoder())
    query = "what is on the billing review checklist?"
    headers = store.headers()
    matches = lexical.scored(query, headers, limit=100)
    similar = ranker.scores(query, headers)
    chosen, rows = candidate_features(query, matches, similar, lexical.index)
    assert [h.path for h in chosen[: len(matches)]] == [h.path for h, _ in matches]
    assert len({h.path for h in chosen}) == len(chosen)
    first = rows[0]
    assert first[FEATURES.index("lexical")] == 1.0 and first[FEATURES.index("lexical_place")] == 1.0
    assert max(row[FEATURES.index("embedding")] for row in rows) == pytest.approx(1.0)
    assert all(0.0 <= row[FEATURES.index("coverage")] <= 1.0 for row in rows)
    # Memories only the embedding found match no query word.
    assert all(row[FEATURES.index("coverage")] == 0.0 for row in rows[len(matches) :])


def test_the_learned_fusion_chooses_the_same_over_the_stored_index_as_over_the_headers(tmp_path):
    root = str(tmp_path / "mem")
    fill(root, count=60)
    index = MemoryIndex(root, str(tmp_path / "index.sqlite3"))
    index.refresh()
    with index:
        hybrid = HybridSelector(embedding=EmbeddingRanker(WordsEncoder(), cache=index), fusion="learned")
        for query in QUERIES:
            by_headers = hybrid.select(SelectionRequest(query, index.headers(), limit=5))
            by_store = hybrid.select_store(StoreRequest(query, index, limit=5))
            assert by_store is not None
            assert by_store.selection.files == by_headers.files, query


def test_the_learned_fusion_keeps_the_relevance_floor_and_reorders_only_within_it(tmp_path):
    root = str(tmp_path / "mem")
    store = fill(root, count=60)
    ranker = EmbeddingRanker(WordsEncoder())
    learned = HybridSelector(embedding=ranker, fusion="learned")
    hand = HybridSelector(embedding=ranker)
    quiet = SelectionRequest("nothing at all matches this", store.headers(), limit=5)
    assert learned.select(quiet).files == hand.select(quiet).files == ()
    asked = SelectionRequest("what is on the billing review checklist?", store.headers(), limit=50)
    assert set(learned.select(asked).files) == set(hand.select(asked).files)


T0 = 1_700_000_000
CLIMBING = "When did Caroline start rock climbing?"


def sittings_store(tmp_path, *, one_time=False):
    """The best match and a weaker one saved five minutes after it; a stronger one two months earlier."""
    store = MemoryDir(tmp_path / "mem")
    memories = [
        ("best.md", "Caroline started rock climbing at the downtown gym", T0),
        ("beside.md", "The gym gave Caroline a climbing membership card", T0 + 300),
        ("other.md", "Caroline's rock band will start a tour in the spring", T0 - 60 * 86_400),
        ("f0.md", "Melanie paints landscapes on weekends", T0 - 7 * 86_400),
        ("f1.md", "The team ships releases on Tuesday", T0 - 14 * 86_400),
        ("f2.md", "Caroline moved to a new apartment last year", T0 - 21 * 86_400),
    ]
    for file, description, at in memories:
        memory = Memory(name=file[:-3], description=description, type=MemoryType.USER, body="")
        path = store.save(memory, file=file, index=False).path
        stamp = T0 if one_time else at
        os.utime(path, (stamp, stamp))
    return store


def test_the_lexical_selector_ranks_what_was_saved_beside_the_best_match_above_a_stronger_match_from_another_time(
    tmp_path,
):
    headers = sittings_store(tmp_path).headers()
    by_bm25 = [h.filename for h, _ in LexicalSelector(learned=False).rank(CLIMBING, headers)]
    assert by_bm25[:3] == ["best.md", "other.md", "beside.md"]
    learned = LexicalSelector()
    assert [h.filename for h, _ in learned.rank(CLIMBING, headers)][:3] == ["best.md", "beside.md", "other.md"]
    surfaced = learned.select(SelectionRequest(CLIMBING, headers, limit=5)).files
    assert surfaced == ("best.md", "beside.md", "other.md")  # the same memories clear the floor


def test_when_every_memory_has_one_time_the_learned_order_is_the_bm25_order(tmp_path):
    headers = sittings_store(tmp_path, one_time=True).headers()
    by_bm25 = [h.filename for h, _ in LexicalSelector(learned=False).rank(CLIMBING, headers)]
    assert [h.filename for h, _ in LexicalSelector().rank(CLIMBING, headers)] == by_bm25
