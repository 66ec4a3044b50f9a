"""The recorded base of team sync: per key, the content hash this clone last agreed with the server.

Three-way sync needs it to tell "changed here" from "changed there" and "deleted here" from "new
there". It lives in one small JSON file beside ``team/`` in the memory directory (so neither a
push nor a memory scan ever sees it, both of which read only ``team/`` or ``*.md``), keyed by
server and repository. Every update re-reads the file under the memory directory's lock and
replaces it atomically, so concurrent syncs of one clone never lose each other's entries and a
crash leaves either the old or the new file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from memdir.store.files import atomic_write, ensure_dir, lock_directory

__all__ = ["BASE_FILE_NAME", "base_path", "load_base", "update_base"]

BASE_FILE_NAME = ".team-sync-base.json"
_FORMAT = 1


def base_path(team_dir: str) -> str:
    return os.path.join(os.path.dirname(team_dir.rstrip(os.sep)), BASE_FILE_NAME)


def _scope(server: str, repo: str) -> str:
    return f"{server.rstrip('/')} {repo}"


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
    return dict(_read(base_path(team_dir)).get(_scope(server, repo), {}))


def update_base(team_dir: str, server: str, repo: str, changes: Mapping[str, str | None]) -> dict[str, str]:
    """Set (hash) or forget (None) the base of the given keys; returns the base after the update."""
    path = base_path(team_dir)
    directory = os.path.dirname(path)
    ensure_dir(directory)
    with lock_directory(directory):
        scopes = _read(path)
        current = scopes.setdefault(_scope(server, repo), {})
        for key, digest in changes.items():
            if digest is None:
                current.pop(key, None)
            else:
                current[key] = digest
        if not changes and os.path.exists(path):
            return dict(current)
        payload = json.dumps({"format": _FORMAT, "bases": scopes}, ensure_ascii=False, sort_keys=True)
        atomic_write(path, payload.encode("utf-8"))
        return dict(current)
