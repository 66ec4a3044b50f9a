"""memdir: file-based long-term memory for LLM agents, compatible with Claude Code's auto memory.

The public surface is what this module exports; everything else is importable but may change.
Each name is imported on first use, so that ``import memdir.cli`` (what every hook process does)
does not pay for the recall, prompt and session modules it may never touch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.config import MemoryConfig as MemoryConfig
    from memdir.config import open_memory_dir as open_memory_dir
    from memdir.config import resolve_config as resolve_config
    from memdir.errors import ConfigError as ConfigError
    from memdir.errors import LockTimeout as LockTimeout
    from memdir.errors import MemdirError as MemdirError
    from memdir.errors import MemoryDisabled as MemoryDisabled
    from memdir.errors import MemoryExists as MemoryExists
    from memdir.errors import MemoryFormatError as MemoryFormatError
    from memdir.errors import MemoryNotFound as MemoryNotFound
    from memdir.errors import ModelError as ModelError
    from memdir.errors import SecretDetected as SecretDetected
    from memdir.errors import UnsafePathError as UnsafePathError
    from memdir.memory_session import MemorySession as MemorySession
    from memdir.model.memory import Memory as Memory
    from memdir.model.memory_type import MemoryType as MemoryType
    from memdir.recall.lexical_selector import LexicalSelector as LexicalSelector
    from memdir.recall.recaller import Recaller as Recaller
    from memdir.recall.recaller import RecallResult as RecallResult
    from memdir.recall.recaller import RecallState as RecallState
    from memdir.recall.selector_protocol import Selection as Selection
    from memdir.recall.selector_protocol import SelectionRequest as SelectionRequest
    from memdir.recall.selector_protocol import Selector as Selector
    from memdir.recall.surfacing import SurfacedMemory as SurfacedMemory
    from memdir.store.directory import MemoryDir as MemoryDir
    from memdir.store.records import DeleteResult as DeleteResult
    from memdir.store.records import MemoryRecord as MemoryRecord
    from memdir.store.records import SaveResult as SaveResult
    from memdir.store.scan import MemoryHeader as MemoryHeader

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.config": ["MemoryConfig", "open_memory_dir", "resolve_config"],
        "memdir.errors": [
            "ConfigError",
            "LockTimeout",
            "MemdirError",
            "MemoryDisabled",
            "MemoryExists",
            "MemoryFormatError",
            "MemoryNotFound",
            "ModelError",
            "SecretDetected",
            "UnsafePathError",
        ],
        "memdir.memory_session": ["MemorySession"],
        "memdir.model.memory": ["Memory"],
        "memdir.model.memory_type": ["MemoryType"],
        "memdir.recall.recaller": ["Recaller", "RecallResult", "RecallState"],
        "memdir.recall.selector_protocol": ["Selection", "SelectionRequest", "Selector"],
        "memdir.recall.lexical_selector": ["LexicalSelector"],
        "memdir.recall.surfacing": ["SurfacedMemory"],
        "memdir.store.directory": ["MemoryDir"],
        "memdir.store.records": ["DeleteResult", "MemoryRecord", "SaveResult"],
        "memdir.store.scan": ["MemoryHeader"],
    },
)
