"""memdir's pydantic-ai capability, toolset and memory-tool handler, driven by pydantic-ai's own test models."""

from __future__ import annotations

import asyncio
import os

import pytest

pytest.importorskip("pydantic_ai")

from _framework_helpers import changed_by, index_lines, read_memory, session_over
from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from memdir.errors import ModelNotConfigured
from memdir.integrations.frameworks.pydantic_ai import MemdirCapability, memdir_toolset, memory_tool
from memdir.llm.scripted import ScriptedModel
from memdir.model.memory_type import MemoryType

REMEMBER = {
    "name": "Payments lead",
    "description": "The user leads the payments team",
    "content": "Leads the payments team; wants short code reviews.",
    "type": "user",
}


class Script:
    """A FunctionModel body: calls a tool when the prompt asks to remember, else answers; records its inputs."""

    def __init__(self, tool="remember", args=None):
        self.tool, self.args = tool, args or REMEMBER
        self.__name__ = "script"  # FunctionModel names the model after its function
        self.inputs: list[tuple[list, str | None]] = []

    def __call__(self, messages, info: AgentInfo):
        self.inputs.append((list(messages), info.instructions))
        last = messages[-1]
        asked = [p for p in last.parts if isinstance(p, UserPromptPart) and "remember" in str(p.content).lower()]
        if asked and not any(isinstance(m, ModelResponse) for m in messages[-1:]):
            return ModelResponse(parts=[ToolCallPart(self.tool, self.args, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("Done.")])


def prompts_seen(messages):
    return [
        str(p.content)
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, UserPromptPart)
    ]


def test_an_agent_saves_a_memory_and_the_next_run_recalls_it_into_the_model_input(memory_dir, env):
    script = Script()
    capability = MemdirCapability(session=session_over(memory_dir, env))
    agent = Agent(FunctionModel(script), capabilities=[capability])
    agent.run_sync("Please remember that I lead the payments team")
    memory = read_memory(os.path.join(memory_dir, "user_payments_lead.md"))
    assert (memory.name, memory.type) == ("Payments lead", MemoryType.USER)
    assert index_lines(memory_dir) == ["- [Payments lead](user_payments_lead.md) — The user leads the payments team"]
    assert changed_by(memory_dir, env, "user_payments_lead.md") == "pydantic-ai"

    agent.run_sync("who leads the payments team here?")
    messages, instructions = script.inputs[-1]
    assert instructions is not None and "# auto memory" in instructions and memory_dir in instructions
    reminders = [p for p in prompts_seen(messages) if "<system-reminder>" in p]
    assert len(reminders) == 1 and "wants short code reviews" in reminders[0]
    assert prompts_seen(messages)[-1] == reminders[0]  # right after the user's prompt


def test_a_memory_is_recalled_once_per_conversation_but_for_every_model_call_of_its_turn(memory_dir, env):
    session = session_over(memory_dir, env)
    session.memory_dir.save(read_memory_like(REMEMBER))
    script = Script(tool="recall", args={"query": "payments"})
    agent = Agent(FunctionModel(script), capabilities=[MemdirCapability(session=session)])
    first = agent.run_sync("remember who leads payments?")  # two model calls: the tool call, then the answer
    assert ["wants short code reviews" in prompts_seen(m)[-1] for m, _ in script.inputs] == [True, True]
    agent.run_sync("and who leads payments again?", message_history=first.all_messages())
    seen = prompts_seen(script.inputs[-1][0])
    # Not recalled a second time: the one reminder stays where it was, after the first prompt.
    assert [p for p in seen if "<system-reminder>" in p] == [seen[1]]
    assert seen[0] == "remember who leads payments?" and seen[-1] == "and who leads payments again?"


def read_memory_like(value):
    from memdir.model.memory import Memory

    return Memory(name=value["name"], description=value["description"], type=value["type"], body=value["content"])


def test_the_toolset_offers_recall_remember_update_and_forget(memory_dir, env):
    model = TestModel(call_tools=[])
    Agent(model, toolsets=[memdir_toolset(session=session_over(memory_dir, env))]).run_sync("hi")
    names = sorted(tool.name for tool in model.last_model_request_parameters.function_tools)
    assert names == ["forget", "recall", "remember", "update"]


