"""What per-turn recall has already shown one Claude Code session, kept between hook processes.

Each ``UserPromptSubmit`` hook is a fresh process, so the recall state of SPEC §6.7 (memories
surfaced once per conversation, 60 KB budget) lives in a small JSON file next to the session's
transcript: ``<configHome>/projects/<sanitized cwd>/<session_id>/memdir-recall.json``. It is
written atomically; a missing or unreadable file means a fresh state, because losing the state
only risks repeating a memory, while failing would lose the turn's recall.
"""

from __future__ import annotations

import json
import os

from memdir.errors import ConfigError
from memdir.paths import project_root, projects_dir, sanitize_path
from memdir.recall.recaller import RecallState
from memdir.recall.surfacing import SurfacedMemory
from memdir.store.files import remove_file, write_json

__all__ = ["STATE_FILENAME", "load_recall_state", "recall_state_path", "reset_recall_state", "save_recall_state"]

STATE_FILENAME = "memdir-recall.json"
_VERSION = 1


def recall_state_path(session_id: str, *, transcript_path: str | None, cwd: str | None, config_home: str) -> str:
    """The state file of a session: beside its transcript, or under the config home's projects dir for ``cwd``."""
    if not session_id or "/" in session_id or "\\" in session_id or session_id in (".", "..") or "\0" in session_id:
        raise ConfigError(f"hook input has an unusable session_id {session_id!r}", rule="session-id")
    if transcript_path:
        base = os.path.dirname(os.path.abspath(transcript_path))
    else:
        base = os.path.join(projects_dir(config_home), sanitize_path(project_root(cwd)))
    return os.path.join(base, session_id, STATE_FILENAME)


def load_recall_state(path: str) -> RecallState:
    state = RecallState()
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return state
    if not isinstance(data, dict) or data.get("version") != _VERSION:
        return state
    for item in data.get("surfaced") or []:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            continue
        mtime = item.get("mtime_ms")
        mtime_ms = float(mtime) if isinstance(mtime, int | float) else 0.0
        # Only the path matters to later turns (dedup); the text was already shown.
        state.surfaced[item["path"]] = SurfacedMemory(
            path=item["path"],
            file=str(item.get("file") or ""),
            content="",
            mtime_ms=mtime_ms,
            header="",
            truncated=False,
            limit=None,
        )
        state.read_files[item["path"]] = mtime_ms
    total = data.get("surfaced_bytes")
    state.surfaced_bytes = total if isinstance(total, int) and total >= 0 else 0
    return state


def save_recall_state(path: str, state: RecallState) -> None:
    data = {
        "version": _VERSION,
        "surfaced_bytes": state.surfaced_bytes,
        "surfaced": [{"path": m.path, "file": m.file, "mtime_ms": m.mtime_ms} for m in state.surfaced.values()],
    }
    # Not waiting for the disk: the prompt waits for this hook, and a crash that loses the last
    # write only lets a memory be shown once more.
    write_json(path, data, durable=False)


def reset_recall_state(path: str) -> bool:
    """Forget what was surfaced (after /clear or compaction removed it from the context)."""
    return remove_file(path)
