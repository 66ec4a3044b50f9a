"""A Google ADK agent whose memory service is memdir: MemdirMemoryService.

After a session, add_session_to_memory runs memdir's extraction on its events (with memdir's
model); in the next session PreloadMemoryTool puts the memories relevant to each message in front
of the model. Runs offline: a scripted agent model and a scripted extraction model. Pass --model
(a Gemini model name, with GOOGLE_API_KEY set) and set MEMDIR_MODEL to use real ones.

    python examples/adk_memory_service.py --memory-dir /tmp/agent-memory
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from collections.abc import AsyncGenerator

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.preload_memory_tool import PreloadMemoryTool
from google.genai import types

from memdir.integrations.adk import MemdirMemoryService
from memdir.llm import ScriptedModel


class ScriptedLlm(BaseLlm):
    """What a model would do: answer from the memories put in front of it."""

    model: str = "scripted"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse]:
        seen = str(llm_request.contents) + str(llm_request.config.system_instruction)
        text = "An oat flat white, as every morning." if "Oat flat white" in seen else "Noted."
        usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=0, candidates_token_count=0)
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part.from_text(text=text)]), usage_metadata=usage
        )


def extraction_model(memory_dir: str) -> ScriptedModel:
    """What memdir's extraction model would do with the first session: save one memory file."""
    memory = "---\nname: Coffee\ndescription: The user drinks oat flat whites\ntype: user\n---\n\nOat flat white.\n"
    write = {"name": "Write", "input": {"file_path": os.path.join(memory_dir, "user_coffee.md"), "content": memory}}
    return ScriptedModel([{"tool_calls": [write]}, {"text": "Saved."}])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-dir", default=None, help="default: a new temporary directory")
    parser.add_argument("--model", default=None, help="a Gemini model name; default: scripted")
    args = parser.parse_args()
    memory_dir = args.memory_dir or tempfile.mkdtemp(prefix="memdir-adk-")
    offline = args.model is None
    service = MemdirMemoryService(memory_dir, model=extraction_model(memory_dir) if offline else None)
    agent = LlmAgent(name="barista", model=args.model or ScriptedLlm(), tools=[PreloadMemoryTool()])
    sessions = InMemorySessionService()
    runner = Runner(app_name="cafe", agent=agent, session_service=sessions, memory_service=service)
    for prompt in ["I drink oat flat whites every morning.", "Which coffee should you make me?"]:
        session = await sessions.create_session(app_name="cafe", user_id="ada")
        message = types.Content(role="user", parts=[types.Part.from_text(text=prompt)])
        async for event in runner.run_async(user_id="ada", session_id=session.id, new_message=message):
            if event.is_final_response() and event.content and event.content.parts:
                print(f"> {prompt}\n{event.content.parts[0].text}")
        done = await sessions.get_session(app_name="cafe", user_id="ada", session_id=session.id)
        if done is not None and prompt.startswith("I drink"):
            await service.add_session_to_memory(done)
    print(f"\nMEMORY.md: {service.memory_for('cafe', 'ada').session.memory_dir.index_text().strip()}")


if __name__ == "__main__":
    asyncio.run(main())
