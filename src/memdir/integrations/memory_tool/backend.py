"""memdir as the backend of Anthropic's memory tool (``memory_20250818``).

Hand :class:`MemdirMemoryTool` (or :class:`AsyncMemdirMemoryTool`) to the SDK's tool runner and
Claude's ``/memories`` directory becomes a memdir directory: contained paths, atomic locked
writes, the team secret guard, and ``MEMORY.md`` kept in step (see
:mod:`memdir.integrations.memory_tool.commands` for exactly when). Both classes are thin: the async
one runs the same commands in a worker thread.

Needs the ``anthropic`` extra (``pip install 'memdir[anthropic]'``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from memdir.config import MemoryConfig, resolve_config
from memdir.errors import MemdirError
from memdir.integrations.memory_tool.commands import MemoryCommands, session_commands
from memdir.memory_session import MemorySession
from memdir.store.directory import MemoryDir
from memdir.store.provenance import acting_as

try:
    import anyio.to_thread
    from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool, ToolError
    from anthropic.types.beta import (
        BetaCacheControlEphemeralParam,
        BetaMemoryTool20250818CreateCommand,
        BetaMemoryTool20250818DeleteCommand,
        BetaMemoryTool20250818InsertCommand,
        BetaMemoryTool20250818RenameCommand,
        BetaMemoryTool20250818StrReplaceCommand,
        BetaMemoryTool20250818ViewCommand,
    )
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("the memory-tool backend needs the anthropic SDK: pip install 'memdir[anthropic]'") from exc

__all__ = ["MEMORY_TOOL_BETA", "AsyncMemdirMemoryTool", "MemdirMemoryTool"]

MEMORY_TOOL_BETA = "context-management-2025-06-27"

T = TypeVar("T")


def _commands(memory_dir: MemoryDir | str | None, config: MemoryConfig | None, project: str | None) -> MemoryCommands:
    if isinstance(memory_dir, MemoryDir):
        directory = memory_dir
        directory.ensure()
        return MemoryCommands(directory)
    return session_commands(MemorySession(config or resolve_config(project, memory_dir=memory_dir)))


def _run(action: Callable[[], T]) -> T:
    """Turn memdir's refusals into the SDK's ToolError, so the model gets an error tool_result."""
    try:
        with acting_as("memory-tool", label="memory tool"):
            return action()
    except MemdirError as exc:
        raise ToolError(exc.message) from exc


class MemdirMemoryTool(BetaAbstractMemoryTool):
    """The memory tool over a memdir directory.

    ``memory_dir`` is a :class:`MemoryDir` or a path; with neither it nor ``config``, the
    project's directory (the one Claude Code uses for ``project``, default the working
    directory) is used.
    """

    def __init__(
        self,
        memory_dir: MemoryDir | str | None = None,
        *,
        config: MemoryConfig | None = None,
        project: str | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.commands = _commands(memory_dir, config, project)

    @property
    def memory_dir(self) -> MemoryDir:
        return self.commands.memory_dir

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return _run(lambda: self.commands.view(command.path, command.view_range))

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return _run(lambda: self.commands.create(command.path, command.file_text))

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return _run(lambda: self.commands.str_replace(command.path, command.old_str, command.new_str))

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return _run(lambda: self.commands.insert(command.path, command.insert_line, command.insert_text))

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return _run(lambda: self.commands.delete(command.path))

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return _run(lambda: self.commands.rename(command.old_path, command.new_path))

    def clear_all_memory(self) -> str:
        return _run(self.commands.clear_all_memory)


class AsyncMemdirMemoryTool(BetaAsyncAbstractMemoryTool):
    """The same tool for ``AsyncAnthropic``; each command runs in a worker thread."""

    def __init__(
        self,
        memory_dir: MemoryDir | str | None = None,
        *,
        config: MemoryConfig | None = None,
        project: str | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.commands = _commands(memory_dir, config, project)

    @property
    def memory_dir(self) -> MemoryDir:
        return self.commands.memory_dir

    async def _call(self, action: Callable[[], str]) -> str:
        return await anyio.to_thread.run_sync(lambda: _run(action))

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return await self._call(lambda: self.commands.view(command.path, command.view_range))

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return await self._call(lambda: self.commands.create(command.path, command.file_text))

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return await self._call(lambda: self.commands.str_replace(command.path, command.old_str, command.new_str))

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return await self._call(lambda: self.commands.insert(command.path, command.insert_line, command.insert_text))

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return await self._call(lambda: self.commands.delete(command.path))

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return await self._call(lambda: self.commands.rename(command.old_path, command.new_path))

    async def clear_all_memory(self) -> str:
        return await self._call(self.commands.clear_all_memory)
