"""memdir in a plain agent loop: the memory prompt, the index, per-turn recall and file tools.

Runs offline with a scripted model by default; pass --model (e.g. anthropic:claude-sonnet-4-6)
or set MEMDIR_MODEL to talk to a real one.

    python examples/agent_loop.py --memory-dir /tmp/agent-memory
"""

from __future__ import annotations

import argparse
import os
import tempfile

from memdir import MemorySession, resolve_config
from memdir.background.file_tools import MemoryFileTools
from memdir.llm import (
    ChatModel,
    ChatRequest,
    Completion,
    Message,
    ScriptedModel,
    ToolCall,
    ToolResult,
    Usage,
)

USER_TURNS = [
    "I lead the payments team, and I like short code reviews. Please remember that.",
    "Can you review this diff for me? Keep in mind what you know about me.",
]


def scripted_model(memory_dir: str) -> ScriptedModel:
    """What a model would do here: save a memory (file + index line), then use it on the next turn."""
    role = os.path.join(memory_dir, "user_role.md")
    index = os.path.join(memory_dir, "MEMORY.md")
    memory = (
        "---\nname: Role and review style\ndescription: Leads the payments team; wants short reviews\n"
        "type: user\n---\n\nLeads the payments team. Prefers short, focused code reviews.\n"
    )
    line = "- [Role and review style](user_role.md) — Leads the payments team; wants short reviews\n"

    def says(text: str, *calls: ToolCall) -> Completion:
        return Completion(text=text, tool_calls=calls, usage=Usage())

    return ScriptedModel(
        [
            says(
                "",
                ToolCall("call_1", "Write", {"file_path": role, "content": memory}),
                ToolCall("call_2", "Write", {"file_path": index, "content": line}),
            ),
            says("Noted: you lead payments and like short reviews."),
            says("Here is a short review, as you like them: looks good, one nit on naming."),
        ]
    )


def run_turn(
    model: ChatModel, session: MemorySession, tools: MemoryFileTools, history: list[Message], text: str
) -> str:
    """One user turn: recall, then call the model until it stops asking for tools."""
    recalled = session.recall(text)
    for reminder in recalled.reminders:
        print(f"[recall] surfaced {len(reminder)} chars")
    history.append(Message("user", "\n".join([*recalled.reminders, text])))
    by_name = {tool.spec.name: tool for tool in tools.tools()}
    system = "You are a helpful assistant.\n\n" + (session.system_prompt_section() or "")
    for _ in range(8):
        request = ChatRequest(system=system, messages=tuple(history), tools=tuple(t.spec for t in by_name.values()))
        answer = model.complete(request)
        history.append(Message("assistant", answer.text, tool_calls=answer.tool_calls))
        if not answer.tool_calls:
            return answer.text
        results = []
        for call in answer.tool_calls:
            outcome = by_name[call.name](call.input)
            print(f"[tool] {call.name}: {outcome.content}")
            results.append(ToolResult(call.id, outcome.content, outcome.is_error))
        history.append(Message("user", tool_results=tuple(results)))
    return "(turn limit reached)"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-dir", default=None, help="memory directory (default: a new temporary one)")
    parser.add_argument("--model", default=None, help="model spec; default MEMDIR_MODEL, else a scripted model")
    args = parser.parse_args(argv)
    memory_dir = args.memory_dir or tempfile.mkdtemp(prefix="memdir-example-")

    session = MemorySession(resolve_config(memory_dir=memory_dir), model_spec=args.model)
    model: ChatModel = session.model if session.model_spec else scripted_model(session.memory_dir.root)
    tools = MemoryFileTools(session.memory_dir, allowed=("Read", "Write", "Edit", "LS"))

    history: list[Message] = []
    context = session.user_context()
    if context:
        history.append(Message("user", context))
    for text in USER_TURNS:
        print(f"user: {text}")
        print(f"assistant: {run_turn(model, session, tools, history, text)}")
    print(f"memory directory: {session.memory_dir.path}")


if __name__ == "__main__":
    main()
