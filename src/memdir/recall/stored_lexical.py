"""BM25F postings kept in the derived index, so a fresh process ranks the whole store from disk.

The in-memory :class:`~memdir.recall.lexical.LexicalIndex` needs every memory's analysis in
Python before its first ranking: a hook (a new process per prompt) paid seconds for that at
20,000 memories. Here the same analysis (memdir's tokeniser, CJK pairs and stemming included,
the same field weights) is inverted once into postings stored next to the memory rows:

- ``lex_postings``: per term, the row ids of the memories holding it and the field-weighted term
  frequency in each, as packed arrays, in chunks of :data:`CHUNK` ids (a change rewrites one
  chunk, not a posting of 100,000 entries);
- ``lex_lengths``: every memory's field-weighted length, packed by row id;
- ``lex_docs``: each memory's analysis (what a change must take out of the postings, and what the
  relevance floor's coverage reads), with the file, mtime and size it was made from;
- ``meta``: the analysis version, the BM25 parameters the postings were built for
  (:meth:`memdir.recall.bm25.Params.to_json`, read back to score with), the total length and count,
  and the index generation they match.

The tables are declared here, beside the SQL that reads and writes them, and created on the index's
connection the first time the postings are brought in step.

A query reads the postings of its own terms and the lengths, scores with :func:`memdir.recall.bm25.scores`
as the in-memory index does (so the scores are the same numbers), and reads the headers of the
best few memories only. Keeping the postings in step is :meth:`StoredPostings.sync`: nothing to do
while the index's generation is unchanged, otherwise the changed rows are re-analysed and their
chunks rewritten; ``budget`` bounds that work for a caller that cannot wait (the prompt hook leaves
a large change to ``memdir reindex`` in the background).
"""

from __future__ import annotations

import sqlite3
import sys
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from memdir.recall import bm25
from memdir.recall.bm25 import DEFAULT_PARAMS, LengthNorms, Params
from memdir.recall.lexical import Analysis, analyse, analysis_version, decode_analysis, encode_analysis
from memdir.recall.selector_protocol import Query
from memdir.store.scan import MemoryHeader

if TYPE_CHECKING:
    from memdir.store.ranked_store import RankedStore

__all__ = ["CHUNK", "StoredPostings"]

CHUNK = 4096
_CHANGE_COST = 8
_SCHEMA = """
CREATE TABLE IF NOT EXISTS lex_docs(
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    length REAL NOT NULL,
    terms TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS lex_postings(
    term TEXT NOT NULL,
    chunk INTEGER NOT NULL,
    docs BLOB NOT NULL,
    tfs BLOB NOT NULL,
    PRIMARY KEY (term, chunk)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lex_lengths(chunk INTEGER PRIMARY KEY, lengths BLOB NOT NULL);
"""
_STALE = (
    "SELECT m.id, m.file, m.mtime_ns, m.size, m.name, m.description, m.type, m.nested_type, m.preview, d.terms "
    "FROM memories m LEFT JOIN lex_docs d ON d.id = m.id "
    "WHERE d.id IS NULL OR d.file != m.file OR d.mtime_ns != m.mtime_ns OR d.size != m.size ORDER BY m.id"
)
_GONE = "SELECT d.id, d.terms FROM lex_docs d LEFT JOIN memories m ON m.id = d.id WHERE m.id IS NULL"
_DocRow = tuple[int, str, int, int, float, str]  # a lex_docs row


class _Edit:
    """The changes to one term's postings: ids to drop and (id, tf) to add."""

    __slots__ = ("add", "drop")

    def __init__(self) -> None:
        self.drop: set[int] = set()
        self.add: dict[int, float] = {}


