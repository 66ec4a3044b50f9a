"""The recorded base of team sync: per key, the content hash this clone last agreed with the server.

Three-way sync needs it to tell "changed here" from "changed there" and "deleted here" from "new
there". It lives in a JSON file beside ``team/`` in the memory directory (so neither a push nor a
memory scan ever sees it, both of which read only ``team/`` or ``*.md``), keyed by server and
repository, and every update happens under the memory directory's lock, so concurrent syncs of
one clone never lose each other's entries.

A sync records the base as keys settle (each batch of a push, every 25 keys of a pull), so a
killed sync resumes where it stopped. Rewriting the whole file each time made a sync of a large
repository quadratic (a 1% push at 100,000 files rewrote a 10 MB file per batch), so a large base
takes its updates as lines appended to a journal beside it (``.team-sync-base.journal``), folded
into the file (replaced atomically) once the journal is as large as the file: each update costs
its own size, amortised. Readers replay the journal over the file; a line torn by a crash is the
last one, and is ignored (it only costs precision: that key's next sync finds the server holding
its text, which is in step whatever the base says). A small base is still rewritten whole.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping

from memdir.store.files import FILE_MODE, atomic_write, ensure_dir, lock_directory

__all__ = ["BASE_FILE_NAME", "JOURNAL_FILE_NAME", "base_path", "load_base", "update_base"]

BASE_FILE_NAME = ".team-sync-base.json"
JOURNAL_FILE_NAME = ".team-sync-base.journal"
_FORMAT = 1
# Up to this many bytes of base (file and journal together) an update rewrites the file whole.
_SMALL = 128 * 1024


def base_path(team_dir: str) -> str:
    return os.path.join(os.path.dirname(team_dir.rstrip(os.sep)), BASE_FILE_NAME)


def _scope(server: str, repo: str) -> str:
    return f"{server.rstrip('/')} {repo}"


def _journal_path(path: str) -> str:
    return os.path.join(os.path.dirname(path), JOURNAL_FILE_NAME)


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _replay(journal: bytes, scopes: dict[str, dict[str, str]]) -> None:
    """Apply the journal's whole lines in order (a line that does not parse is skipped)."""
    for line in journal.split(b"\n")[:-1] if journal else ():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("scope"), str):
            continue
        current = scopes.setdefault(entry["scope"], {})
        changes = entry.get("set")
        if isinstance(changes, dict):
            for key, digest in changes.items():
                if digest is None:
                    current.pop(str(key), None)
                elif isinstance(digest, str):
                    current[str(key)] = digest


def _read_journal(path: str) -> bytes:
    try:
        with open(_journal_path(path), "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _read_all(path: str) -> dict[str, dict[str, str]]:
    """The file with the journal replayed over it. The journal is read first: a fold between the
    two reads then leaves the new file plus the old journal, which replays to the same base."""
    journal = _read_journal(path)
    scopes = _read(path)
    _replay(journal, scopes)
    return scopes


def _read(path: str) -> dict[str, dict[str, str]]:
    try:
        with open(path, encoding="utf-8") as handle:
            body = json.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        # An unreadable base only costs precision (every difference becomes "changed on both
        # sides", which keeps both versions), never content; it is rewritten on the next update.
        return {}
    scopes = body.get("bases") if isinstance(body, dict) else None
    if not isinstance(scopes, dict):
        return {}
    return {
        str(scope): {str(k): v for k, v in keys.items() if isinstance(v, str)}
        for scope, keys in scopes.items()
        if isinstance(keys, dict)
    }


def load_base(team_dir: str, server: str, repo: str) -> dict[str, str]:
    """The recorded base of one server and repository; empty when nothing was ever agreed."""
    return dict(_read_all(base_path(team_dir)).get(_scope(server, repo), {}))


def update_base(team_dir: str, server: str, repo: str, changes: Mapping[str, str | None]) -> None:
    """Set (hash) or forget (None) the base of the given keys: appended to the journal of a large
    base, which is folded into the file once it is as large; a small base is rewritten whole."""
    path = base_path(team_dir)
    directory = os.path.dirname(path)
    ensure_dir(directory)
    with lock_directory(directory):
        if not changes and os.path.exists(path):
            return
        kept, journal = _size(path), _size(_journal_path(path))
        if kept + journal > _SMALL:
            line = json.dumps({"scope": _scope(server, repo), "set": dict(changes)}, ensure_ascii=False)
            _append(_journal_path(path), line.encode("utf-8") + b"\n")
            if journal + len(line) < kept:
                return
            changes = {}
        scopes = _read_all(path)
        current = scopes.setdefault(_scope(server, repo), {})
        for key, digest in changes.items():
            if digest is None:
                current.pop(key, None)
            else:
                current[key] = digest
        payload = json.dumps({"format": _FORMAT, "bases": scopes}, ensure_ascii=False, sort_keys=True)
        atomic_write(path, payload.encode("utf-8"))
        with contextlib.suppress(FileNotFoundError):
            os.remove(_journal_path(path))


def _append(path: str, line: bytes) -> None:
    """One whole line at the journal's end, on disk before the sync goes on. A line left torn by
    an earlier crash is ended first, so this one is read whole."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
    try:
        end = os.fstat(fd).st_size
        if end:
            with open(path, "rb") as handle:
                handle.seek(end - 1)
                if handle.read(1) != b"\n":
                    line = b"\n" + line
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)
