import asyncio

from memdir.background.file_tools import MemoryFileTools
from memdir.background.loop import agent_steps, arun_agent, run_agent
from memdir.llm.base import Message
from memdir.llm.scripted import ScriptedModel
from memdir.store.directory import MemoryDir


def steps(tools, max_turns=5):
    return agent_steps(
        system="You keep memories.", messages=[Message(role="user", text="go")], tools=tools, max_turns=max_turns
    )


def test_the_loop_runs_tools_and_stops_when_the_model_stops(tmp_path):
    tools = MemoryFileTools(MemoryDir(tmp_path))
    model = ScriptedModel(
        [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "a.md", "content": "x"}}]},
            {"text": "Saved."},
        ]
    )
    run = run_agent(model, steps(tools.tools()))
    assert run.turns == 2 and run.stopped == "done" and run.final_text == "Saved."
    assert (tmp_path / "a.md").read_text(encoding="utf-8") == "x"
    second_request = model.requests[1]
    assert second_request.messages[-1].tool_results[0].content.startswith("Created")


def test_the_turn_budget_stops_a_model_that_never_finishes(tmp_path):
    tools = MemoryFileTools(MemoryDir(tmp_path))
    call = {"tool_calls": [{"name": "LS", "input": {}}]}
    model = ScriptedModel([call] * 10)
    run = run_agent(model, steps(tools.tools(), max_turns=5))
    assert run.turns == 5 and run.stopped == "max_turns"
    assert len(model.requests) == 5


def test_an_unknown_tool_gets_an_error_result_not_an_exception(tmp_path):
    tools = MemoryFileTools(MemoryDir(tmp_path))
    model = ScriptedModel([{"tool_calls": [{"name": "Bash", "input": {"command": "rm -rf /"}}]}, {"text": "ok"}])
    run = run_agent(model, steps(tools.tools()))
    (call, outcome) = run.calls[0]
    assert call.name == "Bash" and outcome.is_error and "not available" in outcome.content


def test_the_async_driver_runs_the_same_loop(tmp_path):
    tools = MemoryFileTools(MemoryDir(tmp_path))
    model = ScriptedModel(
        [{"tool_calls": [{"name": "Write", "input": {"file_path": "b.md", "content": "y"}}]}, {"text": "done"}]
    )
    run = asyncio.run(arun_agent(model, steps(tools.tools())))
    assert run.turns == 2 and (tmp_path / "b.md").exists()
