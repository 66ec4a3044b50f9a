"""Wire format of team-memory sync, shared by the client and the server. Pure: no I/O.

The shapes are those of Claude Code's team-memory API (GET/PUT on one path, ETag = repo checksum,
structured 413), so a memdir client can talk to either server. Everything that arrives from the
network is parsed here once into frozen values; a malformed body raises :class:`SyncError` with the
``sync-protocol`` rule, a bad key raises :class:`UnsafePathError`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memdir.errors import PathTraversalError, SyncError, UnsafePathError
from memdir.model.keys import sanitize_path_key
from memdir.model.markup import describe_markup
from memdir.model.printable import printable, unprintable_characters

__all__ = [
    "API_PATH",
    "MAX_ENTRY_BYTES",
    "MAX_KEY_BYTES",
    "MAX_PUT_BODY_BYTES",
    "MAX_SEGMENT_BYTES",
    "TOO_MANY_ENTRIES_CODE",
    "PutRequest",
    "PutResponse",
    "TeamMemorySnapshot",
    "TooManyEntries",
    "batch_delta_by_bytes",
    "error_body",
    "format_etag",
    "hash_content",
    "parse_etag",
    "parse_put_request",
    "parse_put_response",
    "parse_snapshot",
    "parse_too_many_entries",
    "repo_checksum",
    "validate_key",
    "validate_repo",
]

API_PATH = "/api/claude_code/team_memory"
MAX_ENTRY_BYTES = 250_000
MAX_PUT_BODY_BYTES = 200_000
MAX_KEY_BYTES = 1024
MAX_SEGMENT_BYTES = 255
TOO_MANY_ENTRIES_CODE = "team_memory_too_many_entries"

_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_EMPTY_BATCH_BYTES = len(b'{"entries":{}}')


def hash_content(content: str) -> str:
    """``sha256:<hex>`` of the UTF-8 bytes; must equal the server's entry checksums byte for byte."""
    return "sha256:" + hashlib.sha256(content.encode("utf-8")).hexdigest()


def repo_checksum(entry_checksums: Mapping[str, str]) -> str:
    """Checksum (and ETag) of a whole repo: sha256 over its sorted ``(key, entry checksum)`` pairs.

    An empty repo has the checksum of the empty string, so a client that saw it can still send it
    as ``If-Match``.
    """
    joined = "".join(f"{key}\0{entry_checksums[key]}\n" for key in sorted(entry_checksums))
    return hash_content(joined)


def format_etag(checksum: str) -> str:
    return f'"{checksum}"'


def parse_etag(header: str | None) -> str | None:
    """The checksum inside an ``ETag``/``If-Match``/``If-None-Match`` value, quotes and ``W/`` removed."""
    if header is None:
        return None
    value = header.strip()
    if value.startswith("W/"):
        value = value[2:]
    value = value.strip('"')
    return value or None


def validate_key(key: str) -> str:
    """Return ``key`` when it is a safe relative path inside team/, else raise naming the rule.

    :func:`sanitize_path_key` covers NUL, encoded and Unicode traversal, backslashes and absolute
    keys; the server has no directory to resolve against, so ``..``/``.`` segments, empty segments
    and over-long keys are refused here instead of by a realpath check. So are keys with a control
    character or another unprintable code point (ESC, BEL, CR, a zero-width or bidirectional
    mark): every listing would print them to someone's terminal. And keys that read as a prompt
    tag (``</system-reminder>x.md``): a key is a link target in ``team/MEMORY.md``, which cannot be
    neutralised without breaking the link.
    """
    if not key:
        raise UnsafePathError("team key is empty; give a relative path such as 'notes.md'", rule="key-empty")
    sanitize_path_key(key)
    if key.endswith("/"):
        raise UnsafePathError(
            f"team key {key!r} ends with '/'; a key names a file, not a folder",
            rule="key-trailing-slash",
            path=key,
        )
    try:
        key_bytes = key.encode("utf-8")
    except UnicodeEncodeError:
        raise UnsafePathError(
            f"team key {key!r} is not valid Unicode text (it holds a lone surrogate); rename the file",
            rule="key-not-utf8",
            path=key,
        ) from None
    if not key.isprintable():
        shown = " ".join(unprintable_characters(key))
        raise UnsafePathError(
            f"team key '{printable(key)}' holds unprintable characters ({shown}): control characters such as "
            "ESC, BEL or CR would act on the terminal of whoever lists it; rename the file with printable characters",
            rule="key-unprintable",
            path=key,
        )
    if tag := describe_markup(key):
        raise UnsafePathError(
            f"team key '{key}' reads as a prompt tag ({tag}): its index line would carry the tag into every "
            "teammate's prompt; rename the file without angle brackets",
            rule="key-markup",
            path=key,
        )
    if len(key_bytes) > MAX_KEY_BYTES:
        raise UnsafePathError(
            f"team key {key[:60]!r}... is longer than {MAX_KEY_BYTES} UTF-8 bytes; shorten the path",
            rule="key-too-long",
            path=key,
        )
    for segment in key.split("/"):
        if segment in ("..", "."):
            raise PathTraversalError(
                f"team key {key!r} contains a {segment!r} segment; keys must stay inside team/",
                rule="key-dot-segment",
                path=key,
            )
        if not segment:
            raise UnsafePathError(
                f"team key {key!r} has an empty segment ('//'); remove the doubled slash",
                rule="key-empty-segment",
                path=key,
            )
        if len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES:
            raise UnsafePathError(
                f"team key {key!r} has a segment longer than {MAX_SEGMENT_BYTES} UTF-8 bytes",
                rule="key-too-long",
                path=key,
            )
    return key


