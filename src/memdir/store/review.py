"""Review mode for agents' writes (``memdir.agentWrites``): proposals instead of changes.

With ``review``, extraction and the dream write to a :class:`ProposalDir`: the same directory to
read, but every write, edit or delete becomes a proposal kept in the history database (outside
the memory directory), and nothing in the directory changes until a person accepts it. The agent
reads its own proposals back within its run, so an edit after a write works as it would directly.
With ``off`` the same directory refuses every write with a message the agent sees.

A proposal remembers what the file held when it was made (``base``). When the file changed since
(a person edited it, another proposal was accepted), the proposal is stale: listed as stale, and
accepting it is refused, so it never overwrites that later change. ``MEMORY.md`` is never proposed:
an accepted proposal brings its index line with it, as every restore does.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from memdir.errors import ConfigError, MemdirError, MemoryNotFound
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.store.directory import MemoryDir
from memdir.store.history import History
from memdir.store.history_ops import follow_index, put_file
from memdir.store.history_records import HistoryError, history_path, iso_time
from memdir.store.provenance import acting_as, current
from memdir.store.records import DeleteResult, MemoryRecord
from memdir.store.scan import MemoryHeader

if TYPE_CHECKING:
    from memdir.store.ranked_store import RankedStore

__all__ = ["AGENT_WRITES_OFF", "PROPOSED", "Proposal", "ProposalDir", "Review", "open_review"]

AGENT_WRITES_OFF = (
    "agents may not change memory here: the settings key memdir.agentWrites is off (set it to review to "
    "have their changes proposed, or to direct)"
)
PROPOSED = (
    "memdir.agentWrites is review: this change is a proposal, and nothing in the memory directory changes "
    "until a person accepts it ('memdir review')"
)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Proposal(NamedTuple):
    id: int
    file: str
    at: float
    by: str
    run: str
    base: str | None  # the hash of the file when the proposal was made (None: it did not exist)
    hash: str | None  # the proposed content (None: delete the file)
    state: str  # open | accepted | rejected

    @property
    def change(self) -> str:
        if self.hash is None:
            return "delete"
        return "create" if self.base is None else "edit"


class Review:
    """The proposals of one memory directory, kept in its history database."""

    def __init__(self, memory_dir: MemoryDir, db: History) -> None:
        self.memory_dir = memory_dir
        self.db = db

    # -- recording -------------------------------------------------------------------------
    def propose(self, rel: str, text: str | None) -> None:
        """Record (or, within one run, update) the proposal to make ``rel`` hold ``text``."""
        who = current()
        with self.db._transaction() as conn:
            row = conn.execute(
                "SELECT id, base FROM proposals WHERE file=? AND run=? AND state='open'", (rel, who.run)
            ).fetchone()
            base = self._current_hash(rel) if row is None else row[1]
            digest = None if text is None else self.db._store_blob(conn, rel, text.encode("utf-8"))
            if digest == base:
                if row is not None:
                    conn.execute("DELETE FROM proposals WHERE id=?", (row[0],))
                return
            if row is None:
                conn.execute(
                    "INSERT INTO proposals(file, at, by, run, base, hash) VALUES (?, ?, ?, ?, ?, ?)",
                    (rel, time.time(), who.by, who.run, base, digest),
                )
            else:
                conn.execute("UPDATE proposals SET hash=?, at=? WHERE id=?", (digest, time.time(), row[0]))

    def proposed(self, rel: str) -> tuple[bool, str | None]:
        """(whether this run proposed something for ``rel``, the proposed text or None for a deletion)."""
        row = (
            self.db._connect()
            .execute("SELECT hash FROM proposals WHERE file=? AND run=? AND state='open'", (rel, current().run))
            .fetchone()
        )
        if row is None:
            return False, None
        return True, None if row[0] is None else self.db.content(str(row[0])).decode("utf-8")

    def _current_hash(self, rel: str) -> str | None:
        try:
            return _digest(self.memory_dir.read_text(rel))
        except MemoryNotFound:
            return None

    # -- a person's side ---------------------------------------------------------------------
    def proposals(self, *, state: str = "open") -> list[Proposal]:
        rows = self.db._connect().execute(
            "SELECT id, file, at, by, run, base, hash, state FROM proposals WHERE state=? ORDER BY id", (state,)
        )
        return [Proposal(*row) for row in rows]

    def count(self) -> int:
        """How many proposals are open (:meth:`proposals`' length), counted in the database: the web
        view shows it on every page."""
        row = self.db._connect().execute("SELECT COUNT(*) FROM proposals WHERE state='open'").fetchone()
        return int(row[0])

    def get(self, number: int) -> Proposal:
        row = (
            self.db._connect()
            .execute("SELECT id, file, at, by, run, base, hash, state FROM proposals WHERE id=?", (number,))
            .fetchone()
        )
        if row is None:
            raise HistoryError(f"no proposal {number} (see 'memdir review')")
        return Proposal(*row)

    def is_stale(self, proposal: Proposal) -> bool:
        """Whether the file changed since the proposal was made."""
        return self._current_hash(proposal.file) != proposal.base

    def text(self, proposal: Proposal) -> str | None:
        return None if proposal.hash is None else self.db.content(proposal.hash).decode("utf-8")

    def diff(self, proposal: Proposal) -> str:
        import difflib

        try:
            before = self.memory_dir.read_text(proposal.file)
        except MemoryNotFound:
            before = ""
        after = self.text(proposal) or ""
        lines = difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"{proposal.file} (now)", "proposed"
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def as_json(self, proposal: Proposal) -> dict[str, object]:
        return {
            "id": proposal.id,
            "file": proposal.file,
            "change": proposal.change,
            "by": proposal.by,
            "at": iso_time(proposal.at),
            "run": proposal.run,
            "stale": self.is_stale(proposal),
            "diff": self.diff(proposal),
        }

    def accept(self, number: int) -> Proposal:
        """Apply a proposal (recorded as its agent's change); a stale one is refused."""
        proposal = self.get(number)
        if proposal.state != "open":
            raise HistoryError(f"proposal {number} was already {proposal.state}")
        if self.is_stale(proposal):
            raise HistoryError(
                f"proposal {number} is stale: {proposal.file} changed after it was proposed, and accepting it "
                f"would overwrite that change; reject it (memdir review reject {number})",
                rule="stale-proposal",
                path=proposal.file,
            )
        with acting_as(proposal.by, label=f"review accept {number}"):
            put_file(self.memory_dir, proposal.file, self.text(proposal))
            follow_index(self.memory_dir, proposal.file)
        self._set(number, "accepted")
        return proposal

    def reject(self, number: int) -> Proposal:
        proposal = self.get(number)
        if proposal.state != "open":
            raise HistoryError(f"proposal {number} was already {proposal.state}")
        self._set(number, "rejected")
        return proposal

    def _set(self, number: int, state: str) -> None:
        with self.db._transaction() as conn:
            conn.execute("UPDATE proposals SET state=? WHERE id=?", (state, number))

    def settle_all(self, accept: bool) -> tuple[list[Proposal], list[tuple[Proposal, str]]]:
        """Accept (or reject) every open proposal, oldest first: (done, [(refused, why)])."""
        done: list[Proposal] = []
        refused: list[tuple[Proposal, str]] = []
        for proposal in self.proposals():
            try:
                done.append(self.accept(proposal.id) if accept else self.reject(proposal.id))
            except MemdirError as exc:
                refused.append((proposal, exc.message))
        return done, refused


def open_review(memory_dir: MemoryDir, home: str) -> Review:
    """The proposals of ``memory_dir``, in its history database under the config home ``home``
    (kept there whether or not ``memdir.history`` records changes)."""
    return Review(memory_dir, History(memory_dir.root, history_path(memory_dir.root, home)))


class ProposalDir(MemoryDir):
    """The memory directory as an agent sees it in review mode (``review``), or read-only (``refuse``).

    Every agent-facing write path goes through one (``MemorySession.agent_dir``): extraction, the
    dream, MCP, the memory tool, the framework adapters' tools and the LangGraph store. Each way a
    directory changes is covered: a file written or edited (:meth:`write_text`, :meth:`update_text`,
    a save's :meth:`_write_memory`) or deleted (:meth:`delete`) becomes a proposal; an index is
    never changed (an accepted proposal brings its line); a raw removal or move is refused. Reads
    (scans, recall) go to the directory it wraps, proposals shown over it."""

    def __init__(self, base: MemoryDir, review: Review | None, *, refuse: str | None = None) -> None:
        super().__init__(
            base.root,
            lock_timeout=base.lock_timeout,
            scan_cap=base.scan_cap,
            write_guards=base.write_guards,
            index_read_only=base.index_read_only,
            layout=base.layout,
            stamp=base.stamp,
            index_check=base.index_check,
        )
        self.review = review
        self.refuse = refuse
        self.scan_cache = base.scan_cache
        self.proposes = refuse is None and review is not None
        self._base = base

    def scan(self) -> list[MemoryHeader]:
        return self._base.scan()

    def headers(self) -> list[MemoryHeader]:
        return self._base.headers()

    def ranked_store(self, *, defer_work: bool = False) -> RankedStore | None:
        return self._base.ranked_store(defer_work=defer_work)

    def recall_scan(self, *, defer_work: bool = False) -> list[MemoryHeader]:
        return self._base.recall_scan(defer_work=defer_work)

    def check_write(self, file: str) -> None:
        self._proposing(self.relative(self.resolve(file)))

    def _proposing(self, rel: str) -> Review:
        if self.refuse is not None or self.review is None:
            raise ConfigError(self.refuse or AGENT_WRITES_OFF, rule="agent-writes-off", path=rel)
        return self.review

    def read_text(self, file: str) -> str:
        if self.review is not None:
            rel = self.relative(self.resolve(file))
            found, text = self.review.proposed(rel)
            if found:
                if text is None:
                    raise MemoryNotFound(f"no memory file {file!r} in {self.root} (its deletion is proposed)")
                return text
        return super().read_text(file)

    def read(self, file: str) -> MemoryRecord:
        """The memory as this agent sees it: its proposal when it made one (a file only proposed
        has no time on disk, so it reads as made now)."""
        path, rel = self._memory_file(file)
        if self.review is None or not self.review.proposed(rel)[0]:
            return super().read(rel)
        from memdir.model.memory import Memory

        text = self.read_text(rel)
        return MemoryRecord(file=rel, path=path, text=text, memory=Memory.parse(text), mtime_ms=time.time() * 1000)

    def exists(self, file: str) -> bool:
        try:
            self.read_text(file)
        except MemdirError:
            return False
        return True

    def write_text(self, file: str, content: str) -> str:
        path = self.resolve(file)
        rel = self.relative(path)
        review = self._proposing(rel)
        self._guard(rel, content)
        if os.path.basename(rel) != ENTRYPOINT_NAME:  # the index follows what a person accepts
            review.propose(rel, content)
        return path

    def update_text(self, file: str, change: Callable[[str], str]) -> str:
        path = self.resolve(file)
        rel = self.relative(path)
        self._proposing(rel)
        return self.write_text(rel, change(self.read_text(rel)))

    def delete(self, file: str) -> DeleteResult:
        path, rel = self._memory_file(file)
        review = self._proposing(rel)
        if not self.exists(rel):
            raise MemoryNotFound(f"no memory file {rel!r} in {self.root}", path=path)
        review.propose(rel, None)
        index_path, _ = self.index_for(rel)
        return DeleteResult(
            file=rel, path=path, deleted=True, index_file=self.relative(index_path), index_changed=False
        )

    def _write_memory(self, rel: str, path: str, content: str) -> list[str]:
        self._proposing(rel).propose(rel, content)
        return []

    def _write_index(self, index_path: str, before: str, after: str, *, renamed: list[str] | None = None) -> bool:
        self._proposing(self.relative(index_path))
        return False  # the index follows what a person accepts

    def check_removal(self, path: str) -> None:
        raise ConfigError(
            self.refuse or "in review mode (memdir.agentWrites) an agent may propose changes to memory files only",
            rule="agent-writes-off" if self.refuse else "review-memory-files-only",
            path=path,
        )

    def check_move(self, old_path: str, new_path: str) -> None:
        self.check_removal(old_path)

    def add_missing_index_lines(self, files: Sequence[str]) -> tuple[str, ...]:
        return ()  # an accepted proposal brings its own index line
