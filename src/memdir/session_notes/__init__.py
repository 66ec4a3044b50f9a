"""Session memory: rolling notes about the current session that survive context compaction.

An update agent keeps ``summary.md`` beside the session's transcript up to date as the
conversation grows (:mod:`.thresholds` decides when); compaction then replaces old messages
with those notes and keeps the recent ones verbatim (:mod:`.compact`). docs/session-memory.md
describes the files, the settings and the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.session_notes.compact import CompactionFallback, CompactionResult
    from memdir.session_notes.memory import SessionMemory, SessionStatus
    from memdir.session_notes.paths import SessionPaths
    from memdir.session_notes.state import SessionState
    from memdir.session_notes.thresholds import CompactThresholds, UpdateThresholds
    from memdir.session_notes.updater import UpdateResult

__all__ = [
    "CompactThresholds",
    "CompactionFallback",
    "CompactionResult",
    "SessionMemory",
    "SessionPaths",
    "SessionState",
    "SessionStatus",
    "UpdateResult",
    "UpdateThresholds",
]

_resolve = lazy_exports(
    __name__,
    {
        "CompactionFallback": "memdir.session_notes.compact",
        "CompactionResult": "memdir.session_notes.compact",
        "SessionMemory": "memdir.session_notes.memory",
        "SessionStatus": "memdir.session_notes.memory",
        "SessionPaths": "memdir.session_notes.paths",
        "SessionState": "memdir.session_notes.state",
        "CompactThresholds": "memdir.session_notes.thresholds",
        "UpdateThresholds": "memdir.session_notes.thresholds",
        "UpdateResult": "memdir.session_notes.updater",
    },
)


def __getattr__(name: str) -> Any:
    return _resolve(name)
