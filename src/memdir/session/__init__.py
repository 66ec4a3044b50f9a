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
    from memdir.session.compact import CompactionFallback, CompactionResult
    from memdir.session.memory import SessionMemory, SessionStatus
    from memdir.session.paths import SessionPaths
    from memdir.session.state import SessionState
    from memdir.session.thresholds import CompactThresholds, UpdateThresholds
    from memdir.session.updater import UpdateResult

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
        "CompactionFallback": "memdir.session.compact",
        "CompactionResult": "memdir.session.compact",
        "SessionMemory": "memdir.session.memory",
        "SessionStatus": "memdir.session.memory",
        "SessionPaths": "memdir.session.paths",
        "SessionState": "memdir.session.state",
        "CompactThresholds": "memdir.session.thresholds",
        "UpdateThresholds": "memdir.session.thresholds",
        "UpdateResult": "memdir.session.updater",
    },
)


def __getattr__(name: str) -> Any:
    return _resolve(name)
