"""Pull, push, full sync and status of one project's ``team/`` folder, three-way (SPEC §9.5-9.6).

Every key is classified from three hashes: the local file's, the server's and the recorded base
(what this clone last agreed with the server, :mod:`memdir.team.base`). A change made on one side
flows to the other; a change made on both is merged line by line when the edits do not touch, and
otherwise the server's version keeps the name while the local one is kept beside it as a conflict
copy. A pull never overwrites an unpushed local change, a push never overwrites a server change it
has not seen (``If-Match`` plus, per key, the base it replaces), and deletions travel as server
tombstones. Deleting more than :data:`MASS_DELETE_FILES` files, or more than a quarter of the
folder, in one go is held unless explicitly allowed.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memdir.errors import SyncConflict, SyncError, SyncTooManyEntries
from memdir.team.base import load_base, update_base
from memdir.team.classify import Change, classify
from memdir.team.client import TeamClient
from memdir.team.local import LocalOp, LocalTeamMemory, apply_local, conflict_copy_key, read_local_team_memory
from memdir.team.merge import merge_lines
from memdir.team.protocol import TeamMemorySnapshot, batch_delta_by_bytes, hash_content, repo_checksum
from memdir.team.state import Conflict, PullResult, PushResult, SkippedFile, SyncReport, SyncState

__all__ = [
    "MASS_DELETE_FILES",
    "PUSH_DEADLINE",
    "TeamStatus",
    "is_mass_delete",
    "mass_delete_message",
    "pull",
    "push",
    "restore",
    "status",
    "sync",
]

MASS_DELETE_FILES = 10
PUSH_DEADLINE = 120.0
log = logging.getLogger("memdir.team")

_BOTH = {Change.CHANGED_BOTH, Change.NEW_BOTH}
_BLOCKED = _BOTH | {Change.DELETED_HERE_EDITED_THERE}
"""Local changes a push must not send: the server changed the same key since the base."""


def is_mass_delete(deletions: int, folder_files: int) -> bool:
    """More than 10 files, or more than a quarter of the folder, in one go.

    Deleting one file is never a mass delete: in a folder of two or three files the quarter rule
    would otherwise hold every single deletion, and a held deletion the user meant is friction that
    teaches them to pass --allow-mass-delete by habit, which defeats the hold.
    """
    return deletions > MASS_DELETE_FILES or (deletions > 1 and deletions * 4 > folder_files)


def mass_delete_message(count: int, folder_files: int, where: str, flag: str = "--allow-mass-delete") -> str:
    return (
        f"held: this would delete {count} file(s) {where} (more than {MASS_DELETE_FILES}, or more than a "
        f"quarter of the {folder_files} team files); nothing was deleted. If that is what you want, "
        f"run again with {flag}"
    )


@dataclass
class _View:
    """One consistent look at both sides: local files, server hashes, recorded base, classes."""

    local: LocalTeamMemory
    local_hashes: dict[str, str]
    remote: dict[str, str]
    base: dict[str, str]
    classes: dict[str, Change] = field(default_factory=dict)

    def keys(self, *changes: Change) -> list[str]:
        return sorted(key for key, change in self.classes.items() if change in changes)


def _view(client: TeamClient, team_dir: str, state: SyncState, snapshot: TeamMemorySnapshot | None) -> _View:
    local = read_local_team_memory(team_dir, state.server_max_entries)
    for skip in local.secrets:
        log.debug("team sync skipped %s: potential secrets (%s)", skip.file, ", ".join(skip.labels))
    hashes = {key: hash_content(text) for key, text in local.entries.items()}
    base = load_base(team_dir, client.endpoint.server, client.endpoint.repo)
    if snapshot is None:
        # Nothing on the server (a new repository, or a server that lost its data): nothing it
        # "deleted" can be told apart, so every local file is new here and nothing is removed.
        remote: dict[str, str] = {}
        tombstones: Mapping[str, str] = {}
        base = {}
    else:
        remote = dict(snapshot.entry_checksums or {key: hash_content(text) for key, text in snapshot.entries.items()})
        tombstones = snapshot.tombstones or {}
    view = _View(local, hashes, remote, base)
    view.classes = classify(hashes, remote, base, tombstones=tombstones, unreadable=local.unpushable)
    return view


def _remember(state: SyncState, snapshot: TeamMemorySnapshot | None) -> None:
    if snapshot is None:
        state.forget_server()
        return
    state.last_known_checksum = snapshot.checksum
    state.server_checksums = dict(snapshot.entry_checksums or {})
    state.server_version = snapshot.version
    state.probed = True


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


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
    _remember(state, snapshot)
    view = _view(client, team_dir, state, snapshot)
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
    for key in view.keys(*_BOTH):
        mine, theirs = view.local.entries[key], entries[key]
        combined = _merge(client, key, view.base.get(key), mine, theirs)
        if combined is not None:
            ops.append(LocalOp(key, view.local_hashes[key], combined))
            merged.append(key)
            continue
        copy = conflict_copy_key(key, _stamp(), taken)
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
    )


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


def _probe(client: TeamClient, state: SyncState) -> TeamMemorySnapshot | None:
    hashes = client.fetch_hashes()
    _remember(state, hashes)
    return hashes


def push(
    client: TeamClient,
    state: SyncState,
    team_dir: str,
    *,
    allow_mass_delete: bool = False,
    deadline: float = PUSH_DEADLINE,
    sleep: Callable[[float], None] = time.sleep,
    jitter: Callable[[], float] = random.random,
    progress: Callable[[int, int], None] | None = None,
) -> PushResult:
    """Upload what changed here: edits and new files, and deletions as tombstones.

    Keys the server changed since the recorded base are not pushed (reported in ``not_pushed``;
    ``memdir team sync`` reconciles them). A 412 (someone pushed meanwhile) re-reads the server's
    hashes, re-classifies and tries again with jittered exponential backoff until ``deadline``
    seconds have passed. Batches already acknowledged stay committed and recorded.
    ``progress(done, total)`` hears of every acknowledged batch (files sent so far, files to send),
    so a terminal can draw a bar for a large first push.
    """
    started = time.monotonic()
    uploaded: dict[str, None] = {}
    deleted: dict[str, None] = {}
    batches_sent = 0
    bytes_before = client.bytes_sent
    attempt = 0
    while True:
        attempt += 1
        snapshot = _probe(client, state)
        view = _view(client, team_dir, state, snapshot)
        base_after: dict[str, str | None] = {}
        for key in view.keys(Change.UNCHANGED):
            if view.base.get(key) != view.local_hashes[key]:
                base_after[key] = view.local_hashes[key]
        for key in view.keys(Change.GONE):
            base_after[key] = None
        if base_after:
            update_base(team_dir, client.endpoint.server, client.endpoint.repo, base_after)
        writes = view.keys(Change.CHANGED_HERE, Change.NEW_HERE, Change.EDITED_HERE_DELETED_THERE)
        removals = view.keys(Change.DELETED_HERE)
        held: list[str] = []
        if is_mass_delete(len(removals), len(view.remote)) and not allow_mass_delete:
            held, removals = removals, []
        delta: dict[str, str | None] = {key: view.local.entries[key] for key in writes}
        delta.update(dict.fromkeys(removals))
        not_pushed = tuple(
            (key, _why_not_pushed(change)) for key, change in sorted(view.classes.items()) if change in _BLOCKED
        )

        def result() -> PushResult:
            sent = client.bytes_sent - bytes_before
            return _push_result(view, held, not_pushed, uploaded, deleted, batches_sent, attempt, sent)  # noqa: B023

        if not delta:
            return result()
        batches = batch_delta_by_bytes(delta)
        keys_sent = 0
        conflicted = False
        for index, batch in enumerate(batches):
            entries = {key: text for key in batch if (text := delta[key]) is not None}
            removing = [key for key in batch if delta[key] is None]
            bases = {key: _pushed_over(view, key) for key in batch}
            try:
                answer = client.put(entries, _if_match(state), deletions=removing, base_checksums=bases)
            except SyncTooManyEntries as exc:
                state.server_max_entries = exc.max_entries
                raise _partial(exc, batches_sent, index, len(batches)) from exc
            except SyncError as exc:
                raise _partial(exc, batches_sent, index, len(batches)) from exc
            if answer is None:
                conflicted = True
                break
            batches_sent += 1
            state.last_known_checksum = answer.checksum
            state.server_version = answer.version or state.server_version
            committed: dict[str, str | None] = {key: view.local_hashes[key] for key in entries}
            uploaded.update(dict.fromkeys(entries))
            gone = set(answer.deleted or ())
            for key in removing:
                if key in gone:
                    committed[key] = None
                    deleted[key] = None
            update_base(team_dir, client.endpoint.server, client.endpoint.repo, committed)
            keys_sent += len(batch)
            if progress is not None:
                progress(keys_sent, len(delta))
        if not conflicted:
            return result()
        elapsed = time.monotonic() - started
        if elapsed >= deadline:
            break
        delay = min(0.05 * 2.0 ** min(attempt, 10), 2.0) * (0.5 + jitter())
        sleep(min(delay, max(0.0, deadline - elapsed)))
    raise SyncConflict(
        f"team push to {client.endpoint.repo} kept conflicting with concurrent pushes for {deadline:g}s "
        f"({attempt} attempts, {len(uploaded)} files committed); run the push again"
    )


def _if_match(state: SyncState) -> str:
    """The repository checksum a push builds on; an empty repository has the checksum of no entries,
    so even the first push cannot silently overwrite a teammate's simultaneous first push."""
    return state.last_known_checksum or repo_checksum({})


