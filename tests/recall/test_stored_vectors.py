"""The embedding half of recall over the whole store, from the memory-mapped matrix beside the index."""

import os
import zlib

import pytest

np = pytest.importorskip("numpy")

from memdir.model.memory import Memory  # noqa: E402
from memdir.model.memory_type import MemoryType  # noqa: E402
from memdir.recall.embedding import EmbeddingRanker  # noqa: E402
from memdir.recall.hybrid import HybridSelector  # noqa: E402
from memdir.recall.selector_protocol import SelectionRequest, StoreRequest  # noqa: E402
from memdir.recall.stored_vectors import StoredVectors, matrix_path  # noqa: E402
from memdir.store.index_db import MemoryIndex  # noqa: E402
from topic_store import fill  # noqa: E402

QUERIES = [
    "what is on the billing review checklist?",
    "deploy work note",
    "quarterly auth review",
    "how does the search work go",
    "nothing at all matches this",
]


class WordsEncoder:
    """A sentence encoder stand-in: each word adds to one of 64 dimensions, rows scaled to unit length."""

    model_id = "words:64"
    dimension = 64
    min_similarity = 0.6

    def __init__(self):
        self.encoded = 0

    def encode(self, texts):
        self.encoded += len(texts)
        return self.encode_queries(texts)

    def encode_queries(self, texts):
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace("?", " ").split():
                out[row, zlib.crc32(word.encode()) % self.dimension] += 1.0
            norm = float(np.linalg.norm(out[row])) or 1.0
            out[row] /= norm
        return out


class QueriesOnly(WordsEncoder):
    """Encodes queries only: every memory's vector must come from the stored matrix."""

    def encode(self, texts):
        raise AssertionError("memory vectors should come from the matrix")


class NoCache:
    def get_vectors(self, hashes, model_id):
        raise AssertionError("a fresh process should not read the vectors table")

    def put_vectors(self, items, model_id):
        raise AssertionError("nothing to store")


def store_with_index(tmp_path, count=60):
    root = str(tmp_path / "mem")
    store = fill(root, count=count)
    index = MemoryIndex(root, str(tmp_path / "index.sqlite3"))
    index.refresh()
    return store, index


def test_the_stored_matrix_gives_the_in_memory_similarities_and_hybrid_choice_exactly(tmp_path):
    _, index = store_with_index(tmp_path)
    with index:
        ranker = EmbeddingRanker(WordsEncoder(), cache=index)
        hybrid = HybridSelector(embedding=ranker)
        for query in QUERIES:
            in_memory = ranker.scores(query, index.headers())
            stored = ranker.store_scores(query, index)
            assert stored is not None
            assert stored.mean == in_memory.mean
            assert stored.best == in_memory.best
            assert [(h.filename, s) for h, s in stored.head(25)] == [(h.filename, s) for h, s in in_memory.head(25)]
            by_headers = hybrid.select(SelectionRequest(query, index.headers(), limit=5))
            by_store = hybrid.select_store(StoreRequest(query, index, limit=5))
            assert by_store is not None
            assert by_store.selection.files == by_headers.files, query
        assert os.path.exists(matrix_path(index.path, "words:64"))


def test_a_fresh_ranker_reads_no_stored_vector_and_encodes_no_memory(tmp_path):
    _, index = store_with_index(tmp_path)
    with index:
        first = EmbeddingRanker(WordsEncoder(), cache=index)
        expected = first.select_store(StoreRequest("deploy work note", index, limit=5))
        fresh = EmbeddingRanker(QueriesOnly(), cache=NoCache())
        answer = fresh.select_store(StoreRequest("deploy work note", index, limit=5))
        assert answer is not None and expected is not None
        assert answer.selection.files == expected.selection.files
        assert answer.selection.files


