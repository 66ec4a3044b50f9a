from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from _llm_wire import WireServer, anthropic_error, anthropic_message

from memdir.config import read_environment
from memdir.errors import ModelError, ModelOutputError, ModelTimeout
from memdir.llm import ChatRequest, Message, ToolCall, ToolResult, ToolSpec, Usage, load_model
from memdir.llm.anthropic import AnthropicModel

SCHEMA = {
    "type": "object",
    "properties": {"selected_memories": {"type": "array", "items": {"type": "string"}}},
    "required": ["selected_memories"],
    "additionalProperties": False,
}
WRITE = ToolSpec("Write", "Write a memory file.", {"type": "object", "properties": {"file_path": {"type": "string"}}})


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as wire:
        yield wire


def model_for(server: WireServer, *, max_retries: int = 2) -> AnthropicModel:
    return AnthropicModel("claude-sonnet-4-6", api_key="sk-ant-test", base_url=server.url, max_retries=max_retries)


def ask(**kwargs: object) -> ChatRequest:
    return ChatRequest(system="You keep memories.", messages=(Message("user", "hello"),), **kwargs)  # type: ignore[arg-type]


def test_a_text_answer_is_mapped_with_its_usage(server: WireServer) -> None:
    server.queue(200, anthropic_message([{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}]))
    model = load_model(
        "anthropic:claude-sonnet-4-6",
        read_environment({"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": server.url}),
    )
    assert isinstance(model, AnthropicModel)
    with model:
        completion = model.complete(ask(max_tokens=77))
    assert completion.text == "Hi there"
    assert completion.tool_calls == ()
    assert completion.usage == Usage(42, 7, 30, 5)
    assert completion.stop_reason == "end_turn"
    (sent,) = server.requests
    assert sent.path == "/v1/messages"
    # The SDK sends the key as x-api-key or, since 2.x, as a bearer token.
    assert "sk-ant-test" in (sent.headers.get("x-api-key", ""), sent.headers.get("authorization", "")[7:])
    assert sent.body == {
        "model": "claude-sonnet-4-6",
        "max_tokens": 77,
        "system": "You keep memories.",
        "messages": [{"role": "user", "content": "hello"}],
    }


def test_tool_calls_and_results_travel_as_content_blocks(server: WireServer) -> None:
    server.queue(
        200,
        anthropic_message(
            [
                {"type": "text", "text": "Saving."},
                {"type": "tool_use", "id": "toolu_02", "name": "Write", "input": {"file_path": "b.md"}},
            ],
            stop_reason="tool_use",
        ),
    )
    history = (
        Message("user", "remember a"),
        Message("assistant", "ok", tool_calls=(ToolCall("toolu_01", "Write", {"file_path": "a.md"}),)),
        Message("user", "and b", tool_results=(ToolResult("toolu_01", "denied", is_error=True),)),
    )
    with model_for(server) as model:
        completion = model.complete(ChatRequest(system="", messages=history, tools=(WRITE,), tool_choice="any"))
    assert completion.tool_calls == (ToolCall("toolu_02", "Write", {"file_path": "b.md"}),)
    assert completion.text == "Saving."
    assert completion.stop_reason == "tool_use"
    body = server.requests[0].body
    assert "system" not in body
    assert body["tools"] == [
        {"name": "Write", "description": "Write a memory file.", "input_schema": WRITE.input_schema}
    ]
    assert body["tool_choice"] == {"type": "any"}
    assert body["messages"] == [
        {"role": "user", "content": "remember a"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "ok"},
                {"type": "tool_use", "id": "toolu_01", "name": "Write", "input": {"file_path": "a.md"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "denied", "is_error": True},
                {"type": "text", "text": "and b"},
            ],
        },
    ]


def test_json_is_asked_for_through_structured_output(server: WireServer) -> None:
    server.queue(200, anthropic_message([{"type": "text", "text": '{"selected_memories": ["a.md"]}'}]))
    with model_for(server) as model:
        completion = model.complete(ask(json_schema=SCHEMA, tool_choice="Write", tools=(WRITE,)))
        assert model.structured_output is True
    assert completion.json == {"selected_memories": ["a.md"]}
    body = server.requests[0].body
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    assert body["tool_choice"] == {"type": "tool", "name": "Write"}


