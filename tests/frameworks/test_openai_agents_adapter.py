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

from memdir.integrations.frameworks.openai_agents import MemdirAgentMemory, memdir_tools, to_conversation
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


def test_the_tools_are_the_mcp_servers_tools_as_function_tools(memory_dir, env):
    tools = memdir_tools(session=session_over(memory_dir, env))
    assert [tool.name for tool in tools] == ["recall", "remember", "update", "forget"]
    remember = tools[1].params_json_schema
    assert list(remember["properties"]) == ["type", "name", "description", "body", "file", "force", "replaces"]
    assert remember["properties"]["body"]["description"] == "The memory itself, in Markdown."
    # the scripted models here call remember with "content", an alias the tool accepts as the MCP server does


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


STAGING = {
    "name": "Staging database",
    "description": "Staging DB port",
    "content": "Staging DB: port 5433, not 5432.",
    "type": "project",
}


def save(session, value):
    from memdir.model.memory import Memory

    session.memory_dir.save(
        Memory(name=value["name"], description=value["description"], type=value["type"], body=value["content"])
    )


def reminders_in(items):
    return [i for i in items if i.get("role") == "user" and "<system-reminder>" in str(i.get("content"))]


def test_a_recalled_memory_stays_in_front_of_the_model_for_the_rest_of_a_carried_conversation(memory_dir, env):
    session = session_over(memory_dir, env)
    save(session, STAGING)
    memory = MemdirAgentMemory(session=session)
    model = ScriptedAgentModel(says("5433.", 1), says("Monthly.", 2), says("You are welcome.", 3))
    agent = Agent(name="helper", model=model, tools=memory.tools)
    history: list = []
    for prompt in ["which port does the staging database listen on?", "and the password rotation?", "thanks!"]:
        result = run(memory, agent, [*history, {"role": "user", "content": prompt}])
        history = result.to_input_list()
        items = model.calls[-1][1]
        assert [("port 5433, not 5432" in r["content"]) for r in reminders_in(items)] == [True]
        assert items.index(reminders_in(items)[0]) == 1  # after the first message, where it was first shown


def test_the_recall_tool_searches_one_word(memory_dir, env):
    session = session_over(memory_dir, env)
    save(session, STAGING)
    memory = MemdirAgentMemory(session=session)
    model = ScriptedAgentModel(says("Hi.", 1), calls("recall", {"query": "staging"}, 2), says("5433.", 3))
    agent = Agent(name="helper", model=model, tools=memory.tools)
    first = run(memory, agent, "hello")
    run(memory, agent, [*first.to_input_list(), {"role": "user", "content": "look up that database for me"}])
    outputs = [i for i in model.calls[-1][1] if i.get("type") == "function_call_output"]
    assert len(outputs) == 1 and "port 5433, not 5432" in outputs[0]["output"]


def test_the_applications_own_hooks_run_beside_memdirs(memory_dir, env):
    from agents import RunHooks

    from memdir.integrations.frameworks.openai_agents import combine_hooks

    class Counting(RunHooks):
        def __init__(self):
            self.events = []

        async def on_agent_start(self, context, agent):
            self.events.append("agent_start")

        async def on_agent_end(self, context, agent, output):
            self.events.append(f"agent_end:{output}")

    extractor_model = extraction_model(memory_dir)
    memory = MemdirAgentMemory(session=session_over(memory_dir, env, model=extractor_model))
    mine = Counting()
    agent = Agent(name="helper", model=ScriptedAgentModel(says("Noted.", 1)), tools=memory.tools)
    config = memory.run_config(tracing_disabled=True)
    asyncio.run(
        Runner.run(agent, "I drink oat flat whites", run_config=config, hooks=combine_hooks(memory.hooks, mine))
    )
    assert memory.drain(30) and mine.events == ["agent_start", "agent_end:Noted."]
    assert read_memory(os.path.join(memory_dir, "user_coffee.md")).name == "Coffee"


def test_two_users_of_one_agent_never_see_each_others_memories(tmp_path, env, monkeypatch):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    root = str(tmp_path / "users" / "{user_id}")
    model = ScriptedAgentModel(calls("remember", REMEMBER, 1), says("Saved.", 2), says("No idea.", 3))
    ada = MemdirAgentMemory(memory_dir=root, user_id="ada")
    run(ada, Agent(name="helper", model=model, tools=ada.tools), "Remember that I lead the payments team")
    bob = MemdirAgentMemory(memory_dir=root, user_id="x" * 300)
    run(bob, Agent(name="helper", model=model, tools=bob.tools), "who leads the payments team?")
    instructions, items = model.calls[-1]
    assert reminders_in(items) == [] and "Payments lead" not in instructions
    assert os.path.exists(tmp_path / "users" / "ada" / "user_payments_lead.md")
    assert len(os.path.basename(bob.memory.session.memory_dir.root)) < 64