def _pushed_over(view: _View, key: str) -> str:
    """The server checksum a pushed key must still have: its base, or absent ("") for a new key and
    for an edit kept over a deletion."""
    if view.classes[key] in (Change.NEW_HERE, Change.EDITED_HERE_DELETED_THERE):
        return ""
    return view.base.get(key, "")


def _push_result(
    view: _View,
    held: list[str],
    not_pushed: tuple[tuple[str, str], ...],
    uploaded: Mapping[str, None],
    deleted: Mapping[str, None],
    batches: int,
    attempt: int,
    bytes_sent: int,
) -> PushResult:
    return PushResult(
        uploaded=len(uploaded),
        batches=batches,
        unchanged=len(view.keys(Change.UNCHANGED)),
        skipped_secrets=view.local.secrets,
        skipped=view.local.skipped,
        capped=view.local.capped,
        uploaded_keys=tuple(sorted(uploaded)),
        bytes_sent=bytes_sent,
        deleted=tuple(sorted(deleted)),
        not_pushed=not_pushed,
        held_deletions=tuple(held),
        conflicts=tuple(
            Conflict(key, key, Change.EDITED_HERE_DELETED_THERE.value)
            for key in view.keys(Change.EDITED_HERE_DELETED_THERE)
            if key in uploaded
        ),
        attempts=attempt,
    )


