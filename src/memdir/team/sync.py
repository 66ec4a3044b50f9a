"""Pull, push and full sync of one project's ``team/`` folder (SPEC §9.5-9.6).

The server wins per key on pull; local content wins per key on push; nothing is ever deleted on
either side. A push uploads only the files whose sha256 differs from the server's checksums, in
sorted batches of at most 200,000 bytes, each sent with ``If-Match``; a 412 re-reads the server's
hashes and tries again, at most twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from memdir.errors import SyncConflict, SyncError, SyncTooManyEntries
from memdir.team.client import TeamClient
from memdir.team.local import read_local_team_memory, write_pulled_entries
from memdir.team.protocol import batch_delta_by_bytes, hash_content
from memdir.team.state import PullResult, PushResult, SyncState

__all__ = ["MAX_CONFLICT_RETRIES", "TeamStatus", "pull", "push", "status", "sync"]

MAX_CONFLICT_RETRIES = 2
log = logging.getLogger("memdir.team")


def pull(client: TeamClient, state: SyncState, team_dir: str, *, skip_etag_cache: bool = False) -> PullResult:
    """Fetch the repo's team memory and write every entry that differs locally."""
    fetched = client.fetch(None if skip_etag_cache else state.last_known_checksum)
    if fetched.not_modified:
        return PullResult(not_modified=True, version=state.server_version, checksum=state.last_known_checksum)
    snapshot = fetched.snapshot
    if snapshot is None:
        state.forget_server()
        return PullResult()
    state.last_known_checksum = snapshot.checksum
    state.server_checksums = dict(snapshot.entry_checksums or {})
    state.server_version = snapshot.version
    state.probed = True
    outcome = write_pulled_entries(team_dir, snapshot.entries)
    for skip in outcome.skipped:
        log.debug("team pull skipped %s (%s): %s", skip.file, skip.rule, skip.reason)
    return PullResult(
        written=outcome.written,
        unchanged=outcome.unchanged,
        skipped=outcome.skipped,
        version=snapshot.version,
        checksum=snapshot.checksum,
    )


def _probe(client: TeamClient, state: SyncState) -> None:
    hashes = client.fetch_hashes()
    if hashes is None:
        state.forget_server()
        return
    state.last_known_checksum = hashes.checksum
    state.server_checksums = dict(hashes.entry_checksums or {})
    state.server_version = hashes.version
    state.probed = True


def push(client: TeamClient, state: SyncState, team_dir: str) -> PushResult:
    """Upload the local files whose content differs from the server's.

    A state that has never seen the server (a one-shot command) is filled by a hashes probe first,
    so only the real delta is sent. On failure, batches already acknowledged stay committed (and
    recorded in ``state``); the error says how many.
    """
    local = read_local_team_memory(team_dir, state.server_max_entries)
    for skip in local.secrets:
        log.debug("team push skipped %s: potential secrets (%s)", skip.file, ", ".join(skip.labels))
    hashes = {key: hash_content(content) for key, content in local.entries.items()}
    if not state.probed and hashes:
        _probe(client, state)
    uploaded: set[str] = set()
    batches_sent = 0
    bytes_before = client.bytes_sent

    def result() -> PushResult:
        return PushResult(
            uploaded=len(uploaded),
            batches=batches_sent,
            unchanged=len(hashes) - len(uploaded),
            skipped_secrets=local.secrets,
            skipped=local.skipped,
            capped=local.capped,
            uploaded_keys=tuple(sorted(uploaded)),
            bytes_sent=client.bytes_sent - bytes_before,
        )

    for attempt in range(MAX_CONFLICT_RETRIES + 1):
        delta = {key: local.entries[key] for key in hashes if state.server_checksums.get(key) != hashes[key]}
        if not delta:
            return result()
        batches = batch_delta_by_bytes(delta)
        conflicted = False
        for index, batch in enumerate(batches):
            try:
                answer = client.put({key: delta[key] for key in batch}, state.last_known_checksum)
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
            for key in batch:
                state.server_checksums[key] = hashes[key]
                uploaded.add(key)
        if not conflicted:
            return result()
        if attempt == MAX_CONFLICT_RETRIES:
            break
        _probe(client, state)
    raise SyncConflict(
        f"team push to {client.endpoint.repo} kept conflicting with concurrent pushes "
        f"({MAX_CONFLICT_RETRIES + 1} attempts, {len(uploaded)} files committed); run the push again"
    )


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


def sync(client: TeamClient, state: SyncState, team_dir: str) -> tuple[PullResult, PushResult]:
    """A pull that ignores the ETag cache, then a push."""
    pulled = pull(client, state, team_dir, skip_etag_cache=True)
    return pulled, push(client, state, team_dir)


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
        }


def status(client: TeamClient, state: SyncState, team_dir: str) -> TeamStatus:
    """What a push would send and what only the server has, from one hashes probe; writes nothing."""
    _probe(client, state)
    local = read_local_team_memory(team_dir, state.server_max_entries)
    would_push = tuple(
        sorted(key for key, text in local.entries.items() if state.server_checksums.get(key) != hash_content(text))
    )
    server_only = tuple(sorted(set(state.server_checksums) - set(local.entries)))
    return TeamStatus(
        server=client.endpoint.server,
        repo=client.endpoint.repo,
        local_files=len(local.entries) + len(local.secrets) + len(local.skipped),
        would_push=would_push,
        server_only=server_only,
        server_version=state.server_version,
        server_checksum=state.last_known_checksum,
        skipped_secrets=tuple(skip.to_json() for skip in local.secrets),
    )
