from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdir.config import read_environment, resolve_config
from memdir.errors import ModelCallsForbidden, ModelError, ModelOutputError
from memdir.llm import forbid_real_model_calls, model_calls_forbidden, validate_json_output
from memdir.llm.base import check_model_call_allowed, http_error, is_loopback_url, parse_json_text

SELECTION = {
    "type": "object",
    "properties": {"selected_memories": {"type": "array", "items": {"type": "string"}}},
    "required": ["selected_memories"],
    "additionalProperties": False,
}


def test_a_value_matching_the_schema_is_returned_unchanged() -> None:
    value = {"selected_memories": ["a.md", "b.md"]}
    assert validate_json_output(value, SELECTION) is value


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ({}, "required key 'selected_memories'"),
        ({"selected_memories": "a.md"}, "$.selected_memories: expected array, got string"),
        ({"selected_memories": [1]}, "$.selected_memories[0]: expected string, got integer"),
        ({"selected_memories": [], "why": "x"}, "unexpected keys ['why']"),
        (["a.md"], "$: expected object, got array"),
    ],
)
def test_a_value_breaking_the_schema_is_refused_with_its_location(value: object, fragment: str) -> None:
    with pytest.raises(ModelOutputError) as info:
        validate_json_output(value, SELECTION)
    assert fragment in str(info.value)


def test_booleans_are_not_integers_and_integers_are_numbers() -> None:
    with pytest.raises(ModelOutputError):
        validate_json_output(True, {"type": "integer"})
    assert validate_json_output(3, {"type": "number"}) == 3
    assert validate_json_output(None, {"type": ["string", "null"]}) is None
    with pytest.raises(ModelOutputError, match="not one of"):
        validate_json_output("c", {"type": "string", "enum": ["a", "b"]})


@given(st.lists(st.text(), max_size=5))
def test_any_list_of_strings_satisfies_the_selection_schema(names: list[str]) -> None:
    value = {"selected_memories": names}
    assert validate_json_output(value, SELECTION) is value
    assert value == {"selected_memories": names}


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(), lambda c: st.lists(c, max_size=3)))
def test_tolerant_read_finds_json_inside_fences_and_prose(value: object) -> None:
    wrapped = {"answer": value}
    text = f"Here you go:\n```json\n{json.dumps(wrapped)}\n```\nHope that helps."
    assert parse_json_text(text, tolerant=True) == wrapped
    assert parse_json_text(f"```\n{json.dumps(wrapped)}\n```", tolerant=True) == wrapped


def test_strict_read_refuses_text_around_json() -> None:
    with pytest.raises(ModelOutputError, match="not valid JSON"):
        parse_json_text('Sure! {"a": 1}')
    with pytest.raises(ModelOutputError, match="no JSON value"):
        parse_json_text("no json here", tolerant=True)


def test_the_switch_works_as_a_call_and_as_a_context_manager() -> None:
    with forbid_real_model_calls(False):
        assert not model_calls_forbidden()
        with forbid_real_model_calls():
            assert model_calls_forbidden()
        assert not model_calls_forbidden()
        forbid_real_model_calls(True)
        assert model_calls_forbidden()
    assert model_calls_forbidden()


@pytest.mark.parametrize(("value", "forbids"), [("1", True), ("yes", True), ("0", False), ("off", False), ("", False)])
def test_the_variable_read_at_the_root_switches_model_calls_off(
    monkeypatch: pytest.MonkeyPatch, value: str, forbids: bool
) -> None:
    monkeypatch.delenv("MEMDIR_FORBID_MODEL_CALLS")
    with forbid_real_model_calls(False):
        read_environment({"MEMDIR_FORBID_MODEL_CALLS": value})
        assert model_calls_forbidden() is forbids


def test_the_process_variable_forbids_model_calls_whatever_environment_a_caller_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMDIR_FORBID_MODEL_CALLS", "1")
    with forbid_real_model_calls(False):
        resolve_config(None, env={})
        assert model_calls_forbidden()


def test_the_suite_runs_with_real_model_calls_forbidden() -> None:
    assert model_calls_forbidden()
    with pytest.raises(ModelCallsForbidden, match=r"scripted:PATH\.json"):
        check_model_call_allowed("anthropic:claude-sonnet-4-6", "https://api.anthropic.com")
    check_model_call_allowed("openai:local", "http://127.0.0.1:8080/v1")


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:9/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8000", True),
        ("http://127.8.0.2", True),
        ("https://api.openai.com/v1", False),
        ("http://10.0.0.5:8000/v1", False),
        ("http://127.0.0.1.example.com", False),
        (None, False),
    ],
)
def test_only_loopback_hosts_count_as_local(url: str | None, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback


def test_http_errors_name_status_provider_message_and_fix() -> None:
    error = http_error("openai:gpt-4o-mini", 401, "Incorrect API key", key_env="OPENAI_API_KEY", base_url="u")
    assert isinstance(error, ModelError)
    assert "HTTP 401: Incorrect API key" in str(error)
    assert "check OPENAI_API_KEY" in str(error)
    assert "retry later" in str(http_error("s", 503, "down", key_env="K", base_url=None))
