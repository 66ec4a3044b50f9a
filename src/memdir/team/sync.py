"""Full sync, restore and status of one project's ``team/`` folder, three-way (SPEC §9.5-9.6).

This is the team client's public face: :func:`pull` (:mod:`memdir.team.pull`) and :func:`push`
(:mod:`memdir.team.push`) are exported from here beside :func:`sync`, which runs them until both
sides agree. Every key is classified from three hashes: the local file's, the server's and the recorded base
(what this clone last agreed with the server, :mod:`memdir.team.sync_base`). A change made on one side
flows to the other; a change made on both is merged line by line when the edits do not touch, and
otherwise the server's version keeps the name while the local one is kept beside it as a conflict
copy. A pull never overwrites an unpushed local change, a push never overwrites a server change it
has not seen (``If-Match`` plus, per key, the base it replaces), and deletions travel as server
tombstones. Deleting more than :data:`MASS_DELETE_FILES` files, or more than a quarter of the
folder, in one go is held unless explicitly allowed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from memdir.errors import SyncConflict, SyncError
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.store.provenance import acting_as, current
from memdir.team.classify import Change
from memdir.team.client import TeamClient
from memdir.team.derived_index import settle_index
from memdir.team.local import LocalOp, apply_local, team_by
from memdir.team.protocol import hash_content
from memdir.team.pull import pull
from memdir.team.push import PUSH_DEADLINE, push
from memdir.team.state import PullResult, PushResult, SyncReport, SyncState
from memdir.team.sync_base import load_base, update_base
from memdir.team.view import (
    conflict_copy,
    if_match,
    probe,
    read_view,
)

__all__ = ["TeamStatus", "restore", "status", "sync"]


def sync(
    client: TeamClient,
    state: SyncState,
    team_dir: str,
    *,
    allow_mass_delete: bool = False,
    deadline: float = PUSH_DEADLINE,
    progress: Callable[[int, int], None] | None = None,
) -> SyncReport:
    """A pull that ignores the ETag cache, then a push; again (after a jittered pause) while the
    server moved in between, so keys someone changed during the sync are reconciled too, until
    ``deadline``."""
    started = time.monotonic()
    pulls: list[PullResult] = []
    pushes: list[PushResult] = []
    while True:
        pulled = pull(client, state, team_dir, skip_etag_cache=True, allow_mass_delete=allow_mass_delete)
        pulls.append(pulled)
        remaining = max(1.0, deadline - (time.monotonic() - started))
        pushed = push(
            client, state, team_dir, allow_mass_delete=allow_mass_delete, deadline=remaining, progress=progress
        )
        pushes.append(pushed)
        unsettled = [key for key, _why in pushed.not_pushed]
        elapsed = time.monotonic() - started
        if not unsettled or elapsed >= deadline:
            return SyncReport(_combine(pulls), _combine_pushes(pushes))
        # Someone pushed the same keys meanwhile (with many teammates, usually the index): back off
        # with jitter so the rounds of concurrent syncs spread out, then reconcile again.
        pause = min(0.05 * 2.0 ** min(len(pulls), 10), 2.0) * (0.5 + random.random())
        time.sleep(min(pause, max(0.0, deadline - elapsed)))


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
        flagged=tuple(dict.fromkeys(flag for p in pulls for flag in p.flagged)),
    )


def _combine_pushes(pushes: list[PushResult]) -> PushResult:
    """Every round's uploads and deletions (a round that only reconciled uploads nothing new, and
    its report alone said ``push: 0 files``); what is left over is the last round's."""
    if len(pushes) == 1:
        return pushes[0]
    last = pushes[-1]
    keys = tuple(sorted({k for p in pushes for k in p.uploaded_keys}))
    return replace(
        last,
        uploaded=len(keys),
        batches=sum(p.batches for p in pushes),
        uploaded_keys=keys,
        bytes_sent=sum(p.bytes_sent for p in pushes),
        deleted=tuple(sorted({k for p in pushes for k in p.deleted})),
        attempts=sum(p.attempts for p in pushes),
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
        snapshot = probe(client, state)
        remote = dict(snapshot.entry_checksums or {}) if snapshot else {}
        answer = client.put({key: content}, if_match(state), base_checksums={key: remote.get(key, "")})
        if answer is not None:
            break
        elapsed = time.monotonic() - started
        if elapsed >= deadline:
            raise SyncConflict(f"restoring {key} kept conflicting with concurrent pushes for {deadline:g}s; retry")
        sleep(min(min(0.05 * 2.0 ** min(attempt, 10), 2.0) * (0.5 + jitter()), max(0.0, deadline - elapsed)))
    state.last_known_checksum = answer.checksum
    view = read_view(client, team_dir, state, None)
    base = load_base(team_dir, client.endpoint.server, client.endpoint.repo)
    mine = view.local_hashes.get(key)
    kept_as: str | None = None
    if mine is not None and mine != base.get(key) and mine != hash_content(content):
        kept_as, marked = conflict_copy(key, view.local.entries[key], set(view.local_hashes) | set(remote))
        saved = apply_local(team_dir, [LocalOp(kept_as, None, marked, team_by(None, client.endpoint.repo))])
        if kept_as not in saved.written:
            raise SyncError(
                f"restored {key} on the server, but could not keep your unpushed version as {kept_as}, so "
                f"{key} was left as it is here; run 'memdir team sync' to keep both",
                rule="sync-restore",
            )
    by = team_by(answer.author, client.endpoint.repo)  # the restore is a new write by this token
    outcome = apply_local(team_dir, [LocalOp(key, mine, content, by)])
    if key in outcome.written or outcome.unchanged:
        update_base(team_dir, client.endpoint.server, client.endpoint.repo, {key: hash_content(content)})
    if key != ENTRYPOINT_NAME:
        with acting_as(by, run=current().run, label=current().label):
            settle_index(team_dir)
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
    snapshot = probe(client, state)
    view = read_view(client, team_dir, state, snapshot)
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
