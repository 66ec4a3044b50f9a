"""What one extraction run did, in a form the CLI, hooks and agent loops can all report."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from memdir.background.file_tools import Denial
from memdir.llm.base import Usage
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.text import counted
from memdir.store.directory import TEAM_DIRNAME

__all__ = ["ExtractionResult", "memory_paths", "team_paths"]


def memory_paths(written: list[str]) -> tuple[str, ...]:
    """The memory files among written paths: indexes are bookkeeping, not memories (SPEC §7.3 step 7)."""
    return tuple(path for path in dict.fromkeys(written) if os.path.basename(path) != ENTRYPOINT_NAME)


def team_paths(paths: tuple[str, ...], memory_root: str) -> int:
    team_root = os.path.join(memory_root, TEAM_DIRNAME) + os.sep
    return sum(1 for path in paths if path.startswith(team_root))


@dataclass(frozen=True)
class ExtractionResult:
    """``skipped`` says why no model was asked (None when one was); ``error`` why a run failed.

    A failed run leaves the cursor where it was, so the same messages are looked at again; files
    it wrote before failing are still listed in ``written``.
    """

    skipped: str | None = None
    written: tuple[str, ...] = ()  # memory files written or edited, MEMORY.md excluded
    deleted: tuple[str, ...] = ()
    team_count: int = 0
    turns: int = 0
    denied: tuple[Denial, ...] = ()
    error: str | None = None
    stopped: str | None = None  # "done" or "max_turns" when the agent ran
    message_count: int = 0  # user and assistant messages since the cursor
    trailing: bool = False
    cursor: str | None = None  # the cursor after the run
    usage: Usage = field(default_factory=Usage)

    @property
    def ok(self) -> bool:
        return self.error is None

    def summary(self, *, proposed: bool = False) -> str:
        """One line for a person: "Saved 2 memories · 1 team memory", or why nothing happened.

        ``proposed``: the writes were proposals waiting for review (``memdir.agentWrites`` is
        ``review``), so they are said to be proposed, not saved."""
        if self.error is not None:
            return f"extraction failed: {self.error}"
        if self.skipped is not None:
            return f"extraction skipped: {self.skipped}"
        if not self.written and not self.deleted:
            return "nothing worth saving"
        parts = []
        if self.written:
            parts.append(f"{'Proposed' if proposed else 'Saved'} {counted(len(self.written), 'memory', 'memories')}")
        if self.team_count:
            parts.append(counted(self.team_count, "team memory", "team memories"))
        if self.deleted:
            parts.append(f"{'proposed deleting' if proposed else 'deleted'} {len(self.deleted)}")
        return " · ".join(parts)

    def as_json(self) -> dict[str, object]:
        return {
            "skipped": self.skipped,
            "written": list(self.written),
            "deleted": list(self.deleted),
            "team_count": self.team_count,
            "turns": self.turns,
            "denied": [{"tool": d.tool, "reason": d.reason} for d in self.denied],
            "error": self.error,
            "stopped": self.stopped,
            "messages": self.message_count,
            "cursor": self.cursor,
        }