def validate_repo(repo: str) -> str:
    """Return ``owner/name`` unchanged when well formed, else raise."""
    if not _REPO.fullmatch(repo) or any(part in (".", "..") for part in repo.split("/")):
        raise SyncError(
            f"repository {repo!r} is not of the form OWNER/NAME (letters, digits, '.', '_', '-')",
            rule="sync-repo",
        )
    return repo


def _protocol_error(what: str, problem: str) -> SyncError:
    return SyncError(f"invalid team-memory {what}: {problem}", rule="sync-protocol")


def _string_map(value: object, what: str, name: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise _protocol_error(what, f"{name} must be an object of strings")
    for key, item in value.items():
        if not isinstance(item, str):
            raise _protocol_error(what, f"{name}[{key!r}] must be a string, got {type(item).__name__}")
    return dict(value)


def _field(body: Mapping[str, Any], name: str, kind: type, what: str) -> Any:
    value = body.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _protocol_error(what, f"{name!r} must be {kind.__name__}, got {type(value).__name__}")
    return value


@dataclass(frozen=True)
class TeamMemorySnapshot:
    """Body of ``GET`` (entries) or ``GET ?view=hashes`` (``entries`` empty, checksums present)."""

    organization_id: str
    repo: str
    version: int
    last_modified: str
    checksum: str
    entries: Mapping[str, str] = field(default_factory=dict)
    entry_checksums: Mapping[str, str] | None = None
    tombstones: Mapping[str, str] | None = None
    """memdir extension: deleted keys and the checksum each had when deleted, so a client that
    was away (or has no recorded base) tells "deleted there" from "new here"."""
    entry_authors: Mapping[str, str] | None = None
    """memdir extension: per key (an entry, or a tombstone), the name of the token that wrote its
    current version (or deleted it), so a pull records who made the change it applies. Absent from
    an older server, and for keys written before the server kept names."""

    def to_json(self, *, include_entries: bool = True) -> dict[str, Any]:
        content: dict[str, Any] = {}
        if include_entries:
            content["entries"] = dict(self.entries)
        if self.entry_checksums is not None:
            content["entryChecksums"] = dict(self.entry_checksums)
        if self.tombstones is not None:
            content["tombstones"] = dict(self.tombstones)
        if self.entry_authors:
            content["entryAuthors"] = dict(self.entry_authors)
        return {
            "organizationId": self.organization_id,
            "repo": self.repo,
            "version": self.version,
            "lastModified": self.last_modified,
            "checksum": self.checksum,
            "content": content,
        }


def parse_snapshot(body: object, *, hashes_only: bool = False) -> TeamMemorySnapshot:
    what = "hashes response" if hashes_only else "pull response"
    if not isinstance(body, dict):
        raise _protocol_error(what, "body must be a JSON object")
    content = body.get("content")
    if not isinstance(content, dict):
        raise _protocol_error(what, "'content' must be an object")
    entries = {} if hashes_only else _string_map(content.get("entries"), what, "content.entries")
    raw_checksums = content.get("entryChecksums")
    if raw_checksums is None and hashes_only:
        raise _protocol_error(what, "'content.entryChecksums' is missing")
    checksums = None if raw_checksums is None else _string_map(raw_checksums, what, "content.entryChecksums")
    raw_tombstones = content.get("tombstones")
    tombstones = None if raw_tombstones is None else _string_map(raw_tombstones, what, "content.tombstones")
    raw_authors = content.get("entryAuthors")
    authors = None if raw_authors is None else _string_map(raw_authors, what, "content.entryAuthors")
    return TeamMemorySnapshot(
        organization_id=_field(body, "organizationId", str, what),
        repo=_field(body, "repo", str, what),
        version=_field(body, "version", int, what),
        last_modified=_field(body, "lastModified", str, what),
        checksum=_field(body, "checksum", str, what),
        entries=entries,
        entry_checksums=checksums,
        tombstones=tombstones,
        entry_authors=authors,
    )


@dataclass(frozen=True)
class PutRequest:
    """One push batch. ``deletions`` and ``base_checksums`` are memdir extensions (a Claude Code
    server ignores them): keys to delete, and per key the checksum the client last agreed with the
    server (``""`` for a key it believes absent), so a push whose ``If-Match`` is stale only because
    other keys moved can still be accepted without overwriting anything it has not seen."""

    entries: Mapping[str, str]
    deletions: tuple[str, ...] = ()
    base_checksums: Mapping[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"entries": dict(self.entries)}
        if self.deletions:
            body["deletions"] = list(self.deletions)
        if self.base_checksums is not None:
            body["baseChecksums"] = dict(self.base_checksums)
        return body


def parse_put_request(body: object) -> PutRequest:
    """Shape check only; keys are checked one by one with :func:`validate_key` by the caller."""
    if not isinstance(body, dict):
        raise _protocol_error("push body", "body must be a JSON object")
    entries = _string_map(body.get("entries"), "push body", "entries")
    raw_deletions = body.get("deletions", [])
    if not isinstance(raw_deletions, list) or not all(isinstance(key, str) for key in raw_deletions):
        raise _protocol_error("push body", "'deletions' must be a list of keys")
    deletions = tuple(dict.fromkeys(raw_deletions))
    if set(deletions) & set(entries):
        raise _protocol_error("push body", "a key cannot be both written and deleted in one push")
    raw_bases = body.get("baseChecksums")
    bases = None if raw_bases is None else _string_map(raw_bases, "push body", "baseChecksums")
    return PutRequest(entries, deletions, bases)


@dataclass(frozen=True)
class PutResponse:
    checksum: str
    last_modified: str
    version: int
    deleted: tuple[str, ...] | None = None
    """Keys the server deleted; None from a server that does not know deletions."""
    author: str | None = None
    """memdir extension: the name of the token that made this write, as the pull's
    ``entryAuthors`` will say; None from an older server or for an unnamed token."""

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"checksum": self.checksum, "lastModified": self.last_modified, "version": self.version}
        if self.deleted is not None:
            body["deleted"] = list(self.deleted)
        if self.author:
            body["author"] = self.author
        return body


