"""The storage contract written once in SQL that SQLite and PostgreSQL both accept.

Subclasses supply connections, transactions and the repo lock; everything else (upsert,
limits, checksums, tokens) lives here so the two back ends cannot drift apart.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from memdir.errors import ConfigError
from memdir.server.storage.base import (
    TOKEN_ID_CHARS,
    TOKEN_PREFIX,
    DeleteResult,
    HistoryEntry,
    PutConflict,
    PutOutcome,
    PutResult,
    PutTooMany,
    RepoState,
    Retention,
    TokenInfo,
    TokenScope,
    hash_token,
    new_token,
    utc_now_iso,
)
from memdir.team.protocol import hash_content, repo_checksum

__all__ = ["ENTRY_AUTHOR_COLUMN", "SCHEMA", "TOKEN_NAME_COLUMN", "Cursor", "SqlStorage"]

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
        by_name TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (repo, key)
    )""",
    """CREATE TABLE IF NOT EXISTS team_tokens (
        token_hash TEXT PRIMARY KEY,
        repos TEXT NOT NULL,
        admin INTEGER NOT NULL,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS team_history (
        repo TEXT NOT NULL,
        key TEXT NOT NULL,
        version BIGINT NOT NULL,
        checksum TEXT NOT NULL,
        content TEXT NOT NULL,
        deleted INTEGER NOT NULL,
        by_name TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (repo, key, version)
    )""",
    "CREATE INDEX IF NOT EXISTS team_history_by_version ON team_history (repo, version)",
    # Tombstones are read on every GET: find a repository's delete rows without scanning its history.
    "CREATE INDEX IF NOT EXISTS team_history_deletes ON team_history (repo, deleted)",
)
TOKEN_NAME_COLUMN = "ALTER TABLE team_tokens ADD COLUMN name TEXT NOT NULL DEFAULT ''"
"""Added after the first release; each back end runs it when the column is missing."""
ENTRY_AUTHOR_COLUMN = (
    "ALTER TABLE team_entries ADD COLUMN by_name TEXT NOT NULL DEFAULT ''",
    "UPDATE team_entries SET by_name = COALESCE((SELECT h.by_name FROM team_history h "
    "WHERE h.repo = team_entries.repo AND h.key = team_entries.key ORDER BY h.version DESC LIMIT 1), '')",
)
"""Who wrote each entry's current version (the token's name), served to clients with the entries;
added after the first release: each back end adds the column when it is missing and fills it once
from the history."""