def _chunked(postings: Mapping[str, tuple[array[int], array[float]]]) -> Iterable[tuple[str, int, bytes, bytes]]:
    """``(term, chunk, ids, tfs)`` rows of whole postings whose ids ascend, cut at every :data:`CHUNK` ids."""
    for term, (ids, tfs) in postings.items():
        start = 0
        while start < len(ids):
            chunk = ids[start] // CHUNK
            end = bisect_left(ids, (chunk + 1) * CHUNK, start)
            yield term, chunk, ids[start:end].tobytes(), tfs[start:end].tobytes()
            start = end


class _Posting:
    """One term's posting as read from the index: row ids ascending and their frequencies, side by
    side (a :class:`memdir.recall.bm25.Posting`). A row is found by bisection rather than through a
    dict: a term most memories hold has a posting as long as the store, and a query only looks up
    in it the few memories that its rarer terms matched."""

    __slots__ = ("_ids", "_tfs")

    def __init__(self, ids: array[int], tfs: array[float]) -> None:
        self._ids = ids
        self._tfs = tfs

    def __len__(self) -> int:
        return len(self._ids)

    def get(self, rowid: int, /) -> float | None:
        ids = self._ids
        at = bisect_left(ids, rowid)
        return self._tfs[at] if at < len(ids) and ids[at] == rowid else None

    def items(self) -> Iterator[tuple[int, float]]:
        return zip(self._ids, self._tfs, strict=True)


