"""The local half of team sync: reading ``team/`` for a push and writing a pull into it.

Every key that arrives from a server is checked twice (the wire rules of
:func:`memdir.team.protocol.validate_key`, then :func:`memdir.containment.validate_team_mem_key`
against the real directory), so a hostile server cannot write outside ``team/``. Writes go through
:func:`memdir.store.files.atomic_write`, so a pull interrupted at any moment leaves whole files.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass

from memdir.containment import validate_team_mem_key
from memdir.errors import MemdirError
from memdir.store.files import LOCK_NAME, atomic_write, lock_directory
from memdir.team.protocol import MAX_ENTRY_BYTES, validate_key
from memdir.team.secrets import scan_for_secrets
from memdir.team.state import SecretSkip, SkippedFile

__all__ = ["LocalTeamMemory", "PullWrite", "is_sync_ignored", "read_local_team_memory", "write_pulled_entries"]


def is_sync_ignored(name: str) -> bool:
    """memdir's own lock file and atomic-write temp files are never team memory."""
    return name == LOCK_NAME or ".tmp." in name


@dataclass(frozen=True)
class LocalTeamMemory:
    entries: Mapping[str, str]
    secrets: tuple[SecretSkip, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    capped: int = 0


def _read_regular(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        return handle.read(MAX_ENTRY_BYTES + 1)


def _local_files(team_dir: str) -> list[tuple[str, str]]:
    """``(key, absolute path)`` of every regular file; symlinked files and folders are not followed."""
    found: list[tuple[str, str]] = []
    for directory, _dirs, files in os.walk(team_dir, followlinks=False):
        for name in files:
            path = os.path.join(directory, name)
            key = os.path.relpath(path, team_dir).replace(os.sep, "/")
            found.append((key, path))
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


def read_local_team_memory(team_dir: str, max_entries: int | None = None) -> LocalTeamMemory:
    """Every pushable file of ``team/``, keys sorted; secrets are left out and reported by label.

    With ``max_entries`` (learned from a server's 413) only the first N keys in sorted order are
    kept, as the reference client does, so the push can still succeed for most files.
    """
    entries: dict[str, str] = {}
    secrets: list[SecretSkip] = []
    skipped: list[SkippedFile] = []
    if not os.path.isdir(team_dir):
        return LocalTeamMemory({})
    for key, path in sorted(_local_files(team_dir)):
        outcome = _classify(key, path)
        if outcome is None:
            continue
        if isinstance(outcome, SkippedFile):
            skipped.append(outcome)
            continue
        findings = scan_for_secrets(outcome)
        if findings:
            secrets.append(SecretSkip(key, tuple(finding.label for finding in findings)))
            continue
        entries[key] = outcome
    capped = 0
    if max_entries is not None and len(entries) > max_entries:
        kept = sorted(entries)[:max_entries]
        capped = len(entries) - len(kept)
        entries = {key: entries[key] for key in kept}
    return LocalTeamMemory(entries, tuple(secrets), tuple(skipped), capped)


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


def write_pulled_entries(team_dir: str, entries: Mapping[str, str]) -> PullWrite:
    """Write a pull into ``team/``: the server wins per key, identical files keep their mtime.

    Holds the memory directory's lock so a pulled file never interleaves with a local save of the
    same file or of ``team/MEMORY.md``.
    """
    written: list[str] = []
    skipped: list[SkippedFile] = []
    unchanged = 0
    team_dir = team_dir.rstrip(os.sep) + os.sep
    with lock_directory(os.path.dirname(team_dir.rstrip(os.sep))):
        for key in sorted(entries):
            content = entries[key]
            if is_sync_ignored(key.rsplit("/", 1)[-1]):
                skipped.append(SkippedFile(key, "reserved-name", "memdir's lock and temp file names are not synced"))
                continue
            payload = content.encode("utf-8", "surrogatepass")
            if len(payload) > MAX_ENTRY_BYTES:
                skipped.append(
                    SkippedFile(key, "too-large", f"{len(payload)} bytes, over the {MAX_ENTRY_BYTES}-byte limit")
                )
                continue
            target = _check_key(team_dir, key)
            if isinstance(target, SkippedFile):
                skipped.append(target)
                continue
            if _identical(target, payload):
                unchanged += 1
                continue
            try:
                atomic_write(target, payload)
            except OSError as exc:
                skipped.append(SkippedFile(key, "write-failed", f"{target}: {exc.strerror or exc}"))
                continue
            written.append(key)
    return PullWrite(tuple(written), unchanged, tuple(skipped))
