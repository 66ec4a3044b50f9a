"""memdir's OpenAI Agents SDK tools, per-turn recall and extraction, driven by a scripted Model."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

pytest.importorskip("agents")

from _framework_helpers import changed_by, index_lines, read_memory, session_over
from agents import Agent, Runner
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from memdir.integrations.openai_agents import MemdirAgentMemory, memdir_tools, to_conversation
from memdir.llm.scripted import ScriptedModel
from memdir.model.memory_type import MemoryType


class ScriptedAgentModel(Model):
    """Answers each model call from a script and records the instructions and input it was given."""

    def __init__(self, *outputs):
        self.outputs = list(outputs)
        self.calls: list[tuple[str | None, list]] = []

    async def get_response(self, system_instructions, input, *args, **kwargs):
        self.calls.append((system_instructions, json.loads(json.dumps(input, default=str))))
        return ModelResponse(output=self.outputs.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError("the tests run without streaming")


def says(text, n):
    content = [ResponseOutputText(type="output_text", text=text, annotations=[])]
    return [ResponseOutputMessage(id=f"msg_{n}", type="message", role="assistant", status="completed", content=content)]


def calls(name, args, n):
    return [
        ResponseFunctionToolCall(
            id=f"fc_{n}", call_id=f"call_{n}", type="function_call", name=name, arguments=json.dumps(args)
        )
    ]


REMEMBER = {
    "name": "Payments lead",
    "description": "The user leads the payments team",
    "content": "Leads the payments team; wants short code reviews.",
    "type": "user",
}


def run(memory, agent, prompt):
    config = memory.run_config(tracing_disabled=True)
    return asyncio.run(Runner.run(agent, prompt, run_config=config, hooks=memory.hooks))


def test_an_agent_saves_a_memory_and_the_next_turn_recalls_it_before_each_model_call(memory_dir, env):
    memory = MemdirAgentMemory(session=session_over(memory_dir, env))
    model = ScriptedAgentModel(
        calls("remember", REMEMBER, 1), says("Saved.", 2), calls("recall", {"query": "payments"}, 3), says("You.", 4)
    )
    agent = Agent(name="helper", instructions="Be brief.", model=model, tools=memory.tools)
    run(memory, agent, "Remember that I lead the payments team")
    memory_file = read_memory(os.path.join(memory_dir, "user_payments_lead.md"))
    assert (memory_file.name, memory_file.type) == ("Payments lead", MemoryType.USER)
    assert index_lines(memory_dir) == ["- [Payments lead](user_payments_lead.md) — The user leads the payments team"]
    assert changed_by(memory_dir, env, "user_payments_lead.md") == "openai-agents"

    run(memory, agent, "who leads the payments team?")
    for instructions, items in model.calls[2:]:
        assert instructions.startswith("Be brief.\n\n# auto memory")
        reminders = [i for i in items if i.get("role") == "user" and "<system-reminder>" in str(i.get("content"))]
        assert len(reminders) == 1 and "wants short code reviews" in reminders[0]["content"]
        assert items.index(reminders[0]) == 1  # right after the user's message


def test_the_tools_are_function_tools_named_as_in_every_framework(memory_dir, env):
    tools = memdir_tools(session=session_over(memory_dir, env))
    assert [tool.name for tool in tools] == ["recall", "remember", "update", "forget"]
    assert tools[1].params_json_schema["required"][:3] == ["name", "description", "content"]


def extraction_model(memory_dir, *more):
    content = "---\nname: Coffee\ndescription: The user drinks oat flat whites\ntype: user\n---\n\nOat flat white.\n"
    write = {"name": "Write", "input": {"file_path": os.path.join(memory_dir, "user_coffee.md"), "content": content}}
    return ScriptedModel([{"tool_calls": [write]}, {"text": "Saved."}, *more])


def test_after_a_run_extraction_reads_the_run_once_even_when_the_history_comes_back(memory_dir, env):
    extractor_model = extraction_model(memory_dir, {"text": "Nothing new."})
    memory = MemdirAgentMemory(session=session_over(memory_dir, env, model=extractor_model))
    agent = Agent(name="helper", model=ScriptedAgentModel(says("Noted.", 1), says("Sure.", 2)), tools=memory.tools)
    first = run(memory, agent, "I drink oat flat whites every morning")
    assert memory.drain(30)
    assert read_memory(os.path.join(memory_dir, "user_coffee.md")).description == "The user drinks oat flat whites"
    assert index_lines(memory_dir) == ["- [Coffee](user_coffee.md) — The user drinks oat flat whites"]
    assert "I drink oat flat whites every morning" in extractor_model.requests[0].messages[-1].text

    run(memory, agent, [*first.to_input_list(), {"role": "user", "content": "Thanks, that is all."}])
    assert memory.drain(30) and len(extractor_model.requests) == 3
    seen = extractor_model.requests[2].messages[-1].text
    assert "Thanks, that is all." in seen and "oat flat whites every morning" not in seen


def test_extraction_leaves_a_run_alone_when_the_agent_saved_a_memory_itself(memory_dir, env):
    extractor_model = ScriptedModel([])
    memory = MemdirAgentMemory(session=session_over(memory_dir, env, model=extractor_model))
    agent = Agent(
        name="helper", model=ScriptedAgentModel(calls("remember", REMEMBER, 1), says("Saved.", 2)), tools=memory.tools
    )
    run(memory, agent, "Remember that I lead the payments team")
    assert memory.drain(30) and extractor_model.requests == []


def test_responses_items_become_memdirs_messages_with_stable_ids():
    items = [
        {"role": "user", "content": "hi"},
        says("hello", 1)[0],
        calls("recall", {"query": "x"}, 2)[0],
        {"type": "function_call_output", "call_id": "call_2", "output": "no relevant memories"},
        {"role": "user", "content": "hi"},
    ]
    messages = to_conversation(items)
    assert [m["role"] for m in messages] == ["user", "assistant", "assistant", "user", "user"]
    assert messages[2]["content"][0] == {"type": "tool_use", "id": "call_2", "name": "recall", "input": {"query": "x"}}
    assert messages[1]["uuid"] == "msg_1" and messages[0]["uuid"] != messages[4]["uuid"]
    assert to_conversation(items) == messages
