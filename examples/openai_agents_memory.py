"""An OpenAI Agents SDK agent with Claude Code's memory: MemdirAgentMemory.

memory.tools gives the model recall, remember, update and forget; memory.run_config() adds the
memory instructions and, before every model call, the memories relevant to the latest message;
memory.hooks hand each run to memdir's extraction. Runs offline with a scripted Model; pass
--model (e.g. gpt-5.4-mini, with OPENAI_API_KEY set) to talk to a real one.

    python examples/openai_agents_memory.py --memory-dir /tmp/agent-memory
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from typing import Any

from agents import Agent, Model, ModelResponse, Runner, Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from memdir.integrations.openai_agents import MemdirAgentMemory


class ScriptedModel(Model):
    """What a model would do: save a memory when asked to, then answer from what was recalled."""

    async def get_response(
        self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        said = json.dumps(input)
        if said.count("Remember") == 1 and "function_call_output" not in said:
            memory = {"name": "Deploy day", "type": "project", "description": "Deploys go out on Tuesdays",
                      "content": "Deploys go out on Tuesdays, never on Fridays."}  # fmt: skip
            call = ResponseFunctionToolCall(
                type="function_call", call_id="c1", name="remember", arguments=json.dumps(memory)
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        text = "Tuesday, as usual." if "<system-reminder>" in said else "Saved."
        content = [ResponseOutputText(type="output_text", text=text, annotations=[])]
        message = ResponseOutputMessage(id="m1", type="message", role="assistant", status="completed", content=content)
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-dir", default=None, help="default: a new temporary directory")
    parser.add_argument("--model", default=None, help="an OpenAI model name; default: scripted")
    args = parser.parse_args()
    memory = MemdirAgentMemory(memory_dir=args.memory_dir or tempfile.mkdtemp(prefix="memdir-agents-"))
    agent = Agent(name="assistant", instructions="Be brief.", model=args.model or ScriptedModel(), tools=memory.tools)
    config = memory.run_config(tracing_disabled=args.model is None)
    for prompt in ["Remember that deploys go out on Tuesdays.", "When is the next deploy?"]:
        result = await Runner.run(agent, prompt, run_config=config, hooks=memory.hooks)
        print(f"> {prompt}\n{result.final_output}")
    memory.drain()  # extraction after each run, when memdir has a model configured
    print(f"\nMEMORY.md: {memory.memory.session.memory_dir.index_text().strip()}")


if __name__ == "__main__":
    asyncio.run(main())
