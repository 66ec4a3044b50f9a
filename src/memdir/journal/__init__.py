"""Daily logs (append-only notes of long-lived sessions) and the dream that distils them."""

from __future__ import annotations

from memdir.journal.daily_log import LogEntry, append_log, list_logs, log_relpath
from memdir.journal.dream import DreamReport, arun_dream, run_dream
from memdir.journal.gate import DreamGate, GateDecision, auto_dream_enabled, sessions_since
from memdir.journal.lock import ConsolidationLock

__all__ = [
    "ConsolidationLock",
    "DreamGate",
    "DreamReport",
    "GateDecision",
    "LogEntry",
    "append_log",
    "arun_dream",
    "auto_dream_enabled",
    "list_logs",
    "log_relpath",
    "run_dream",
    "sessions_since",
]
