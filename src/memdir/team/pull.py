"""Pull: bring the server's changes into ``team/`` without discarding any local change (SPEC §9.5).

A change made there flows here; a change made on both sides is merged line by line when the edits
do not touch, and otherwise the server's version keeps the name while the local one is kept beside
it as a conflict copy; deletions arrive as server tombstones and a mass deletion is held.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from memdir.errors import SyncError
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.markup import describe_markup
from memdir.store.provenance import acting_as, current
from memdir.team.classify import Change
from memdir.team.client import TeamClient
from memdir.team.derived_index import is_index_key, merge_index, settle_index
from memdir.team.local import LocalOp, apply_local, team_by
from memdir.team.merge import merge_lines
from memdir.team.protocol import TeamMemorySnapshot, hash_content
from memdir.team.state import Conflict, PullResult, SkippedFile, SyncState
from memdir.team.sync_base import update_base
from memdir.team.view import (
    CHANGED_ON_BOTH,
    SyncView,
    conflict_copy,
    is_mass_delete,
    read_view,
    remember,
)

__all__ = ["pull"]

log = logging.getLogger("memdir.team")


def pull(
    client: TeamClient,
    state: SyncState,
    team_dir: str,
    *,
    skip_etag_cache: bool = False,
    allow_mass_delete: bool = False,
) -> PullResult:
    """Bring the server's changes into ``team/`` without discarding any local change.

    Changed or new there → written; deleted there (and unchanged here) → removed; changed on both →
    merged, or the server's version under the name and the local one as a conflict copy; changed,
    new or deleted here → left alone and reported (``kept_local``). ``team/MEMORY.md`` is never a
    conflict: both versions are merged as a set of lines and the result lists exactly the memories
    present (:mod:`memdir.team.derived_index`). The recorded base is saved as each key settles, so a
    pull killed half-way resumes where it stopped instead of seeing conflicts. One step per kind of
    change (:class:`_Pull`), then the writes, then the index.
    """
    fetched = client.fetch(None if skip_etag_cache else state.last_known_checksum)
    if fetched.not_modified:
        return PullResult(not_modified=True, version=state.server_version, checksum=state.last_known_checksum)
    snapshot = fetched.snapshot
    remember(state, snapshot)
    step = _Pull(client, team_dir, read_view(client, team_dir, state, snapshot), snapshot)
    step.settle_unchanged()
    index_start = _index_start(client, step.view, step.entries)
    step.take_theirs()
    step.restore_deleted_here()
    step.delete_deleted_there(allow_mass_delete=allow_mass_delete)
    step.keep_edited_here()
    step.merge_changed_on_both()
    step.keep_changed_here()
    step.write_conflict_copies()
    step.apply()
    step.settle_index(index_start)
    for skip in step.skipped:
        log.debug("team pull skipped %s (%s): %s", skip.file, skip.rule, skip.reason)
    return step.result()


class _Pull:
    """One pull: what each kind of change does to ``team/`` (the local writes it plans, what it
    keeps, merges or reports), then the writes themselves, the base recorded as each key settles."""

    def __init__(self, client: TeamClient, team_dir: str, view: SyncView, snapshot: TeamMemorySnapshot | None) -> None:
        self.client, self.team_dir, self.view, self.snapshot = client, team_dir, view, snapshot
        self.entries: Mapping[str, str] = snapshot.entries if snapshot is not None else {}
        self.authors: Mapping[str, str] = (snapshot.entry_authors or {}) if snapshot is not None else {}
        self.record = _Recorder(client, team_dir)
        self.ops: list[LocalOp] = []
        self.kept: list[tuple[str, str]] = []
        self.merged: list[str] = []
        self.conflicts: list[Conflict] = []
        self.pending_copies: list[tuple[LocalOp, LocalOp, Conflict]] = []
        self.held: list[str] = []
        self.written: list[str] = []
        self.removed: list[str] = []
        self.unchanged = len(view.keys(Change.UNCHANGED))
        self.taken = set(view.local_hashes) | set(view.remote) | set(view.local.unpushable)
        self.skipped: list[SkippedFile] = [
            SkippedFile(
                key, "local-not-synced", "the local file is not synced (symlink, secret, too large...); left as is"
            )
            for key in sorted(view.local.unpushable & set(view.remote))
        ]

    def _by(self, key: str | None) -> str:
        """Who the history records a write of ``key`` as: its author on the server, in this repository."""
        return team_by(self.authors.get(key) if key is not None else None, self.client.endpoint.repo)

    def settle_unchanged(self) -> None:
        """The same on both sides, or gone from both: only the recorded base moves."""
        view = self.view
        settled: dict[str, str | None] = {
            key: view.local_hashes[key]
            for key in view.keys(Change.UNCHANGED)
            if view.base.get(key) != view.local_hashes[key]
        }
        settled.update((key, None) for key in view.keys(Change.GONE))
        self.record(settled)

    def take_theirs(self) -> None:
        """Changed or new on the server only: written here."""
        for key in self.view.keys(Change.CHANGED_THERE, Change.NEW_THERE):
            if key != INDEX_KEY:
                self.ops.append(LocalOp(key, self.view.local_hashes.get(key), self.entries[key], self._by(key)))

    def restore_deleted_here(self) -> None:
        """Deleted here but edited on the server: the server's version comes back, as a conflict."""
        for key in self.view.keys(Change.DELETED_HERE_EDITED_THERE):
            if key != INDEX_KEY:
                self.ops.append(LocalOp(key, None, self.entries[key], self._by(key)))
            self.conflicts.append(Conflict(key, key, Change.DELETED_HERE_EDITED_THERE.value))

    def delete_deleted_there(self, *, allow_mass_delete: bool) -> None:
        """Deleted on the server and unchanged here: removed, unless so many go at once that the
        deletion is held for a person to confirm."""
        view = self.view
        deletions = [key for key in view.keys(Change.DELETED_THERE) if key != INDEX_KEY]
        folder = max(len(view.base), len(view.local_hashes), len(view.remote))
        if is_mass_delete(len(deletions), folder) and not allow_mass_delete:
            self.held = deletions
            return
        self.ops.extend(LocalOp(key, view.local_hashes[key], None, self._by(key)) for key in deletions)

    def keep_edited_here(self) -> None:
        """Edited here but deleted on the server: kept, and a conflict (the next push restores it)."""
        for key in self.view.keys(Change.EDITED_HERE_DELETED_THERE):
            self.conflicts.append(Conflict(key, key, Change.EDITED_HERE_DELETED_THERE.value))
            reason = "changed here, deleted on the server; your version is kept and the next push restores it"
            self.kept.append((key, reason))

    def merge_changed_on_both(self) -> None:
        """Changed on both sides: merged line by line when the edits do not touch (an index as a
        set of lines), else the server's version under the name and the local one as a copy."""
        view = self.view
        for key in view.keys(*CHANGED_ON_BOTH):
            if key == INDEX_KEY:
                continue
            mine, theirs = view.local.entries[key], self.entries[key]
            if is_index_key(key):
                combined: str | None = merge_index(_base_text(self.client, key, view.base.get(key)), mine, theirs)
            else:
                combined = _merge(self.client, key, view.base.get(key), mine, theirs)
            if combined is not None:
                self.ops.append(LocalOp(key, view.local_hashes[key], combined, self._by(key)))
                self.merged.append(key)
                continue
            copy, marked = conflict_copy(key, mine, self.taken)
            self.taken.add(copy)
            replace = LocalOp(key, view.local_hashes[key], theirs, self._by(key))
            conflict = Conflict(key, copy, view.classes[key].value)
            self.pending_copies.append((LocalOp(copy, None, marked, self._by(None)), replace, conflict))

    def keep_changed_here(self) -> None:
        """Changed, new or deleted here only: left alone until the next push, and reported."""
        for change, reason in (
            (Change.CHANGED_HERE, "changed here, not pushed yet"),
            (Change.NEW_HERE, "new here, not pushed yet"),
            (Change.DELETED_HERE, "deleted here, not pushed yet"),
        ):
            self.kept.extend((key, reason) for key in self.view.keys(change))

    def write_conflict_copies(self) -> None:
        """Conflict copies first, one by one: the server's version replaces a local file only once
        the local text is safely on disk under its new name."""
        for copy_op, replace_op, conflict in self.pending_copies:
            saved = apply_local(self.team_dir, [copy_op])
            if copy_op.key not in saved.written:
                self.skipped.extend(saved.skipped)
                self.kept.append(
                    (conflict.key, "changed on both sides; could not write a conflict copy, left as it is")
                )
                continue
            outcome = apply_local(self.team_dir, [replace_op])
            self.skipped.extend(outcome.skipped)
            if replace_op.key in outcome.written or outcome.unchanged:
                self.written.append(replace_op.key)
                self.record({replace_op.key: self.view.remote[replace_op.key]})
            self.conflicts.append(conflict)

    def apply(self) -> None:
        """The planned writes and removals, :data:`_CHUNK` at a time, each chunk's base recorded."""
        for start in range(0, len(self.ops), _CHUNK):
            chunk = self.ops[start : start + _CHUNK]
            outcome = apply_local(self.team_dir, chunk)
            self.skipped.extend(outcome.skipped)
            self.unchanged += outcome.unchanged
            refused = {s.file for s in outcome.skipped}
            done: dict[str, str | None] = {}
            for op in chunk:
                if op.key in refused:
                    continue
                done[op.key] = None if op.content is None else self.view.remote[op.key]
                if op.content is None:
                    self.removed.append(op.key)
                elif op.key in outcome.written and op.key not in self.merged:
                    self.written.append(op.key)
            self.record(done)

    def settle_index(self, start: str | None) -> None:
        """``team/MEMORY.md`` derived from the memories now present (:func:`_settle_index`)."""
        index_by = self._by(INDEX_KEY) if start is not None else self._by(None)
        with acting_as(index_by, run=current().run, label=current().label):
            index_written = _settle_index(self.team_dir, self.view, start, self.record)
        if index_written == "merged":
            self.merged.append(INDEX_KEY)
        elif index_written == "written":
            self.written.append(INDEX_KEY)

    def result(self) -> PullResult:
        snapshot = self.snapshot
        return PullResult(
            written=tuple(sorted(self.written)),
            unchanged=self.unchanged,
            skipped=tuple(self.skipped),
            version=snapshot.version if snapshot else None,
            checksum=snapshot.checksum if snapshot else None,
            deleted=tuple(sorted(self.removed)),
            merged=tuple(sorted(self.merged)),
            conflicts=tuple(sorted(self.conflicts, key=lambda c: c.key)),
            kept_local=tuple(sorted(self.kept)),
            held_deletions=tuple(self.held),
            flagged=_flagged([*self.written, *self.merged], self.entries),
        )


