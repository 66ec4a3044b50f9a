"""memdir as an MCP server: memory tools, the index and each memory as resources, the instructions as a prompt.

Tools are thin wrappers over :class:`~memdir.tools.toolbox.MemoryToolbox`. Each accepts
the argument names models tend to reach for (``content``/``text`` for the body, ``title`` for the
name, ``path``/``filename`` for the file, ``q`` for the query) besides its own, and carries
read-only / destructive hints so clients can decide what needs confirmation. A write answers with
JSON naming what changed, or the rule that refused it (with ``isError`` set).

Needs the ``mcp`` extra (``pip install 'memdir[mcp]'``, mcp 2.x).
"""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

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
from memdir.tools.toolbox import MemoryToolbox, Outcome

try:
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
    from mcp.types import CallToolResult, Resource, TextContent, ToolAnnotations
    from pydantic import AliasChoices, Field
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("the MCP server needs the mcp package: pip install 'memdir[mcp]'") from exc

__all__ = ["INDEX_URI", "MEMORY_URI_PREFIX", "MCPEndpoints", "MemdirMCPServer", "create_server"]

T = TypeVar("T")

INDEX_URI = "memdir://index"
MEMORY_URI_PREFIX = "memdir://memory/"

# What a client reads: the server's instructions and what each tool, resource, prompt and argument is for.
_TEXT = load_sections("mcp_server")


def _arg(*names: str, description: str) -> Any:
    """A field accepting several names; the first one is the name the schema advertises."""
    return Field(default=None, validation_alias=AliasChoices(*names), description=description)


Query = Annotated[
    str | None,
    _arg("query", "q", "prompt", "message", "text", description=_TEXT["argument query"]),
]
File = Annotated[
    str | None,
    _arg(
        "file",
        "path",
        "filename",
        "file_name",
        "memory",
        "id",
        description=_TEXT["argument file"],
    ),
]
NewFile = Annotated[
    str | None,
    _arg("file", "path", "filename", "file_name", description=_TEXT["argument new file"]),
]
Name = Annotated[str | None, _arg("name", "title", description=_TEXT["argument name"])]
Description = Annotated[
    str | None,
    _arg(
        "description",
        "summary",
        "hook",
        description=_TEXT["argument description"],
    ),
]
Body = Annotated[
    str | None,
    _arg("body", "content", "text", "observation", "details", description=_TEXT["argument body"]),
]
Replaces = Annotated[
    str | None,
    _arg("replaces", "supersedes", "replaced", description=_TEXT["argument replaces"]),
]
TypeArg = Annotated[
    str | None,
    _arg(
        "type",
        "memory_type",
        "kind",
        "category",
        description=_TEXT["argument type"],
    ),
]


def _result(outcome: Outcome) -> CallToolResult:
    text = outcome.text if outcome.text is not None else json.dumps(outcome.payload, indent=2, ensure_ascii=False)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=outcome.payload,
        is_error=not outcome.ok,
    )


class _ArgumentMissing(MemdirError):
    """A tool call left out an argument it needs (or sent it empty)."""

    rule = "missing-argument"


def _required(argument: str, value: T | None) -> T:
    """The one argument check of every tool: a required argument left out, or sent as an empty
    string, is refused (rule ``missing-argument``) before the toolbox is called."""
    if value is None or value == "":
        raise _ArgumentMissing(f"the argument {argument!r} is required")
    return value


def _answer(call: Callable[[], Outcome]) -> CallToolResult:
    """The one way a tool answers: the toolbox's outcome, or the refusal of a memdir rule (a missing
    argument included) as a result with ``isError`` set."""
    try:
        outcome = call()
    except MemdirError as exc:
        outcome = Outcome.refused(exc)
    return _result(outcome)


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
        tools = list(await super().list_tools())
        for tool in tools:
            tool.input_schema = _strict_schema(tool.name, tool.input_schema)
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


_REQUIRED = {
    "recall": ["query"],
    "remember": ["type", "name", "description"],
    "update": ["file"],
    "forget": ["file"],
    "read": ["file"],
    "restore": ["file", "version"],
}


