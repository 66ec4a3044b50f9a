"""The storage contract of the team-memory server, and the values that cross it.

The HTTP layer is written once against :class:`Storage`; SQLite and PostgreSQL implement it.
A write to one repo is one transaction holding that repo's lock, so concurrent server
processes on one database never lose an acknowledged write.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from typing import Protocol

__all__ = [
    "DEFAULT_MAX_ENTRIES",
    "DeleteResult",
    "PutConflict",
    "PutOutcome",
    "PutResult",
    "PutTooMany",
    "RepoState",
    "Storage",
    "TokenInfo",
    "TokenScope",
    "hash_token",
    "new_token",
    "utc_now_iso",
]

DEFAULT_MAX_ENTRIES = 5000
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


@dataclass(frozen=True)
class PutResult:
    checksum: str
    version: int
    last_modified: str
    written: tuple[str, ...]


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

    def allows(self, repo: str) -> bool:
        """A pattern is an exact ``owner/name``, ``owner/*`` or ``*``."""
        return any(fnmatchcase(repo, pattern) for pattern in self.repos)


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

    def put_entries(
        self, repo: str, entries: Mapping[str, str], if_match: str | None, *, max_entries: int
    ) -> PutOutcome:
        """Upsert ``entries`` atomically; keys not named are kept. Nothing is stored unless PutResult."""

    def delete_key(self, repo: str, key: str) -> DeleteResult:
        """Remove one entry (administrators only; sync itself never deletes)."""

    def create_token(self, repos: Iterable[str], *, admin: bool = False) -> str:
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