def _why_not_pushed(change: Change) -> str:
    if change in _BOTH:
        return "changed here and on the server; run 'memdir team sync' to merge or keep both"
    return "deleted here but changed on the server; run 'memdir team sync' (the server's version comes back)"


def _partial(exc: SyncError, committed: int, failed_at: int, total: int) -> SyncError:
    """The same error, its message saying how much of the push reached the server."""
    if committed == 0 and failed_at == 0:
        return exc
    note = f" ({committed} batch(es) were committed before batch {failed_at + 1} of {total} failed; push again)"
    if isinstance(exc, SyncTooManyEntries):
        error: SyncError = SyncTooManyEntries(exc.message + note, max_entries=exc.max_entries, received=exc.received)
    else:
        error = type(exc)(exc.message + note, rule=exc.rule)
    error.status = exc.status
    return error


def sync(
    client: TeamClient,
    state: SyncState,
    team_dir: str,
    *,
    allow_mass_delete: bool = False,
    deadline: float = PUSH_DEADLINE,
    progress: Callable[[int, int], None] | None = None,
) -> SyncReport:
    """A pull that ignores the ETag cache, then a push; again while the server moved in between
    (so keys someone changed during the sync are reconciled too), until ``deadline``."""
    started = time.monotonic()
    pulls: list[PullResult] = []
    while True:
        pulled = pull(client, state, team_dir, skip_etag_cache=True, allow_mass_delete=allow_mass_delete)
        pulls.append(pulled)
        remaining = max(1.0, deadline - (time.monotonic() - started))
        pushed = push(
            client, state, team_dir, allow_mass_delete=allow_mass_delete, deadline=remaining, progress=progress
        )
        unsettled = [key for key, _why in pushed.not_pushed]
        if not unsettled or time.monotonic() - started >= deadline or len(pulls) >= 5:
            return SyncReport(_combine(pulls), pushed)


