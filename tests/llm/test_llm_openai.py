from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from _llm_wire import WireServer, openai_completion, openai_error

from memdir.config import read_environment
from memdir.errors import ModelError, ModelOutputError, ModelTimeout
from memdir.llm import ChatRequest, Message, ToolCall, ToolResult, ToolSpec, Usage, load_model
from memdir.llm.openai import FORCED_TOOL, PLAIN_TEXT, RESPONSE_FORMAT, OpenAIModel

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


def model_for(server: WireServer, *, key: str | None = "sk-test", max_retries: int = 2) -> OpenAIModel:
    return OpenAIModel("gpt-4o-mini", api_key=key, base_url=f"{server.url}/v1", max_retries=max_retries)


def ask(**kwargs: object) -> ChatRequest:
    return ChatRequest(system="You keep memories.", messages=(Message("user", "hello"),), **kwargs)  # type: ignore[arg-type]


def function_call(call_id: str, name: str, arguments: str) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_a_text_answer_is_mapped_with_its_usage(server: WireServer) -> None:
    server.queue(200, openai_completion(content="Hi there"))
    env = {"OPENAI_BASE_URL": f"{server.url}/v1", "OPENAI_API_KEY": "sk-test"}
    model = load_model("openai:gpt-4o-mini", read_environment(env))
    assert isinstance(model, OpenAIModel)
    with model:
        completion = model.complete(ask(max_tokens=64))
    assert completion.text == "Hi there"
    assert completion.usage == Usage(input_tokens=30, output_tokens=9, cache_read_input_tokens=20)
    assert completion.stop_reason == "stop"
    (sent,) = server.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.body == {
        "model": "gpt-4o-mini",
        "max_tokens": 64,
        "messages": [
            {"role": "system", "content": "You keep memories."},
            {"role": "user", "content": "hello"},
        ],
    }


def test_tool_calls_go_out_as_functions_and_results_as_tool_messages(server: WireServer) -> None:
    server.queue(
        200,
        openai_completion(
            tool_calls=[function_call("call_2", "Write", '{"file_path": "b.md"}')], finish_reason="tool_calls"
        ),
    )
    history = (
        Message("user", "remember a"),
        Message("assistant", tool_calls=(ToolCall("call_1", "Write", {"file_path": "a.md"}),)),
        Message("user", "and b", tool_results=(ToolResult("call_1", "disk full", is_error=True),)),
    )
    with model_for(server) as model:
        completion = model.complete(ChatRequest(system="", messages=history, tools=(WRITE,), tool_choice="Write"))
    assert completion.tool_calls == (ToolCall("call_2", "Write", {"file_path": "b.md"}),)
    assert completion.stop_reason == "tool_calls"
    body = server.requests[0].body
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "Write",
                "description": "Write a memory file.",
                "parameters": WRITE.input_schema,
            },
        }
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "Write"}}
    assert body["messages"] == [
        {"role": "user", "content": "remember a"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "Write", "arguments": '{"file_path": "a.md"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Error: disk full"},
        {"role": "user", "content": "and b"},
    ]


@pytest.mark.parametrize(("choice", "wire"), [("any", "required"), ("none", "none")])
def test_tool_choice_words_map_to_the_openai_ones(server: WireServer, choice: str, wire: str) -> None:
    server.queue(200, openai_completion(content="ok"))
    with model_for(server) as model:
        model.complete(ask(tools=(WRITE,), tool_choice=choice))
    assert server.requests[0].body["tool_choice"] == wire


def test_json_is_asked_for_with_a_strict_response_format(server: WireServer) -> None:
    server.queue(200, openai_completion(content='{"selected_memories": ["a.md"]}'))
    with model_for(server) as model:
        completion = model.complete(ask(json_schema=SCHEMA, schema_name="selection"))
        assert model.json_mode == RESPONSE_FORMAT
    assert completion.json == {"selected_memories": ["a.md"]}
    assert server.requests[0].body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "selection", "schema": SCHEMA, "strict": True},
    }


