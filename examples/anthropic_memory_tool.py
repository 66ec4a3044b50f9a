"""Claude with long-term memory through Anthropic's memory tool, stored by memdir.

Claude's /memories directory becomes a memdir directory: by default the project's own, so
Claude Code sees the same memories. The SDK's tool runner does the loop.

    export ANTHROPIC_API_KEY=sk-ant-...
    python examples/anthropic_memory_tool.py "I prefer tabs over spaces; remember that."
    python examples/anthropic_memory_tool.py --memory-dir ./agent-memory "What do you know about me?"
"""

from __future__ import annotations

import argparse
import os

import anthropic

from memdir.integrations.memory_tool import MEMORY_TOOL_BETA, MemdirMemoryTool

SYSTEM = (
    "You have a memory directory at /memories. View it before answering. Save durable facts about "
    "the user and their work as one Markdown file per topic, starting with frontmatter that has "
    "name, description (one line) and type (user, feedback, project or reference); memdir keeps "
    "the MEMORY.md index in step with those files."
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("message", help="what to tell Claude")
    parser.add_argument("--memory-dir", default=None, help="memory directory (default: the project's)")
    parser.add_argument("--model", default=os.environ.get("MEMDIR_EXAMPLE_MODEL", "claude-sonnet-4-6"))
    args = parser.parse_args(argv)

    memory = MemdirMemoryTool(args.memory_dir)
    with anthropic.Anthropic() as client:
        runner = client.beta.messages.tool_runner(
            model=args.model,
            max_tokens=2048,
            system=SYSTEM,
            messages=[{"role": "user", "content": args.message}],
            tools=[memory],
            betas=[MEMORY_TOOL_BETA],
        )
        for message in runner:
            for block in message.content:
                if block.type == "text":
                    print(block.text)
                elif block.type == "tool_use":
                    print(f"[memory] {block.input.get('command')} {block.input.get('path', '')}".rstrip())
    print(f"memory directory: {memory.memory_dir.path}")


if __name__ == "__main__":
    main()
