"""The storage contract written once in SQL that SQLite and PostgreSQL both accept.

Subclasses supply connections, transactions and the repo lock; everything else (upsert,
limits, checksums, tokens) lives here so the two back ends cannot drift apart.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from memdir.errors import ConfigError
from memdir.server.storage.base import (
    TOKEN_ID_CHARS,
    TOKEN_PREFIX,
    DeleteResult,
    PutConflict,
    PutOutcome,
    PutResult,
    PutTooMany,
    RepoState,
    TokenInfo,
    TokenScope,
    hash_token,
    new_token,
    utc_now_iso,
)
from memdir.team.protocol import hash_content, repo_checksum

__all__ = ["SCHEMA", "Cursor", "SqlStorage"]

_MIN_ID_PREFIX = 8

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS team_repos (
        repo TEXT PRIMARY KEY,
        version BIGINT NOT NULL,
        last_modified TEXT NOT NULL,
        checksum TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS team_entries (
        repo TEXT NOT NULL,
        key TEXT NOT NULL,
        content TEXT NOT NULL,
        checksum TEXT NOT NULL,
        PRIMARY KEY (repo, key)
    )""",
    """CREATE TABLE IF NOT EXISTS team_tokens (
        token_hash TEXT PRIMARY KEY,
        repos TEXT NOT NULL,
        admin INTEGER NOT NULL,
        created_at TEXT NOT NULL
    )""",
)


