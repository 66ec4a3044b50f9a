"""Who is changing memory right now: the provenance every recorded change carries.

An adapter says once who it is (``with acting_as("cli", label="add"):``), and every write under it,
however deep (a save, an agent's tool call, a team pull), is recorded in the directory's history
with that ``by`` and the run id that groups one command's or one agent run's changes, so a person
can undo a run as a whole. The value lives in a :class:`contextvars.ContextVar`, so threads started
with a copied context and asyncio tasks keep their own. Nothing on a read path imports this module.

The ``by`` values memdir writes: ``cli``, ``mcp:<client name>``, ``memory-tool``, ``ui``,
``extract:<session id>`` (``extract:codex:<session id>``, ``extract:gemini:<session id>`` for those
CLIs' sessions), ``codex`` and ``gemini`` (what a turn of that CLI changed, found by its end-of-turn
hook), ``dream:<run id>``, ``team:<token name>``, ``import``, ``doctor``,
``agent-snapshot`` (a project's agent-memory snapshot copied into a sub-agent's directory),
``review`` (a proposal a person accepted is recorded as its agent's ``by``), ``api`` (a program
using the library without saying who it is) and ``external`` (someone else: Claude Code, an
editor, git).
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import NamedTuple, ParamSpec, TypeVar

__all__ = ["EXTERNAL", "Provenance", "acting_as", "current", "new_run_id", "recorded_as"]

_P = ParamSpec("_P")
_T = TypeVar("_T")

EXTERNAL = "external"
API = "api"


class Provenance(NamedTuple):
    by: str
    run: str
    label: str = ""  # what the run was (the command, the tool), shown by ``memdir history --runs``
    session: str | None = None
    """The conversation the change came from, when it is known (a Claude Code session id): an
    extraction writes it into a nested-layout memory as ``metadata.originSessionId``."""


def new_run_id() -> str:
    """A short id that sorts by time: ``<seconds since 2020, base 36>-<4 hex>``."""
    seconds = int(time.time()) - 1_577_836_800
    digits = ""
    while True:
        seconds, rest = divmod(seconds, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[rest] + digits
        if not seconds:
            break
    return f"{digits}-{os.urandom(2).hex()}"


_current: ContextVar[Provenance | None] = ContextVar("memdir_provenance", default=None)
_process: Provenance | None = None


def current() -> Provenance:
    """The provenance of the write being made: the innermost :func:`acting_as`, else ``api`` with
    one run id for the whole process."""
    value = _current.get()
    if value is not None:
        return value
    global _process
    if _process is None:
        _process = Provenance(API, new_run_id(), "")
    return _process


@contextlib.contextmanager
def acting_as(by: str, *, run: str | None = None, label: str = "", session: str | None = None) -> Iterator[Provenance]:
    """Record every change made inside the block as made by ``by`` in one run (a new one unless
    ``run`` is given), from the conversation ``session`` when it is known."""
    value = Provenance(by, run or new_run_id(), label, session)
    token = _current.set(value)
    try:
        yield value
    finally:
        _current.reset(token)


def recorded_as(by: str) -> Callable[[Callable[_P, _T]], Callable[_P, _T]]:
    """A decorator: the function's changes are recorded as ``by``, in the caller's run (a command
    of the CLI keeps its one run, its label and its id) or a new one."""

    def decorate(function: Callable[_P, _T]) -> Callable[_P, _T]:
        @functools.wraps(function)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _T:
            outer = _current.get()
            with acting_as(by, run=outer.run if outer else None, label=outer.label if outer else ""):
                return function(*args, **kwargs)

        return wrapper

    return decorate
