"""What a sync session remembers about the server, and what each operation reports.

One :class:`SyncState` lives as long as a watcher session (SPEC §9.4). One-shot commands start
from an empty state. What a clone agreed with the server per key (the base of three-way sync) is
not kept here but on disk (:mod:`memdir.team.base`), so it outlives every process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Conflict", "PullResult", "PushResult", "SecretSkip", "SkippedFile", "SyncReport", "SyncState"]


@dataclass
class SyncState:
    """Mutable by design: pull and push update it as the server answers."""

    last_known_checksum: str | None = None
    server_checksums: dict[str, str] = field(default_factory=dict)
    server_max_entries: int | None = None
    server_version: int | None = None
    probed: bool = False  # the server's hashes (or a full pull) have been seen at least once

    def forget_server(self) -> None:
        """The server has nothing for this repo (404)."""
        self.last_known_checksum = None
        self.server_checksums = {}
        self.server_version = None
        self.probed = True


@dataclass(frozen=True)
class SkippedFile:
    """A file or key left out of a pull or push, and the rule that excluded it."""

    file: str
    rule: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "rule": self.rule, "reason": self.reason}


@dataclass(frozen=True)
class SecretSkip:
    """A local file not pushed because the secret scanner flagged it; labels only, never the text."""

    file: str
    labels: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "labels": list(self.labels)}


@dataclass(frozen=True)
class Conflict:
    """A key changed on both sides (or changed on one, deleted on the other). ``kept_as`` is where
    the local version now is: a conflict copy beside the key, or the key itself when the edit was
    kept over a deletion."""

    key: str
    kept_as: str
    kind: str

    def to_json(self) -> dict[str, str]:
        return {"key": self.key, "kept_as": self.kept_as, "kind": self.kind}


@dataclass(frozen=True)
class PullResult:
    not_modified: bool = False
    written: tuple[str, ...] = ()
    unchanged: int = 0
    skipped: tuple[SkippedFile, ...] = ()
    version: int | None = None
    checksum: str | None = None
    deleted: tuple[str, ...] = ()  # local files removed because they were deleted on the server
    merged: tuple[str, ...] = ()  # both sides' edits combined line by line
    conflicts: tuple[Conflict, ...] = ()
    kept_local: tuple[tuple[str, str], ...] = ()  # (key, why): local changes a pull left alone
    held_deletions: tuple[str, ...] = ()  # deletions from the server held by the mass-delete rule
    flagged: tuple[tuple[str, str], ...] = ()  # (key, what): pulled files that hold a prompt tag, kept

    def to_json(self) -> dict[str, Any]:
        return {
            "not_modified": self.not_modified,
            "written": list(self.written),
            "unchanged": self.unchanged,
            "deleted": list(self.deleted),
            "merged": list(self.merged),
            "conflicts": [conflict.to_json() for conflict in self.conflicts],
            "kept_local": [{"key": key, "why": why} for key, why in self.kept_local],
            "held_deletions": list(self.held_deletions),
            "flagged": [{"key": key, "markup": what} for key, what in self.flagged],
            "skipped": [skip.to_json() for skip in self.skipped],
            "version": self.version,
            "checksum": self.checksum,
        }


@dataclass(frozen=True)
class PushResult:
    uploaded: int = 0
    batches: int = 0
    unchanged: int = 0
    skipped_secrets: tuple[SecretSkip, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    capped: int = 0  # files left out because the server's entry limit is known
    uploaded_keys: tuple[str, ...] = ()
    bytes_sent: int = 0
    deleted: tuple[str, ...] = ()  # deleted on the server because they were deleted here
    not_pushed: tuple[tuple[str, str], ...] = ()  # (key, why): server changes this push has not seen
    held_deletions: tuple[str, ...] = ()  # local deletions held by the mass-delete rule
    conflicts: tuple[Conflict, ...] = ()
    attempts: int = 1

    def to_json(self) -> dict[str, Any]:
        return {
            "uploaded": self.uploaded,
            "batches": self.batches,
            "unchanged": self.unchanged,
            "deleted": list(self.deleted),
            "not_pushed": [{"key": key, "why": why} for key, why in self.not_pushed],
            "held_deletions": list(self.held_deletions),
            "skipped_secrets": [skip.to_json() for skip in self.skipped_secrets],
        }


@dataclass(frozen=True)
class SyncReport:
    """A pull then a push, as ``memdir team sync --json`` prints it."""

    pull: PullResult
    push: PushResult

    def to_json(self) -> dict[str, Any]:
        conflicts = {c.key: c for c in (*self.pull.conflicts, *self.push.conflicts)}
        return {
            "pulled": len(self.pull.written),
            "pushed": self.push.uploaded,
            "deleted_here": len(self.push.deleted),
            "deleted_there": len(self.pull.deleted),
            "conflicts": [conflicts[key].to_json() for key in sorted(conflicts)],
            "merged": list(self.pull.merged),
            "unchanged": self.push.unchanged,
            "held_deletions": sorted({*self.pull.held_deletions, *self.push.held_deletions}),
            "not_pushed": [{"key": key, "why": why} for key, why in self.push.not_pushed],
            "skipped_secrets": [skip.to_json() for skip in self.push.skipped_secrets],
            "pull": self.pull.to_json(),
            "push": self.push.to_json(),
        }