def _strict_schema(tool: str, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the tool's required arguments and an enum of the memory types for ``type``."""
    from memdir.model.memory_type import MEMORY_TYPES

    properties = dict(schema.get("properties", {}))
    if "type" in properties:
        described = properties["type"].get("description", "user, feedback, project or reference.")
        properties["type"] = {"type": "string", "enum": [t.value for t in MEMORY_TYPES], "description": described}
    required = [name for name in _REQUIRED.get(tool, []) if name in properties]
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


def _package_version() -> str:
    """The installed memdir version, which clients show and log next to the server name."""
    try:
        return importlib.metadata.version("memdir")
    except importlib.metadata.PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


class MCPEndpoints:
    """The server's tools, resources and prompt, one method each, over one toolbox.

    Each tool takes the argument names models reach for (the ``Annotated`` aliases above), checks
    what it needs with :func:`_required` and answers through :func:`_answer`, so a tool is
    callable on its own and every refusal has one shape."""

    def __init__(self, toolbox: MemoryToolbox, session: MemorySession) -> None:
        self.toolbox = toolbox
        self.session = session

    def register(self, server: MCPServer) -> None:
        """Add every tool, resource and prompt to ``server``, with what a client shows of each."""
        writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
        replaces = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
        deletes = ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        )
        tools: tuple[tuple[Callable[..., Any], str, ToolAnnotations], ...] = (
            (self.recall, "recall", _READ_ONLY),
            (self.remember, "remember", writes),
            (self.update, "update", replaces),
            (self.forget, "forget", deletes),
            (self.list_memories, "list", _READ_ONLY),
            (self.read, "read", _READ_ONLY),
            (self.history, "history", _READ_ONLY),
            (self.restore, "restore", replaces),
        )
        for handler, name, hints in tools:
            server.add_tool(handler, name=name, description=_TEXT[f"tool {name}"], annotations=hints)
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

    # -- tools -------------------------------------------------------------------------------
    def recall(self, query: Query = None, limit: int = 5) -> CallToolResult:
        return _answer(lambda: self.toolbox.recall(_required("query", query), limit=limit))

    def remember(
        self,
        type: TypeArg = None,
        name: Name = None,
        description: Description = None,
        body: Body = None,
        file: NewFile = None,
        force: bool = False,
        replaces: Replaces = None,
    ) -> CallToolResult:
        return _answer(
            lambda: self.toolbox.remember(
                type=type,
                name=_required("name", name),
                description=_required("description", description),
                body=body or "",
                file=file,
                force=force,
                replaces=replaces,
            )
        )

    def update(
        self,
        file: File = None,
        name: Name = None,
        description: Description = None,
        type: TypeArg = None,
        body: Body = None,
        append: str | None = None,
        replaces: Replaces = None,
    ) -> CallToolResult:
        return _answer(
            lambda: self.toolbox.update(
                _required("file", file),
                name=name,
                description=description,
                type=type,
                body=body,
                append=append,
                replaces=replaces,
            )
        )

    def forget(self, file: File = None) -> CallToolResult:
        return _answer(lambda: self.toolbox.forget(_required("file", file)))

    def list_memories(self, type: TypeArg = None) -> CallToolResult:
        return _answer(lambda: self.toolbox.list_memories(type=type))

    def read(self, file: File = None) -> CallToolResult:
        return _answer(lambda: self.toolbox.read(_required("file", file)))

    def history(self, file: File = None, limit: int = 50) -> CallToolResult:
        return _answer(lambda: self.toolbox.history(file, limit=limit))

    def restore(self, file: File = None, version: int | None = None) -> CallToolResult:
        return _answer(lambda: self.toolbox.restore(_required("file", file), _required("version", version)))

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
    # memdir.model), on the first recall.
    session = MemorySession(config, memory_dir=memory_dir, selector=selector)
    toolbox = MemoryToolbox(
        session.agent_dir,  # memdir.agentWrites: direct, proposals, or refused
        selector=lambda: session.selector,
        writer_ranker=session.writer_ranker,
        dated_headers=lambda: config.claude_code.rules.dated_memory_headers,
    )
    server = MemdirMCPServer(toolbox, name=name, version=_package_version(), instructions=_TEXT["instructions"])
    MCPEndpoints(toolbox, session).register(server)
    return server
