"""Session memory: rolling notes about the current session that survive context compaction.

An update agent keeps ``summary.md`` beside the session's transcript up to date as the
conversation grows (:mod:`.thresholds` decides when); compaction then replaces old messages
with those notes and keeps the recent ones verbatim (:mod:`.compact`). docs/session-memory.md
describes the files, the settings and the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.session_notes.compact import CompactionFallback as CompactionFallback
    from memdir.session_notes.compact import CompactionResult as CompactionResult
    from memdir.session_notes.paths import SessionPaths as SessionPaths
    from memdir.session_notes.session import SessionNotes as SessionNotes
    from memdir.session_notes.session import SessionStatus as SessionStatus
    from memdir.session_notes.state import SessionState as SessionState
    from memdir.session_notes.thresholds import CompactThresholds as CompactThresholds
    from memdir.session_notes.thresholds import UpdateThresholds as UpdateThresholds
    from memdir.session_notes.updater import UpdateResult as UpdateResult

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.session_notes.compact": ["CompactionFallback", "CompactionResult"],
        "memdir.session_notes.session": ["SessionNotes", "SessionStatus"],
        "memdir.session_notes.paths": ["SessionPaths"],
        "memdir.session_notes.state": ["SessionState"],
        "memdir.session_notes.thresholds": ["CompactThresholds", "UpdateThresholds"],
        "memdir.session_notes.updater": ["UpdateResult"],
    },
)
