"""When an automatic dream is due: cheap checks first, the session scan at most every 10 minutes.

An agent loop may ask after every turn, so the gate must cost almost nothing when the answer is
no: one ``stat`` of the lock file while the last consolidation is recent, and a directory scan of
the transcripts at most once per throttle interval while not enough sessions have accumulated.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from memdir.config import MemoryConfig
from memdir.envflags import env_truthy
from memdir.journal.lock import ConsolidationLock
from memdir.settings_table import AUTO_DREAM_ENABLED, claude_setting

__all__ = ["SCAN_INTERVAL_SECONDS", "DreamGate", "GateDecision", "auto_dream_enabled", "sessions_since"]

SCAN_INTERVAL_SECONDS = 600.0
_UUID_JSONL = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$", re.IGNORECASE)


@dataclass(frozen=True)
class GateDecision:
    run: bool
    reason: str
    last_consolidated_at: float  # seconds since the epoch, 0 = never
    sessions: tuple[str, ...] = ()  # session ids touched since then, newest first


def auto_dream_enabled(config: MemoryConfig) -> tuple[bool, str]:
    """Whether automatic dreams may run, and why not: auto memory on, not a remote session
    (CLAUDE_CODE_REMOTE in the configuration's environment), and ``autoDreamEnabled`` when set, else
    a model configured (dreams need one; the same rule as the composition root's)."""
    from memdir.llm.registry import resolve_model_spec

    if not config.enabled:
        return False, f"auto memory is disabled ({config.disabled_reason})"
    if env_truthy(config.environment.remote):
        return False, "remote sessions (CLAUDE_CODE_REMOTE) do not dream"
    setting = claude_setting(config.settings, AUTO_DREAM_ENABLED)
    if isinstance(setting, bool):
        return setting, "" if setting else '"autoDreamEnabled": false in settings'
    if resolve_model_spec(None, environment_value=config.environment.model, settings_value=config.memdir.model):
        return True, ""
    return False, "no model is configured (--model, MEMDIR_MODEL or memdir.model) and autoDreamEnabled is not set"


def sessions_since(transcripts_dir: str, since: float, *, exclude: str | None = None) -> list[str]:
    """Ids of the UUID-named ``*.jsonl`` transcripts modified after ``since``, newest first."""
    found: list[tuple[float, str]] = []
    try:
        with os.scandir(transcripts_dir) as entries:
            for entry in entries:
                if not _UUID_JSONL.match(entry.name) or not entry.is_file():
                    continue
                session = entry.name[: -len(".jsonl")]
                mtime = entry.stat().st_mtime
                if mtime > since and session != exclude:
                    found.append((mtime, session))
    except OSError:
        return []
    return [session for _, session in sorted(found, reverse=True)]


class DreamGate:
    """The gate of one process: keeps the time of its last session scan for the throttle."""

    def __init__(
        self,
        config: MemoryConfig,
        *,
        clock: Callable[[], float] = time.time,
        min_hours: float | None = None,
        min_sessions: int | None = None,
        scan_interval: float = SCAN_INTERVAL_SECONDS,
    ) -> None:
        self.config = config
        self.clock = clock
        self.min_hours = float(config.memdir.dream_min_hours) if min_hours is None else min_hours
        self.min_sessions = int(config.memdir.dream_min_sessions) if min_sessions is None else min_sessions
        self.scan_interval = scan_interval
        self.lock = ConsolidationLock(config.memory_dir, clock=clock)
        self._last_scan: float | None = None

    def check(self, *, current_session: str | None = None) -> GateDecision:
        """Time since the last consolidation, then the scan throttle, then the session count."""
        now = self.clock()
        last = self.lock.last_consolidated_at()
        hours = (now - last) / 3600
        if hours < self.min_hours:
            return GateDecision(False, f"last consolidation {hours:.1f}h ago (< {self.min_hours:g}h)", last)
        if self._last_scan is not None and now - self._last_scan < self.scan_interval:
            waited = now - self._last_scan
            return GateDecision(False, f"sessions scanned {waited:.0f}s ago (throttle {self.scan_interval:g}s)", last)
        self._last_scan = now
        sessions = tuple(sessions_since(self.config.transcripts_dir, last, exclude=current_session))
        if len(sessions) < self.min_sessions:
            reason = f"{len(sessions)} session(s) since the last consolidation (< {self.min_sessions})"
            return GateDecision(False, reason, last, sessions)
        return GateDecision(
            True, f"{len(sessions)} sessions in {hours:.1f}h since the last consolidation", last, sessions
        )
