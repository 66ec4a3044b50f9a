"""``memdir.agentWrites`` covers every path an agent writes memory through: MCP, the memory tool,
the framework adapters' tools and the LangGraph store, as well as extraction and the dream. With
``off`` each is refused and nothing changes; with ``review`` each change is a proposal a person
accepts; a person's CLI writes directly whatever the setting.

The official MCP client in process, the Anthropic SDK's memory-tool command types, LangGraph's own
store operations, the real CLI; real files and a real history database in temp directories.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from anthropic.lib.tools import ToolError
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818StrReplaceCommand,
)
from click.testing import CliRunner
from mcp import Client

from memdir.cli import cli
from memdir.config import MemoryConfig, resolve_config
from memdir.errors import ConfigError
from memdir.integrations.frameworks.agent_memory import AgentMemory, tool_functions
from memdir.integrations.frameworks.langgraph import MemdirStore
from memdir.integrations.mcp.server import create_server
from memdir.integrations.memory_tool.backend import MemdirMemoryTool
from memdir.memory_session import MemorySession
from memdir.tools.declared import AGENT_TOOLS

ROLE = "---\nname: Role\ndescription: Leads payments\ntype: user\n---\n\nOld.\n"
REMEMBER = {"type": "project", "name": "Deploys", "description": "Deploys go out on Tuesdays", "body": "Tue."}


class Place:
    """A memory directory with one memory, its config home holding ``memdir.agentWrites``."""

    def __init__(self, root: Path, mode: str) -> None:
        self.root = root
        self.memory = root / "mem"
        self.memory.mkdir()
        self.env = {"HOME": str(root), "CLAUDE_CONFIG_DIR": str(root / "home")}
        (root / "home").mkdir()
        (root / "home" / "settings.json").write_text(json.dumps({"memdir": {"agentWrites": mode}}), encoding="utf-8")
        added = self.cli("add", "--type", "user", "--name", "Role", "--description", "Leads payments", "--body", "Old.")
        assert added.exit_code == 0, added.output

    def config(self) -> MemoryConfig:
        return resolve_config(str(self.root), memory_dir=str(self.memory), env=self.env)

    def cli(self, *args: str) -> Any:
        return CliRunner(env=self.env).invoke(cli, ["--memory-dir", str(self.memory), *args], catch_exceptions=False)

    def files(self) -> dict[str, str]:
        return {p.name: p.read_text(encoding="utf-8") for p in sorted(self.memory.iterdir()) if p.is_file()}

    def mcp(self, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
        server = create_server(self.config())

        async def main() -> list[Any]:
            with anyio.fail_after(30):
                async with Client(server) as client:
                    return [await client.call_tool(name, arguments) for name, arguments in calls]

        return anyio.run(main)


@pytest.fixture
def off(tmp_path: Path) -> Place:
    return Place(tmp_path, "off")


@pytest.fixture
def review(tmp_path: Path) -> Place:
    return Place(tmp_path, "review")


def test_with_agent_writes_off_no_mcp_tool_changes_memory(off: Place) -> None:
    edited = off.cli(
        "add", "--type", "user", "--name", "Role", "--description", "Leads payments", "--body", "Edited.", "--force"
    )
    assert edited.exit_code == 0, edited.output  # a person's change: version 2, which restore would undo
    before = off.files()
    answers = off.mcp(
        ("remember", REMEMBER),
        ("update", {"file": "user_role.md", "append": "New."}),
        ("forget", {"file": "user_role.md"}),
        ("restore", {"file": "user_role.md", "version": 1}),
    )
    for answer in answers:
        assert answer.is_error and answer.structured_content["rule"] == "agent-writes-off", answer.structured_content
        assert "memdir.agentWrites is off" in answer.structured_content["message"]
    assert off.files() == before


def test_with_agent_writes_off_the_memory_tool_the_adapters_tools_and_the_langgraph_store_change_nothing(
    off: Place,
) -> None:
    before = off.files()
    tool = MemdirMemoryTool(config=off.config())
    commands = [
        BetaMemoryTool20250818CreateCommand(command="create", path="/memories/x.md", file_text=ROLE),
        BetaMemoryTool20250818StrReplaceCommand(
            command="str_replace", path="/memories/user_role.md", old_str="Old.", new_str="New."
        ),
        BetaMemoryTool20250818DeleteCommand(command="delete", path="/memories/user_role.md"),
    ]
    for command in commands:
        with pytest.raises(ToolError, match=r"memdir\.agentWrites is off"):
            tool.call(command)
    with pytest.raises(ToolError, match=r"memdir\.agentWrites is off"):
        tool.clear_all_memory()

    agent = AgentMemory(MemorySession(off.config()), extract=False)
    tools = {tool.name: function for tool, function in tool_functions(agent)}
    for said in (
        tools["remember"](type="project", name="Deploys", description="Deploys go out on Tuesdays", body="Tue."),
        tools["update"](file="user_role.md", body="New."),
        tools["forget"](file="user_role.md"),
    ):
        assert json.loads(said)["rule"] == "agent-writes-off", said

    store = MemdirStore(session=MemorySession(off.config()))
    with pytest.raises(ConfigError, match=r"memdir\.agentWrites is off"):
        store.put(("memories",), "deploys", {"content": "Deploys go out on Tuesdays"})
    with pytest.raises(ConfigError, match=r"memdir\.agentWrites is off"):
        store.delete(("memories",), "user_role")
    assert off.files() == before

    added = off.cli("add", "--type", "project", "--name", "By hand", "--description", "a person's own note")
    assert added.exit_code == 0, added.output
    assert "project_by_hand.md" in off.files()


def test_in_review_mode_every_agent_write_path_proposes_and_a_person_accepts(review: Place) -> None:
    before = review.files()
    remembered, forgotten = review.mcp(("remember", REMEMBER), ("forget", {"file": "user_role.md"}))
    assert remembered.structured_content["status"] == "proposed", remembered.structured_content
    assert "memdir review" in remembered.structured_content["note"]
    assert forgotten.structured_content["status"] == "proposed"

    tool = MemdirMemoryTool(config=review.config())
    other = ROLE.replace("Leads payments", "Runs the billing team")  # a copy of user_role.md would be refused
    created = tool.call(BetaMemoryTool20250818CreateCommand(command="create", path="/memories/x.md", file_text=other))
    assert "is a proposal" in str(created)

    agent = AgentMemory(MemorySession(review.config()), extract=False, by="pydantic-ai")
    remember = dict(tool_functions(agent))[AGENT_TOOLS[1]]
    said = remember(type=None, name="Flags", description="Flags guard payouts", body="Flags.")
    assert json.loads(said)["status"] == "proposed"
    MemdirStore(session=MemorySession(review.config())).put(("memories",), "owners", {"content": "Ana owns billing"})

    assert review.files() == before, "nothing changes until a person accepts"
    listed = json.loads(review.cli("review", "--json").stdout)
    proposed = {(p["file"], p["change"], p["by"].split(":")[0]) for p in listed}
    assert proposed == {
        ("project_deploys.md", "create", "mcp"),
        ("user_role.md", "delete", "mcp"),
        ("x.md", "create", "memory-tool"),
        ("flags.md", "create", "pydantic-ai"),
        ("owners.md", "create", "langgraph"),
    }
    accepted = review.cli("review", "accept", "--all")
    assert accepted.exit_code == 0, accepted.output
    after = review.files()
    assert (
        "user_role.md" not in after
        and "Tue." in after["project_deploys.md"]
        and "Ana owns billing" in after["owners.md"]
    )
    assert "project_deploys.md" in after["MEMORY.md"]


def test_with_agent_writes_off_pydantic_ais_memory_tool_and_adks_memory_service_change_nothing(
    off: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    from google.adk.memory.memory_entry import MemoryEntry
    from google.genai import types

    from memdir.integrations.adk import MemdirMemoryService
    from memdir.integrations.pydantic_ai import memory_tool

    before = off.files()
    tool = memory_tool(session=MemorySession(off.config()))
    for arguments in (
        {"command": "create", "path": "/memories/x.md", "file_text": ROLE},
        {"command": "delete", "path": "/memories/user_role.md"},
    ):
        assert "memdir.agentWrites is off" in tool.function(**arguments)  # type: ignore[call-arg]

    for name, value in off.env.items():
        monkeypatch.setenv(name, value)
    service = MemdirMemoryService(str(off.memory))
    entry = MemoryEntry(content=types.Content(role="user", parts=[types.Part.from_text(text="Deploys on Tuesdays")]))
    with pytest.raises(ConfigError, match=r"memdir\.agentWrites is off"):
        anyio.run(lambda: service.add_memory(app_name="app", user_id="u1", memories=[entry]))
    with pytest.raises(ConfigError, match=r"memdir\.agentWrites is off"):
        anyio.run(lambda: service.delete_memory(app_name="app", user_id="u1", memory_id="user_role.md"))
    assert off.files() == before
