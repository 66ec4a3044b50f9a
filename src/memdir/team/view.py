"""One consistent look at both sides of a team sync, and the rules pull, push and restore share.

A :class:`SyncView` classifies every key from three hashes: the local file's, the server's and the
recorded base (what this clone last agreed with the server, :mod:`memdir.team.sync_base`). The
mass-delete hold, the conflict-copy stamp and the push precondition live here too, so that
:mod:`memdir.team.pull`, :mod:`memdir.team.push` and :mod:`memdir.team.sync` apply the same ones.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from memdir.model.conflicts import conflict_copy_key, mark_conflict_copy
from memdir.team.classify import Change, classify
from memdir.team.client import TeamClient
from memdir.team.local import LocalTeamMemory, read_local_team_memory
from memdir.team.protocol import TeamMemorySnapshot, hash_content, repo_checksum
from memdir.team.state import SyncState
from memdir.team.sync_base import load_base

__all__ = [
    "CHANGED_ON_BOTH",
    "MASS_DELETE_FILES",
    "PUSH_BLOCKED",
    "SyncView",
    "conflict_copy",
    "if_match",
    "is_mass_delete",
    "mass_delete_message",
    "probe",
    "read_view",
    "remember",
]

MASS_DELETE_FILES = 10
log = logging.getLogger("memdir.team")

CHANGED_ON_BOTH = {Change.CHANGED_BOTH, Change.NEW_BOTH}
PUSH_BLOCKED = CHANGED_ON_BOTH | {Change.DELETED_HERE_EDITED_THERE}
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
class SyncView:
    """One consistent look at both sides: local files, server hashes, recorded base, classes."""

    local: LocalTeamMemory
    local_hashes: dict[str, str]
    remote: dict[str, str]
    base: dict[str, str]
    classes: dict[str, Change] = field(default_factory=dict)

    def keys(self, *changes: Change) -> list[str]:
        return sorted(key for key, change in self.classes.items() if change in changes)


def read_view(client: TeamClient, team_dir: str, state: SyncState, snapshot: TeamMemorySnapshot | None) -> SyncView:
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
    # Texts the server holds now, as last agreed: a file still holding one is not scanned again.
    on_server = {key: digest for key, digest in base.items() if remote.get(key) == digest}
    local = read_local_team_memory(team_dir, state.server_max_entries, on_server=on_server)
    for skip in local.secrets:
        log.debug("team sync skipped %s: potential secrets (%s)", skip.file, ", ".join(skip.labels))
    view = SyncView(local, dict(local.hashes), remote, base)
    view.classes = classify(view.local_hashes, remote, base, tombstones=tombstones, unreadable=local.unpushable)
    return view


def remember(state: SyncState, snapshot: TeamMemorySnapshot | None) -> None:
    if snapshot is None:
        state.forget_server()
        return
    state.last_known_checksum = snapshot.checksum
    state.server_checksums = dict(snapshot.entry_checksums or {})
    state.server_version = snapshot.version


def conflict_copy(key: str, text: str, taken: Collection[str]) -> tuple[str, str]:
    """Where and as what the local side of a conflict on ``key`` is kept: a name beside it that says
    it is a conflict (never one in ``taken``, never over 255 bytes) and the text with its name and
    description saying whose copy it is and when it was kept."""
    import socket

    host = socket.gethostname() or "this clone"
    try:
        import pwd

        who = f"{pwd.getpwuid(os.getuid()).pw_name}@{host}"
    except (ImportError, KeyError, OSError):  # no passwd entry in a bare container, or Windows
        who = host
    now = datetime.now(UTC)
    copy = conflict_copy_key(key, now.strftime("%Y%m%dT%H%M%SZ"), taken)
    return copy, mark_conflict_copy(text, key, now.strftime("%Y-%m-%d %H:%M UTC"), who)


def probe(client: TeamClient, state: SyncState) -> TeamMemorySnapshot | None:
    """The server's per-key hashes (no contents), remembered in ``state``."""
    hashes = client.fetch_hashes()
    remember(state, hashes)
    return hashes


def if_match(state: SyncState) -> str:
    """The repository checksum a push builds on; an empty repository has the checksum of no entries,
    so even the first push cannot silently overwrite a teammate's simultaneous first push."""
    return state.last_known_checksum or repo_checksum({})