def test_update_and_forget_change_the_files_and_the_index(memory_dir, env):
    session = session_over(memory_dir, env)
    session.memory_dir.save(read_memory_like(REMEMBER))
    calls = iter(
        [
            ToolCallPart("update", {"file": "Payments lead", "append": "Also owns billing."}, tool_call_id="u"),
            ToolCallPart("forget", {"file": "user_payments_lead.md"}, tool_call_id="f"),
        ]
    )

    def model(messages, info):
        part = next(calls, None)
        return ModelResponse(parts=[part] if part else [TextPart("ok")])

    agent = Agent(FunctionModel(model), toolsets=[memdir_toolset(session=session)])
    agent.run_sync("tidy up")
    assert not os.path.exists(os.path.join(memory_dir, "user_payments_lead.md"))
    assert index_lines(memory_dir) == []


def extraction_model(memory_dir):
    content = "---\nname: Coffee\ndescription: The user drinks oat flat whites\ntype: user\n---\n\nOat flat white.\n"
    write = {"name": "Write", "input": {"file_path": os.path.join(memory_dir, "user_coffee.md"), "content": content}}
    return ScriptedModel([{"tool_calls": [write]}, {"text": "Saved."}])


def test_after_a_run_extraction_saves_what_the_conversation_taught(memory_dir, env):
    model = extraction_model(memory_dir)
    capability = MemdirCapability(session=session_over(memory_dir, env, model=model))
    Agent(FunctionModel(Script()), capabilities=[capability]).run_sync("I drink oat flat whites every morning")
    assert capability.drain(30)
    assert read_memory(os.path.join(memory_dir, "user_coffee.md")).description == "The user drinks oat flat whites"
    assert "I drink oat flat whites every morning" in model.requests[0].messages[-1].text
    assert index_lines(memory_dir) == ["- [Coffee](user_coffee.md) — The user drinks oat flat whites"]
    assert changed_by(memory_dir, env, "user_coffee.md") == "extract:pydantic-ai"


def test_extraction_leaves_a_run_alone_when_the_agent_saved_a_memory_itself(memory_dir, env):
    model = ScriptedModel([])
    capability = MemdirCapability(session=session_over(memory_dir, env, model=model))
    Agent(FunctionModel(Script()), capabilities=[capability]).run_sync("Remember that I lead the payments team")
    assert capability.drain(30) and model.requests == []


def test_extraction_that_is_required_without_a_model_fails_when_built_before_any_model_call(memory_dir, env):
    script = Script()
    with pytest.raises(ModelNotConfigured, match="MEMDIR_MODEL"):
        Agent(
            FunctionModel(script), capabilities=[MemdirCapability(session=session_over(memory_dir, env), extract=True)]
        )
    assert script.inputs == []


def test_the_memory_tool_handler_writes_contained_files_and_keeps_the_index(memory_dir, env, tmp_path):
    text = "---\nname: Tea\ndescription: The user drinks green tea\ntype: user\n---\n\nGreen tea.\n"
    calls = iter(
        [
            {"command": "create", "path": "/memories/user_tea.md", "file_text": text},
            {"command": "create", "path": "/memories/../outside.md", "file_text": "x"},
            {"command": "view", "path": "/memories"},
        ]
    )
    results = []

    def model(messages, info):
        returns = [p for p in messages[-1].parts if getattr(p, "part_kind", "") == "tool-return"]
        results.extend(str(p.content) for p in returns)
        args = next(calls, None)
        return ModelResponse(
            parts=[ToolCallPart("memory", args, tool_call_id=f"m{len(results)}") if args else TextPart("ok")]
        )

    Agent(FunctionModel(model), tools=[memory_tool(session=session_over(memory_dir, env))]).run_sync("remember tea")
    assert read_memory(os.path.join(memory_dir, "user_tea.md")).body == "Green tea."
    assert index_lines(memory_dir) == ["- [Tea](user_tea.md) — The user drinks green tea"]
    assert results[0].startswith("File created successfully at: /memories/user_tea.md")
    assert results[1] == "Error: Path /memories/../outside.md would escape /memories directory"
    assert "/memories/user_tea.md" in results[2]
    assert not (tmp_path / "outside.md").exists()


