"""The MCP server's tools called one at a time, without a client or a transport: each is a tool of
``MCPEndpoints`` (the toolbox's method, as declared) whose arguments are checked in one place and
whose answer has one shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir.config import open_memory_dir, resolve_config
from memdir.integrations.mcp.server import MCPEndpoints
from memdir.memory_session import MemorySession


@pytest.fixture
def endpoints(tmp_path: Path) -> MCPEndpoints:
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    config = resolve_config(str(tmp_path), memory_dir=str(tmp_path / "mem"), env=env)
    directory = open_memory_dir(config)
    session = MemorySession(config, memory_dir=directory)
    return MCPEndpoints(session.toolbox, session)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda e: e.tool("recall")(query=""), "query"),
        (lambda e: e.tool("remember")(type="user", description="Leads payments"), "name"),
        (lambda e: e.tool("remember")(type="user", name="Role"), "description"),
        (lambda e: e.tool("update")(name="Role"), "file"),
        (lambda e: e.tool("forget")(), "file"),
        (lambda e: e.tool("read")(file=""), "file"),
        (lambda e: e.tool("restore")(version=1), "file"),
        (lambda e: e.tool("restore")(file="role.md"), "version"),
    ],
)
def test_a_tool_call_without_a_required_argument_is_refused_naming_it(endpoints, call, argument) -> None:
    result = call(endpoints)
    assert result.is_error
    assert result.structured_content == {
        "status": "refused",
        "rule": "missing-argument",
        "message": f"the argument {argument!r} is required",
    }


def test_a_remembered_memory_is_read_back_by_the_read_tool(endpoints: MCPEndpoints) -> None:
    saved = endpoints.tool("remember")(
        type="user", name="Role", description="Leads the payments team", body="Payments."
    )
    assert not saved.is_error
    file = saved.structured_content["file"]
    read = endpoints.tool("read")(file=file)
    assert not read.is_error
    assert "Leads the payments team" in read.structured_content["content"]


def test_version_zero_is_an_argument_given_not_one_left_out(endpoints: MCPEndpoints) -> None:
    result = endpoints.tool("restore")(file="role.md", version=0)
    assert result.structured_content.get("rule") != "missing-argument"
