"""memdir: file-based long-term memory for LLM agents, compatible with Claude Code's auto memory.

The public surface is what this module exports; everything else is importable but may change.
Each name is imported on first use, so that ``import memdir.cli`` (what every hook process does)
does not pay for the recall, prompt and session modules it may never touch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.config import MemoryConfig, open_memory_dir, resolve_config
    from memdir.errors import (
        ConfigError,
        LockTimeout,
        MemdirError,
        MemoryDisabled,
        MemoryExists,
        MemoryFormatError,
        MemoryNotFound,
        ModelError,
        SecretDetected,
        UnsafePathError,
    )
    from memdir.memory_session import MemorySession
    from memdir.model.memory import Memory, MemoryType
    from memdir.recall.recaller import Recaller, RecallResult, RecallState
    from memdir.recall.selector import Selection, SelectionRequest, Selector
    from memdir.recall.selectors import LexicalSelector
    from memdir.recall.surfacing import SurfacedMemory
    from memdir.store.memdir import MemoryDir
    from memdir.store.records import DeleteResult, MemoryRecord, SaveResult
    from memdir.store.scan import MemoryHeader

# public name -> the module that defines it
_HOMES = {
    "MemoryConfig": "memdir.config",
    "open_memory_dir": "memdir.config",
    "resolve_config": "memdir.config",
    "ConfigError": "memdir.errors",
    "LockTimeout": "memdir.errors",
    "MemdirError": "memdir.errors",
    "MemoryDisabled": "memdir.errors",
    "MemoryExists": "memdir.errors",
    "MemoryFormatError": "memdir.errors",
    "MemoryNotFound": "memdir.errors",
    "ModelError": "memdir.errors",
    "SecretDetected": "memdir.errors",
    "UnsafePathError": "memdir.errors",
    "Memory": "memdir.model.memory",
    "MemoryType": "memdir.model.memory",
    "Recaller": "memdir.recall.recaller",
    "RecallResult": "memdir.recall.recaller",
    "RecallState": "memdir.recall.recaller",
    "LexicalSelector": "memdir.recall.selectors",
    "Selection": "memdir.recall.selector",
    "SelectionRequest": "memdir.recall.selector",
    "Selector": "memdir.recall.selector",
    "SurfacedMemory": "memdir.recall.surfacing",
    "MemorySession": "memdir.memory_session",
    "DeleteResult": "memdir.store.records",
    "MemoryDir": "memdir.store.memdir",
    "MemoryRecord": "memdir.store.records",
    "SaveResult": "memdir.store.records",
    "MemoryHeader": "memdir.store.scan",
}

__all__ = [
    "ConfigError",
    "DeleteResult",
    "LexicalSelector",
    "LockTimeout",
    "MemdirError",
    "Memory",
    "MemoryConfig",
    "MemoryDir",
    "MemoryDisabled",
    "MemoryExists",
    "MemoryFormatError",
    "MemoryHeader",
    "MemoryNotFound",
    "MemoryRecord",
    "MemorySession",
    "MemoryType",
    "ModelError",
    "RecallResult",
    "RecallState",
    "Recaller",
    "SaveResult",
    "SecretDetected",
    "Selection",
    "SelectionRequest",
    "Selector",
    "SurfacedMemory",
    "UnsafePathError",
    "open_memory_dir",
    "resolve_config",
]


_resolve = lazy_exports(__name__, _HOMES)


def __getattr__(name: str) -> Any:
    return _resolve(name)
