"""Daily logs (append-only notes of long-lived sessions) and the dream that distils them."""

from __future__ import annotations

from memdir.journal.daily_log import LogEntry, append_log, list_logs, log_relpath

__all__ = ["LogEntry", "append_log", "list_logs", "log_relpath"]
