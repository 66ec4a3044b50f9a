"""Push: send this clone's changes to the server without overwriting a change it has not seen (SPEC §9.6).

Each request carries ``If-Match`` plus, per key, the checksum it replaces, so a push that is stale
only on keys it does not touch still lands; a 412 means re-read, re-classify and retry with
jittered backoff until a deadline. Keys changed on both sides are never sent: ``sync`` merges them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping

from memdir.errors import SyncConflict, SyncError, SyncTooManyEntries
from memdir.team.classify import Change
from memdir.team.client import TeamClient
from memdir.team.protocol import batch_delta_by_bytes
from memdir.team.state import Conflict, PushResult, SyncState
from memdir.team.sync_base import update_base
from memdir.team.view import (
    CHANGED_ON_BOTH,
    PUSH_BLOCKED,
    SyncView,
    if_match,
    is_mass_delete,
    probe,
    read_view,
)

__all__ = ["PUSH_DEADLINE", "push"]


PUSH_DEADLINE = 120.0


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
        snapshot = probe(client, state)
        view = read_view(client, team_dir, state, snapshot)
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
            (key, _why_not_pushed(change)) for key, change in sorted(view.classes.items()) if change in PUSH_BLOCKED
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
                answer = client.put(entries, if_match(state), deletions=removing, base_checksums=bases)
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


def _pushed_over(view: SyncView, key: str) -> str:
    """The server checksum a pushed key must still have: its base, or absent ("") for a new key and
    for an edit kept over a deletion."""
    if view.classes[key] in (Change.NEW_HERE, Change.EDITED_HERE_DELETED_THERE):
        return ""
    return view.base.get(key, "")


def _push_result(
    view: SyncView,
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
    if change in CHANGED_ON_BOTH:
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
