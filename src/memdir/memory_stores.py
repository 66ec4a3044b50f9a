"""Claude Code's memory stores (``CLAUDE_MEMORY_STORES``, 2.1.172 and later), as memdir sees them.

Claude Code mounts each store of that JSON list under ``team/<mount>/`` of the memory directory,
read-write (``"rw"``, the default) or read-only (``"ro"``). An entry is a store path or an object
``{"path", "mode", "scope", "mount", …}``; without ``mount`` the mount is the path's last segment
with every character outside ``[A-Za-z0-9_-]`` turned into ``-``. memdir refuses its own writes
into a read-only mount, so a save that Claude Code would reject fails the same way here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from memdir.environment import VARIABLES
from memdir.errors import ConfigError, UnsafePathError
from memdir.store.directory import TEAM_DIRNAME, WriteGuard

__all__ = ["MemoryStore", "parse_memory_stores", "read_only_store_guard"]

ENV_VAR = VARIABLES["memory_stores"]
_MOUNT_RE = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class MemoryStore:
    path: str
    mount: str
    read_only: bool
    scope: str = "team"


def _bad(problem: str) -> ConfigError:
    return ConfigError(
        f"{ENV_VAR} {problem}; it must be a JSON list of store paths or "
        '{"path": "/…", "mode": "rw"|"ro", "mount": "name"} objects',
        rule="memory-stores",
    )


def _mount_from(path: str) -> str:
    segment = path.rstrip("/").rsplit("/", 1)[-1]
    mount = re.sub(r"[^A-Za-z0-9_-]", "-", segment)
    if not segment or mount in ("", ".", ".."):
        raise _bad(f'entry {path!r} names no mount: give it a "mount"')
    return mount


def _store(entry: object) -> MemoryStore:
    if isinstance(entry, str):
        entry = {"path": entry}
    if not isinstance(entry, dict):
        raise _bad(f"holds {entry!r}, which is neither a path nor an object")
    path, mode, scope = entry.get("path"), entry.get("mode", "rw"), entry.get("scope", "team")
    if not isinstance(path, str) or not path.startswith("/"):
        raise _bad(f'entry {entry!r} needs a "path" starting with /')
    if mode not in ("rw", "ro"):
        raise _bad(f'entry {path!r} has mode {mode!r}; use "rw" or "ro"')
    if scope not in ("team", "user"):
        raise _bad(f'entry {path!r} has scope {scope!r}; use "team" or "user"')
    mount = entry.get("mount")
    if mount is None:
        mount = _mount_from(path)
    elif not isinstance(mount, str) or not _MOUNT_RE.fullmatch(mount):
        raise _bad(f"entry {path!r} has mount {mount!r}; a mount matches [A-Za-z0-9_-]+")
    return MemoryStore(path=path, mount=mount, read_only=mode == "ro", scope=scope)


def parse_memory_stores(text: str | None) -> tuple[MemoryStore, ...]:
    """The stores of a ``CLAUDE_MEMORY_STORES`` value (empty or unset: none)."""
    if text is None or not text.strip():
        return ()
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise _bad(f"is not valid JSON ({exc})") from exc
    if not isinstance(data, list):
        raise _bad("is not a JSON list")
    stores = [_store(entry) for entry in data]
    mounts = [store.mount for store in stores]
    duplicate = next((mount for mount in mounts if mounts.count(mount) > 1), None)
    if duplicate is not None:
        raise _bad(f"mounts two stores at team/{duplicate}")
    if sum(store.scope == "user" for store in stores) > 1:
        raise _bad('has more than one "scope": "user" entry')
    return tuple(stores)


def read_only_store_guard(stores: Sequence[MemoryStore]) -> WriteGuard:
    """A write guard refusing writes under ``team/<mount>/`` of every read-only store."""
    mounts = {store.mount.casefold() for store in stores if store.read_only}

    def guard(rel: str, content: str) -> None:
        parts = rel.split("/")
        if len(parts) > 2 and parts[0].casefold() == TEAM_DIRNAME and parts[1].casefold() in mounts:
            raise UnsafePathError(
                f'{rel} is in the read-only memory store team/{parts[1]} ({ENV_VAR} mode "ro"); '
                "rule read-only-store; save it in your own memory directory instead",
                rule="read-only-store",
                path=rel,
            )

    return guard
