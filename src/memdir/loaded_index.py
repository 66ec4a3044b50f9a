"""Whether Claude Code loads this project's ``MEMORY.md`` whole, truncated, or not at all.

A session cannot tell: Claude Code cuts the index at 200 lines or 25,000 bytes and says only the
file's size. ``memdir doctor``, the web view's doctor page and the SessionStart hook say it from
the outside, with :func:`claude_code_load`: not at all (auto memory is off, memdir works in
another directory, there is no index yet), whole, or truncated at a line, with the memories whose
index lines fall past the cut (:mod:`memdir.model.index_load`), measured by the rules of the
Claude Code release sharing the directory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from memdir.config import MemoryConfig
from memdir.errors import MemdirError
from memdir.model.frontmatter import decode_memory_bytes
from memdir.model.index_load import IndexLoad, index_load
from memdir.model.text import counted
from memdir.paths import auto_mem_entrypoint, auto_mem_path
from memdir.store.files import read_bytes_limited

__all__ = ["ClaudeCodeLoad", "claude_code_load"]

LoadStatus = Literal["whole", "truncated", "not loaded"]


@dataclass(frozen=True)
class ClaudeCodeLoad:
    """What Claude Code loads of one index: ``load`` is None when it loads nothing, and ``reason`` says why."""

    index: str  # the path of MEMORY.md
    load: IndexLoad | None
    reason: str = ""
    skip_comments: bool = False  # measured without frontmatter and comments, as the release does

    @property
    def status(self) -> LoadStatus:
        if self.load is None:
            return "not loaded"
        return "truncated" if self.load.truncated else "whole"

    def summary(self) -> str:
        """One sentence for a person."""
        load = self.load
        if load is None:
            return f"Claude Code does not load {self.index}: {self.reason}"
        if not load.truncated:
            lines = counted(load.line_count, "line")
            return f"Claude Code loads {self.index} whole ({lines}, {load.byte_count:,} bytes)"
        count = len(load.dropped)
        where = f"up to line {load.last_line}" if load.last_line else "none of its lines"
        return (
            f"Claude Code loads {self.index} truncated, {where} ({load.cause}): "
            f"{counted(count, 'memory', 'memories')} listed after the cut {'is' if count == 1 else 'are'} "
            "not in its context"
        )

    def as_json(self) -> dict[str, object]:
        load = self.load
        data: dict[str, object] = {"index": self.index, "status": self.status}
        if load is None:
            return {**data, "reason": self.reason}
        cut = [name for name, hit in (("lines", load.by_lines), ("bytes", load.by_bytes)) if hit]
        return {
            **data,
            "lines": load.line_count,
            "bytes": load.byte_count,
            "cut_by": cut,
            "last_line": load.last_line,
            "dropped": [{"file": entry.file, "line": line, "title": entry.title} for line, entry in load.dropped],
        }


def claude_code_load(config: MemoryConfig) -> ClaudeCodeLoad:
    """What Claude Code loads of the ``MEMORY.md`` of ``config``'s directory (see the module docstring)."""
    index = auto_mem_entrypoint(config.memory_dir)
    if not config.enabled:
        return ClaudeCodeLoad(index, None, f"auto memory is off ({config.disabled_reason})")
    if config.explicit_dir:
        own = auto_mem_path(config.project_root, settings=config.settings, environment=config.environment)
        if os.path.normpath(own) != os.path.normpath(config.memory_dir):
            return ClaudeCodeLoad(index, None, f"it is not this project's memory directory, which is {own}")
    try:
        text = decode_memory_bytes(read_bytes_limited(index), path=index)
    except FileNotFoundError:
        return ClaudeCodeLoad(index, None, "there is no index yet")
    except MemdirError as exc:
        return ClaudeCodeLoad(index, None, f"it cannot be read ({exc.message})")
    except OSError as exc:
        return ClaudeCodeLoad(index, None, f"it cannot be read ({exc.strerror})")
    if not text.strip():
        return ClaudeCodeLoad(index, None, "it is empty")
    load = index_load(text, skip_comments=False)
    if not load.truncated:  # the release's rules can only make it shorter: no need to find the release
        return ClaudeCodeLoad(index, load)
    skip = config.claude_code.rules.index_limits_skip_comments
    return ClaudeCodeLoad(index, index_load(text, skip_comments=True) if skip else load, skip_comments=skip)
