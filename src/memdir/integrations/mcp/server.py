"""memdir as an MCP server: memory tools, the index and each memory as resources, the instructions as a prompt.

The tools are the methods of :class:`~memdir.tools.toolbox.MemoryToolbox`, declared once
(:mod:`memdir.tools.declared`): each accepts the argument names models tend to reach for
(``content``/``text`` for the body, ``title`` for the name, ``path``/``filename`` for the file,
``q`` for the query) besides its own, and carries read-only / destructive hints so clients can
decide what needs confirmation. A write answers with JSON naming what changed, or the rule that
refused it (with ``isError`` set).

Needs the ``mcp`` extra (``pip install 'memdir[mcp]'``, mcp 2.x).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from memdir.config import MemoryConfig
from memdir.errors import MemdirError, MemoryNotFound
from memdir.memory_session import MemorySession
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.markup import neutralise
from memdir.model.printable import printable
from memdir.prompt import build_memory_prompt
from memdir.recall.selector_protocol import Selector
from memdir.store.directory import MemoryDir
from memdir.store.history_watch import record_external
from memdir.store.provenance import acting_as
from memdir.templates import load_sections
from memdir.tools.declared import TOOLS, Hints, Tool, required_arguments, tool_description, tool_function
from memdir.tools.outcome import Outcome
from memdir.tools.toolbox import MemoryToolbox
from memdir.version import installed_version

try:
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
    from mcp.types import CallToolResult, Resource, TextContent, ToolAnnotations
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("the MCP server needs the mcp package: pip install 'memdir[mcp]'") from exc

__all__ = ["INDEX_URI", "MEMORY_URI_PREFIX", "MCPEndpoints", "MemdirMCPServer", "create_server"]

INDEX_URI = "memdir://index"
MEMORY_URI_PREFIX = "memdir://memory/"

# What a client reads: the server's instructions and what each resource and prompt is for (the
# tools' words are the declaration's, prompts/memory_tools.md).
_TEXT = load_sections("mcp_server")


def _result(outcome: Outcome) -> CallToolResult:
    text = outcome.text if outcome.text is not None else json.dumps(outcome.payload, indent=2, ensure_ascii=False)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=outcome.payload,
        is_error=not outcome.ok,
    )


class MemdirMCPServer(MCPServer):
    """An MCPServer that also lists every memory file as a resource."""

    def __init__(self, toolbox: MemoryToolbox, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.toolbox = toolbox

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """Every change a tool call makes is recorded as ``mcp:<client name>`` (from the client's
        ``initialize``), one run per call."""
        with acting_as(f"mcp:{_client_name(context)}", label=f"mcp {name}"):
            record_external(self.toolbox.memory_dir)  # what the call reads is in the history too
            return await super().call_tool(name, arguments, context)

    async def list_tools(self) -> list[Any]:
        """The tools, their schemas saying what a call needs: ``required`` arguments and the memory
        types as an ``enum`` (a call that leaves one out, or sends an alias, is still answered)."""
        required = {tool.name: required_arguments(tool, getattr(self.toolbox, tool.method)) for tool in TOOLS}
        tools = list(await super().list_tools())
        for tool in tools:
            tool.input_schema = _strict_schema(tool.input_schema, required.get(tool.name, []))
        return tools

    async def list_resources(self) -> list[Resource]:
        listed: list[Resource] = list(await super().list_resources())
        for header in self.toolbox.memory_dir.headers():
            listed.append(
                Resource(
                    uri=MEMORY_URI_PREFIX + header.filename,
                    name=neutralise(header.filename),
                    title=None if header.name is None else neutralise(header.name),
                    description=None if header.description is None else neutralise(header.description),
                    mime_type="text/markdown",
                )
            )
        return listed


def _strict_schema(schema: dict[str, Any], required_arguments: list[str]) -> dict[str, Any]:
    """``schema`` with the tool's required arguments (as declared: :func:`required_arguments`) and
    an enum of the memory types for ``type``."""
    from memdir.model.memory_type import MEMORY_TYPES

    properties = dict(schema.get("properties", {}))
    if "type" in properties:
        described = properties["type"].get("description", "user, feedback, project or reference.")
        properties["type"] = {"type": "string", "enum": [t.value for t in MEMORY_TYPES], "description": described}
    required = [name for name in required_arguments if name in properties]
    strict = {**schema, "properties": properties}
    if required:
        strict["required"] = required
    return strict


def _client_name(context: Any) -> str:
    """The name the client gave in ``initialize`` (``claude-code``, ``cursor``), or ``unknown``.

    The SDK keeps it at the request's session (``client_params.client_info``); a connection
    object is looked at too, where a transport keeps it there. A client names itself, so the name
    is made printable and cut to 200 characters before the history records it."""
    try:
        request = context.request_context
    except (AttributeError, LookupError, ValueError):
        return "unknown"
    for holder in (getattr(request, "session", None), getattr(request, "connection", None)):
        info = getattr(getattr(holder, "client_params", None), "client_info", None)
        name = getattr(info, "name", None)
        if isinstance(name, str) and name.strip():
            return printable(name.strip())[:200]
    return "unknown"


def _annotations(hints: Hints) -> ToolAnnotations:
    """A tool's hints as MCP's annotations (no memdir tool reaches outside the memory directory)."""
    return ToolAnnotations(
        read_only_hint=hints.read_only,
        destructive_hint=hints.destructive,
        idempotent_hint=hints.idempotent,
        open_world_hint=False,
    )


class MCPEndpoints:
    """The server's tools, resources and prompt over one toolbox.

    The tools are the toolbox's, as declared (:mod:`memdir.tools.declared`): :meth:`tool` is one as
    the server calls it, taking the argument names models reach for, refusing an argument it needs
    left out (rule ``missing-argument``) and answering every call, a refusal included, as a
    :class:`CallToolResult`, so a tool is callable on its own and every refusal has one shape."""

    def __init__(self, toolbox: MemoryToolbox, session: MemorySession) -> None:
        self.toolbox = toolbox
        self.session = session

    def tool(self, name: str) -> Callable[..., CallToolResult]:
        """The tool ``name`` as the server calls it."""
        declared = next(tool for tool in TOOLS if tool.name == name)
        return self._function(declared)

    def _function(self, tool: Tool) -> Callable[..., CallToolResult]:
        return tool_function(tool, getattr(self.toolbox, tool.method), _result, CallToolResult)

    def register(self, server: MCPServer) -> None:
        """Add every tool, resource and prompt to ``server``, with what a client shows of each."""
        for tool in TOOLS:
            server.add_tool(
                self._function(tool),
                name=tool.name,
                description=tool_description(tool),
                annotations=_annotations(tool.hints),
            )
        server.resource(
            INDEX_URI, name=ENTRYPOINT_NAME, description=_TEXT["resource index"], mime_type="text/markdown"
        )(self.index)
        server.resource(
            MEMORY_URI_PREFIX + "{+file}",
            name="memory",
            description=_TEXT["resource memory"],
            mime_type="text/markdown",
        )(self.memory)
        server.prompt(
            name="memory_instructions",
            description=_TEXT["prompt memory_instructions"],
        )(self.memory_instructions)

    # -- resources and the prompt ------------------------------------------------------------
    def index(self) -> str:
        return self.toolbox.index()

    def memory(self, file: str) -> str:
        # A refusal is an answer, not a crash: the library logs a ResourceError as one line (and a
        # missing file as "not found" to the client), where any other exception costs a traceback.
        try:
            return self.toolbox.read_resource(file)
        except MemoryNotFound as exc:
            raise ResourceNotFoundError(exc.message) from None
        except MemdirError as exc:
            raise ResourceError(f"{exc.message} ({exc.rule})") from None

    def memory_instructions(self) -> str:
        return build_memory_prompt(self.session.prompt_config())


def create_server(
    config: MemoryConfig,
    *,
    memory_dir: MemoryDir | None = None,
    selector: Selector | None = None,
    name: str = "memdir",
) -> MemdirMCPServer:
    """An MCP server over one project's memory directory (``config.memory_dir`` unless given)."""
    # One session opens the store and builds the selector from the settings (memdir.selector,
    # memdir.model), on the first recall; its toolbox writes through memdir.agentWrites.
    session = MemorySession(config, memory_dir=memory_dir, selector=selector)
    instructions = _TEXT["instructions"]
    server = MemdirMCPServer(session.toolbox, name=name, version=installed_version(), instructions=instructions)
    MCPEndpoints(session.toolbox, session).register(server)
    return server
