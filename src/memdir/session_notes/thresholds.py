"""When session notes are updated, and the sizes session-memory compaction keeps.

Claude Code reads these from server-side flags; memdir reads them from the ``sessionMemory``
settings key, whose fields and defaults are declared once in :mod:`memdir.settings_table`. As
there, a field overrides its default only when it is a positive number, so a typo or a zero never
switches the feature into a degenerate mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memdir.conversation import ConversationMessage
from memdir.envflags import env_truthy
from memdir.session_notes.state import SessionState
from memdir.session_notes.tokens import count_tool_calls_since, last_turn_has_tool_calls, token_count_with_estimation
from memdir.settings_table import SessionMemorySettings, session_memory_settings

__all__ = [
    "CompactThresholds",
    "UpdateThresholds",
    "compact_thresholds",
    "should_extract_memory",
    "should_use_session_memory_compaction",
    "update_thresholds",
]


_DEFAULTS = session_memory_settings(None)


@dataclass(frozen=True)
class UpdateThresholds:
    minimum_message_tokens_to_init: float = _DEFAULTS.minimum_message_tokens_to_init
    minimum_tokens_between_update: float = _DEFAULTS.minimum_tokens_between_update
    tool_calls_between_updates: float = _DEFAULTS.tool_calls_between_updates


@dataclass(frozen=True)
class CompactThresholds:
    min_tokens: float = _DEFAULTS.compact_min_tokens
    min_text_block_messages: float = _DEFAULTS.compact_min_text_block_messages
    max_tokens: float = _DEFAULTS.compact_max_tokens


def _record(setting: object) -> SessionMemorySettings:
    """The checked setting: a configuration's (``config.memdir.session_memory``) as it is, a value
    as written in a settings file (None: the defaults) checked by the settings table."""
    return setting if isinstance(setting, SessionMemorySettings) else session_memory_settings(setting)


def update_thresholds(setting: object) -> UpdateThresholds:
    """Thresholds from ``memdir.sessionMemory`` (its record, or its value as written)."""
    record = _record(setting)
    return UpdateThresholds(
        minimum_message_tokens_to_init=record.minimum_message_tokens_to_init,
        minimum_tokens_between_update=record.minimum_tokens_between_update,
        tool_calls_between_updates=record.tool_calls_between_updates,
    )


def compact_thresholds(setting: object) -> CompactThresholds:
    """The window compaction keeps, from ``memdir.sessionMemory`` (its record, or its value as written)."""
    record = _record(setting)
    return CompactThresholds(
        min_tokens=record.compact_min_tokens,
        min_text_block_messages=record.compact_min_text_block_messages,
        max_tokens=record.compact_max_tokens,
    )


def should_use_session_memory_compaction(
    setting: object, *, enable: str | None = None, disable: str | None = None
) -> bool:
    """The environment forces first: ``enable`` (ENABLE_CLAUDE_CODE_SM_COMPACT) wins over ``disable``
    (DISABLE_CLAUDE_CODE_SM_COMPACT); otherwise ``useForCompaction`` (default on)."""
    if env_truthy(enable):
        return True
    if env_truthy(disable):
        return False
    return _record(setting).use_for_compaction


def should_extract_memory(
    messages: Sequence[ConversationMessage], state: SessionState, thresholds: UpdateThresholds
) -> bool:
    """The update rule, applied to ``state`` in place as Claude Code applies it.

    The first update waits for a substantial context. After that, the context must have grown
    enough *and* the agent must be at a natural pause: enough tool calls since the last update,
    or a last turn without tool calls (so notes are not written in the middle of a tool chain).
    Firing moves the tool-call cursor to the last message; initialisation sticks even when the
    rule then declines.
    """
    tokens = token_count_with_estimation(messages)
    if not state.initialized:
        if tokens < thresholds.minimum_message_tokens_to_init:
            return False
        state.initialized = True
    token_ok = tokens - state.tokens_at_last_extraction >= thresholds.minimum_tokens_between_update
    tools_ok = count_tool_calls_since(messages, state.last_memory_message_uuid) >= thresholds.tool_calls_between_updates
    if token_ok and (tools_ok or not last_turn_has_tool_calls(messages)):
        if messages:
            state.last_memory_message_uuid = messages[-1].uuid
        return True
    return False
