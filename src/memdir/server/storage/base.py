"""The storage contract of the team-memory server, and the values that cross it.

The HTTP layer is written once against :class:`Storage`; SQLite and PostgreSQL implement it.
A write to one repo is one transaction holding that repo's lock, so concurrent server
processes on one database never lose an acknowledged write.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from typing import Protocol

from memdir.errors import MemdirError

__all__ = [
    "DEFAULT_MAX_ENTRIES",
    "DeleteResult",
    "HistoryEntry",
    "PutConflict",
    "PutOutcome",
    "PutResult",
    "PutTooMany",
    "RepoState",
    "Retention",
    "Storage",
    "StorageUnavailable",
    "TokenInfo",
    "TokenScope",
    "hash_token",
    "new_token",
    "utc_now_iso",
]

DEFAULT_MAX_ENTRIES = 5000


class StorageUnavailable(MemdirError):
    """The database could not be reached or dropped the connection; the server answers 503."""

    rule = "storage-unavailable"


TOKEN_PREFIX = "mdt_"
TOKEN_ID_CHARS = 12


@dataclass(frozen=True)
class RepoState:
    """A repo as stored. ``entries`` is empty when only the hashes were asked for."""

    repo: str
    version: int
    last_modified: str
    checksum: str
    entry_checksums: Mapping[str, str]
    entries: Mapping[str, str]
    tombstones: Mapping[str, str] = field(default_factory=dict)
    authors: Mapping[str, str] = field(default_factory=dict)
    """Per key (live or tombstoned), the name of the token that wrote its current version or
    deleted it; a key written before the server kept names, or by an unnamed token, is absent."""


@dataclass(frozen=True)
class PutResult:
    checksum: str
    version: int
    last_modified: str
    written: tuple[str, ...]
    deleted: tuple[str, ...] = ()


@dataclass(frozen=True)
class HistoryEntry:
    """One accepted write or delete of one key. ``version`` is the repository version it made;
    ``content`` is the key's text after a write and the text it had before a delete (None when a
    listing left bodies out); ``by`` is the name of the token that made it."""

    key: str
    version: int
    hash: str
    by: str
    at: str
    deleted: bool
    content: str | None = None

    def to_json(self, *, with_content: bool = False) -> dict[str, object]:
        body: dict[str, object] = {
            "key": self.key,
            "version": self.version,
            "hash": self.hash,
            "by": self.by,
            "at": self.at,
            "deleted": self.deleted,
        }
        if with_content:
            body["content"] = self.content
        return body


@dataclass(frozen=True)
class Retention:
    """How much history the server keeps per key: the newest ``keep_versions`` rows and/or the rows
    younger than ``keep_days``; None keeps everything. A key's newest row is always kept, since it
    is the tombstone of a deleted key."""

    keep_versions: int | None = None
    keep_days: float | None = None


@dataclass(frozen=True)
class PutConflict:
    """``If-Match`` named another checksum than the repo's current one."""

    current_checksum: str


@dataclass(frozen=True)
class PutTooMany:
    max_entries: int
    received_entries: int


PutOutcome = PutResult | PutConflict | PutTooMany


@dataclass(frozen=True)
class DeleteResult:
    deleted: bool
    checksum: str
    version: int


@dataclass(frozen=True)
class TokenScope:
    """What one bearer token may do: the repos it may read and write, and whether it may delete."""

    repos: tuple[str, ...]
    admin: bool
    name: str = ""

    def allows(self, repo: str) -> bool:
        """A pattern is an exact ``owner/name``, ``owner/*`` or ``*``."""
        return any(fnmatchcase(repo, pattern) for pattern in self.repos)

    def covers(self, repos: tuple[str, ...]) -> bool:
        """Whether every pattern of ``repos`` (another token's scope) lies inside this scope: what an
        administrator may see of other tokens. ``owner/*`` covers ``owner/x`` and ``owner/*``, only
        ``*`` covers ``*``; an empty scope is covered by ``*`` alone."""
        if not repos:
            return "*" in self.repos
        return all(any(fnmatchcase(theirs, mine) for mine in self.repos) for theirs in repos)


@dataclass(frozen=True)
class TokenInfo:
    """A stored token as an administrator sees it: its scope and an id cut from its hash, never the secret.

    The id is the first hex digits of the token's sha256, so it can be shown, logged and pasted
    into ``memdir team token revoke`` without granting anything.
    """

    id: str
    repos: tuple[str, ...]
    admin: bool
    created_at: str
    name: str = ""


def hash_token(token: str) -> str:
    """Tokens are stored only as their sha256, so a copy of the database grants nothing."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def utc_now_iso() -> str:
    """ISO-8601 in UTC with milliseconds, as JavaScript's ``toISOString`` writes it."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Storage(Protocol):
    def get_repo(self, repo: str) -> RepoState | None:
        """The repo with every entry, or None when it has no entries."""

    def get_hashes(self, repo: str) -> RepoState | None:
        """The repo's metadata and entry checksums without bodies, or None when it has no entries."""

    def list_repos(self) -> list[str]:
        """Every repository the server holds (ever pushed to), sorted."""

    def put_entries(
        self,
        repo: str,
        entries: Mapping[str, str],
        if_match: str | None,
        *,
        max_entries: int,
        deletions: Sequence[str] = (),
        base_checksums: Mapping[str, str] | None = None,
        by: str = "",
        retention: Retention | None = None,
    ) -> PutOutcome:
        """Upsert ``entries`` and delete ``deletions`` atomically; keys not named are kept. Nothing is
        stored unless PutResult. A stale ``if_match`` is still accepted when ``base_checksums`` names
        every touched key with its current checksum (``""`` for absent), since then nothing the
        client has not seen is overwritten. Every change is recorded in the history."""

    def delete_key(self, repo: str, key: str, *, by: str = "", retention: Retention | None = None) -> DeleteResult:
        """Remove one entry (administrators; sync deletes through put_entries), leaving a tombstone."""

    def history(self, repo: str, key: str | None = None, *, limit: int = 100) -> list[HistoryEntry]:
        """The repository's (or one key's) history, newest first, without bodies."""

    def history_entry(
        self, repo: str, key: str, *, version: int | None = None, checksum: str | None = None
    ) -> HistoryEntry | None:
        """One key's history row with its content: the one made at ``version``, or the newest
        whose hash is ``checksum``; None when there is none."""

    def ping(self) -> None:
        """Raise when the database cannot be reached (GET /health)."""

    def create_token(self, repos: Iterable[str], *, admin: bool = False, name: str = "") -> str:
        """Store a new token's hash and scope; the plaintext is returned once and kept nowhere."""

    def verify_token(self, token: str) -> TokenScope | None:
        """The scope of a presented token, or None when it is unknown."""

    def list_tokens(self) -> list[TokenInfo]:
        """Every stored token, oldest first."""

    def revoke_token(self, token_or_id: str) -> TokenInfo | None:
        """Delete one token, named by its secret or by (a unique prefix of at least 8 digits of) its id.

        Returns what was revoked, or None when nothing matches; an id prefix that matches more than
        one token raises :class:`memdir.errors.ConfigError` and deletes nothing.
        """

    def close(self) -> None: ...
