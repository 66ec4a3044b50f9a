"""The part of a conversation an extraction run looks at: the messages after the cursor.

The cursor is the uuid of the last message a run has dealt with. Everything after it is new; if
the cursor is no longer in the conversation (compaction rewrote it), everything is new, since it
is better to look at a message twice than never (SPEC §7.3). This module also decides whether the
main agent already saved memories itself in that stretch, in which case extraction stands aside.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memdir.conversation import Block, ConversationMessage
from memdir.paths import is_auto_mem_path

__all__ = [
    "FILE_WRITE_TOOLS",
    "MEMDIR_WRITE_TOOLS",
    "MEMORY_TOOL_WRITE_COMMANDS",
    "Window",
    "memory_write_in",
    "window_since",
]

FILE_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
MEMDIR_WRITE_TOOLS = frozenset({"remember", "update", "forget"})
MEMORY_TOOL_WRITE_COMMANDS = frozenset({"create", "str_replace", "insert", "delete", "rename"})
_MCP_NAME = re.compile(r"^mcp__(?P<server>.+?)__(?P<tool>[^_].*)$")


@dataclass(frozen=True)
class Window:
    messages: tuple[ConversationMessage, ...]  # everything after the cursor
    count: int  # user and assistant messages among them
    cursor_found: bool
    memory_write: str | None  # a description of the main agent's own memory write, if any
    last_uuid: str | None  # the uuid the cursor moves to when this window is done


def _mcp_tool(name: str) -> tuple[str | None, str]:
    match = _MCP_NAME.match(name)
    if match is None:
        return None, name
    return match.group("server"), match.group("tool")


def memory_write_in(block: Block, memory_dir: str) -> str | None:
    """How a tool call of the main agent wrote memory, or None when it did not.

    Claude Code's ``Write``/``Edit`` count when their ``file_path`` lies inside the memory
    directory by lexical normalisation (so ``<dir>/../x.md`` does not, SPEC §13.9). memdir's own
    MCP tools (``remember``, ``update``, ``forget``, also under an ``mcp__<server>__`` prefix) and
    the Anthropic memory tool's writing commands always write memory.
    """
    name = block.name or ""
    if name in FILE_WRITE_TOOLS:
        target = block.input.get("file_path")
        if isinstance(target, str) and is_auto_mem_path(target, memory_dir):
            return f"{name} {target}"
        return None
    server, tool = _mcp_tool(name)
    if tool in MEMDIR_WRITE_TOOLS and (server is None or "memdir" in server.lower()):
        return name
    if name == "memory":
        command = block.input.get("command")
        if isinstance(command, str) and command in MEMORY_TOOL_WRITE_COMMANDS:
            path = block.input.get("path") or block.input.get("old_path")
            return f"memory {command} {path}" if isinstance(path, str) else f"memory {command}"
    return None


def window_since(messages: Sequence[ConversationMessage], cursor: str | None, memory_dir: str) -> Window:
    """The messages after ``cursor`` (all of them when it is absent or unknown) and what they hold."""
    start = 0
    found = False
    if cursor is not None:
        for index in range(len(messages) - 1, -1, -1):
            if messages[index].uuid == cursor:
                start, found = index + 1, True
                break
    new = tuple(messages[start:])
    count = sum(1 for message in new if message.role in ("user", "assistant"))
    write = None
    for message in new:
        if message.role != "assistant":
            continue
        for block in message.tool_uses():
            write = memory_write_in(block, memory_dir)
            if write is not None:
                break
        if write is not None:
            break
    last = messages[-1].uuid if messages else cursor
    return Window(messages=new, count=count, cursor_found=found, memory_write=write, last_uuid=last)
