"""Daily logs (append-only notes of long-lived sessions) and the dream that distils them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.journal.daily_log import LogEntry as LogEntry
    from memdir.journal.daily_log import append_log as append_log
    from memdir.journal.daily_log import list_logs as list_logs
    from memdir.journal.daily_log import log_relpath as log_relpath
    from memdir.journal.dream import DreamReport as DreamReport
    from memdir.journal.dream import arun_dream as arun_dream
    from memdir.journal.dream import run_dream as run_dream
    from memdir.journal.gate import DreamGate as DreamGate
    from memdir.journal.gate import GateDecision as GateDecision
    from memdir.journal.gate import auto_dream_enabled as auto_dream_enabled
    from memdir.journal.gate import sessions_since as sessions_since
    from memdir.journal.lock import ConsolidationLock as ConsolidationLock

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.journal.daily_log": ["LogEntry", "append_log", "list_logs", "log_relpath"],
        "memdir.journal.dream": ["DreamReport", "arun_dream", "run_dream"],
        "memdir.journal.gate": ["DreamGate", "GateDecision", "auto_dream_enabled", "sessions_since"],
        "memdir.journal.lock": ["ConsolidationLock"],
    },
)
