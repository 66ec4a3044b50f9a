"""One memory for Claude Code and a LangGraph agent: what one saves, the other recalls.

Claude Code runs ``memdir hook user-prompt-submit`` as a command line (the one ``memdir hooks
install`` writes), so the hook runs here as that real subprocess, against the project's memory
directory as both resolve it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("langgraph.store.base")

from _langgraph_agent import ScriptedChat, memory_agent, save_call
from langchain_core.messages import AIMessage, SystemMessage

from memdir.config import resolve_config
from memdir.integrations.frameworks.langgraph import MemdirStore
from memdir.llm import FORBID_ENV_VAR
from memdir.memory_session import MemorySession

BIN = os.path.dirname(sys.executable)


def memdir_command(*args, env, cwd, stdin=None):
    """``memdir ARGS`` as the installed console script, the way Claude Code and a shell start it."""
    script = os.path.join(BIN, "memdir")
    argv = [script, *args] if os.path.exists(script) else [sys.executable, "-m", "memdir.cli", *args]
    full = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sys.path), FORBID_ENV_VAR: "1", **env}
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=full, cwd=cwd, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def project_store(project, env):
    """The project's memory as Claude Code resolves it, through a LangGraph store."""
    return MemdirStore(session=MemorySession(resolve_config(project, env=env), selector_kind="lexical"))


def test_what_a_langgraph_agent_saves_the_claude_code_prompt_hook_recalls(project, env, tmp_path):
    store = project_store(project, env)
    model = ScriptedChat(
        replies=[save_call("Releases are cut from the release/* branches, never from main."), AIMessage("Noted.")]
    )
    memory_agent(model, store).invoke({"messages": [("user", "Remember: we cut releases from release branches")]})

    hook_input = {
        "session_id": "s1",
        "transcript_path": str(tmp_path / "s1.jsonl"),
        "cwd": project,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "which branch do we cut releases from?",
    }
    output = json.loads(
        memdir_command("hook", "user-prompt-submit", env=env, cwd=project, stdin=json.dumps(hook_input))
    )
    context = output["hookSpecificOutput"]["additionalContext"]
    assert "Releases are cut from the release/* branches, never from main." in context
    assert store.memory_dir in context


def test_what_claude_code_saved_reaches_a_langgraph_agents_model(project, env):
    memdir_command(
        "add",
        "--type",
        "feedback",
        "--name",
        "Real DB in tests",
        "--description",
        "Integration tests must hit a real database, never mocks",
        "--body",
        "A mocked test hid a broken migration in March.",
        env=env,
        cwd=project,
    )
    model = ScriptedChat(replies=[AIMessage("Use the real database.")])
    memory_agent(model, project_store(project, env)).invoke(
        {"messages": [("user", "should the integration tests mock the database?")]}
    )
    system = model.seen[-1][0]
    assert isinstance(system, SystemMessage) and "A mocked test hid a broken migration in March." in system.content