def _combine(pulls: list[PullResult]) -> PullResult:
    if len(pulls) == 1:
        return pulls[0]
    last = pulls[-1]
    return PullResult(
        written=tuple(sorted({k for p in pulls for k in p.written})),
        unchanged=last.unchanged,
        skipped=last.skipped,
        version=last.version,
        checksum=last.checksum,
        deleted=tuple(sorted({k for p in pulls for k in p.deleted})),
        merged=tuple(sorted({k for p in pulls for k in p.merged})),
        conflicts=tuple(c for p in pulls for c in p.conflicts),
        kept_local=last.kept_local,
        held_deletions=last.held_deletions,
    )


def restore(
    client: TeamClient,
    state: SyncState,
    team_dir: str,
    key: str,
    content: str,
    *,
    deadline: float = PUSH_DEADLINE,
    sleep: Callable[[float], None] = time.sleep,
    jitter: Callable[[], float] = random.random,
) -> dict[str, Any]:
    """Write an old version of ``key`` back: on the server as a new write (so the restore is in the
    history too), then into ``team/``. A local edit not pushed yet is first kept as a conflict copy.
    Returns ``{"version": new server version, "kept_as": copy or None}``."""
    started = time.monotonic()
    attempt = 0
    while True:
        attempt += 1
        snapshot = _probe(client, state)
        remote = dict(snapshot.entry_checksums or {}) if snapshot else {}
        answer = client.put({key: content}, _if_match(state), base_checksums={key: remote.get(key, "")})
        if answer is not None:
            break
        elapsed = time.monotonic() - started
        if elapsed >= deadline:
            raise SyncConflict(f"restoring {key} kept conflicting with concurrent pushes for {deadline:g}s; retry")
        sleep(min(min(0.05 * 2.0 ** min(attempt, 10), 2.0) * (0.5 + jitter()), max(0.0, deadline - elapsed)))
    state.last_known_checksum = answer.checksum
    view = _view(client, team_dir, state, None)
    base = load_base(team_dir, client.endpoint.server, client.endpoint.repo)
    mine = view.local_hashes.get(key)
    kept_as: str | None = None
    if mine is not None and mine != base.get(key) and mine != hash_content(content):
        kept_as = conflict_copy_key(key, _stamp(), set(view.local_hashes) | set(remote))
        saved = apply_local(team_dir, [LocalOp(kept_as, None, view.local.entries[key])])
        if kept_as not in saved.written:
            raise SyncError(
                f"restored {key} on the server, but could not keep your unpushed version as {kept_as}, so "
                f"{key} was left as it is here; run 'memdir team sync' to keep both",
                rule="sync-restore",
            )
    outcome = apply_local(team_dir, [LocalOp(key, mine, content)])
    if key in outcome.written or outcome.unchanged:
        update_base(team_dir, client.endpoint.server, client.endpoint.repo, {key: hash_content(content)})
    return {"version": answer.version, "kept_as": kept_as}


@dataclass(frozen=True)
class TeamStatus:
    server: str
    repo: str
    local_files: int
    would_push: tuple[str, ...]
    server_only: tuple[str, ...]
    server_version: int | None
    server_checksum: str | None
    skipped_secrets: tuple[dict[str, Any], ...]
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "repo": self.repo,
            "local_files": self.local_files,
            "would_push": list(self.would_push),
            "server_only": list(self.server_only),
            "server_version": self.server_version,
            "server_checksum": self.server_checksum,
            "skipped_secrets": list(self.skipped_secrets),
            "changes": {name: list(keys) for name, keys in self.classes.items()},
        }


def status(client: TeamClient, state: SyncState, team_dir: str) -> TeamStatus:
    """How every key stands (three-way), from one hashes probe; writes nothing."""
    snapshot = _probe(client, state)
    view = _view(client, team_dir, state, snapshot)
    would_push = tuple(
        view.keys(Change.CHANGED_HERE, Change.NEW_HERE, Change.DELETED_HERE, Change.EDITED_HERE_DELETED_THERE)
    )
    classes = {
        change.value: tuple(view.keys(change)) for change in Change if change not in (Change.UNCHANGED, Change.GONE)
    }
    return TeamStatus(
        server=client.endpoint.server,
        repo=client.endpoint.repo,
        local_files=len(view.local.entries) + len(view.local.secrets) + len(view.local.skipped),
        would_push=would_push,
        server_only=tuple(view.keys(Change.NEW_THERE)),
        server_version=state.server_version,
        server_checksum=state.last_known_checksum,
        skipped_secrets=tuple(skip.to_json() for skip in view.local.secrets),
        classes={name: keys for name, keys in classes.items() if keys},
    )