def test_a_server_refusing_structured_output_gets_a_forced_tool_call_from_then_on(server: WireServer) -> None:
    server.queue(400, anthropic_error("invalid_request_error", "output_config: Extra inputs are not permitted"))
    forced = [{"type": "tool_use", "id": "toolu_9", "name": "selection", "input": {"selected_memories": []}}]
    server.queue(200, anthropic_message(forced, stop_reason="tool_use"))
    server.queue(200, anthropic_message(forced, stop_reason="tool_use"))
    with model_for(server) as model:
        first = model.complete(ask(json_schema=SCHEMA, schema_name="selection"))
        second = model.complete(ask(json_schema=SCHEMA, schema_name="selection"))
    assert first.json == second.json == {"selected_memories": []}
    assert first.tool_calls == ()
    bodies = server.bodies()
    assert [("output_config" in b) for b in bodies] == [True, False, False]
    assert bodies[1]["tool_choice"] == {
        "type": "tool",
        "name": "selection",
        "disable_parallel_tool_use": True,
    }
    assert bodies[1]["tools"][-1]["name"] == "selection"
    assert bodies[1]["tools"][-1]["input_schema"] == SCHEMA


def test_json_that_breaks_the_schema_or_is_not_json_is_a_model_output_error(server: WireServer) -> None:
    server.queue(200, anthropic_message([{"type": "text", "text": '{"selected_memories": "a.md"}'}]))
    server.queue(200, anthropic_message([{"type": "text", "text": '{"selected_'}], stop_reason="max_tokens"))
    with model_for(server) as model:
        with pytest.raises(ModelOutputError, match="expected array"):
            model.complete(ask(json_schema=SCHEMA))
        with pytest.raises(ModelOutputError, match="raise max_tokens"):
            model.complete(ask(json_schema=SCHEMA))


def test_a_forced_tool_that_is_not_called_is_a_model_output_error(server: WireServer) -> None:
    server.queue(400, anthropic_error("invalid_request_error", "output_config is not supported"))
    server.queue(200, anthropic_message([{"type": "text", "text": "I cannot"}]))
    with model_for(server) as model, pytest.raises(ModelOutputError, match="did not call the forced"):
        model.complete(ask(json_schema=SCHEMA))


def test_an_http_error_names_status_message_and_fix(server: WireServer) -> None:
    server.queue(500, anthropic_error("api_error", "Internal server error"), headers={"x-should-retry": "false"})
    server.queue(401, anthropic_error("authentication_error", "invalid x-api-key"))
    with model_for(server) as model:
        with pytest.raises(ModelError) as info:
            model.complete(ask())
        assert "HTTP 500: Internal server error" in str(info.value)
        assert "retry later" in str(info.value)
        assert info.value.rule == "model-http"
        with pytest.raises(ModelError, match=r"HTTP 401: invalid x-api-key.*check ANTHROPIC_API_KEY"):
            model.complete(ask())


def test_a_slow_server_raises_model_timeout(server: WireServer) -> None:
    server.queue_slow()
    with (
        model_for(server, max_retries=0) as model,
        pytest.raises(ModelTimeout, match=r"did not answer within 0\.3s"),
    ):
        model.complete(ask(timeout=0.3))


def test_the_async_client_speaks_the_same_wire_format(server: WireServer) -> None:
    server.queue(400, anthropic_error("invalid_request_error", "output_config: Extra inputs are not permitted"))
    server.queue(
        200,
        anthropic_message(
            [{"type": "tool_use", "id": "t", "name": "output", "input": {"selected_memories": ["x.md"]}}]
        ),
    )
    server.queue(200, anthropic_message([{"type": "text", "text": "plain"}]))
    server.queue_slow()
    model = model_for(server, max_retries=0)

    async def run() -> tuple[object, str]:
        selected = await model.acomplete(ask(json_schema=SCHEMA))
        plain = await model.acomplete(ask())
        return selected.json, plain.text

    assert asyncio.run(run()) == ({"selected_memories": ["x.md"]}, "plain")
    with pytest.raises(ModelTimeout):
        asyncio.run(model.acomplete(ask(timeout=0.3)))
    assert len(server.requests) == 4
