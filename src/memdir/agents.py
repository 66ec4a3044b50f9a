"""Memory for sub-agents: one directory per agent type and scope, and snapshots shipped in a repo.

An agent definition that declares ``memory: user | project | local`` gets its own memory
directory, a prompt section that tells it how to use it (with its index inlined, since sub-agents
do not receive the user-context index), and, for user-scoped agents, the chance to start from a
snapshot checked into the project. Paths match Claude Code's so both tools share these
directories.

An agent type is a name, not a path: one holding a path separator or naming ``.``/``..`` is
refused, since it would place the directory outside its root.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Literal

from memdir.containment import contain, join_lexical, spell_lexical
from memdir.environment import Environment
from memdir.errors import MemdirError, UnsafePathError
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.index import truncate_entrypoint_content
from memdir.model.markup import neutralise
from memdir.paths import find_canonical_git_root, memory_base, project_root, sanitize_path
from memdir.prompt import PromptConfig, build_memory_lines
from memdir.store.directory import MemoryDir
from memdir.store.files import atomic_write, ensure_dir, read_bytes_limited, remove_file
from memdir.templates import render_template

__all__ = [
    "AGENT_DISPLAY_NAME",
    "AGENT_SNAPSHOT",
    "SNAPSHOT_JSON",
    "SYNCED_JSON",
    "AgentMemory",
    "AgentScope",
    "SnapshotCheck",
    "agent_dir_name",
    "is_agent_memory_path",
    "js_date",
    "parse_agent_scope",
]

log = logging.getLogger("memdir.agents")

AGENT_DISPLAY_NAME = "Persistent Agent Memory"
SNAPSHOT_BASE = "agent-memory-snapshots"
SNAPSHOT_JSON = "snapshot.json"
SYNCED_JSON = ".snapshot-synced.json"
AGENT_SNAPSHOT = "agent-snapshot"
"""The history's ``by`` for files a project's agent-memory snapshot put in an agent's directory."""


class AgentScope(StrEnum):
    USER = "user"
    PROJECT = "project"
    LOCAL = "local"


def parse_agent_scope(value: object) -> AgentScope | None:
    """The scope an agent definition declares, or None (with a debug note) for anything else."""
    try:
        return AgentScope(value) if isinstance(value, str) else None
    except ValueError:
        log.debug("agent memory scope %r is not one of user, project, local; memory stays off", value)
        return None


def _check_agent_type(agent_type: str) -> None:
    if not agent_type or agent_type in (".", "..") or "/" in agent_type or "\\" in agent_type or "\0" in agent_type:
        raise UnsafePathError(
            f"agent type {agent_type!r} cannot name a memory directory: it must be a plain name without "
            "path separators (rule: agent-type-name); rename the agent",
            rule="agent-type-name",
            path=agent_type,
        )


def agent_dir_name(agent_type: str) -> str:
    """Directory name of an agent type: ``:`` (as in ``plugin:agent``) is not portable in paths."""
    _check_agent_type(agent_type)
    return agent_type.replace(":", "-")


_ISO = re.compile(
    r"^([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2}))?)?"
    r"(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$"
)


