"""Background memory extraction: after each turn, a sandboxed agent saves what is worth keeping.

Library use in an agent loop::

    extractor = MemorySession(resolve_config(), model_spec="anthropic:claude-sonnet-4-6").extractor()
    ...                                   # after every completed turn:
    extractor.submit(messages)            # or: extractor.asubmit(messages) inside asyncio
    ...
    extractor.drain(timeout=60)           # before the process exits
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.extract.cursor import cursor_state_path, load_cursor, save_cursor, session_id_from_transcript
    from memdir.extract.extractor import DEFAULT_MAX_TURNS, Conversation, Extractor
    from memdir.extract.prompt import ExtractionPromptConfig, build_conversation_message, build_extraction_prompt
    from memdir.extract.result import ExtractionResult
    from memdir.extract.window import Window, memory_write_in, window_since

__all__ = [
    "DEFAULT_MAX_TURNS",
    "Conversation",
    "ExtractionPromptConfig",
    "ExtractionResult",
    "Extractor",
    "Window",
    "build_conversation_message",
    "build_extraction_prompt",
    "cursor_state_path",
    "load_cursor",
    "memory_write_in",
    "save_cursor",
    "session_id_from_transcript",
    "window_since",
]

_resolve = lazy_exports(
    __name__,
    {
        "cursor_state_path": "memdir.extract.cursor",
        "load_cursor": "memdir.extract.cursor",
        "save_cursor": "memdir.extract.cursor",
        "session_id_from_transcript": "memdir.extract.cursor",
        "DEFAULT_MAX_TURNS": "memdir.extract.extractor",
        "Conversation": "memdir.extract.extractor",
        "Extractor": "memdir.extract.extractor",
        "ExtractionPromptConfig": "memdir.extract.prompt",
        "build_conversation_message": "memdir.extract.prompt",
        "build_extraction_prompt": "memdir.extract.prompt",
        "ExtractionResult": "memdir.extract.result",
        "Window": "memdir.extract.window",
        "memory_write_in": "memdir.extract.window",
        "window_since": "memdir.extract.window",
    },
)


def __getattr__(name: str) -> Any:
    return _resolve(name)
