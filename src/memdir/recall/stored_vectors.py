"""Every memory's vector in one memory-mapped matrix beside the derived index.

The embedding half of hybrid recall compares the query with every memory. Kept only as blobs in
the index's ``vectors`` table (by text hash), a fresh process had to load every header, hash
every memory's text and decode every vector before its first comparison: seconds at 100,000
memories, in every hook. Here the vectors of the memories the index holds also live in one file
next to it, rows in row-id order, which a fresh process maps (nothing is read or decoded ahead)
and multiplies with the query vector; only the best rows' headers are then read from SQLite.

The file, ``<index>.vectors-<model digest>``:

- a 64-byte header: magic, format, dimension, row count, the index generation the rows match,
  and the model's digest;
- per row, the memory's row id, and the mtime and size of the file its vector was made from
  (three ``int64`` arrays), so a catch-up keeps every row whose memory did not change;
- the ``float32`` vectors, one row per memory, starting at a multiple of 64 bytes.

It is written to a temporary file in the same directory and renamed over the old one, so a
reader sees a whole matrix or the previous one. A file of the wrong size, magic, dimension or
model (torn by a full disk, written by another version) is ignored and written again; a matrix
behind the index's generation is brought up to date (:meth:`StoredVectors.sync`), or, when that
would take longer than the caller's budget, used as it is while ``memdir reindex`` in the
background catches up. Scores are the same numbers as ranking the headers in memory: both take
each row's dot product with :func:`row_dots`, which does not depend on a row's position.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import mmap
import os
import struct
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from memdir.store.scan import MemoryHeader

if TYPE_CHECKING:
    from memdir.store.ranked_store import RankedStore

__all__ = ["StoredSimilarities", "StoredVectors", "matrix_path", "row_dots"]

_MAGIC = b"MEMDIRVX"
_FORMAT = 1
_HEADER = struct.Struct("<8sIIQQ16s")  # magic, format, dimension, rows, generation, model digest
_HEADER_SIZE = 64
_GENERATION_AT = 24  # where the generation sits in the header
_ALIGN = 64
# Rows multiplied at a time: the pages of one slice are dropped from the process afterwards, so a
# ranking over 100,000 memories does not keep the whole 150 MB matrix resident.
_SLICE = 2048
# In a caller's budget (memories analysed from nothing), encoding one memory costs this much.
_ENCODE_COST = 30
# A caller with a budget (a prompt) rewrites a matrix only up to this size (about 10,000 memories of
# 384 dimensions); a larger one is rewritten in the background and used as it is meanwhile.
_INLINE_BYTES = 16 << 20
_STAMPS = "SELECT id, mtime_ns, size FROM memories ORDER BY id"


def row_dots(matrix: Any, vector: Any) -> Any:
    """Each row's dot product with ``vector``, as float32. ``einsum`` sums every row the same way
    wherever it sits; BLAS's ``matrix @ vector`` does not (the last bits of a row's result depend
    on its position and the thread split), and the stored matrix orders rows by id where the
    in-memory ranking orders them newest first."""
    import numpy as np

    return np.einsum("ij,j->i", matrix, vector)


def matrix_path(index_path: str, model_id: str) -> str:
    return f"{index_path}.vectors-{hashlib.sha256(model_id.encode('utf-8')).hexdigest()[:12]}"


class VectorSource(Protocol):
    """Where the vectors of changed memories come from (:class:`memdir.recall.embedding.EmbeddingRanker`)."""

    def model_key(self) -> tuple[str, int]:
        """The model id and the vectors' dimension."""

    def vectors_for(self, headers: Sequence[MemoryHeader], *, max_encoded: int | None) -> Any | None:
        """The vectors of ``headers`` (rows of a float32 array); None when more than ``max_encoded``
        of them would have to be encoded now."""


class _Matrix:
    """One mapped matrix file: its rows' ids, stamps and vectors (views into the mapping)."""

    def __init__(self, mapping: mmap.mmap, dimension: int, rows: int, generation: int, inode: int) -> None:
        import numpy as np

        self.mapping = mapping
        self.inode = inode
        self.generation = generation
        self.rows = rows
        self.dimension = dimension
        self.ids = np.frombuffer(mapping, dtype=np.int64, count=rows, offset=_HEADER_SIZE)
        self.mtimes = np.frombuffer(mapping, dtype=np.int64, count=rows, offset=_HEADER_SIZE + 8 * rows)
        self.sizes = np.frombuffer(mapping, dtype=np.int64, count=rows, offset=_HEADER_SIZE + 16 * rows)
        self.offset = _vectors_offset(rows)
        self.vectors = np.frombuffer(mapping, dtype=np.float32, count=rows * dimension, offset=self.offset).reshape(
            rows, dimension
        )

    def dots(self, vector: Any) -> Any:
        """:func:`row_dots` of every row, a slice at a time, each slice's pages released after use."""
        import numpy as np

        out = np.empty(self.rows, dtype=np.float32)
        row_bytes = 4 * self.dimension
        for start in range(0, self.rows, _SLICE):
            end = min(start + _SLICE, self.rows)
            out[start:end] = row_dots(self.vectors[start:end], vector)
            first = (self.offset + start * row_bytes) // mmap.PAGESIZE * mmap.PAGESIZE
            with contextlib.suppress(OSError, ValueError, AttributeError):
                self.mapping.madvise(mmap.MADV_DONTNEED, first, self.offset + end * row_bytes - first)
        return out


