"""A name longer than the system can hold is a named refusal in every adapter, and the server says its version."""

import importlib.metadata
import json

import anyio
import pytest
from anthropic.lib.tools import ToolError
from mcp import Client

from memdir.config import resolve_config
from memdir.integrations.mcp.server import create_server
from memdir.integrations.memory_tool.backend import MemdirMemoryTool

LONG_NAME = "x" * 300 + ".md"
DEEP_PATH = "/".join(["d" * 200] * 21) + "/x.md"


@pytest.fixture
def server(tmp_path):
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    return create_server(resolve_config(str(tmp_path), memory_dir=str(tmp_path / "mem"), env=env))


def call(server, tool, arguments):
    async def main():
        with anyio.fail_after(30):
            async with Client(server) as client:
                return await client.call_tool(tool, arguments)

    return anyio.run(main)


@pytest.mark.parametrize(("file", "rule"), [(LONG_NAME, "name-too-long"), (DEEP_PATH, "path-too-long")])
def test_mcp_remember_refuses_a_name_too_long_by_rule(server, file, rule):
    arguments = {"type": "user", "name": "Role", "description": "Backend lead", "body": "x", "file": file}
    result = call(server, "remember", arguments)
    assert result.is_error is True
    payload = json.loads(result.content[0].text)
    assert payload["status"] == "refused" and payload["rule"] == rule
    assert "Error executing tool" not in result.content[0].text


def test_mcp_read_refuses_a_name_too_long_by_rule(server):
    result = call(server, "read", {"file": LONG_NAME})
    assert result.is_error is True
    assert json.loads(result.content[0].text)["rule"] == "name-too-long"


def test_the_mcp_server_reports_memdirs_version(server):
    async def main():
        with anyio.fail_after(30):
            async with Client(server) as client:
                return client.server_info

    info = anyio.run(main)
    assert info.name == "memdir"
    assert info.version == importlib.metadata.version("memdir") != ""


@pytest.mark.parametrize("command", ["create", "view"])
def test_the_memory_tool_refuses_a_name_too_long_as_a_tool_error(tmp_path, command):
    tool = MemdirMemoryTool(str(tmp_path / "mem"))
    arguments = {"command": command, "path": f"/memories/{LONG_NAME}"}
    if command == "create":
        arguments["file_text"] = "hello\n"
    with pytest.raises(ToolError) as refused:
        tool.call(arguments)
    assert "rule: name-too-long" in str(refused.value.content)
