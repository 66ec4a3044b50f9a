"""When session notes are updated, and the sizes session-memory compaction keeps.

Claude Code reads these from server-side flags; memdir reads them from the ``sessionMemory``
settings key (defaults documented in ``memdir.config.SETTINGS_KEYS``). As there, a field
overrides its default only when it is a positive number, so a typo or a zero never switches
the feature into a degenerate mode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memdir.conversation import ConversationMessage
from memdir.envflags import env_truthy
from memdir.errors import ConfigError
from memdir.session_notes.state import SessionState
from memdir.session_notes.tokens import count_tool_calls_since, last_turn_has_tool_calls, token_count_with_estimation

__all__ = [
    "ENV_DISABLE_SM_COMPACT",
    "ENV_ENABLE_SM_COMPACT",
    "CompactThresholds",
    "UpdateThresholds",
    "compact_thresholds",
    "should_extract_memory",
    "should_use_session_memory_compaction",
    "update_thresholds",
]

ENV_ENABLE_SM_COMPACT = "ENABLE_CLAUDE_CODE_SM_COMPACT"
ENV_DISABLE_SM_COMPACT = "DISABLE_CLAUDE_CODE_SM_COMPACT"


@dataclass(frozen=True)
class UpdateThresholds:
    minimum_message_tokens_to_init: float = 10000
    minimum_tokens_between_update: float = 5000
    tool_calls_between_updates: float = 3


@dataclass(frozen=True)
class CompactThresholds:
    min_tokens: float = 10000
    min_text_block_messages: float = 5
    max_tokens: float = 40000


def _section(value: object, where: str) -> Mapping[str, object]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"settings key {where} must be an object such as "
            '{"minimumTokensBetweenUpdate": 5000}, not ' + type(value).__name__,
            rule="settings",
        )
    return value


def _positive(section: Mapping[str, object], key: str, default: float) -> float:
    value = section.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return value
    return default


def update_thresholds(setting: object) -> UpdateThresholds:
    """Thresholds from the value of the ``sessionMemory`` settings key (None: the defaults)."""
    section = _section(setting, "memdir.sessionMemory")
    base = UpdateThresholds()
    return UpdateThresholds(
        minimum_message_tokens_to_init=_positive(
            section, "minimumMessageTokensToInit", base.minimum_message_tokens_to_init
        ),
        minimum_tokens_between_update=_positive(
            section, "minimumTokensBetweenUpdate", base.minimum_tokens_between_update
        ),
        tool_calls_between_updates=_positive(section, "toolCallsBetweenUpdates", base.tool_calls_between_updates),
    )


def compact_thresholds(setting: object) -> CompactThresholds:
    section = _section(_section(setting, "memdir.sessionMemory").get("compact"), "memdir.sessionMemory.compact")
    base = CompactThresholds()
    return CompactThresholds(
        min_tokens=_positive(section, "minTokens", base.min_tokens),
        min_text_block_messages=_positive(section, "minTextBlockMessages", base.min_text_block_messages),
        max_tokens=_positive(section, "maxTokens", base.max_tokens),
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
    configured = _section(setting, "memdir.sessionMemory").get("useForCompaction")
    if configured is None:
        return True
    if not isinstance(configured, bool):
        raise ConfigError(
            f"settings key memdir.sessionMemory.useForCompaction must be true or false, not {configured!r}",
            rule="settings",
        )
    return configured


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