def _vectors_offset(rows: int) -> int:
    end = _HEADER_SIZE + 24 * rows
    return -(-end // _ALIGN) * _ALIGN


def _open(path: str, dimension: int, digest: bytes) -> _Matrix | None:
    """The matrix in ``path``, or None when it is missing or not a whole matrix of this model."""
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            size = st.st_size
            if size < _HEADER_SIZE:
                return None
            mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    magic, fmt, dim, rows, generation, model = _HEADER.unpack_from(mapping, 0)
    if (magic, fmt, dim, model) != (_MAGIC, _FORMAT, dimension, digest) or size != _vectors_offset(rows) + (
        4 * dim * rows
    ):
        mapping.close()
        return None
    return _Matrix(mapping, dim, rows, generation, st.st_ino)


class StoredVectors:
    """The matrix of one model's vectors for the memories one derived index holds."""

    def __init__(self, host: RankedStore, source: VectorSource) -> None:
        self.host = host
        self.source = source
        model_id, self.dimension = source.model_key()
        self.digest = hashlib.sha256(model_id.encode("utf-8")).digest()[:16]
        self.path = matrix_path(host.path, model_id)
        self._matrix: _Matrix | None = None

    def matrix(self) -> _Matrix | None:
        """The mapped matrix as it is on disk now (mapped again when the file was replaced: every
        write is a rename, so a new matrix is a new inode)."""
        current = self._matrix
        if current is not None:
            try:
                st = os.stat(self.path)
            except OSError:
                st = None
            if st is not None and (st.st_ino, st.st_size) == (current.inode, len(current.mapping)):
                return current
        self._matrix = _open(self.path, self.dimension, self.digest)
        return self._matrix

    def sync(self, *, budget: int | None = None, progress: Callable[[int, int], None] | None = None) -> bool:
        """Bring the matrix in step with the index's rows; False (nothing written) when that would
        cost more than ``budget`` (a memory whose vector must be encoded counts thirty, one whose
        vector is cached one, and a matrix over 16 MB is never rewritten within a budget), and the
        index is then marked for a background ``memdir reindex``."""
        generation = self.host.generation()
        current = self.matrix()
        if current is not None and current.generation == generation:
            return True
        import numpy as np

        stamps = self.host.transact(lambda conn: conn.execute(_STAMPS).fetchall())
        ids = np.array([row[0] for row in stamps], dtype=np.int64)
        mtimes = np.array([row[1] for row in stamps], dtype=np.int64)
        sizes = np.array([row[2] for row in stamps], dtype=np.int64)
        reuse = np.full(len(ids), -1, dtype=np.int64)  # each row's place in the current matrix
        if current is not None and current.rows and len(ids):
            at = np.minimum(np.searchsorted(current.ids, ids), current.rows - 1)
            same = (current.ids[at] == ids) & (current.mtimes[at] == mtimes) & (current.sizes[at] == sizes)
            reuse[same] = at[same]
        changed = np.flatnonzero(reuse < 0)
        if current is not None and not len(changed) and len(ids) == current.rows:
            return self._restamp(generation)  # the same rows: only the generation moves on
        large = 4 * self.dimension * len(ids) > _INLINE_BYTES
        if budget is not None and (len(changed) > budget or (large and current is not None)):
            self.host.background_due = True
            return False
        headers = self.host.headers_by_ids(ids[changed].tolist()) if len(changed) else {}
        fresh_ids = [int(rowid) for rowid in ids[changed] if int(rowid) in headers]
        max_encoded = None if budget is None else max(0, (budget - len(changed)) // _ENCODE_COST)
        fresh = self.source.vectors_for([headers[rowid] for rowid in fresh_ids], max_encoded=max_encoded)
        if fresh is None:
            self.host.background_due = True
            return False
        # A row whose file could not be read again (removed meanwhile) is left out until the next catch-up.
        keep = (reuse >= 0) | np.isin(ids, np.array(fresh_ids, dtype=np.int64))
        self._write(current, generation, ids[keep], mtimes[keep], sizes[keep], reuse[keep], fresh_ids, fresh, progress)
        self._matrix = None
        return self.matrix() is not None

    def _restamp(self, generation: int) -> bool:
        """Mark the matrix as matching ``generation`` in place (eight bytes of its header)."""
        try:
            fd = os.open(self.path, os.O_WRONLY)
        except OSError:
            return False
        try:
            os.pwrite(fd, struct.pack("<Q", generation), _GENERATION_AT)
        except OSError:
            return False
        finally:
            os.close(fd)
        self._matrix = None
        return self.matrix() is not None

    def _write(
        self,
        current: _Matrix | None,
        generation: int,
        ids: Any,
        mtimes: Any,
        sizes: Any,
        reuse: Any,
        fresh_ids: Sequence[int],
        fresh: Any,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        """The new matrix to a temporary file, renamed over the old one once it is whole on disk."""
        import numpy as np

        rows = len(ids)
        fresh_at = {rowid: i for i, rowid in enumerate(fresh_ids)}
        directory = os.path.dirname(self.path) or "."
        fd, temp = tempfile.mkstemp(dir=directory, prefix=os.path.basename(self.path) + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(_HEADER.pack(_MAGIC, _FORMAT, self.dimension, rows, generation, self.digest))
                out.write(bytes(_HEADER_SIZE - _HEADER.size))
                for column in (ids, mtimes, sizes):
                    out.write(np.ascontiguousarray(column, dtype=np.int64).tobytes())
                out.write(bytes(_vectors_offset(rows) - _HEADER_SIZE - 24 * rows))
                for start in range(0, rows, _SLICE):
                    end = min(start + _SLICE, rows)
                    block = np.empty((end - start, self.dimension), dtype=np.float32)
                    places = reuse[start:end]
                    old = places >= 0
                    if current is not None and old.any():
                        block[old] = current.vectors[places[old]]
                    for i in np.flatnonzero(~old).tolist():
                        block[i] = fresh[fresh_at[int(ids[start + i])]]
                    out.write(block.tobytes())
                    if progress is not None:
                        progress(end, rows)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(temp)
            raise
        self._sweep(directory)

    def _sweep(self, directory: str) -> None:
        """Remove temporary matrices a killed writer left (older than an hour: none is being written)."""
        prefix = os.path.basename(self.path) + "."
        cutoff = time.time() - 3600
        with contextlib.suppress(OSError), os.scandir(directory) as entries:
            for entry in entries:
                if entry.name.startswith(prefix) and entry.name.endswith(".tmp"):
                    with contextlib.suppress(OSError):
                        if entry.stat().st_mtime < cutoff:
                            os.remove(entry.path)

    def scores(self, vector: Any) -> StoredSimilarities | None:
        """The query vector's similarity to every memory in the matrix; None without a matrix."""
        matrix = self.matrix()
        if matrix is None:
            return None
        return StoredSimilarities(self.host, matrix, matrix.dots(vector))


class StoredSimilarities:
    """One query's similarity to every memory of the store, as :class:`memdir.recall.embedding.
    Similarities` gives it for a list of headers: the mean and best over the whole store, the best
    rows (only their headers read), and the similarity of the memories it is asked about."""

    def __init__(self, host: RankedStore, matrix: _Matrix, values: Any) -> None:
        self.host = host
        self.matrix = matrix
        self.values = values
        self.exclude: frozenset[str] = frozenset()  # paths :meth:`head` leaves out (already surfaced)
        self._seen: dict[str, float] = {}  # path -> similarity, of every header read

    def __len__(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return math.fsum(self.values.tolist()) / len(self.values) if len(self.values) else 0.0

    @property
    def best(self) -> float:
        return float(self.values.max()) if len(self.values) else 0.0

    def head(self, count: int | None = None) -> list[tuple[MemoryHeader, float]]:
        """The best ``count`` memories (all when None) not in :attr:`exclude`, best first; ties go to
        the newest (then the file name), as in memory."""
        import numpy as np

        exclude = self.exclude
        values = self.values
        count = len(values) if count is None else count
        want = min(count + len(exclude), len(values))
        if want <= 0:
            return []
        cut = values[np.argpartition(-values, want - 1)[:want]].min()
        chosen = np.flatnonzero(values >= cut)
        headers = self.host.headers_by_ids(self.matrix.ids[chosen].tolist())
        ranked = []
        for position in chosen.tolist():
            header = headers.get(int(self.matrix.ids[position]))
            if header is not None and header.path not in exclude:
                ranked.append((header, float(values[position])))
        ranked.sort(key=lambda item: (-item[1], -item[0].mtime_ms, item[0].filename))
        self._seen.update((header.path, score) for header, score in ranked)
        return ranked[:count]

    def get_many(self, ids: Mapping[str, int]) -> dict[str, float]:
        """The similarity of the memories with these row ids (by path); those the matrix holds."""
        import numpy as np

        if not ids:
            return {}
        paths = list(ids)
        wanted = np.array([ids[path] for path in paths], dtype=np.int64)
        at = np.minimum(np.searchsorted(self.matrix.ids, wanted), max(self.matrix.rows - 1, 0))
        found: dict[str, float] = {}
        for i, path in enumerate(paths):
            if self.matrix.rows and int(self.matrix.ids[at[i]]) == int(wanted[i]):
                found[path] = float(self.values[at[i]])
        self._seen.update(found)
        return found

    def get(self, path: str) -> float | None:
        """The similarity of a memory met in :meth:`head` or :meth:`get_many`."""
        return self._seen.get(path)

    def paths_at_least(self, floor: float) -> list[str]:
        """The paths, among the memories met so far, whose similarity reaches ``floor``."""
        return [path for path, score in self._seen.items() if score >= floor]