def test_pydantic_ais_native_memory_tool_runs_on_memdir_through_the_anthropic_api(memory_dir, env):
    """The real Anthropic model class against a local server that answers like the API."""
    anthropic_models = pytest.importorskip("pydantic_ai.models.anthropic")
    from _llm_wire import WireServer, anthropic_message
    from anthropic import AsyncAnthropic
    from pydantic_ai.capabilities import NativeTool
    from pydantic_ai.native_tools import MemoryTool
    from pydantic_ai.providers.anthropic import AnthropicProvider

    text = "---\nname: Tabs\ndescription: The user prefers tabs over spaces\ntype: feedback\n---\n\nTabs, always.\n"
    with WireServer() as wire:
        create = {"command": "create", "path": "/memories/feedback_tabs.md", "file_text": text}
        wire.queue(200, anthropic_message([{"type": "tool_use", "id": "toolu_1", "name": "memory", "input": create}],
                                          stop_reason="tool_use"))  # fmt: skip
        wire.queue(200, anthropic_message([{"type": "text", "text": "I'll remember that."}]))
        agent = Agent(
            capabilities=[NativeTool(MemoryTool())], tools=[memory_tool(session=session_over(memory_dir, env))]
        )

        client = AsyncAnthropic(api_key="test-key", base_url=wire.url)
        model = anthropic_models.AnthropicModel(
            "claude-sonnet-4-6", provider=AnthropicProvider(anthropic_client=client)
        )
        try:
            # A small max_tokens keeps the SDK from streaming the request.
            reply = agent.run_sync("I prefer tabs over spaces.", model=model, model_settings={"max_tokens": 1024})
        finally:
            asyncio.get_event_loop().run_until_complete(client.close())  # the loop run_sync left set
        assert reply.output == "I'll remember that."
        first, second = wire.bodies()
    assert {"type": "memory_20250818", "name": "memory"} in first["tools"]
    result = second["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "File created successfully" in str(result["content"])
    assert read_memory(os.path.join(memory_dir, "feedback_tabs.md")).body == "Tabs, always."
    assert index_lines(memory_dir) == ["- [Tabs](feedback_tabs.md) — The user prefers tabs over spaces"]


STAGING = {
    "name": "Staging database",
    "description": "Staging DB port",
    "content": "Staging DB: port 5433, not 5432.",
    "type": "project",
}


def test_a_recalled_memory_stays_in_front_of_the_model_for_the_rest_of_a_carried_conversation(memory_dir, env):
    session = session_over(memory_dir, env)
    session.memory_dir.save(read_memory_like(STAGING))
    script = Script()
    agent = Agent(FunctionModel(script), capabilities=[MemdirCapability(session=session)])
    history = None
    for prompt in ["which port does the staging database listen on?", "and the password rotation?", "thanks!"]:
        history = agent.run_sync(prompt, message_history=history).all_messages()
        seen = prompts_seen(script.inputs[-1][0])
        assert sum("port 5433, not 5432" in text for text in seen) == 1, seen
        assert seen[1].startswith("<system-reminder>")  # where it was first shown: after the first prompt


def test_the_recall_tool_searches_one_word(memory_dir, env):
    session = session_over(memory_dir, env)
    session.memory_dir.save(read_memory_like(STAGING))
    script = Script(tool="recall", args={"query": "staging"})
    results = []

    def model(messages, info):
        results.extend(str(p.content) for p in messages[-1].parts if getattr(p, "part_kind", "") == "tool-return")
        return script(messages, info)

    agent = Agent(FunctionModel(model), capabilities=[MemdirCapability(session=session)])
    first = agent.run_sync("hello")
    agent.run_sync("please remember to look it up", message_history=first.all_messages())
    assert len(results) == 1 and "port 5433, not 5432" in results[0]


def fill_index(session, count=200):
    """A MEMORY.md at Claude Code's limit: every further line is refused."""
    for i in range(count):
        memory = read_memory_like({**STAGING, "name": f"Note {i}", "description": f"Note number {i}"})
        session.memory_dir.save(memory, file=f"note_{i}.md")


def test_a_memory_saved_without_its_index_line_says_so_to_the_model_and_in_the_log(memory_dir, env, caplog):
    session = session_over(memory_dir, env)
    fill_index(session)
    results = []

    def model(messages, info):
        results.extend(str(p.content) for p in messages[-1].parts if getattr(p, "part_kind", "") == "tool-return")
        return Script()(messages, info)

    with caplog.at_level("WARNING", logger="memdir"):
        Agent(FunctionModel(model), capabilities=[MemdirCapability(session=session)]).run_sync("Remember this")
    assert os.path.exists(os.path.join(memory_dir, "user_payments_lead.md"))
    assert '"index_refused"' in results[0] and "memdir doctor" in results[0]
    assert any("user_payments_lead.md is saved" in r.message and "memdir doctor" in r.message for r in caplog.records)


def test_the_memory_tool_does_not_delete_or_move_the_index(memory_dir, env):
    session = session_over(memory_dir, env)
    session.memory_dir.save(read_memory_like(STAGING))
    calls = iter(
        [
            {"command": "delete", "path": "/memories/MEMORY.md"},
            {"command": "rename", "old_path": "/memories/MEMORY.md", "new_path": "/memories/old.md"},
        ]
    )
    results = []

    def model(messages, info):
        results.extend(str(p.content) for p in messages[-1].parts if getattr(p, "part_kind", "") == "tool-return")
        args = next(calls, None)
        return ModelResponse(
            parts=[ToolCallPart("memory", args, tool_call_id=f"m{len(results)}") if args else TextPart("ok")]
        )

    Agent(FunctionModel(model), tools=[memory_tool(session=session)]).run_sync("tidy the memory")
    assert all(result.startswith("Error:") and "index memdir keeps" in result for result in results)
    assert index_lines(memory_dir) == ["- [Staging database](project_staging_database.md) — Staging DB port"]


def test_two_users_of_one_agent_never_see_each_others_memories(tmp_path, env, monkeypatch):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    root = str(tmp_path / "users" / "{user_id}")
    script = Script()
    agent = Agent(FunctionModel(script))
    ada = MemdirCapability(memory_dir=root, user_id="ada@example.com")
    agent.run_sync("Please remember that I lead the payments team", capabilities=[ada])
    bob = MemdirCapability(memory_dir=root, user_id="Bob/../../etc")
    agent.run_sync("who leads the payments team?", capabilities=[bob])
    assert not any("payments team;" in text for text in prompts_seen(script.inputs[-1][0]))
    assert "Payments lead" not in (script.inputs[-1][1] or "")  # nor in bob's index
    agent.run_sync(
        "who leads the payments team?", capabilities=[MemdirCapability(memory_dir=root, user_id="ada@example.com")]
    )
    assert any("wants short code reviews" in text for text in prompts_seen(script.inputs[-1][0]))
    assert sorted(os.listdir(tmp_path / "users")) == sorted(
        ["ada@example.com", os.path.basename(bob.memory.session.memory_dir.root)]
    )


def test_forget_finds_a_memory_as_update_does_without_its_md(memory_dir, env):
    session = session_over(memory_dir, env)
    session.memory_dir.save(read_memory_like(STAGING))
    os.remove(os.path.join(memory_dir, "project_staging_database.md"))  # its index line is left behind
    calls = iter(
        [
            ToolCallPart("forget", {"file": "project_staging_database"}, tool_call_id="f1"),
            ToolCallPart("forget", {"file": "never_there"}, tool_call_id="f2"),
        ]
    )
    results = []

    def model(messages, info):
        results.extend(str(p.content) for p in messages[-1].parts if getattr(p, "part_kind", "") == "tool-return")
        part = next(calls, None)
        return ModelResponse(parts=[part] if part else [TextPart("ok")])

    Agent(FunctionModel(model), toolsets=[memdir_toolset(session=session)]).run_sync("tidy up")
    assert '"status": "index line removed"' in results[0] and index_lines(memory_dir) == []
    assert '"rule": "not-found"' in results[1] and "never_there.md" in results[1]
