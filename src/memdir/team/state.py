"""What a sync session remembers about the server, and what each operation reports.

One :class:`SyncState` lives as long as a watcher session (SPEC §9.4). One-shot commands start
from an empty state: their push first probes the server's hashes, so it still uploads only the
delta and sends ``If-Match``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["PullResult", "PushResult", "SecretSkip", "SkippedFile", "SyncState"]


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
class PullResult:
    not_modified: bool = False
    written: tuple[str, ...] = ()
    unchanged: int = 0
    skipped: tuple[SkippedFile, ...] = ()
    version: int | None = None
    checksum: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "not_modified": self.not_modified,
            "written": list(self.written),
            "unchanged": self.unchanged,
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

    def to_json(self) -> dict[str, Any]:
        return {
            "uploaded": self.uploaded,
            "batches": self.batches,
            "unchanged": self.unchanged,
            "skipped_secrets": [skip.to_json() for skip in self.skipped_secrets],
        }
