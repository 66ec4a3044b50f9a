import pytest
from _session_fixtures import assistant, user

from memdir.errors import ConfigError
from memdir.session_notes.state import SessionState
from memdir.session_notes.thresholds import (
    CompactThresholds,
    UpdateThresholds,
    compact_thresholds,
    should_extract_memory,
    should_use_session_memory_compaction,
    update_thresholds,
)

DEFAULTS = UpdateThresholds()


def context(tokens, *, tools_before=0, last_turn_tools=0):
    """A conversation whose size is ``tokens`` with the given tool calls."""
    messages = [user("go", uuid="first")]
    if tools_before:
        messages.append(assistant(tools=tools_before))
    messages.append(assistant("done", tools=last_turn_tools, tokens=tokens, uuid=f"last-{tokens}-{tools_before}"))
    return messages


def test_the_update_rule_table():
    state = SessionState()
    assert should_extract_memory(context(9_999), state, DEFAULTS) is False
    assert state.initialized is False

    messages = context(10_000)
    assert should_extract_memory(messages, state, DEFAULTS) is True
    assert state.initialized is True and state.last_memory_message_uuid == messages[-1].uuid

    state.tokens_at_last_extraction = 10_000
    state.last_memory_message_uuid = "first"
    assert should_extract_memory(context(13_000, tools_before=5), state, DEFAULTS) is False

    assert should_extract_memory(context(15_000, tools_before=1, last_turn_tools=1), state, DEFAULTS) is False

    assert should_extract_memory(context(15_000, tools_before=3), state, DEFAULTS) is True


def test_initialisation_sticks_even_when_the_rule_declines():
    state = SessionState(tokens_at_last_extraction=9_000)
    assert should_extract_memory(context(12_000, last_turn_tools=1), state, DEFAULTS) is False
    assert state.initialized is True and state.last_memory_message_uuid is None


def test_only_positive_numbers_override_the_defaults():
    configured = update_thresholds(
        {"minimumMessageTokensToInit": 0, "minimumTokensBetweenUpdate": -5, "toolCallsBetweenUpdates": 7}
    )
    assert configured == UpdateThresholds(tool_calls_between_updates=7)
    assert update_thresholds({"minimumTokensBetweenUpdate": "9", "toolCallsBetweenUpdates": True}) == DEFAULTS
    assert update_thresholds(None) == DEFAULTS
    assert compact_thresholds({"compact": {"minTokens": 2000, "maxTokens": 0}}) == CompactThresholds(min_tokens=2000)


def test_a_session_memory_setting_that_is_not_an_object_is_an_error():
    with pytest.raises(ConfigError, match=r"memdir\.sessionMemory"):
        update_thresholds(5)


def test_compaction_env_vars_force_on_and_off_and_enable_wins():
    assert should_use_session_memory_compaction(None) is True
    assert should_use_session_memory_compaction({"useForCompaction": False}) is False
    assert should_use_session_memory_compaction(None, disable="1") is False
    assert should_use_session_memory_compaction({"useForCompaction": False}, enable="true", disable="1") is True
