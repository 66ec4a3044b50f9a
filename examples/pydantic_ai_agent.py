"""A pydantic-ai agent with Claude Code's memory: MemdirCapability.

The capability puts the memory section and the MEMORY.md index in the instructions, adds the
memories relevant to each prompt before every model call, and gives the model recall, remember,
update and forget. Runs offline with a scripted FunctionModel; pass --model (any pydantic-ai
model name, e.g. anthropic:claude-sonnet-4-6) to talk to a real one.

    python examples/pydantic_ai_agent.py --memory-dir /tmp/agent-memory
"""

from __future__ import annotations

import argparse
import tempfile

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from memdir.integrations.pydantic_ai import MemdirCapability


def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """What a model would do: save a memory when asked to, then answer from what was recalled."""
    last = [str(part.content) for part in messages[-1].parts]
    if any(text.startswith("Remember") for text in last):
        memory = {"name": "Review style", "type": "feedback", "description": "The user wants short code reviews",
                  "content": "Keep code reviews short: three points at most."}  # fmt: skip
        return ModelResponse(parts=[ToolCallPart("remember", memory)])
    recalled = any("<system-reminder>" in text and "three points" in text for text in last)
    return ModelResponse(parts=[TextPart("Three points at most, as you like." if recalled else "Saved.")])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-dir", default=None, help="default: a new temporary directory")
    parser.add_argument("--model", default=None, help="a pydantic-ai model name; default: scripted")
    args = parser.parse_args()
    memory = MemdirCapability(memory_dir=args.memory_dir or tempfile.mkdtemp(prefix="memdir-pydantic-ai-"))
    agent = Agent(args.model or FunctionModel(scripted), capabilities=[memory])
    for prompt in ["Remember that I like short code reviews.", "How should you review my pull request?"]:
        print(f"> {prompt}\n{agent.run_sync(prompt).output}")
    memory.drain()  # extraction after each run, when memdir has a model configured
    print(f"\nMEMORY.md: {memory.memory.session.memory_dir.index_text().strip()}")


if __name__ == "__main__":
    main()
