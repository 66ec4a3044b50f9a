"""Background memory extraction: after each turn, a sandboxed agent saves what is worth keeping.

Library use in an agent loop::

    extractor = MemorySession(resolve_config(), model_spec="anthropic:claude-sonnet-4-6").extractor()
    ...                                   # after every completed turn:
    extractor.submit(messages)            # or: extractor.asubmit(messages) inside asyncio
    ...
    extractor.drain(timeout=60)           # before the process exits
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.extract.cursor import cursor_state_path as cursor_state_path
    from memdir.extract.cursor import load_cursor as load_cursor
    from memdir.extract.cursor import save_cursor as save_cursor
    from memdir.extract.cursor import session_id_from_transcript as session_id_from_transcript
    from memdir.extract.extractor import DEFAULT_MAX_TURNS as DEFAULT_MAX_TURNS
    from memdir.extract.extractor import Conversation as Conversation
    from memdir.extract.extractor import Extractor as Extractor
    from memdir.extract.prompt import ExtractionPromptConfig as ExtractionPromptConfig
    from memdir.extract.prompt import build_conversation_message as build_conversation_message
    from memdir.extract.prompt import build_extraction_prompt as build_extraction_prompt
    from memdir.extract.result import ExtractionResult as ExtractionResult
    from memdir.extract.window import Window as Window
    from memdir.extract.window import memory_write_in as memory_write_in
    from memdir.extract.window import window_since as window_since

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.extract.cursor": ["cursor_state_path", "load_cursor", "save_cursor", "session_id_from_transcript"],
        "memdir.extract.extractor": ["DEFAULT_MAX_TURNS", "Conversation", "Extractor"],
        "memdir.extract.prompt": ["ExtractionPromptConfig", "build_conversation_message", "build_extraction_prompt"],
        "memdir.extract.result": ["ExtractionResult"],
        "memdir.extract.window": ["Window", "memory_write_in", "window_since"],
    },
)
