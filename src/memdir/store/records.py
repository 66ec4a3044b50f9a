"""What the memory directory's writes and reads return: plain values, kept apart from
:mod:`memdir.store.directory` so that a process that only scans (every hook) does not build them."""

from __future__ import annotations

from dataclasses import dataclass

from memdir.model.memory import Memory

__all__ = ["DeleteResult", "MemoryRecord", "SaveResult"]


@dataclass(frozen=True)
class SaveResult:
    """What a save did: the file written and whether the index changed.

    ``index_refused`` says why the memory got no index line although one was asked for (the index
    is full for the Claude Code release in use): the memory itself is always kept, because it is
    the user's data and recall finds it without a line.
    """

    file: str
    path: str
    created: bool
    index_file: str
    index_changed: bool
    index_refused: str | None = None

    @property
    def index_warning(self) -> str | None:
        """What to tell whoever saved, when the memory got no index line: that it is kept and
        recalled, why the index refused it, and what to run."""
        if self.index_refused is None:
            return None
        reason = self.index_refused.removeprefix(f"{self.index_file}: ")
        return (
            f"{self.file} is saved and recall finds it, but {self.index_file} has no line for it: {reason}. "
            "Run `memdir doctor` to see the index's size and which lines to shorten, merge or remove."
        )


@dataclass(frozen=True)
class DeleteResult:
    """What a delete did: whether the file went, and whether ``MEMORY.md`` changed with it."""

    file: str
    path: str
    deleted: bool
    index_file: str
    index_changed: bool


@dataclass(frozen=True)
class MemoryRecord:
    """A memory read in full."""

    file: str
    path: str
    text: str
    memory: Memory
    mtime_ms: float