def test_a_server_refusing_response_format_gets_a_forced_function_call(server: WireServer) -> None:
    server.queue(400, openai_error("response_format json_schema is not supported"))
    arguments = json.dumps({"selected_memories": ["b.md"]})
    server.queue(200, openai_completion(tool_calls=[function_call("c1", "output", arguments)]))
    server.queue(200, openai_completion(tool_calls=[function_call("c2", "output", arguments)]))
    with model_for(server) as model:
        first = model.complete(ask(json_schema=SCHEMA))
        second = model.complete(ask(json_schema=SCHEMA))
        assert model.json_mode == FORCED_TOOL
    assert first.json == second.json == {"selected_memories": ["b.md"]}
    assert first.tool_calls == ()
    bodies = server.bodies()
    assert ["response_format" in b for b in bodies] == [True, False, False]
    assert bodies[1]["tool_choice"] == {"type": "function", "function": {"name": "output"}}
    assert bodies[1]["tools"][-1]["function"]["parameters"] == SCHEMA


def test_a_server_without_json_support_gets_a_plain_request_read_tolerantly(server: WireServer) -> None:
    server.queue(400, openai_error("response_format is not supported"))
    server.queue(400, openai_error("tools are not supported"))
    server.queue(200, openai_completion(content='Sure:\n```json\n{"selected_memories": []}\n```'))
    with model_for(server, key=None) as model:
        completion = model.complete(ask(json_schema=SCHEMA))
        assert model.json_mode == PLAIN_TEXT
    assert completion.json == {"selected_memories": []}
    last = server.requests[-1]
    assert last.headers["authorization"] == "Bearer not-needed"
    assert "response_format" not in last.body
    assert "tools" not in last.body
    system = last.body["messages"][0]["content"]
    assert system.startswith("You keep memories.\n\n")
    assert '"selected_memories"' in system


def test_a_named_tool_choice_answered_in_text_is_still_read(server: WireServer) -> None:
    server.queue(400, openai_error("json_schema unsupported"))
    server.queue(200, openai_completion(content='{"selected_memories": ["c.md"]}'))
    with model_for(server) as model:
        assert model.complete(ask(json_schema=SCHEMA)).json == {"selected_memories": ["c.md"]}


def test_malformed_output_is_a_model_output_error(server: WireServer) -> None:
    server.queue(200, openai_completion(tool_calls=[function_call("c", "Write", "{not json")]))
    server.queue(200, openai_completion(content='{"selected_memories": [1]}'))
    server.queue(200, openai_completion(content='{"selected_', finish_reason="length"))
    with model_for(server) as model:
        with pytest.raises(ModelOutputError, match="arguments that are not JSON"):
            model.complete(ask(tools=(WRITE,)))
        with pytest.raises(ModelOutputError, match="expected string"):
            model.complete(ask(json_schema=SCHEMA))
        with pytest.raises(ModelOutputError, match="raise max_tokens"):
            model.complete(ask(json_schema=SCHEMA))


def test_an_http_error_names_status_message_and_fix(server: WireServer) -> None:
    server.queue(500, openai_error("The server had an error", "server_error"), headers={"x-should-retry": "false"})
    server.queue(404, openai_error("The model `gpt-9` does not exist"))
    with model_for(server) as model:
        with pytest.raises(ModelError, match=r"HTTP 500: The server had an error; .*retry later"):
            model.complete(ask())
        with pytest.raises(
            ModelError, match=r"HTTP 404: The model `gpt-9` does not exist; model or endpoint not found"
        ):
            model.complete(ask())


def test_hosted_openai_gets_max_completion_tokens() -> None:
    model = OpenAIModel("gpt-4o-mini", api_key="sk-test")
    assert model.base_url == "https://api.openai.com/v1"
    assert model._kwargs(ask(max_tokens=5))["max_completion_tokens"] == 5


def test_a_slow_server_raises_model_timeout(server: WireServer) -> None:
    server.queue_slow()
    with model_for(server, max_retries=0) as model, pytest.raises(ModelTimeout, match=r"within 0\.3s"):
        model.complete(ask(timeout=0.3))


def test_the_async_client_speaks_the_same_wire_format(server: WireServer) -> None:
    server.queue(200, openai_completion(content='{"selected_memories": ["z.md"]}'))
    server.queue(200, openai_completion(tool_calls=[function_call("c9", "Write", '{"file_path": "z.md"}')]))
    server.queue_slow()
    model = model_for(server, max_retries=0)

    async def run() -> tuple[object, tuple[ToolCall, ...]]:
        selected = await model.acomplete(ask(json_schema=SCHEMA))
        called = await model.acomplete(ask(tools=(WRITE,)))
        return selected.json, called.tool_calls

    assert asyncio.run(run()) == (
        {"selected_memories": ["z.md"]},
        (ToolCall("c9", "Write", {"file_path": "z.md"}),),
    )
    with pytest.raises(ModelTimeout):
        asyncio.run(model.acomplete(ask(timeout=0.3)))
