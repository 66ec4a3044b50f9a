"""The local half of team sync: reading ``team/`` for a push and writing a pull into it.

Every key that arrives from a server is checked twice (the wire rules of
:func:`memdir.team.protocol.validate_key`, then :func:`memdir.containment.validate_team_mem_key`
against the real directory), so a hostile server cannot write outside ``team/``. Writes go through
:func:`memdir.store.files.atomic_write`, so a pull interrupted at any moment leaves whole files.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from memdir.containment import validate_team_mem_key
from memdir.errors import MemdirError
from memdir.store.files import LOCK_NAME, atomic_write, lock_directory, remove_file
from memdir.team.protocol import MAX_ENTRY_BYTES, hash_content, validate_key
from memdir.team.secrets import scan_for_secrets
from memdir.team.state import SecretSkip, SkippedFile

__all__ = [
    "LocalOp",
    "LocalTeamMemory",
    "PullWrite",
    "apply_local",
    "is_sync_ignored",
    "read_local_team_memory",
    "team_by",
]


def is_sync_ignored(name: str) -> bool:
    """memdir's own lock file and atomic-write temp files are never team memory."""
    return name == LOCK_NAME or ".tmp." in name


@dataclass(frozen=True)
class LocalTeamMemory:
    entries: Mapping[str, str]
    secrets: tuple[SecretSkip, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    capped: int = 0
    capped_keys: tuple[str, ...] = ()
    hashes: Mapping[str, str] = field(default_factory=dict)  # each entry's content hash (the protocol's)

    @property
    def unpushable(self) -> frozenset[str]:
        """Keys present here that are not read for a push: never to be taken for deletions."""
        return frozenset(
            [skip.file for skip in self.secrets] + [skip.file for skip in self.skipped] + list(self.capped_keys)
        )


def _read_regular(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        return handle.read(MAX_ENTRY_BYTES + 1)


def _local_files(team_dir: str) -> list[tuple[str, str]]:
    """``(key, absolute path)`` of every regular file; symlinked files and folders are not followed."""
    found: list[tuple[str, str]] = []
    # Keys by cutting the walk's own prefix off each directory: ``os.path.relpath`` per file was a
    # sixth of a push's time on a large team folder.
    top = os.path.normpath(team_dir)
    for directory, _dirs, files in os.walk(top, followlinks=False):
        rel = os.path.relpath(directory, top)
        prefix = "" if rel == os.curdir else rel.replace(os.sep, "/") + "/"
        for name in files:
            found.append((prefix + name, os.path.join(directory, name)))
    return found


def _classify(key: str, path: str) -> str | SkippedFile | None:
    """The file's text, a reason to skip it, or None when it is not a file we consider at all."""
    if is_sync_ignored(os.path.basename(key)):
        return None
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return SkippedFile(key, "symlink", "symbolic links are not synced")
    if not stat.S_ISREG(info.st_mode):
        return None
    if info.st_size > MAX_ENTRY_BYTES:
        return SkippedFile(key, "too-large", f"{info.st_size} bytes, over the {MAX_ENTRY_BYTES}-byte limit")
    try:
        validate_key(key)
        raw = _read_regular(path)
    except MemdirError as exc:
        return SkippedFile(key, exc.rule, exc.message)
    except OSError as exc:
        return SkippedFile(key, "unreadable", exc.strerror or str(exc))
    if len(raw) > MAX_ENTRY_BYTES:
        return SkippedFile(key, "too-large", f"over the {MAX_ENTRY_BYTES}-byte limit")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return SkippedFile(key, "not-utf8", "not UTF-8 text")
    if "\0" in text:
        return SkippedFile(key, "content-nul", "contains a NUL byte; team memory holds text files only")
    return text


def read_local_team_memory(
    team_dir: str, max_entries: int | None = None, *, on_server: Mapping[str, str] | None = None
) -> LocalTeamMemory:
    """Every pushable file of ``team/``, keys sorted; secrets are left out and reported by label.

    With ``max_entries`` (learned from a server's 413) only the first N keys in sorted order are
    kept, as the reference client does, so the push can still succeed for most files.

    ``on_server``: per key, the content hash of the text the server holds now, when it is also the
    one this clone last agreed with. A file whose text has exactly that hash is not scanned for
    secrets again (nothing of it is sent: the server has these bytes already), since scanning every
    file was most of the cost of a small push from a large folder; any other text is scanned.
    """
    entries: dict[str, str] = {}
    hashes: dict[str, str] = {}
    secrets: list[SecretSkip] = []
    skipped: list[SkippedFile] = []
    if not os.path.isdir(team_dir):
        return LocalTeamMemory({})
    known = on_server or {}
    for key, path in sorted(_local_files(team_dir)):
        outcome = _classify(key, path)
        if outcome is None:
            continue
        if isinstance(outcome, SkippedFile):
            skipped.append(outcome)
            continue
        digest = hash_content(outcome)
        if known.get(key) != digest:
            findings = scan_for_secrets(key) + scan_for_secrets(outcome)
            if findings:
                secrets.append(SecretSkip(key, tuple(finding.label for finding in findings)))
                continue
        entries[key] = outcome
        hashes[key] = digest
    capped: tuple[str, ...] = ()
    if max_entries is not None and len(entries) > max_entries:
        ordered = sorted(entries)
        capped = tuple(ordered[max_entries:])
        entries = {key: entries[key] for key in ordered[:max_entries]}
        hashes = {key: hashes[key] for key in entries}
    return LocalTeamMemory(entries, tuple(secrets), tuple(skipped), len(capped), capped, hashes)


@dataclass(frozen=True)
class PullWrite:
    written: tuple[str, ...]
    unchanged: int
    skipped: tuple[SkippedFile, ...]


def _identical(path: str, payload: bytes) -> bool:
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(payload):
            return False
        with open(path, "rb") as handle:
            return handle.read(len(payload) + 1) == payload
    except OSError:
        return False


def _check_key(team_dir: str, key: str) -> str | SkippedFile:
    try:
        validate_key(key)
        return validate_team_mem_key(team_dir, key)
    except MemdirError as exc:
        return SkippedFile(key, exc.rule, exc.message)


@dataclass(frozen=True)
class LocalOp:
    """One change to ``team/`` decided by a sync: write ``content`` (or delete, when None) at
    ``key``, but only if the file still is what was classified (``expected`` hash, None = absent)."""

    key: str
    expected: str | None
    content: str | None
    by: str | None = None
    """Who the local history records as making this change (``team:<token name>``); None keeps
    the caller's provenance."""


def team_by(author: str | None, repo: str) -> str:
    """The history's ``by`` for a change a pull takes in: ``team:<token name>`` when the server
    named who wrote it, else ``team:<repository>`` (an older server, an unnamed token). A name that
    could not have been given to a token (unprintable, over 200 bytes) is not trusted."""
    if author and author.isprintable() and len(author.encode("utf-8", "surrogatepass")) <= 200:
        return f"team:{author}"
    return f"team:{repo}"


def _acting(by: str | None) -> contextlib.AbstractContextManager[object]:
    if by is None:
        return contextlib.nullcontext()
    from memdir.store.provenance import acting_as, current

    outer = current()  # same run: undoing the pull undoes every file it wrote
    return acting_as(by, run=outer.run, label=outer.label)


def _current_hash(path: str) -> str | None:
    from memdir.team.protocol import hash_content

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return "not-a-file"
    try:
        return hash_content(_read_regular(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return "unreadable"


class _ChangedDuringSync(MemdirError):
    """A file a sync was about to replace or delete no longer holds what the sync classified."""

    rule = "changed-during-sync"


def _unchanged(target: str, expected: str | None) -> Callable[[], None]:
    """The check :func:`atomic_write` and :func:`remove_file` make just before they replace or
    remove ``target``: it must still have the hash the sync classified (None: absent)."""

    def check() -> None:
        if _current_hash(target) != expected:
            raise _ChangedDuringSync("edited while syncing; left as it is for the next sync", path=target)

    return check


def apply_local(team_dir: str, ops: list[LocalOp]) -> PullWrite:
    """Apply a sync's local changes under the memory directory's lock.

    Each file is checked against the hash it was classified with, again just before it is replaced
    or deleted (after the history kept what is there), so an edit saved while the sync talked to
    the server, or by an editor that takes no lock while the sync writes, is never overwritten:
    that key is reported as skipped (rule ``changed-during-sync``) and the next sync sees the edit.
    """
    written: list[str] = []
    skipped: list[SkippedFile] = []
    unchanged = 0
    team_dir = team_dir.rstrip(os.sep) + os.sep
    with lock_directory(os.path.dirname(team_dir.rstrip(os.sep))):
        for op in sorted(ops, key=lambda op: op.key):
            if is_sync_ignored(op.key.rsplit("/", 1)[-1]):
                skipped.append(SkippedFile(op.key, "reserved-name", "memdir's lock and temp file names are not synced"))
                continue
            target = _check_key(team_dir, op.key)
            if isinstance(target, SkippedFile):
                skipped.append(target)
                continue
            payload = None if op.content is None else op.content.encode("utf-8", "surrogatepass")
            if payload is not None and len(payload) > MAX_ENTRY_BYTES:
                skipped.append(
                    SkippedFile(op.key, "too-large", f"{len(payload)} bytes, over the {MAX_ENTRY_BYTES}-byte limit")
                )
                continue
            check = _unchanged(target, op.expected)
            try:
                check()
                if payload is not None and _identical(target, payload):
                    unchanged += 1
                    continue
                with _acting(op.by):
                    if payload is None:
                        remove_file(target, check=check)
                    else:
                        atomic_write(target, payload, check=check)
            except _ChangedDuringSync as exc:
                skipped.append(SkippedFile(op.key, exc.rule, exc.message))
                continue
            except OSError as exc:
                failed = "delete-failed" if payload is None else "write-failed"
                skipped.append(SkippedFile(op.key, failed, f"{target}: {exc.strerror or exc}"))
                continue
            written.append(op.key)
    return PullWrite(tuple(written), unchanged, tuple(skipped))