def parse_put_response(body: object) -> PutResponse:
    if not isinstance(body, dict):
        raise _protocol_error("push response", "body must be a JSON object")
    version = body.get("version", 0)
    deleted = body.get("deleted")
    return PutResponse(
        checksum=_field(body, "checksum", str, "push response"),
        last_modified=str(body.get("lastModified", "")),
        version=version if isinstance(version, int) else 0,
        deleted=tuple(k for k in deleted if isinstance(k, str)) if isinstance(deleted, list) else None,
        author=author if isinstance(author := body.get("author"), str) and author else None,
    )


def error_body(code: str, message: str, **details: object) -> dict[str, Any]:
    """The one error envelope the server answers with: ``{"error": {"message", "details"}}``."""
    return {"error": {"message": message, "details": {"error_code": code, **details}}}


@dataclass(frozen=True)
class TooManyEntries:
    max_entries: int
    received_entries: int

    def to_json(self) -> dict[str, Any]:
        return error_body(
            TOO_MANY_ENTRIES_CODE,
            f"the repository would hold {self.received_entries} team-memory entries; "
            f"the server allows at most {self.max_entries}",
            max_entries=self.max_entries,
            received_entries=self.received_entries,
        )


def parse_too_many_entries(body: object) -> TooManyEntries | None:
    """The structured 413 of the entry limit, or None for any other 413 body."""
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    if not isinstance(details, dict) or details.get("error_code") != TOO_MANY_ENTRIES_CODE:
        return None
    limit, received = details.get("max_entries"), details.get("received_entries")
    if not isinstance(limit, int) or isinstance(limit, bool):
        return None
    return TooManyEntries(limit, received if isinstance(received, int) else 0)


def _json_bytes(value: str) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))


def batch_delta_by_bytes(delta: Mapping[str, str | None], max_bytes: int = MAX_PUT_BODY_BYTES) -> list[list[str]]:
    """Split the keys of a push into PUT-sized batches, keys sorted, greedy, oversize entries alone.

    A None value is a deletion; it is counted twice (in ``deletions`` and ``baseChecksums``)."""
    batches: list[list[str]] = []
    current: list[str] = []
    size = _EMPTY_BATCH_BYTES + len(b',"deletions":[],"baseChecksums":{}')
    for key in sorted(delta):
        value = delta[key]
        entry = 2 * _json_bytes(key) + 76 + (_json_bytes(value) + 2 if value is not None else 0)
        if current and size + entry > max_bytes:
            batches.append(current)
            current, size = [], _EMPTY_BATCH_BYTES + len(b',"deletions":[],"baseChecksums":{}')
        current.append(key)
        size += entry
    if current:
        batches.append(current)
    return batches