def js_date(text: str) -> datetime | None:
    """``new Date(text)`` for ISO 8601 strings, or None where JS gives an invalid date.

    A date alone is UTC and a date-time without an offset is local time, as in JS. Other formats
    JS engines happen to accept are treated as invalid, which makes comparisons false, as NaN does.
    """
    match = _ISO.match(text.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        value = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            int((fraction or "0")[:6].ljust(6, "0")),
        )
    except ValueError:
        return None
    if zone is None and hour is None:
        return value.replace(tzinfo=UTC)
    if zone is None:
        return value.astimezone(UTC)
    if zone == "Z":
        return value.replace(tzinfo=UTC)
    sign = 1 if zone[0] == "+" else -1
    digits = zone[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return (value - sign * offset).replace(tzinfo=UTC)


@dataclass(frozen=True)
class SnapshotCheck:
    """What to do about a project's snapshot of this agent's memory."""

    action: Literal["none", "initialize", "prompt-update"]
    snapshot_timestamp: str | None = None


def _entries(directory: str) -> list[os.DirEntry[str]]:
    """The entries of ``directory`` by name, or none when it cannot be listed."""
    try:
        with os.scandir(directory) as iterator:
            return sorted(iterator, key=lambda entry: entry.name)
    except OSError as exc:
        log.debug("cannot list %s: %s", directory, exc)
        return []


def _read_json_string(path: str, key: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True)
class AgentMemory:
    """One agent type's memory in one scope, for a session working in ``cwd``."""

    agent_type: str
    scope: AgentScope
    cwd: str
    dir: str  # with a trailing separator

    @classmethod
    def resolve(
        cls, agent_type: str, scope: AgentScope | str, *, environment: Environment, cwd: str | None = None
    ) -> AgentMemory:
        """The directory of ``agent_type`` in ``scope``: user-scoped memory lives under the memory base
        of ``environment`` (``CLAUDE_CODE_REMOTE_MEMORY_DIR``, else the config home), local memory
        under the remote memory directory when one is set."""
        kind = AgentScope(scope)
        name = agent_dir_name(agent_type)
        root = project_root(cwd)
        if kind is AgentScope.USER:
            directory = join_lexical(memory_base(environment), "agent-memory", name)
        elif kind is AgentScope.PROJECT:
            directory = join_lexical(root, ".claude", "agent-memory", name)
        elif environment.remote_memory_dir:
            remote = spell_lexical(environment.remote_memory_dir)
            base = sanitize_path(find_canonical_git_root(root) or root)
            directory = join_lexical(remote, "projects", base, "agent-memory-local", name)
        else:
            directory = join_lexical(root, ".claude", "agent-memory-local", name)
        return cls(agent_type, kind, root, spell_lexical(directory) + os.sep)

    @property
    def entrypoint(self) -> str:
        return self.dir + ENTRYPOINT_NAME

    @property
    def snapshot_dir(self) -> str:
        """Note the raw agent type: snapshot directories keep any ``:`` in the name."""
        return join_lexical(self.cwd, ".claude", SNAPSHOT_BASE, self.agent_type)

    @property
    def marker_path(self) -> str:
        return self.dir + SYNCED_JSON

    def open(self) -> MemoryDir:
        return MemoryDir(self.dir)

    # -- prompt --------------------------------------------------------------------------------
    def prompt(
        self,
        *,
        extra_guidelines: Sequence[str] = (),
        transcripts_dir: str | None = None,
        create: bool = True,
    ) -> str:
        """The memory section appended to the agent's system prompt, its index inlined.

        ``extra_guidelines`` are the operator's (``MemoryConfig.extra_guidelines``) and any of the
        caller's. Creates the directory, since the prompt tells the agent it already exists; a
        caller that only prints the prompt (``memdir agent prompt``) passes ``create=False``.
        """
        if create:
            ensure_dir(self.dir)
        scope_note = render_template(f"agent_memory_scope_{self.scope.value}")
        config = PromptConfig(
            memory_dir=self.dir,
            display_name=AGENT_DISPLAY_NAME,
            extra_guidelines=(scope_note, *extra_guidelines),
            search_past_context=transcripts_dir is not None,
            transcripts_dir=transcripts_dir,
        )
        try:
            index = read_bytes_limited(self.entrypoint).decode("utf-8", errors="replace")
        except FileNotFoundError:
            index = ""
        except (OSError, MemdirError) as exc:
            log.warning("agent memory index %s is not usable (%s); starting from an empty index", self.entrypoint, exc)
            index = ""
        empty = not index.strip()
        shown = neutralise(truncate_entrypoint_content(index).content)
        body = render_template("agent_memory_empty") if empty else shown
        return "\n\n".join([*build_memory_lines(config), f"## {ENTRYPOINT_NAME}", body]) + "\n"

    # -- snapshots -----------------------------------------------------------------------------
    def snapshot_timestamp(self) -> str | None:
        """``updatedAt`` of the project's snapshot, or None when there is no valid ``snapshot.json``."""
        return _read_json_string(join_lexical(self.snapshot_dir, SNAPSHOT_JSON), "updatedAt")

    def check_snapshot(self) -> SnapshotCheck:
        """``initialize`` when there is a snapshot and no local memory yet, ``prompt-update`` when
        the snapshot is newer than the last sync (or the sync was never recorded), else ``none``."""
        updated_at = self.snapshot_timestamp()
        if updated_at is None:
            return SnapshotCheck("none")
        if not any(e.is_file() and e.name.endswith(".md") for e in _entries(self.dir)):
            return SnapshotCheck("initialize", updated_at)
        synced_from = _read_json_string(self.marker_path, "syncedFrom")
        if synced_from is None:
            return SnapshotCheck("prompt-update", updated_at)
        newer, older = js_date(updated_at), js_date(synced_from)
        if newer is not None and older is not None and newer > older:
            return SnapshotCheck("prompt-update", updated_at)
        return SnapshotCheck("none")

    def _copy_snapshot(self) -> list[str]:
        """Copy the snapshot's files in, each read from inside the project and written inside the
        agent's directory: a snapshot is checked-in content, and a symlink in it (or a symlinked
        snapshot directory) must not pull a file such as a private key into memory and prompts."""
        ensure_dir(self.dir)
        copied: list[str] = []
        for entry in _entries(self.snapshot_dir):
            if not entry.is_file() or entry.name == SNAPSHOT_JSON:
                continue
            source = contain(self.cwd, entry.path, allow_absolute=True)
            target = contain(self.dir, entry.name)
            atomic_write(target, read_bytes_limited(source))
            copied.append(self.dir + entry.name)
        return copied

    def mark_snapshot_synced(self, snapshot_timestamp: str) -> None:
        """Record that the local memory now reflects the snapshot of ``snapshot_timestamp``."""
        atomic_write(self.marker_path, json.dumps({"syncedFrom": snapshot_timestamp}, separators=(",", ":")))

    def initialize_from_snapshot(self, snapshot_timestamp: str) -> list[str]:
        """Copy the snapshot's top-level files (all but ``snapshot.json``) in; returns the copies.
        The directory's history (when watched) records each copy as ``agent-snapshot``."""
        with _as_snapshot():
            copied = self._copy_snapshot()
            self.mark_snapshot_synced(snapshot_timestamp)
        return copied

    def replace_from_snapshot(self, snapshot_timestamp: str) -> list[str]:
        """Drop the local top-level ``*.md`` files, then initialize from the snapshot; each file
        dropped goes through the store's write layer, so the history keeps its text."""
        with _as_snapshot():
            for entry in _entries(self.dir):
                if entry.is_file() and entry.name.endswith(".md"):
                    remove_file(entry.path)
            return self.initialize_from_snapshot(snapshot_timestamp)


def _as_snapshot() -> contextlib.AbstractContextManager[object]:
    """Changes made by applying a project's snapshot are recorded as ``agent-snapshot``, in the
    caller's run (``memdir agent snapshot replace`` is one run, undone as one)."""
    from memdir.store.provenance import acting_as, current  # only a write imports it

    outer = current()
    return acting_as(AGENT_SNAPSHOT, run=outer.run, label=outer.label or "agent snapshot")


def is_agent_memory_path(path: str, *, environment: Environment, cwd: str | None = None) -> bool:
    """Whether ``path`` lies under one of the three agent-memory roots (reads and writes there are
    the agent's own and need no confirmation)."""
    target = spell_lexical(os.path.abspath(path))
    probe = "probe"
    for scope in AgentScope:
        directory = AgentMemory.resolve(probe, scope, cwd=cwd, environment=environment).dir
        root = os.path.dirname(directory.rstrip(os.sep)) + os.sep
        if target.startswith(root):
            return True
    return False