def _flagged(written: list[str], entries: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """Pulled files whose text reads as a prompt tag: kept (memdir neutralises it wherever a model
    reads it), and reported, since a teammate or the server put words there meant for the system."""
    found = ((key, describe_markup(entries[key])) for key in sorted(written) if key in entries)
    return tuple((key, note) for key, note in found if note)


_CHUNK = 25
"""Local changes applied (and their base recorded) per step: a pull killed at any moment has saved
the base of every key it settled, at the cost of one small base rewrite per 25 keys."""

INDEX_KEY = ENTRYPOINT_NAME


class _Recorder:
    """Saves the recorded base of keys as they settle (see :func:`memdir.team.sync_base.update_base`)."""

    def __init__(self, client: TeamClient, team_dir: str) -> None:
        self.client, self.team_dir = client, team_dir

    def __call__(self, changes: dict[str, str | None]) -> None:
        if changes:
            update_base(self.team_dir, self.client.endpoint.server, self.client.endpoint.repo, changes)


def _index_start(client: TeamClient, view: SyncView, entries: Mapping[str, str]) -> str | None:
    """The text ``team/MEMORY.md`` is derived from after this pull: the server's version when only
    it changed, both merged as a set when both did, or None (the local file as it is)."""
    change = view.classes.get(INDEX_KEY)
    if change in (Change.CHANGED_THERE, Change.NEW_THERE, Change.DELETED_HERE_EDITED_THERE):
        return entries[INDEX_KEY]
    if change in CHANGED_ON_BOTH:
        mine, theirs = view.local.entries[INDEX_KEY], entries[INDEX_KEY]
        return merge_index(_base_text(client, INDEX_KEY, view.base.get(INDEX_KEY)), mine, theirs)
    if change is Change.DELETED_THERE:
        return ""
    return None


def _settle_index(
    team_dir: str,
    view: SyncView,
    start: str | None,
    record: _Recorder,
) -> str | None:
    """Derive ``team/MEMORY.md`` from the memories now present; "merged" or "written" when the
    server's version was taken in and changed the file, else None. The base moves to the server's
    version once it is taken in, so a derived difference is pushed as a change made here."""
    before = view.local_hashes.get(INDEX_KEY)
    change = view.classes.get(INDEX_KEY)
    after, used = settle_index(team_dir, start, expected=before)
    if not used:
        return None
    record({INDEX_KEY: view.remote.get(INDEX_KEY)} if change is not Change.DELETED_THERE else {INDEX_KEY: None})
    if after is None or hash_content(after) == before:
        return None
    return "merged" if change in CHANGED_ON_BOTH else "written"


def _base_text(client: TeamClient, key: str, base_hash: str | None) -> str | None:
    """The base version of ``key`` from the server's history, or None when there is none."""
    if base_hash is None:
        return None
    try:
        found = client.fetch_version(key, checksum=base_hash)
    except SyncError as exc:
        log.debug("no merge base for %s: %s", key, exc.message)
        return None
    return None if found is None else str(found["content"])


def _merge(client: TeamClient, key: str, base_hash: str | None, mine: str, theirs: str) -> str | None:
    """The line merge of both versions over their common base, fetched from the server's history
    by its hash; None when there is no base (new on both sides) or the edits touch."""
    base = _base_text(client, key, base_hash)
    return None if base is None else merge_lines(base, mine, theirs)
