"""Pull: bring the server's changes into ``team/`` without discarding any local change (SPEC §9.5).

A change made there flows here; a change made on both sides is merged line by line when the edits
do not touch, and otherwise the server's version keeps the name while the local one is kept beside
it as a conflict copy; deletions arrive as server tombstones and a mass deletion is held.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from memdir.errors import SyncError
from memdir.model.markup import describe_markup
from memdir.team.base import update_base
from memdir.team.classify import Change
from memdir.team.client import TeamClient
from memdir.team.local import LocalOp, apply_local, conflict_copy_key
from memdir.team.merge import merge_lines
from memdir.team.state import Conflict, PullResult, SkippedFile, SyncState
from memdir.team.view import (
    CHANGED_ON_BOTH,
    conflict_stamp,
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
    new or deleted here → left alone and reported (``kept_local``).
    """
    fetched = client.fetch(None if skip_etag_cache else state.last_known_checksum)
    if fetched.not_modified:
        return PullResult(not_modified=True, version=state.server_version, checksum=state.last_known_checksum)
    snapshot = fetched.snapshot
    remember(state, snapshot)
    view = read_view(client, team_dir, state, snapshot)
    entries = snapshot.entries if snapshot is not None else {}
    ops: list[LocalOp] = []
    base_after: dict[str, str | None] = {}
    kept: list[tuple[str, str]] = []
    merged: list[str] = []
    conflicts: list[Conflict] = []
    pending_copies: list[tuple[LocalOp, LocalOp, Conflict]] = []
    taken = set(view.local_hashes) | set(view.remote) | set(view.local.unpushable)

    for key in view.keys(Change.UNCHANGED):
        if view.base.get(key) != view.local_hashes[key]:
            base_after[key] = view.local_hashes[key]
    for key in view.keys(Change.GONE):
        base_after[key] = None
    for key in view.keys(Change.CHANGED_THERE, Change.NEW_THERE):
        ops.append(LocalOp(key, view.local_hashes.get(key), entries[key]))
    for key in view.keys(Change.DELETED_HERE_EDITED_THERE):
        ops.append(LocalOp(key, None, entries[key]))
        conflicts.append(Conflict(key, key, Change.DELETED_HERE_EDITED_THERE.value))
    deletions = view.keys(Change.DELETED_THERE)
    held: list[str] = []
    folder = max(len(view.base), len(view.local_hashes), len(view.remote))
    if is_mass_delete(len(deletions), folder) and not allow_mass_delete:
        held = deletions
    else:
        ops.extend(LocalOp(key, view.local_hashes[key], None) for key in deletions)
    for key in view.keys(Change.EDITED_HERE_DELETED_THERE):
        conflicts.append(Conflict(key, key, Change.EDITED_HERE_DELETED_THERE.value))
        kept.append((key, "changed here, deleted on the server; your version is kept and the next push restores it"))
    for key in view.keys(*CHANGED_ON_BOTH):
        mine, theirs = view.local.entries[key], entries[key]
        combined = _merge(client, key, view.base.get(key), mine, theirs)
        if combined is not None:
            ops.append(LocalOp(key, view.local_hashes[key], combined))
            merged.append(key)
            continue
        copy = conflict_copy_key(key, conflict_stamp(), taken)
        taken.add(copy)
        pending_copies.append(
            (
                LocalOp(copy, None, mine),
                LocalOp(key, view.local_hashes[key], theirs),
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
            base_after[replace_op.key] = view.remote[replace_op.key]
        conflicts.append(conflict)
    outcome = apply_local(team_dir, ops)
    skipped.extend(outcome.skipped)
    done = set(outcome.written) | {op.key for op in ops if op.key not in {s.file for s in outcome.skipped}}
    removed: list[str] = []
    for op in ops:
        if op.key not in done:
            continue
        if op.content is None:
            base_after[op.key] = None
            removed.append(op.key)
        elif op.key in merged:
            base_after[op.key] = view.remote[op.key]
        else:
            base_after[op.key] = view.remote[op.key]
            if op.key in outcome.written:
                written.append(op.key)
    for skip in skipped:
        log.debug("team pull skipped %s (%s): %s", skip.file, skip.rule, skip.reason)
    update_base(team_dir, client.endpoint.server, client.endpoint.repo, base_after)
    return PullResult(
        written=tuple(sorted(written)),
        unchanged=len(view.keys(Change.UNCHANGED)) + outcome.unchanged,
        skipped=tuple(skipped),
        version=snapshot.version if snapshot else None,
        checksum=snapshot.checksum if snapshot else None,
        deleted=tuple(sorted(removed)),
        merged=tuple(merged),
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


def _merge(client: TeamClient, key: str, base_hash: str | None, mine: str, theirs: str) -> str | None:
    """The line merge of both versions over their common base, fetched from the server's history
    by its hash; None when there is no base (new on both sides) or the edits touch."""
    if base_hash is None:
        return None
    try:
        found = client.fetch_version(key, checksum=base_hash)
    except SyncError as exc:
        log.debug("no merge base for %s: %s", key, exc.message)
        return None
    if found is None:
        return None
    return merge_lines(str(found["content"]), mine, theirs)