def test_the_matrix_follows_added_changed_and_removed_memories_and_keeps_the_rest(tmp_path):
    store, index = store_with_index(tmp_path)
    with index:
        encoder = WordsEncoder()
        ranker = EmbeddingRanker(encoder, cache=index)
        ranker.store_scores("billing", index)
        assert encoder.encoded == 60
        store.save(
            Memory(name="kangaroo", description="Kangaroo feeding schedule", type=MemoryType.PROJECT, body="x"),
            file="project_kangaroo.md",
            index=False,
        )
        os.remove(os.path.join(store.root, "project_deploy_note_0.md"))
        index.refresh()
        fresh = EmbeddingRanker(WordsEncoder(), cache=index)  # a new process: in-memory vectors gone
        stored = fresh.store_scores("kangaroo feeding schedule", index)
        assert stored is not None and len(stored) == 60
        assert stored.head(1)[0][0].filename == "project_kangaroo.md"
        assert fresh.encoder.encoded == 1  # the new memory alone; the others' rows were kept
        in_memory = fresh.scores("kangaroo feeding schedule", index.headers())
        assert [(h.filename, s) for h, s in stored.head(10)] == [(h.filename, s) for h, s in in_memory.head(10)]


@pytest.mark.parametrize("damage", ["truncated", "empty", "garbage"])
def test_a_torn_matrix_is_detected_and_written_again(tmp_path, damage):
    _, index = store_with_index(tmp_path, count=20)
    with index:
        ranker = EmbeddingRanker(WordsEncoder(), cache=index)
        expected = [h.filename for h, _ in ranker.store_scores("deploy work", index).head(5)]
        path = matrix_path(index.path, "words:64")
        size = os.path.getsize(path)
        with open(path, "r+b") as handle:
            if damage == "truncated":
                handle.truncate(size - 100)
            elif damage == "empty":
                handle.truncate(0)
            else:
                handle.write(b"\xff" * 64)
        left = f"{path}.killed.tmp"  # a writer killed two hours ago
        with open(left, "wb") as handle:
            handle.write(b"half a matrix")
        os.utime(left, (os.path.getmtime(path) - 7200,) * 2)
        fresh = EmbeddingRanker(WordsEncoder(), cache=index)
        assert [h.filename for h, _ in fresh.store_scores("deploy work", index).head(5)] == expected
        assert os.path.getsize(path) == size
        assert not [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]


def test_a_prompt_leaves_a_large_catch_up_to_the_background_and_ranks_the_matrix_it_has(tmp_path):
    store, index = store_with_index(tmp_path, count=30)
    with index:
        EmbeddingRanker(WordsEncoder(), cache=index).store_scores("deploy", index)
        for i in range(12):
            store.save(
                Memory(name=f"walrus {i}", description=f"Walrus fact {i}", type=MemoryType.PROJECT, body="x"),
                file=f"project_walrus_{i}.md",
                index=False,
            )
        index.refresh()
        encoder = WordsEncoder()
        ranker = EmbeddingRanker(encoder, cache=index)
        stored = ranker.store_scores("deploy work", index, budget=100)  # 12 memories to encode cost 360
        assert stored is not None and len(stored) == 30  # the matrix as it was
        assert index.background_due and encoder.encoded == 0
        vectors = StoredVectors(index, ranker)
        assert vectors.sync()  # what the background reindex does
        assert len(ranker.store_scores("walrus fact", index, budget=100)) == 42


def test_recall_over_the_whole_store_ranks_the_hybrid_in_the_index_and_its_matrix(tmp_path):
    from memdir.recall.recaller import Recaller
    from memdir.store.index_db import IndexedMemoryDir

    store, index = store_with_index(tmp_path)
    with index:
        hybrid = HybridSelector(embedding=EmbeddingRanker(WordsEncoder(), cache=index))
        recaller = Recaller(IndexedMemoryDir(store.root, index=index, scan_cap=None), selector=hybrid)
        query = "what is on the billing review checklist?"
        chosen = recaller.select(query, limit=5)
        assert chosen.files == hybrid.select(SelectionRequest(query, index.headers(), limit=5)).files
        assert os.path.exists(matrix_path(index.path, "words:64"))