class StoredPostings:
    """BM25F over the postings stored in one derived index, built for ``params`` (the defaults:
    k1 1.2, b 0.75, :data:`memdir.recall.bm25.FIELD_WEIGHTS`); it meets :class:`~memdir.recall.bm25.TermStats`."""

    def __init__(self, host: RankedStore, *, params: Params = DEFAULT_PARAMS) -> None:
        self.host = host
        self.wanted = params
        self.params = params  # as read back from the index at each sync: what scores use
        self.version = f"{analysis_version(dict(params.field_weights))};{sys.byteorder};{CHUNK}"
        self.count = 0
        self.total = 0.0
        self._ids: dict[str, int] = {}  # path -> row id of the memories ranked last
        self._read: dict[str, _Posting] = {}  # the last query's postings
        self._tables: sqlite3.Connection | None = None  # the connection the tables were made on

    # -- keeping in step ---------------------------------------------------------------------
    def _meta(self, conn: sqlite3.Connection) -> dict[str, str]:
        if self._tables is not conn:
            conn.executescript(_SCHEMA)
            self._tables = conn
        rows = conn.execute("SELECT key, value FROM meta WHERE key LIKE 'lex_%' OR key = 'generation'")
        return {str(k): str(v) for k, v in rows}

    def sync(self, *, budget: int | None = None, progress: Callable[[int, int], None] | None = None) -> bool:
        """Bring the postings in step with the index's rows; False (nothing changed) when that would
        cost more than ``budget`` memories built from nothing (a changed memory counts eight), and
        the index is then marked for a background ``memdir reindex`` (``background_due``)."""
        done = bool(self.host.transact(lambda conn: self._sync(conn, budget, progress)))
        if not done:
            self.host.background_due = True
        return done

    def _sync(self, conn: sqlite3.Connection, budget: int | None, progress: Callable[[int, int], None] | None) -> bool:
        meta = self._meta(conn)
        generation = meta.get("generation", "0")
        fresh = meta.get("lex_version") != self.version or Params.from_json(meta.get("lex_params")) != self.wanted
        if not fresh and meta.get("lex_generation") == generation:
            self._load_totals(meta)
            return True
        if fresh:
            self._clear(conn)
            meta = {}
        gone = conn.execute(_GONE).fetchall()
        count, total = int(meta.get("lex_count", "0")), float(meta.get("lex_total", "0"))
        if budget is not None:
            plan = self._plan(conn, budget, changed=bool(count or gone), gone=len(gone))
            if plan is None:
                return False
            if plan == "rebuild":
                self._clear(conn)
                count, total, gone = 0, 0.0, []
        if not count and not gone:
            rows = int(conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0])
            built, count, total = self._bulk(conn, conn.execute(_STALE), rows, progress)
            self._finish(conn, built, [], generation, count, total)
        else:
            self._update(conn, gone, generation, count, total, progress)
        return True

    @staticmethod
    def _plan(conn: sqlite3.Connection, budget: int, *, changed: bool, gone: int) -> str | None:
        """How to catch up within ``budget``: "proceed" (build or update the postings), "rebuild" them (a small store is
        cheaper to build again), or None when neither fits. A change costs about eight times a build
        from nothing per memory (each of its terms' chunks is read and rewritten)."""
        waiting = int(conn.execute(f"SELECT COUNT(*) FROM ({_STALE})").fetchone()[0]) + gone
        if not changed:
            return None if waiting > budget else "proceed"
        if waiting * _CHANGE_COST <= budget:
            return "proceed"
        rows = int(conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0])
        return None if rows > budget else "rebuild"

    def _update(
        self,
        conn: sqlite3.Connection,
        gone: Sequence[Sequence[Any]],
        generation: str,
        count: int,
        total: float,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        """Take the removed and changed memories out of the postings and put the changed ones back in."""
        stale = conn.execute(_STALE).fetchall()
        edits: dict[tuple[str, int], _Edit] = {}
        lengths: dict[int, dict[int, float]] = {}
        docs: list[_DocRow] = []
        for rowid, terms in gone:
            count, total = self._drop(edits, rowid, terms, count, total)
            lengths.setdefault(rowid // CHUNK, {})[rowid] = 0.0
        for done, row in enumerate(stale, start=1):
            rowid = row[0]
            count, total = self._drop(edits, rowid, row[9], count, total)
            doc, docs_row = self._analysed(row)
            count, total = count + 1, total + doc.length
            self._edit(edits, rowid, doc.terms, drop=False)
            lengths.setdefault(rowid // CHUNK, {})[rowid] = doc.length
            docs.append(docs_row)
            if progress is not None and (done % 500 == 0 or done == len(stale)):
                progress(done, len(stale))
        with conn:
            self._write_postings(conn, edits)
            self._write_lengths(conn, lengths)
        self._finish(conn, docs, [rowid for rowid, _ in gone], generation, count, total)

    def _drop(
        self, edits: dict[tuple[str, int], _Edit], rowid: int, terms: object, count: int, total: float
    ) -> tuple[int, float]:
        """Take a memory's stored analysis (``terms``, None for a new memory) out of the postings."""
        old = None if terms is None else decode_analysis(str(terms), (0.0, 0), share=False)
        if old is None:
            return count, total
        self._edit(edits, rowid, old.terms, drop=True)
        return count - 1, total - old.length

    @staticmethod
    def _clear(conn: sqlite3.Connection) -> None:
        with conn:
            conn.execute("DELETE FROM lex_docs")
            conn.execute("DELETE FROM lex_postings")
            conn.execute("DELETE FROM lex_lengths")

    def _analysed(self, row: Sequence[Any]) -> tuple[Analysis, _DocRow]:
        """One stale memory row analysed: the analysis and its ``lex_docs`` row."""
        rowid, file, mtime_ns, size = row[:4]
        doc = analyse(self.host.row_header((file, mtime_ns, size, *row[4:9])), self.wanted.field_weights)
        return doc, (rowid, file, mtime_ns, size, doc.length, encode_analysis(doc))

    def _bulk(
        self,
        conn: sqlite3.Connection,
        rows: Iterable[Sequence[Any]],
        expected: int,
        progress: Callable[[int, int], None] | None,
    ) -> tuple[list[_DocRow], int, float]:
        """Postings built from nothing: rows come in id order, so each chunk's arrays are appended to."""
        postings: dict[str, tuple[array[int], array[float]]] = {}
        lengths: dict[int, array[float]] = {}
        docs: list[_DocRow] = []
        total = 0.0
        for done, row in enumerate(rows, start=1):
            rowid = row[0]
            chunk = rowid // CHUNK
            doc, docs_row = self._analysed(row)
            total += doc.length
            docs.append(docs_row)
            get = postings.get
            for term, tf in doc.terms.items():
                entry = get(term)
                if entry is None:
                    entry = postings[term] = (array("i"), array("f"))
                entry[0].append(rowid)
                entry[1].append(tf)
            packed = lengths.get(chunk)
            if packed is None:
                packed = lengths[chunk] = array("f", bytes(4 * CHUNK))
            packed[rowid - chunk * CHUNK] = doc.length
            if progress is not None and (done % 500 == 0 or done == expected):
                progress(done, expected)
        with conn:
            conn.executemany("INSERT OR REPLACE INTO lex_postings VALUES (?, ?, ?, ?)", _chunked(postings))
            conn.executemany(
                "INSERT OR REPLACE INTO lex_lengths VALUES (?, ?)",
                ((chunk, packed.tobytes()) for chunk, packed in lengths.items()),
            )
        return docs, len(docs), total

    def _finish(
        self,
        conn: sqlite3.Connection,
        docs: Sequence[_DocRow],
        gone: Sequence[int],
        generation: str,
        count: int,
        total: float,
    ) -> None:
        with conn:
            conn.executemany("DELETE FROM lex_docs WHERE id=?", [(rowid,) for rowid in gone])
            conn.executemany("INSERT OR REPLACE INTO lex_docs VALUES (?, ?, ?, ?, ?, ?)", docs)
            conn.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                [
                    ("lex_version", self.version),
                    ("lex_params", self.wanted.to_json()),
                    ("lex_generation", generation),
                    ("lex_count", str(count)),
                    ("lex_total", repr(total)),
                ],
            )
        self._load_totals(self._meta(conn))

    def _load_totals(self, meta: Mapping[str, str]) -> None:
        """The count, total length and parameters the postings were saved with."""
        self.count = int(meta.get("lex_count", "0"))
        self.total = float(meta.get("lex_total", "0"))
        self.params = Params.from_json(meta.get("lex_params")) or self.wanted

    @staticmethod
    def _edit(edits: dict[tuple[str, int], _Edit], rowid: int, terms: Mapping[str, float], *, drop: bool) -> None:
        chunk = rowid // CHUNK
        for term, tf in terms.items():
            edit = edits.get((term, chunk))
            if edit is None:
                edit = edits[(term, chunk)] = _Edit()
            if drop:
                edit.drop.add(rowid)
            else:
                edit.add[rowid] = tf

    @staticmethod
    def _write_postings(conn: sqlite3.Connection, edits: Mapping[tuple[str, int], _Edit]) -> None:
        read = "SELECT docs, tfs FROM lex_postings WHERE term=? AND chunk=?"
        for (term, chunk), edit in edits.items():
            row = conn.execute(read, (term, chunk)).fetchone()
            entries: dict[int, float] = {}
            if row is not None:
                ids, tfs = array("i"), array("f")
                ids.frombytes(row[0])
                tfs.frombytes(row[1])
                entries = dict(zip(ids, tfs, strict=True))
            for rowid in edit.drop:
                entries.pop(rowid, None)
            entries.update(edit.add)
            if not entries:
                conn.execute("DELETE FROM lex_postings WHERE term=? AND chunk=?", (term, chunk))
                continue
            order = sorted(entries)
            conn.execute(
                "INSERT OR REPLACE INTO lex_postings VALUES (?, ?, ?, ?)",
                (term, chunk, array("i", order).tobytes(), array("f", [entries[i] for i in order]).tobytes()),
            )

    @staticmethod
    def _write_lengths(conn: sqlite3.Connection, lengths: Mapping[int, Mapping[int, float]]) -> None:
        for chunk, values in lengths.items():
            row = conn.execute("SELECT lengths FROM lex_lengths WHERE chunk=?", (chunk,)).fetchone()
            packed = array("f", bytes(4 * CHUNK))
            if row is not None:
                packed = array("f")
                packed.frombytes(row[0])
            for rowid, length in values.items():
                packed[rowid - chunk * CHUNK] = length
            conn.execute("INSERT OR REPLACE INTO lex_lengths VALUES (?, ?)", (chunk, packed.tobytes()))

    # -- scoring -------------------------------------------------------------------------------
    @staticmethod
    def _postings(conn: sqlite3.Connection, terms: Sequence[str]) -> dict[str, _Posting]:
        """Each term's posting (row ids ascending, their field-weighted frequencies), those found."""
        found: dict[str, _Posting] = {}
        for term in terms:
            ids, tfs = array("i"), array("f")
            for docs, weights in conn.execute(
                "SELECT docs, tfs FROM lex_postings WHERE term=? ORDER BY chunk", (term,)
            ):
                ids.frombytes(docs)
                tfs.frombytes(weights)
            if ids:
                found[term] = _Posting(ids, tfs)
        return found

    @staticmethod
    def _lengths(conn: sqlite3.Connection) -> array[float]:
        packed = array("f")
        for chunk, blob in conn.execute("SELECT chunk, lengths FROM lex_lengths ORDER BY chunk"):
            gap = chunk * CHUNK - len(packed)
            if gap > 0:
                packed.frombytes(bytes(4 * gap))
            packed.frombytes(blob)
        return packed

    def score(self, query: Query) -> dict[int, float]:
        """BM25 scores by row id (:func:`memdir.recall.bm25.scores`, with the parameters read back
        from the index): the in-memory index's numbers, term for term."""
        if not query.terms or not self.count:
            self._read = {}
            return {}
        postings, lengths = self.host.transact(lambda conn: (self._postings(conn, query.terms), self._lengths(conn)))
        self._read = postings
        norms: LengthNorms[int] = LengthNorms(
            lambda rowid: lengths[rowid], bm25.average_length(self.total, self.count), self.params
        )
        return bm25.scores(postings, norms, self.count, self.params.k1)

    def best(
        self, scores: Mapping[int, float], limit: int, exclude: frozenset[str] = frozenset()
    ) -> list[tuple[MemoryHeader, float]]:
        """The ``limit`` best of ``scores``, best first, ties to the newest then by file name; only
        their headers are read (and those tied with the last place, for the tie-break)."""
        import heapq

        want = limit + len(exclude)
        chosen = list(scores)
        if len(chosen) > want:
            cut = heapq.nlargest(want, scores.values())[-1]
            chosen = [rowid for rowid in chosen if scores[rowid] >= cut]
        headers = self.host.headers_by_ids(chosen)
        ranked = [(headers[i], scores[i], i) for i in chosen if i in headers and headers[i].path not in exclude]
        ranked.sort(key=lambda item: (-item[1], -item[0].mtime_ms, item[0].filename))
        kept = ranked[:limit]
        self._ids = {header.path: rowid for header, _, rowid in kept}
        return [(header, score) for header, score, _ in kept]

    def row_ids(self) -> dict[str, int]:
        """The row id of each memory of the last :meth:`best` answer, by path."""
        return dict(self._ids)

    # -- what the relevance floor reads ---------------------------------------------------------
    def __len__(self) -> int:
        return self.count

    def idf(self, term: str) -> float:
        """The idf of one of the last query's terms (0 for a term no memory holds)."""
        return bm25.idf(self.count, len(self._read.get(term, ())))

    def terms_of(self, path: str) -> Mapping[str, float]:
        """Which of the last query's terms a memory among the last :meth:`best` answer holds, with
        their frequencies: looked up in the postings already read, so no analysis is decoded."""
        rowid = self._ids.get(path)
        if rowid is None:
            return {}
        return {term: tf for term, posting in self._read.items() if (tf := posting.get(rowid)) is not None}