class Cursor(Protocol):
    """The part of a DB-API cursor both drivers share; SQL is written with ``?`` placeholders."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class _Abort(Exception):
    """Leaves a write transaction by rolling it back, carrying the answer to give instead."""

    def __init__(self, outcome: PutOutcome) -> None:
        super().__init__(type(outcome).__name__)
        self.outcome = outcome


class SqlStorage(ABC):
    _LOCK_ROW = ""
    """Appended to the repo-row SELECT inside a write (``FOR UPDATE`` where rows can be locked)."""

    @abstractmethod
    def _transaction(self, *, write: bool) -> AbstractContextManager[Cursor]:
        """One transaction: committed when the block ends, rolled back if it raises.

        A read transaction sees one consistent snapshot.
        """

    @contextmanager
    def _write(self, repo: str) -> Iterator[Cursor]:
        """A write transaction holding ``repo``'s row lock, the row created (version 0) if new."""
        with self._transaction(write=True) as cur:
            cur.execute(
                "INSERT INTO team_repos (repo, version, last_modified, checksum) VALUES (?, 0, ?, ?) "
                "ON CONFLICT (repo) DO NOTHING",
                (repo, utc_now_iso(), repo_checksum({})),
            )
            cur.execute(f"SELECT version FROM team_repos WHERE repo = ?{self._LOCK_ROW}", (repo,))
            cur.fetchone()
            yield cur

    @abstractmethod
    def close(self) -> None:
        """Release any connections held between calls."""

    def get_repo(self, repo: str) -> RepoState | None:
        return self._load(repo, with_entries=True)

    def get_hashes(self, repo: str) -> RepoState | None:
        return self._load(repo, with_entries=False)

    def _load(self, repo: str, *, with_entries: bool) -> RepoState | None:
        with self._transaction(write=False) as cur:
            cur.execute("SELECT version, last_modified, checksum FROM team_repos WHERE repo = ?", (repo,))
            row = cur.fetchone()
            if row is None:
                return None
            columns = "key, checksum, content" if with_entries else "key, checksum, ''"
            cur.execute(f"SELECT {columns} FROM team_entries WHERE repo = ? ORDER BY key", (repo,))
            rows = cur.fetchall()
        if not rows:
            return None
        return RepoState(
            repo=repo,
            version=int(row[0]),
            last_modified=str(row[1]),
            checksum=str(row[2]),
            entry_checksums={str(r[0]): str(r[1]) for r in rows},
            entries={str(r[0]): str(r[2]) for r in rows} if with_entries else {},
        )

    @staticmethod
    def _current(cur: Cursor, repo: str) -> tuple[int, str, str, dict[str, str]]:
        cur.execute("SELECT version, last_modified, checksum FROM team_repos WHERE repo = ?", (repo,))
        version, last_modified, checksum = cur.fetchone()
        cur.execute("SELECT key, checksum FROM team_entries WHERE repo = ?", (repo,))
        existing = {str(key): str(digest) for key, digest in cur.fetchall()}
        return int(version), str(last_modified), str(checksum), existing

    def put_entries(
        self, repo: str, entries: Mapping[str, str], if_match: str | None, *, max_entries: int
    ) -> PutOutcome:
        try:
            with self._write(repo) as cur:
                version, last_modified, checksum, existing = self._current(cur, repo)
                if if_match is not None and if_match != checksum:
                    raise _Abort(PutConflict(checksum))
                hashes = {key: hash_content(content) for key, content in entries.items()}
                merged = {**existing, **hashes}
                if len(merged) > max_entries and len(merged) > len(existing):
                    raise _Abort(PutTooMany(max_entries, len(merged)))
                changed = tuple(key for key in sorted(hashes) if existing.get(key) != hashes[key])
                if not changed:
                    return PutResult(checksum, version, last_modified, ())
                for key in changed:
                    cur.execute(
                        "INSERT INTO team_entries (repo, key, content, checksum) VALUES (?, ?, ?, ?) "
                        "ON CONFLICT (repo, key) DO UPDATE SET content = excluded.content, "
                        "checksum = excluded.checksum",
                        (repo, key, entries[key], hashes[key]),
                    )
                result = PutResult(repo_checksum(merged), version + 1, utc_now_iso(), changed)
                self._set_state(cur, repo, result.version, result.last_modified, result.checksum)
                return result
        except _Abort as abort:
            return abort.outcome

    def delete_key(self, repo: str, key: str) -> DeleteResult:
        with self._write(repo) as cur:
            version, _, checksum, existing = self._current(cur, repo)
            if key not in existing:
                return DeleteResult(False, checksum, version)
            cur.execute("DELETE FROM team_entries WHERE repo = ? AND key = ?", (repo, key))
            del existing[key]
            result = DeleteResult(True, repo_checksum(existing), version + 1)
            self._set_state(cur, repo, result.version, utc_now_iso(), result.checksum)
            return result

    @staticmethod
    def _set_state(cur: Cursor, repo: str, version: int, last_modified: str, checksum: str) -> None:
        cur.execute(
            "UPDATE team_repos SET version = ?, last_modified = ?, checksum = ? WHERE repo = ?",
            (version, last_modified, checksum, repo),
        )

    def create_token(self, repos: Iterable[str], *, admin: bool = False) -> str:
        token = new_token()
        with self._transaction(write=True) as cur:
            cur.execute(
                "INSERT INTO team_tokens (token_hash, repos, admin, created_at) VALUES (?, ?, ?, ?)",
                (hash_token(token), json.dumps(sorted(set(repos))), int(admin), utc_now_iso()),
            )
        return token

    def verify_token(self, token: str) -> TokenScope | None:
        with self._transaction(write=False) as cur:
            cur.execute("SELECT repos, admin FROM team_tokens WHERE token_hash = ?", (hash_token(token),))
            row = cur.fetchone()
        if row is None:
            return None
        return TokenScope(tuple(json.loads(row[0])), bool(row[1]))

    def list_tokens(self) -> list[TokenInfo]:
        with self._transaction(write=False) as cur:
            cur.execute("SELECT token_hash, repos, admin, created_at FROM team_tokens ORDER BY created_at, token_hash")
            rows = cur.fetchall()
        return [_token_info(row) for row in rows]

    def revoke_token(self, token_or_id: str) -> TokenInfo | None:
        if token_or_id.startswith(TOKEN_PREFIX):
            where, param = "token_hash = ?", hash_token(token_or_id)
        else:
            ident = token_or_id.strip().lower()
            if len(ident) < _MIN_ID_PREFIX or any(c not in "0123456789abcdef" for c in ident):
                raise ConfigError(
                    f"{token_or_id!r} is neither a token nor a token id: give the token itself ({TOKEN_PREFIX}...) "
                    f"or at least {_MIN_ID_PREFIX} hex digits of the id that `memdir team token list` shows",
                    rule="token-id",
                )
            # Hex digits only, so the prefix carries no LIKE wildcards.
            where, param = "token_hash LIKE ?", ident + "%"
        with self._transaction(write=True) as cur:
            cur.execute(f"SELECT token_hash, repos, admin, created_at FROM team_tokens WHERE {where}", (param,))
            rows = cur.fetchall()
            if len(rows) > 1:
                raise ConfigError(
                    f"token id {token_or_id!r} matches {len(rows)} tokens; give more digits",
                    rule="token-id",
                )
            if not rows:
                return None
            cur.execute("DELETE FROM team_tokens WHERE token_hash = ?", (rows[0][0],))
        return _token_info(rows[0])


def _token_info(row: Sequence[Any]) -> TokenInfo:
    return TokenInfo(str(row[0])[:TOKEN_ID_CHARS], tuple(json.loads(row[1])), bool(row[2]), str(row[3]))
