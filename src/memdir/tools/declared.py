"""Each memory tool declared once, from its signature, as the MCP SDK derives a tool from a function.

A tool is a method of :class:`~memdir.tools.toolbox.MemoryToolbox` and a row of :data:`TOOLS`:

* the method's signature says everything about its arguments. An argument annotated with an
  :class:`Arg` (``Query``, ``File``, ``Body`` ...) has one name, the first of its names, which
  every schema advertises, and the others are the names models reach for (``content`` or ``text``
  for the body, ``title`` for the name), accepted everywhere; what it is for is its section of
  ``prompts/memory_tools.md``. An argument without a default is one the tool cannot do without: a
  call that leaves it out, or sends it empty, is refused (rule ``missing-argument``).
* the row gives the name a model calls, the hints a client shows (read-only, destructive,
  idempotent), and the arguments a schema asks for besides those (``asked``: ``remember`` asks for
  a type, and saves a memory without one).

From these, :func:`tool_function` makes a plain function for one toolbox (its arguments as
pydantic fields, with their aliases and descriptions), which the MCP server, pydantic-ai and the
OpenAI Agents SDK each turn into a tool the way they turn any function into one; the required
arguments of every schema are :func:`required_arguments`. So the MCP tools and the agent
frameworks' tools are the same tools, with the same names, aliases and words.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, NamedTuple, TypeVar

from memdir.errors import MemdirError
from memdir.templates import load_sections
from memdir.tools.outcome import Outcome

__all__ = [
    "AGENT_TOOLS",
    "TOOLS",
    "Arg",
    "ArgumentMissing",
    "Body",
    "Description",
    "File",
    "Hints",
    "Name",
    "NewFile",
    "Query",
    "Replaces",
    "Tool",
    "TypeName",
    "required_arguments",
    "tool_description",
    "tool_function",
]

R = TypeVar("R")


class Arg(NamedTuple):
    """An argument as models see it: its names (the one schemas advertise first, then the aliases
    models use) and the section of ``prompts/memory_tools.md`` that says what it is for."""

    names: tuple[str, ...]
    about: str


Query = Annotated[str | None, Arg(("query", "q", "prompt", "message", "text"), "argument query")]
File = Annotated[str | None, Arg(("file", "path", "filename", "file_name", "memory", "id"), "argument file")]
NewFile = Annotated[str | None, Arg(("file", "path", "filename", "file_name"), "argument new file")]
Name = Annotated[str | None, Arg(("name", "title"), "argument name")]
Description = Annotated[str | None, Arg(("description", "summary", "hook"), "argument description")]
Body = Annotated[str | None, Arg(("body", "content", "text", "observation", "details"), "argument body")]
Replaces = Annotated[str | None, Arg(("replaces", "supersedes", "replaced"), "argument replaces")]
TypeName = Annotated[str | None, Arg(("type", "memory_type", "kind", "category"), "argument type")]


class Hints(NamedTuple):
    """What a client may show or ask before a call (MCP's tool annotations)."""

    read_only: bool
    destructive: bool
    idempotent: bool | None = None


_READS = Hints(read_only=True, destructive=False, idempotent=True)
_WRITES = Hints(read_only=False, destructive=False)
_REPLACES = Hints(read_only=False, destructive=True)
_DELETES = Hints(read_only=False, destructive=True, idempotent=True)


class Tool(NamedTuple):
    """One tool: the name a model calls, the :class:`~memdir.tools.toolbox.MemoryToolbox` method
    that does it, its hints, and the arguments a schema asks for that a call may still leave out."""

    name: str
    method: str
    hints: Hints
    asked: tuple[str, ...] = ()


TOOLS: tuple[Tool, ...] = (
    Tool("recall", "recall", _READS),
    Tool("remember", "remember", _WRITES, asked=("type",)),
    Tool("update", "update", _REPLACES),
    Tool("forget", "forget", _DELETES),
    Tool("list", "list_memories", _READS),
    Tool("read", "read", _READS),
    Tool("history", "history", _READS),
    Tool("restore", "restore", _REPLACES),
)
# What the agent-framework adapters give a model: the four tools that keep a memory.
AGENT_TOOLS: tuple[Tool, ...] = TOOLS[:4]


def tool_description(tool: Tool) -> str:
    """What a model reads about ``tool`` (``prompts/memory_tools.md``)."""
    return load_sections("memory_tools")[f"tool {tool.name}"]


class ArgumentMissing(MemdirError):
    """A tool call left out an argument it needs (or sent it empty)."""

    rule = "missing-argument"


def _arg(annotation: object) -> Arg | None:
    return next((meta for meta in getattr(annotation, "__metadata__", ()) if isinstance(meta, Arg)), None)


def _parameters(method: Callable[..., Outcome]) -> list[tuple[inspect.Parameter, Any]]:
    """The method's parameters with their annotations resolved (``Annotated`` kept)."""
    hints = typing.get_type_hints(method, include_extras=True)
    return [(parameter, hints[parameter.name]) for parameter in inspect.signature(method).parameters.values()]


def required_arguments(tool: Tool, method: Callable[..., Outcome]) -> list[str]:
    """The arguments a schema of ``tool`` lists as required, in the signature's order: those the
    method cannot do without, and those the row asks for."""
    return [
        parameter.name
        for parameter, _ in _parameters(method)
        if parameter.default is inspect.Parameter.empty or parameter.name in tool.asked
    ]


def tool_function(
    tool: Tool,
    method: Callable[..., Outcome],
    answer: Callable[[Outcome], R],
    returns: type[R],
    *,
    optional: bool = True,
) -> Callable[..., R]:
    """``method`` (a bound toolbox method) as a plain function a tool can be made of: named as the
    method, its arguments pydantic fields (the advertised name, the aliases, the description) and
    ``answer`` applied to what it returns (annotated ``returns``). ``optional``: every argument may
    be left out, so the call gets memdir's own refusal naming it (the MCP server, which lists the
    required ones in the schema itself); else those :func:`required_arguments` names have no
    default, and the framework validates them. Either way, an argument the method cannot do
    without, left out or empty, is refused (rule ``missing-argument``), and every refusal of memdir's
    is an answer, never an exception: the one way a tool answers."""
    from pydantic import AliasChoices, Field

    declared = _parameters(method)
    required = set(required_arguments(tool, method))
    needed = [parameter.name for parameter, _ in declared if parameter.default is inspect.Parameter.empty]
    parameters = []
    for parameter, annotation in declared:
        arg = _arg(annotation)
        if arg is not None:
            words = load_sections("memory_tools")[arg.about]
            field = Field(validation_alias=AliasChoices(*arg.names), description=words)
            annotation = Annotated[annotation.__origin__, field]
        default = parameter.default
        if default is inspect.Parameter.empty and optional:
            default = None
        elif not optional and parameter.name in required:
            default = inspect.Parameter.empty
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        parameters.append(parameter.replace(annotation=annotation, default=default, kind=kind))
    signature = inspect.Signature(parameters, return_annotation=returns)

    def call(*args: Any, **kwargs: Any) -> R:
        arguments: Mapping[str, Any] = signature.bind(*args, **kwargs).arguments
        missing = next((name for name in needed if arguments.get(name) in (None, "")), None)
        try:
            if missing is not None:
                raise ArgumentMissing(f"the argument {missing!r} is required")
            outcome = method(**arguments)
        except MemdirError as exc:
            outcome = Outcome.refused(exc)
        return answer(outcome)

    call.__name__ = method.__name__
    call.__doc__ = method.__doc__
    call.__dict__["__signature__"] = signature  # what inspect.signature, and so every framework, reads
    call.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters} | {"return": returns}
    return call
