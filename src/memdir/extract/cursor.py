"""The extraction cursor kept between processes, one small JSON file per session.

An agent loop keeps its cursor in memory in its :class:`~memdir.extract.extractor.Extractor`.
``memdir extract`` and the Claude Code hooks start a fresh process for every turn, so for them
the cursor lives next to the session's transcript::

    <configHome>/projects/<sanitized project root>/<sessionId>/memdir-extract.json
    {"version": 1, "cursor": "<uuid of the last message dealt with>", "updated": "<ISO-8601>"}

Claude Code keeps per-session data (subagent transcripts, tool results) in that same directory
and never reads this file. Writes are atomic, so a crash leaves the old cursor or the new one.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime

from memdir.config import MemoryConfig
from memdir.errors import ConfigError
from memdir.store.files import ensure_dir, write_json

__all__ = ["STATE_FILENAME", "cursor_state_path", "load_cursor", "save_cursor", "session_id_from_transcript"]

STATE_FILENAME = "memdir-extract.json"
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_CODEX_ROLLOUT = re.compile(r"^rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")


def session_id_from_transcript(path: str) -> str | None:
    """Claude Code names a transcript ``<sessionId>.jsonl``, Codex CLI
    ``rollout-<time>-<sessionId>.jsonl`` and Gemini CLI ``session-<time>-<first 8 of the id>.jsonl``
    (that whole stem names the session); other files carry no session id."""
    name = os.path.basename(path)
    if not name.endswith(".jsonl"):
        return None
    stem = name[: -len(".jsonl")]
    rollout = _CODEX_ROLLOUT.match(stem)
    if rollout is not None:
        return rollout.group(1)
    return stem if _SESSION_ID.match(stem) and stem not in (".", "..") else None


def cursor_state_path(config: MemoryConfig, session_id: str) -> str:
    if not _SESSION_ID.match(session_id) or ".." in session_id:
        raise ConfigError(
            f"session id {session_id!r} cannot name a state directory; use letters, digits, '.', '_' and '-'",
            rule="session-id",
        )
    return os.path.join(config.transcripts_dir, session_id, STATE_FILENAME)


def load_cursor(path: str) -> str | None:
    """The saved cursor, or None when the session has none yet."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(
            f"extraction state {path} is unreadable ({exc}); delete it to start from the whole conversation",
            rule="extract-state",
            path=path,
        ) from exc
    cursor = data.get("cursor") if isinstance(data, dict) else None
    if cursor is not None and not isinstance(cursor, str):
        raise ConfigError(
            f'extraction state {path}: "cursor" must be a string; delete the file to start over',
            rule="extract-state",
            path=path,
        )
    return cursor


def save_cursor(path: str, cursor: str) -> None:
    ensure_dir(os.path.dirname(path))
    state = {"version": 1, "cursor": cursor, "updated": datetime.now(UTC).isoformat(timespec="milliseconds")}
    write_json(path, state)
