"""memdir: file-based long-term memory for LLM agents, compatible with Claude Code's auto memory.

The public surface is what this module exports; everything else is importable but may change.
"""

from __future__ import annotations

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
from memdir.model.memory import Memory, MemoryType
from memdir.recall.recaller import Recaller, RecallResult, RecallState
from memdir.recall.selectors import LexicalSelector, Selection, SelectionRequest, Selector
from memdir.recall.surfacing import SurfacedMemory
from memdir.session_context import MemorySession
from memdir.store.memdir import DeleteResult, MemoryDir, MemoryRecord, SaveResult
from memdir.store.scan import MemoryHeader

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
