"""The integration pages embed the example files verbatim, and the examples run (offline)."""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from _llm_wire import WireServer, anthropic_message
from mcp import Client, StdioServerParameters

from memdir.llm import FORBID_ENV_VAR

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["mcp.md", "memory-tool.md", "claude-code-hooks.md"]
EMBED = re.compile(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", re.DOTALL)


def base_env(tmp_path):
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "PYTHONPATH": os.pathsep.join(sys.path),
        FORBID_ENV_VAR: "1",
    }


def run_example(tmp_path, name, *args, env=None):
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *args],
        capture_output=True,
        text=True,
        env={**base_env(tmp_path), **(env or {})},
        cwd=str(tmp_path),
        timeout=60,
    )


@pytest.mark.parametrize("doc", DOCS)
def test_embedded_examples_are_the_files_themselves(doc):
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    embedded = EMBED.findall(text)
    assert embedded or doc == "claude-code-hooks.md"
    for path, body in embedded:
        assert body == (ROOT / path).read_text(encoding="utf-8"), path


def test_the_settings_shown_in_the_hooks_page_are_what_install_writes(tmp_path):
    from memdir.integrations.hooks.install import hook_command_prefix, install_hooks

    written = json.loads(Path(install_hooks("user", config_home=str(tmp_path / "claude")).path).read_text("utf-8"))
    text = (ROOT / "docs" / "claude-code-hooks.md").read_text(encoding="utf-8")
    shown = json.loads(re.search(r"<!-- settings: memdir hooks install -->\n```json\n(.*?)```", text, re.DOTALL)[1])
    prefix = shlex.join(hook_command_prefix())
    as_shown = json.dumps(shown).replace("/home/you/.local/bin/memdir", prefix)
    assert json.loads(as_shown) == written


@pytest.mark.parametrize(("agent", "page"), [("codex", "codex.md"), ("gemini", "gemini-cli.md")])
def test_the_hooks_shown_in_each_agents_page_are_what_install_writes(tmp_path, agent, page):
    from memdir.config import read_environment
    from memdir.integrations.hooks.install import hook_command_prefix, install_hooks

    environment = read_environment({"HOME": str(tmp_path)})
    path = install_hooks("user", config_home=str(tmp_path / "claude"), agent=agent, environment=environment).path
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    marker = rf"<!-- settings: memdir hooks install --agent {agent} -->\n```json\n(.*?)```"
    shown = json.dumps(json.loads(re.search(marker, text, re.DOTALL)[1]))
    as_shown = shown.replace("/home/you/.local/bin/memdir", shlex.join(hook_command_prefix()))
    assert json.loads(as_shown) == json.loads(Path(path).read_text("utf-8"))


def test_the_agent_loop_example_saves_and_then_recalls_a_memory(tmp_path):
    mem = tmp_path / "mem"
    done = run_example(tmp_path, "agent_loop.py", "--memory-dir", str(mem))
    assert done.returncode == 0, done.stderr
    assert "[tool] Write: Created" in done.stdout
    assert "[recall] surfaced" in done.stdout
    assert (mem / "MEMORY.md").read_text(encoding="utf-8").startswith("- [Role and review style](user_role.md)")


def test_the_memory_tool_example_runs_against_a_local_messages_server(tmp_path):
    mem = tmp_path / "mem"
    role = "---\nname: Indentation\ndescription: Prefers tabs over spaces\ntype: feedback\n---\n\nTabs.\n"
    with WireServer() as wire:
        for n, command in enumerate(
            [
                {"command": "view", "path": "/memories"},
                {"command": "create", "path": "/memories/feedback_tabs.md", "file_text": role},
            ]
        ):
            call = {"type": "tool_use", "id": f"toolu_{n}", "name": "memory", "input": command}
            wire.queue(200, anthropic_message([call], stop_reason="tool_use"))
        wire.queue(200, anthropic_message([{"type": "text", "text": "I'll remember that."}]))
        done = run_example(
            tmp_path,
            "anthropic_memory_tool.py",
            "--memory-dir",
            str(mem),
            "I prefer tabs over spaces; remember that.",
            env={"ANTHROPIC_BASE_URL": wire.url, "ANTHROPIC_API_KEY": "test"},
        )
        bodies = wire.bodies()
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "[memory] view /memories",
        "[memory] create /memories/feedback_tabs.md",
        "I'll remember that.",
        f"memory directory: {mem}/",
    ]
    assert bodies[2]["messages"][-1]["content"][0]["content"].startswith("File created successfully at: /memories/")
    assert (mem / "MEMORY.md").read_text(encoding="utf-8") == (
        "- [Indentation](feedback_tabs.md) — Prefers tabs over spaces\n"
    )


def test_the_mcp_config_example_starts_a_working_server(tmp_path):
    config = json.loads((ROOT / "examples" / "mcp_config.json").read_text(encoding="utf-8"))
    server = config["mcpServers"]["memdir"]
    assert server["command"] == "memdir"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memdir.cli", *server["args"]],
        env=base_env(tmp_path),
        cwd=str(tmp_path),
    )

    async def main():
        with anyio.fail_after(30):
            async with Client(params) as client:
                return await client.list_tools()

    tools = anyio.run(main)
    assert {t.name for t in tools.tools} == {
        "recall",
        "remember",
        "update",
        "forget",
        "list",
        "read",
        "history",
        "restore",
    }


def test_the_python_snippet_in_the_mcp_page_builds_a_server(tmp_path, monkeypatch):
    text = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    (snippet,) = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    namespace: dict[str, object] = {}
    exec(compile(snippet, "docs/mcp.md", "exec"), namespace)
    assert namespace["server"].toolbox.memory_dir.root == str(tmp_path / "agent-memory")
