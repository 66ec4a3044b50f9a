"""MemdirMemoryService in a real ADK Runner, with a scripted BaseLlm and memdir's scripted extraction model."""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import AsyncGenerator

import pytest

pytest.importorskip("google.adk")

from _framework_helpers import changed_by, index_lines, read_memory
from google.adk.agents import LlmAgent
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.preload_memory_tool import PreloadMemoryTool
from google.genai import types
from pydantic import Field

from memdir.errors import ModelNotConfigured
from memdir.integrations.frameworks.adk import MemdirMemoryService
from memdir.llm.scripted import ScriptedModel


class ScriptedLlm(BaseLlm):
    """Answers each model call from a script and records every request."""

    model: str = "scripted"
    replies: list[str] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part.from_text(text=self.replies.pop(0))]))


def user(text):
    return types.Content(role="user", parts=[types.Part.from_text(text=text)])


def coffee_extraction(memory_dir):
    content = (
        "---\nname: Coffee\ndescription: The user drinks oat flat whites every morning\ntype: user\n---\n\n"
        "Oat flat white.\n"
    )
    write = {"name": "Write", "input": {"file_path": os.path.join(memory_dir, "user_coffee.md"), "content": content}}
    return ScriptedModel([{"tool_calls": [write]}, {"text": "Saved."}])


async def converse(runner, sessions, text, session=None):
    session = session or await sessions.create_session(app_name="app", user_id="u1")
    async for _ in runner.run_async(user_id="u1", session_id=session.id, new_message=user(text)):
        pass
    return await sessions.get_session(app_name="app", user_id="u1", session_id=session.id)


def test_a_session_is_extracted_into_memory_and_recalled_into_the_next_sessions_requests(memory_dir, env, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", env["CLAUDE_CONFIG_DIR"])
    extraction = coffee_extraction(memory_dir)
    service = MemdirMemoryService(memory_dir, model=extraction, selector="lexical")
    llm = ScriptedLlm(replies=["Noted.", "An oat flat white."], requests=[])
    agent = LlmAgent(name="helper", model=llm, instruction="Be brief.", tools=[PreloadMemoryTool()])
    sessions = InMemorySessionService()
    runner = Runner(app_name="app", agent=agent, session_service=sessions, memory_service=service)

    async def scenario():
        first = await converse(runner, sessions, "I drink oat flat whites every morning")
        await service.add_session_to_memory(first)
        await service.add_session_to_memory(first)  # again: no new events, no model call
        await converse(runner, sessions, "what coffee do I drink in the morning?")

    asyncio.run(scenario())
    assert read_memory(os.path.join(memory_dir, "user_coffee.md")).body == "Oat flat white."
    assert index_lines(memory_dir) == ["- [Coffee](user_coffee.md) — The user drinks oat flat whites every morning"]
    assert changed_by(memory_dir, env, "user_coffee.md").startswith("extract:adk:")
    assert (
        len(extraction.requests) == 2
        and "I drink oat flat whites every morning" in extraction.requests[0].messages[-1].text
    )
    request = llm.requests[-1]
    # ADK 2.0 puts the preloaded memories in the system instruction, later releases in a user message.
    texts = [part.text for content in request.contents for part in content.parts if part.text]
    texts.append(str(request.config.system_instruction))
    assert any("Oat flat white." in text and "<PAST_CONVERSATIONS>" in text for text in texts)


def test_adding_a_session_without_a_model_fails_clearly(memory_dir, env, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", env["CLAUDE_CONFIG_DIR"])
    monkeypatch.delenv("MEMDIR_MODEL", raising=False)
    service = MemdirMemoryService(memory_dir)
    sessions = InMemorySessionService()
    session = asyncio.run(sessions.create_session(app_name="app", user_id="u1"))
    with pytest.raises(ModelNotConfigured, match="extraction needs a model"):
        asyncio.run(service.add_session_to_memory(session))


def test_add_search_and_delete_memory_work_on_files_per_user(tmp_path, env, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", env["CLAUDE_CONFIG_DIR"])
    service = MemdirMemoryService(str(tmp_path / "memories" / "{user_id}"), selector="lexical")
    entry = MemoryEntry(
        content=user("Deploys go out on Tuesdays after the mobile freeze"),
        custom_metadata={"type": "project", "description": "Deploy day is Tuesday"},
    )

    async def scenario():
        await service.add_memory(app_name="app", user_id="ada", memories=[entry])
        found = await service.search_memory(app_name="app", user_id="ada", query="which day do deploys go out?")
        elsewhere = await service.search_memory(app_name="app", user_id="bob", query="which day do deploys go out?")
        await service.delete_memory(app_name="app", user_id="ada", memory_id=found.memories[0].id)
        return found, elsewhere

    found, elsewhere = asyncio.run(scenario())
    [memory] = found.memories
    assert memory.id == "project_deploys_go_out_on_tuesdays_after_the_mobile_freeze.md"
    assert (
        memory.custom_metadata["description"] == "Deploy day is Tuesday" and memory.custom_metadata["type"] == "project"
    )
    assert "Deploys go out on Tuesdays" in memory.content.parts[0].text and memory.timestamp
    assert elsewhere.memories == []
    ada = tmp_path / "memories" / "ada"
    assert not (ada / memory.id).exists() and index_lines(str(ada)) == []
    assert asyncio.run(service.search_memory(app_name="app", user_id="../eve", query="deploys")).memories == []
    eve = service.directory_for("app", "../eve")
    assert os.path.dirname(eve) == str(tmp_path / "memories") and os.path.basename(eve).endswith(
        "+" + hashlib.sha256(b"../eve").hexdigest()[:16]
    )


class ToolCallingLlm(ScriptedLlm):
    """Calls ``load_memory`` with one word on its first request, then answers from what came back."""

    async def generate_content_async(self, llm_request, stream=False):
        self.requests.append(llm_request)
        if len(self.requests) == 1:
            call = types.Part.from_function_call(name="load_memory", args={"query": "coffee"})
            yield LlmResponse(content=types.Content(role="model", parts=[call]))
            return
        found = llm_request.contents[-1].parts[0].function_response.response["result"].memories
        seen = " ".join(part.text for memory in found for part in memory.content.parts)
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part.from_text(text="oat" if "Oat flat" in seen else "?")])
        )


