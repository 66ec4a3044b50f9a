"""MemdirMemoryService in a real ADK Runner, with a scripted BaseLlm and memdir's scripted extraction model."""

from __future__ import annotations

import asyncio
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

from memdir.errors import MemoryFormatError, ModelNotConfigured
from memdir.integrations.adk import MemdirMemoryService
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
    with pytest.raises(MemoryFormatError, match="cannot name a memory directory"):
        asyncio.run(service.search_memory(app_name="app", user_id="../eve", query="deploys"))
