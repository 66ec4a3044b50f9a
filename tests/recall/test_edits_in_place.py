"""A memory edited in place keeps its row in the derived index, and often its size: what the index
derives from it (the stored postings, the stored vector) must follow the new text all the same.

Each edit changes the description: one word becomes another of the same length (the file keeps its
size, only its mtime moves), or the size changes and the old mtime is put back; a real index in a
temp directory.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import pytest

from memdir.recall.lexical_selector import LexicalSelector
from memdir.store.index_db import MemoryIndex
from topic_store import fill

np = pytest.importorskip("numpy")

from memdir.recall.embedding import EmbeddingRanker  # noqa: E402

FILE = "project_billing_note_3.md"


def edit_in_place(root: Path, old: str, new: str, *, keep_mtime: bool) -> None:
    """Rewrite one memory in the same file (same inode, same row): ``old`` becomes ``new``."""
    path = root / FILE
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    assert old in text
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write(text.replace(old, new))
        handle.truncate()
    if keep_mtime:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    else:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))
    after = path.stat()
    assert after.st_ino == before.st_ino
    assert (after.st_size == before.st_size) != keep_mtime


EDITS = [
    pytest.param("work goes", "wolf goes", False, id="same size, new mtime"),
    pytest.param("work goes", "wombats go", True, id="new size, same mtime"),
]


@pytest.mark.parametrize(("old", "new", "keep_mtime"), EDITS)
def test_the_stored_postings_follow_an_edit_in_place(tmp_path: Path, old: str, new: str, keep_mtime: bool) -> None:
    root = tmp_path / "mem"
    fill(str(root), count=30)
    with MemoryIndex(str(root), str(tmp_path / "index.sqlite3")) as index:
        index.refresh()
        assert LexicalSelector().rank_store("billing quarterly review", index, limit=5)  # postings stored
        edit_in_place(root, old, new, keep_mtime=keep_mtime)
        index.refresh()
        found = LexicalSelector().rank_store(new.split()[0], index, limit=5)
        assert found is not None and [h.filename for h, _ in found] == [FILE]
        in_memory = LexicalSelector().rank("billing quarterly review", index.headers(), limit=30)
        stored = LexicalSelector().rank_store("billing quarterly review", index, limit=30)
        assert [(h.filename, s) for h, s in stored or []] == [(h.filename, s) for h, s in in_memory]


class WordsEncoder:
    """A sentence encoder stand-in: each word adds to one of 64 dimensions, rows scaled to unit length."""

    model_id = "words:64"
    dimension = 64
    min_similarity = 0.0

    def encode(self, texts: list[str]) -> object:
        return self.encode_queries(texts)

    def encode_queries(self, texts: list[str]) -> object:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace("?", " ").replace(".", " ").split():
                out[row, zlib.crc32(word.encode()) % self.dimension] += 1.0
            out[row] /= float(np.linalg.norm(out[row])) or 1.0
        return out


@pytest.mark.parametrize(("old", "new", "keep_mtime"), EDITS)
def test_the_stored_vector_follows_an_edit_in_place(tmp_path: Path, old: str, new: str, keep_mtime: bool) -> None:
    root = tmp_path / "mem"
    fill(str(root), count=30)
    with MemoryIndex(str(root), str(tmp_path / "index.sqlite3")) as index:
        index.refresh()
        assert EmbeddingRanker(WordsEncoder(), cache=index).store_scores("billing", index) is not None
        edit_in_place(root, old, new, keep_mtime=keep_mtime)
        index.refresh()
        fresh = EmbeddingRanker(WordsEncoder(), cache=index)  # a new process: the matrix on disk, no vector in memory
        query = f"billing {new}"
        stored = fresh.store_scores(query, index)
        in_memory = fresh.scores(query, index.headers())
        assert stored is not None
        assert [(h.filename, s) for h, s in stored.head(5)] == [(h.filename, s) for h, s in in_memory.head(5)]
