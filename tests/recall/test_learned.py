"""The fusion learned to rank: its features, the shipped weights and the evaluator that reads them."""

import json
from importlib import resources

import pytest

np = pytest.importorskip("numpy")

from test_stored_vectors import QUERIES, WordsEncoder  # noqa: E402

from memdir.errors import ConfigError  # noqa: E402
from memdir.recall.embedding import EmbeddingRanker  # noqa: E402
from memdir.recall.hybrid import HybridSelector  # noqa: E402
from memdir.recall.learned import FEATURES, LinearRanker, candidate_features, load_ranker  # noqa: E402
from memdir.recall.lexical_selector import LexicalSelector  # noqa: E402
from memdir.recall.selector_protocol import SelectionRequest, StoreRequest  # noqa: E402
from memdir.store.index_db import MemoryIndex  # noqa: E402
from topic_store import fill  # noqa: E402

# Fixed rows in FEATURES order: lexical, embedding, coverage, described, lexical_place, embedding_place.
ROWS = [
    [1.0, 0.0, 0.3, 0.3, 1.0, 0.0],  # the best BM25, no lift, a third of the question's information
    [0.5, 0.5, 0.2, 0.2, 0.5, 1.0],  # half the BM25, half the best lift
    [0.0, 1.0, 0.0, 0.0, 0.0, 0.5],  # the embedding's alone
    [0.2, -0.3, 0.9, 0.1, 0.25, 0.0],
]


def shipped():
    text = resources.files("memdir.recall").joinpath("ranker.json").read_text(encoding="utf-8")
    return json.loads(text)["models"]["hybrid"]


def test_the_evaluator_gives_the_trainers_scores_on_fixed_rows():
    """The trainer (bench/train_ranker.py) scores a question's candidates as a matrix product."""
    model = shipped()
    columns = [FEATURES.index(feature) for feature in model["features"]]
    trainer = np.array(ROWS)[:, columns] @ np.array(model["weights"])
    assert load_ranker("hybrid").scores(ROWS) == pytest.approx(trainer.tolist(), abs=1e-12)


def test_the_shipped_model_puts_agreement_of_both_rankers_above_the_best_bm25_alone():
    """Pins the learned weights: uniform weights (or the hand-set 1 and 0.5) rank the other way."""
    learned = load_ranker("hybrid")
    best_bm25, agreement = learned.scores(ROWS[:2])
    assert agreement > best_bm25
    uniform = LinearRanker("uniform", learned.features, (1.0,) * len(learned.features))
    best_bm25, agreement = uniform.scores(ROWS[:2])
    assert best_bm25 > agreement


def test_an_unknown_model_or_feature_is_refused_with_a_clear_error():
    with pytest.raises(ConfigError, match="no learned ranking named 'nope'"):
        load_ranker("nope")
    with pytest.raises(ConfigError, match="unknown features"):
        LinearRanker("bad", ("lexical", "shoe_size"), (1.0, 2.0))


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