def test_the_model_searching_memory_for_one_word_finds_it(memory_dir, env, monkeypatch):
    from google.adk.tools.load_memory_tool import load_memory_tool

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", env["CLAUDE_CONFIG_DIR"])
    service = MemdirMemoryService(memory_dir, selector="lexical")
    entry = MemoryEntry(
        content=user("Oat flat white, every morning"), custom_metadata={"name": "Coffee", "type": "user"}
    )
    llm = ToolCallingLlm(replies=[], requests=[])
    agent = LlmAgent(name="helper", model=llm, instruction="Be brief.", tools=[load_memory_tool])
    sessions = InMemorySessionService()
    runner = Runner(app_name="app", agent=agent, session_service=sessions, memory_service=service)

    async def scenario():
        await service.add_memory(app_name="app", user_id="u1", memories=[entry])
        return await converse(runner, sessions, "what do I drink?")

    done = asyncio.run(scenario())
    assert done.events[-1].content.parts[0].text == "oat"


def test_the_latest_turn_added_from_a_callback_is_extracted_as_a_delta(memory_dir, env, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", env["CLAUDE_CONFIG_DIR"])
    extraction = ScriptedModel([{"text": "Nothing yet."}, *coffee_extraction(memory_dir).responses])

    async def add_latest_turn(callback_context):
        events = callback_context.session.events
        await callback_context.add_events_to_memory(events=events[-2:])

    service = MemdirMemoryService(memory_dir, model=extraction, selector="lexical")
    llm = ScriptedLlm(replies=["Hello.", "Noted."], requests=[])
    agent = LlmAgent(name="helper", model=llm, instruction="Be brief.", after_agent_callback=add_latest_turn)
    sessions = InMemorySessionService()
    runner = Runner(app_name="app", agent=agent, session_service=sessions, memory_service=service)

    async def scenario():
        session = await converse(runner, sessions, "Good morning")
        await converse(runner, sessions, "I drink oat flat whites every morning", session)

    asyncio.run(scenario())
    first, second = extraction.requests[0].messages[-1].text, extraction.requests[1].messages[-1].text
    assert "Good morning" in first and "Good morning" not in second and "oat flat whites" in second
    assert read_memory(os.path.join(memory_dir, "user_coffee.md")).body == "Oat flat white."


def test_a_template_naming_anything_but_the_app_and_the_user_is_refused_when_built(tmp_path):
    from memdir.errors import ConfigError

    with pytest.raises(ConfigError, match=r"\{home\}.*\{app_name\}, \{user_id\}"):
        MemdirMemoryService(str(tmp_path / "{home}" / "{user_id}"))


def test_a_long_user_id_gets_a_directory_of_its_own(tmp_path, env, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", env["CLAUDE_CONFIG_DIR"])
    service = MemdirMemoryService(str(tmp_path / "memories" / "{user_id}"), selector="lexical")
    entry = MemoryEntry(content=user("Deploys go out on Tuesdays"), custom_metadata={"type": "project"})
    long_id = "user-" + "x" * 300

    async def scenario():
        await service.add_memory(app_name="app", user_id=long_id, memories=[entry])
        return await service.search_memory(app_name="app", user_id=long_id, query="deploys")

    assert len(asyncio.run(scenario()).memories) == 1
    assert asyncio.run(service.search_memory(app_name="app", user_id="user-x", query="deploys")).memories == []


def test_a_user_directory_named_by_an_earlier_memdir_is_kept(tmp_path, env, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", env["CLAUDE_CONFIG_DIR"])
    earlier = tmp_path / "memories" / "Ada Lovelace"
    earlier.mkdir(parents=True)
    (earlier / "user_tea.md").write_text(
        "---\nname: Tea\ndescription: Drinks green tea\ntype: user\n---\n\nGreen tea.\n"
    )
    service = MemdirMemoryService(str(tmp_path / "memories" / "{user_id}"), selector="lexical")
    found = asyncio.run(service.search_memory(app_name="app", user_id="Ada Lovelace", query="tea"))
    assert [memory.id for memory in found.memories] == ["user_tea.md"]


def test_an_entry_saved_past_a_full_index_is_kept_and_warned_about(tmp_path, env, monkeypatch):
    from memdir.errors import IndexFullWarning

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", env["CLAUDE_CONFIG_DIR"])
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    (memory_dir / "MEMORY.md").write_text("".join(f"- [Note {n}](note_{n}.md) — note {n}\n" for n in range(200)))
    service = MemdirMemoryService(str(memory_dir), selector="lexical")
    entry = MemoryEntry(content=user("Deploys go out on Tuesdays"), custom_metadata={"type": "project"})
    with pytest.warns(IndexFullWarning, match="saved and recall finds it.*memdir doctor"):
        asyncio.run(service.add_memory(app_name="app", user_id="u1", memories=[entry]))
    found = asyncio.run(service.search_memory(app_name="app", user_id="u1", query="when do deploys go out"))
    assert [m.id for m in found.memories] == ["project_deploys_go_out_on_tuesdays.md"]
    assert len(index_lines(str(memory_dir))) == 200
