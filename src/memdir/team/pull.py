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
from memdir.team.protocol import hash_content
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
    pull killed half-way resumes where it stopped instead of seeing conflicts.
    """
    fetched = client.fetch(None if skip_etag_cache else state.last_known_checksum)
    if fetched.not_modified:
        return PullResult(not_modified=True, version=state.server_version, checksum=state.last_known_checksum)
    snapshot = fetched.snapshot
    remember(state, snapshot)
    view = read_view(client, team_dir, state, snapshot)
    entries = snapshot.entries if snapshot is not None else {}
    record = _Recorder(client, team_dir)
    authors, repo = snapshot.entry_authors or {} if snapshot is not None else {}, client.endpoint.repo
    ops: list[LocalOp] = []
    kept: list[tuple[str, str]] = []
    merged: list[str] = []
    conflicts: list[Conflict] = []
    pending_copies: list[tuple[LocalOp, LocalOp, Conflict]] = []
    taken = set(view.local_hashes) | set(view.remote) | set(view.local.unpushable)

    settled: dict[str, str | None] = {}
    for key in view.keys(Change.UNCHANGED):
        if view.base.get(key) != view.local_hashes[key]:
            settled[key] = view.local_hashes[key]
    for key in view.keys(Change.GONE):
        settled[key] = None
    record(settled)
    index_start = _index_start(client, view, entries)
    for key in view.keys(Change.CHANGED_THERE, Change.NEW_THERE):
        if key != INDEX_KEY:
            ops.append(LocalOp(key, view.local_hashes.get(key), entries[key], team_by(authors.get(key), repo)))
    for key in view.keys(Change.DELETED_HERE_EDITED_THERE):
        if key != INDEX_KEY:
            ops.append(LocalOp(key, None, entries[key], team_by(authors.get(key), repo)))
        conflicts.append(Conflict(key, key, Change.DELETED_HERE_EDITED_THERE.value))
    deletions = [key for key in view.keys(Change.DELETED_THERE) if key != INDEX_KEY]
    held: list[str] = []
    folder = max(len(view.base), len(view.local_hashes), len(view.remote))
    if is_mass_delete(len(deletions), folder) and not allow_mass_delete:
        held = deletions
    else:
        ops.extend(LocalOp(key, view.local_hashes[key], None, team_by(authors.get(key), repo)) for key in deletions)
    for key in view.keys(Change.EDITED_HERE_DELETED_THERE):
        conflicts.append(Conflict(key, key, Change.EDITED_HERE_DELETED_THERE.value))
        kept.append((key, "changed here, deleted on the server; your version is kept and the next push restores it"))
    for key in view.keys(*CHANGED_ON_BOTH):
        if key == INDEX_KEY:
            continue
        mine, theirs = view.local.entries[key], entries[key]
        if is_index_key(key):
            combined: str | None = merge_index(_base_text(client, key, view.base.get(key)), mine, theirs)
        else:
            combined = _merge(client, key, view.base.get(key), mine, theirs)
        if combined is not None:
            ops.append(LocalOp(key, view.local_hashes[key], combined, team_by(authors.get(key), repo)))
            merged.append(key)
            continue
        copy, marked = conflict_copy(key, mine, taken)
        taken.add(copy)
        pending_copies.append(
            (
                LocalOp(copy, None, marked, team_by(None, repo)),
                LocalOp(key, view.local_hashes[key], theirs, team_by(authors.get(key), repo)),
                Conflict(key, copy, view.classes[key].value),
            )
        )
    for key in view.keys(Change.CHANGED_HERE):
        kept.append((key, "changed here, not pushed yet"))
    for key in view.keys(Change.NEW_HERE):
        kept.append((key, "new here, not pushed yet"))
    for key in view.keys(Change.DELETED_HERE):
        kept.append((key, "deleted here, not pushed yet"))

    # Conflict copies first, one by one: the server's version replaces a local file only once the
    # local text is safely on disk under its new name.
    skipped: list[SkippedFile] = [
        SkippedFile(key, "local-not-synced", "the local file is not synced (symlink, secret, too large...); left as is")
        for key in sorted(view.local.unpushable & set(view.remote))
    ]
    written: list[str] = []
    for copy_op, replace_op, conflict in pending_copies:
        saved = apply_local(team_dir, [copy_op])
        if copy_op.key not in saved.written:
            skipped.extend(saved.skipped)
            kept.append((conflict.key, "changed on both sides; could not write a conflict copy, left as it is"))
            continue
        outcome = apply_local(team_dir, [replace_op])
        skipped.extend(outcome.skipped)
        if replace_op.key in outcome.written or outcome.unchanged:
            written.append(replace_op.key)
            record({replace_op.key: view.remote[replace_op.key]})
        conflicts.append(conflict)
    removed: list[str] = []
    unchanged = len(view.keys(Change.UNCHANGED))
    for start in range(0, len(ops), _CHUNK):
        chunk = ops[start : start + _CHUNK]
        outcome = apply_local(team_dir, chunk)
        skipped.extend(outcome.skipped)
        unchanged += outcome.unchanged
        refused = {s.file for s in outcome.skipped}
        done: dict[str, str | None] = {}
        for op in chunk:
            if op.key in refused:
                continue
            done[op.key] = None if op.content is None else view.remote[op.key]
            if op.content is None:
                removed.append(op.key)
            elif op.key in outcome.written and op.key not in merged:
                written.append(op.key)
        record(done)
    index_by = team_by(authors.get(INDEX_KEY) if index_start is not None else None, repo)
    with acting_as(index_by, run=current().run, label=current().label):
        index_written = _settle_index(team_dir, view, index_start, record)
    if index_written is not None:
        if index_written == "merged":
            merged.append(INDEX_KEY)
        elif index_written == "written":
            written.append(INDEX_KEY)
    for skip in skipped:
        log.debug("team pull skipped %s (%s): %s", skip.file, skip.rule, skip.reason)
    return PullResult(
        written=tuple(sorted(written)),
        unchanged=unchanged,
        skipped=tuple(skipped),
        version=snapshot.version if snapshot else None,
        checksum=snapshot.checksum if snapshot else None,
        deleted=tuple(sorted(removed)),
        merged=tuple(sorted(merged)),
        conflicts=tuple(sorted(conflicts, key=lambda c: c.key)),
        kept_local=tuple(sorted(kept)),
        held_deletions=tuple(held),
        flagged=_flagged([*written, *merged], entries),
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
