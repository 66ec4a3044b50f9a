"""Daily logs (append-only notes of long-lived sessions) and the dream that distils them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
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

_resolve = lazy_exports(
    __name__,
    {
        "LogEntry": "memdir.journal.daily_log",
        "append_log": "memdir.journal.daily_log",
        "list_logs": "memdir.journal.daily_log",
        "log_relpath": "memdir.journal.daily_log",
        "DreamReport": "memdir.journal.dream",
        "arun_dream": "memdir.journal.dream",
        "run_dream": "memdir.journal.dream",
        "DreamGate": "memdir.journal.gate",
        "GateDecision": "memdir.journal.gate",
        "auto_dream_enabled": "memdir.journal.gate",
        "sessions_since": "memdir.journal.gate",
        "ConsolidationLock": "memdir.journal.lock",
    },
)


def __getattr__(name: str) -> Any:
    return _resolve(name)