_TOMBSTONES = (
    "SELECT h.key, h.checksum, h.by_name FROM team_history h WHERE h.repo = ? AND h.deleted = 1 AND NOT EXISTS "
    "(SELECT 1 FROM team_history n WHERE n.repo = h.repo AND n.key = h.key AND n.version > h.version)"
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

    def list_repos(self) -> list[str]:
        with self._transaction(write=False) as cur:
            cur.execute("SELECT repo FROM team_repos ORDER BY repo")
            return [str(row[0]) for row in cur.fetchall()]

    def _load(self, repo: str, *, with_entries: bool) -> RepoState | None:
        with self._transaction(write=False) as cur:
            cur.execute("SELECT version, last_modified, checksum FROM team_repos WHERE repo = ?", (repo,))
            row = cur.fetchone()
            if row is None:
                return None
            columns = "key, checksum, by_name, content" if with_entries else "key, checksum, by_name, ''"
            cur.execute(f"SELECT {columns} FROM team_entries WHERE repo = ? ORDER BY key", (repo,))
            rows = cur.fetchall()
            cur.execute(_TOMBSTONES, (repo,))
            deleted = cur.fetchall()
        tombstones = {str(key): str(digest) for key, digest, _ in deleted}
        authors = {str(r[0]): str(r[2]) for r in rows if r[2]}
        authors.update((str(key), str(by)) for key, _, by in deleted if by)
        if not rows and not tombstones:
            return None
        return RepoState(
            repo=repo,
            version=int(row[0]),
            last_modified=str(row[1]),
            checksum=str(row[2]),
            entry_checksums={str(r[0]): str(r[1]) for r in rows},
            entries={str(r[0]): str(r[3]) for r in rows} if with_entries else {},
            tombstones=tombstones,
            authors=authors,
        )

    @staticmethod
    def _current(cur: Cursor, repo: str) -> tuple[int, str, str, dict[str, str]]:
        cur.execute("SELECT version, last_modified, checksum FROM team_repos WHERE repo = ?", (repo,))
        version, last_modified, checksum = cur.fetchone()
        cur.execute("SELECT key, checksum FROM team_entries WHERE repo = ?", (repo,))
        existing = {str(key): str(digest) for key, digest in cur.fetchall()}
        return int(version), str(last_modified), str(checksum), existing

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
        try:
            with self._write(repo) as cur:
                version, last_modified, checksum, existing = self._current(cur, repo)
                if if_match is not None and if_match != checksum:
                    touched = [*entries, *deletions]
                    if base_checksums is None or any(
                        key not in base_checksums or existing.get(key, "") != base_checksums[key] for key in touched
                    ):
                        raise _Abort(PutConflict(checksum))
                hashes = {key: hash_content(content) for key, content in entries.items()}
                merged = {**existing, **hashes}
                removed = tuple(sorted(key for key in set(deletions) if key in existing))
                for key in removed:
                    del merged[key]
                if len(merged) > max_entries and len(merged) > len(existing):
                    raise _Abort(PutTooMany(max_entries, len(merged)))
                changed = tuple(key for key in sorted(hashes) if existing.get(key) != hashes[key])
                if not changed and not removed:
                    return PutResult(checksum, version, last_modified, (), tuple(sorted(set(deletions))))
                result = PutResult(
                    repo_checksum(merged), version + 1, utc_now_iso(), changed, tuple(sorted(set(deletions)))
                )
                for key in changed:
                    cur.execute(
                        "INSERT INTO team_entries (repo, key, content, checksum, by_name) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT (repo, key) DO UPDATE SET content = excluded.content, "
                        "checksum = excluded.checksum, by_name = excluded.by_name",
                        (repo, key, entries[key], hashes[key], by),
                    )
                    self._record(cur, repo, key, result.version, hashes[key], entries[key], False, by, result)
                for key in removed:
                    self._delete_entry(cur, repo, key, existing[key], result.version, by, result.last_modified)
                self._set_state(cur, repo, result.version, result.last_modified, result.checksum)
                self._prune(cur, repo, [*changed, *removed], retention)
                return result
        except _Abort as abort:
            return abort.outcome

    def _delete_entry(self, cur: Cursor, repo: str, key: str, checksum: str, version: int, by: str, at: str) -> None:
        """Delete one entry, recording its last content in the history (the tombstone)."""
        cur.execute("SELECT content FROM team_entries WHERE repo = ? AND key = ?", (repo, key))
        (content,) = cur.fetchone()
        cur.execute("DELETE FROM team_entries WHERE repo = ? AND key = ?", (repo, key))
        cur.execute(
            "INSERT INTO team_history (repo, key, version, checksum, content, deleted, by_name, at) "
            "VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
            (repo, key, version, checksum, str(content), by, at),
        )

    @staticmethod
    def _record(
        cur: Cursor,
        repo: str,
        key: str,
        version: int,
        checksum: str,
        content: str,
        deleted: bool,
        by: str,
        result: PutResult,
    ) -> None:
        cur.execute(
            "INSERT INTO team_history (repo, key, version, checksum, content, deleted, by_name, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (repo, key, version, checksum, content, int(deleted), by, result.last_modified),
        )

    @staticmethod
    def _prune(cur: Cursor, repo: str, keys: Sequence[str], retention: Retention | None) -> None:
        """Apply the retention setting; a key's newest row (its tombstone when deleted) always stays."""
        if retention is None:
            return
        if retention.keep_versions is not None:
            for key in keys:
                cur.execute(
                    "DELETE FROM team_history WHERE repo = ? AND key = ? AND version NOT IN "
                    "(SELECT version FROM team_history WHERE repo = ? AND key = ? ORDER BY version DESC LIMIT ?)",
                    (repo, key, repo, key, max(1, retention.keep_versions)),
                )
        if retention.keep_days is not None:
            cutoff = datetime.now(UTC) - timedelta(days=retention.keep_days)
            cur.execute(
                "DELETE FROM team_history WHERE repo = ? AND at < ? AND version < "
                "(SELECT MAX(n.version) FROM team_history n "
                "WHERE n.repo = team_history.repo AND n.key = team_history.key)",
                (repo, cutoff.isoformat(timespec="milliseconds").replace("+00:00", "Z")),
            )

    def delete_key(self, repo: str, key: str, *, by: str = "", retention: Retention | None = None) -> DeleteResult:
        with self._write(repo) as cur:
            version, _, checksum, existing = self._current(cur, repo)
            if key not in existing:
                return DeleteResult(False, checksum, version)
            at = utc_now_iso()
            self._delete_entry(cur, repo, key, existing[key], version + 1, by, at)
            del existing[key]
            result = DeleteResult(True, repo_checksum(existing), version + 1)
            self._set_state(cur, repo, result.version, at, result.checksum)
            self._prune(cur, repo, [key], retention)
            return result

    def history(self, repo: str, key: str | None = None, *, limit: int = 100) -> list[HistoryEntry]:
        where, params = ("repo = ?", [repo]) if key is None else ("repo = ? AND key = ?", [repo, key])
        with self._transaction(write=False) as cur:
            cur.execute(
                f"SELECT key, version, checksum, by_name, at, deleted FROM team_history WHERE {where} "
                "ORDER BY version DESC, key LIMIT ?",
                (*params, max(0, limit)),
            )
            rows = cur.fetchall()
        return [HistoryEntry(str(r[0]), int(r[1]), str(r[2]), str(r[3]), str(r[4]), bool(r[5])) for r in rows]

    def history_entry(
        self, repo: str, key: str, *, version: int | None = None, checksum: str | None = None
    ) -> HistoryEntry | None:
        columns = "key, version, checksum, by_name, at, deleted, content"
        with self._transaction(write=False) as cur:
            if version is not None:
                cur.execute(
                    f"SELECT {columns} FROM team_history WHERE repo = ? AND key = ? AND version = ?",
                    (repo, key, version),
                )
            else:
                cur.execute(
                    f"SELECT {columns} FROM team_history WHERE repo = ? AND key = ? AND checksum = ? "
                    "ORDER BY version DESC LIMIT 1",
                    (repo, key, checksum or ""),
                )
            row = cur.fetchone()
        if row is None:
            return None
        return HistoryEntry(str(row[0]), int(row[1]), str(row[2]), str(row[3]), str(row[4]), bool(row[5]), str(row[6]))

    def ping(self) -> None:
        with self._transaction(write=False) as cur:
            cur.execute("SELECT 1")
            cur.fetchone()

    @staticmethod
    def _set_state(cur: Cursor, repo: str, version: int, last_modified: str, checksum: str) -> None:
        cur.execute(
            "UPDATE team_repos SET version = ?, last_modified = ?, checksum = ? WHERE repo = ?",
            (version, last_modified, checksum, repo),
        )

    def create_token(self, repos: Iterable[str], *, admin: bool = False, name: str = "") -> str:
        token = new_token()
        with self._transaction(write=True) as cur:
            cur.execute(
                "INSERT INTO team_tokens (token_hash, repos, admin, created_at, name) VALUES (?, ?, ?, ?, ?)",
                (hash_token(token), json.dumps(sorted(set(repos))), int(admin), utc_now_iso(), name),
            )
        return token

    def verify_token(self, token: str) -> TokenScope | None:
        with self._transaction(write=False) as cur:
            cur.execute("SELECT repos, admin, name FROM team_tokens WHERE token_hash = ?", (hash_token(token),))
            row = cur.fetchone()
        if row is None:
            return None
        return TokenScope(tuple(json.loads(row[0])), bool(row[1]), str(row[2]))

    def list_tokens(self) -> list[TokenInfo]:
        with self._transaction(write=False) as cur:
            cur.execute(
                "SELECT token_hash, repos, admin, created_at, name FROM team_tokens ORDER BY created_at, token_hash"
            )
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
            cur.execute(f"SELECT token_hash, repos, admin, created_at, name FROM team_tokens WHERE {where}", (param,))
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
    return TokenInfo(str(row[0])[:TOKEN_ID_CHARS], tuple(json.loads(row[1])), bool(row[2]), str(row[3]), str(row[4]))
