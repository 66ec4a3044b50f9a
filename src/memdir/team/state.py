"""What a sync session remembers about the server, and what each operation reports.

One :class:`SyncState` lives as long as a watcher session (SPEC §9.4). One-shot commands start
from an empty state. What a clone agreed with the server per key (the base of three-way sync) is
not kept here but on disk (:mod:`memdir.team.sync_base`), so it outlives every process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memdir.model.text import counted

__all__ = ["Conflict", "PullResult", "PushResult", "SecretSkip", "SkippedFile", "SyncReport", "SyncState"]


@dataclass
class SyncState:
    """Mutable by design: pull and push update it as the server answers."""

    last_known_checksum: str | None = None
    server_checksums: dict[str, str] = field(default_factory=dict)
    server_max_entries: int | None = None
    server_version: int | None = None

    def forget_server(self) -> None:
        """The server has nothing for this repo (404)."""
        self.last_known_checksum = None
        self.server_checksums = {}
        self.server_version = None


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
            "problems": self.problems(),
        }

    def problems(self) -> list[str]:
        """Why this pull is only partial (each a sentence), or [] when it did everything."""
        found = [
            f"{skip.file} was left out: {skip.reason}"
            for skip in self.skipped
            if skip.rule not in ("local-not-synced",)
        ]
        if self.held_deletions:
            found.append(
                f"{len(self.held_deletions)} deletion(s) from the server were held (mass-delete rule); "
                "run again with --allow-mass-delete to apply them"
            )
        return found


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
            "skipped": [skip.to_json() for skip in self.skipped],
            "capped": self.capped,
            "problems": self.problems(),
        }

    def problems(self) -> list[str]:
        """Why this push is only partial (each a sentence), or [] when everything was sent."""
        found = [f"{key} was not pushed: {why}" for key, why in self.not_pushed]
        if self.capped:
            found.append(f"{self.capped} file(s) were left out: the server takes no more entries")
        if self.held_deletions:
            found.append(
                f"{len(self.held_deletions)} deletion(s) were held (mass-delete rule); "
                "run again with --allow-mass-delete to send them"
            )
        return found


@dataclass(frozen=True)
class SyncReport:
    """A pull then a push, as ``memdir team sync --json`` prints it."""

    pull: PullResult
    push: PushResult

    def conflicts(self) -> list[Conflict]:
        found = {c.key: c for c in (*self.pull.conflicts, *self.push.conflicts)}
        return [found[key] for key in sorted(found)]

    def resolved(self) -> list[str]:
        """Conflict copies that went away in this sync (resolved here or by a teammate)."""
        from memdir.model.conflicts import is_conflict_copy

        return sorted(key for key in {*self.pull.deleted, *self.push.deleted} if is_conflict_copy(key))

    def problems(self) -> list[str]:
        """Why this sync is only partial: every key left out and every held deletion, once."""
        return list(dict.fromkeys([*self.pull.problems(), *self.push.problems()]))

    def failed(self) -> bool:
        return bool(self.problems())

    def summary(self) -> list[str]:
        """One line per phase; each line's parts add up to its total."""
        pull, push = self.pull, self.push
        copies = [c for c in pull.conflicts if c.kept_as != c.key]
        written = [key for key in pull.written if key not in {c.key for c in copies}]
        pulled = len(written) + len(pull.merged) + len(pull.deleted) + len(copies)
        # A merged file is pushed too: it is counted once, as merged; a pulled file is unchanged
        # by the time the push looks at it: counted once, as pulled.
        sent = push.uploaded - len(set(push.uploaded_keys) & set(pull.merged))
        pushed = sent + len(push.deleted)
        unchanged = max(0, push.unchanged - len(pull.written))
        return [
            f"pull: {counted(pulled, 'file')} from the server ({len(written)} written, {len(pull.merged)} merged, "
            f"{len(pull.deleted)} deleted by a teammate, {len(copies)} kept as conflict copies)",
            f"push: {counted(pushed, 'file')} to the server ({sent} new or changed, "
            f"{len(push.deleted)} deleted by you)",
            f"in step: {counted(unchanged, 'file')} unchanged"
            + (f"; {counted(len(self.conflicts()), 'conflict')} to resolve" if self.conflicts() else "")
            + (f"; {counted(len(self.problems()), 'problem')}" if self.problems() else ""),
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "pulled": len(self.pull.written),
            "pushed": self.push.uploaded,
            "deleted_here": len(self.push.deleted),
            "deleted_there": len(self.pull.deleted),
            "deleted_by_you": list(self.push.deleted),
            "deleted_by_a_teammate": list(self.pull.deleted),
            "conflicts": [conflict.to_json() for conflict in self.conflicts()],
            "merged": list(self.pull.merged),
            "resolved": self.resolved(),
            "ok": not self.failed(),
            "problems": self.problems(),
            "unchanged": self.push.unchanged,
            "held_deletions": sorted({*self.pull.held_deletions, *self.push.held_deletions}),
            "not_pushed": [{"key": key, "why": why} for key, why in self.push.not_pushed],
            "skipped_secrets": [skip.to_json() for skip in self.push.skipped_secrets],
            "pull": self.pull.to_json(),
            "push": self.push.to_json(),
        }
