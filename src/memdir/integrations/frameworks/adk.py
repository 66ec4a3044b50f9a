"""memdir as a Google ADK memory service: :class:`MemdirMemoryService`, a ``BaseMemoryService``.

Hand it to ``Runner(memory_service=...)``; ADK's memory tools then read memdir:
``PreloadMemoryTool`` puts the memories relevant to each user message in front of the model
before every model call, and ``load_memory`` lets the model search on its own.

* ``search_memory`` is memdir's recall (the session's selector; offline by default): one
  ``MemoryEntry`` per memory file, its text as the content, its file name as the ``id``, its
  modification time as the ``timestamp``, and ``name``, ``description``, ``type`` and ``file`` in
  ``custom_metadata``.
* ``add_session_to_memory`` runs memdir's extraction on the session's events, with the model the
  service was given (``model=`` or ``model_spec=``, else ``MEMDIR_MODEL`` or ``memdir.model``);
  without one it raises :class:`~memdir.errors.ModelNotConfigured`. Each ADK session keeps its own
  cursor, so adding a session again extracts only its new events; ``add_events_to_memory`` (what
  ``ctx.add_events_to_memory`` calls) extracts the events given, as a delta of that session.
* ``add_memory`` saves each ``MemoryEntry`` as a memory file (``custom_metadata`` may carry
  ``name``, ``description`` and ``type``; an entry with an ``id`` replaces that file), and
  ``delete_memory`` removes a file and its index line.

``memory_dir`` may name ``{app_name}`` and ``{user_id}`` to give each application or user a
directory of its own, named safely for any id (:mod:`memdir.integrations.frameworks.user_dirs`); without them,
every user of the runner shares one memory, as Claude Code's sessions of one project do.

Needs the ``adk`` extra (``pip install 'memdir[adk]'``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memdir.errors import MemoryFormatError
from memdir.integrations.frameworks.agent_memory import AgentMemory, note_index_refused, open_session
from memdir.integrations.frameworks.user_dirs import check_template, fill_template, placeholders
from memdir.model.memory import Memory
from memdir.store.provenance import acting_as
from memdir.tools.outcome import neutral
from memdir.tools.toolbox import parse_type

try:
    from google.adk.memory import BaseMemoryService
    from google.adk.memory.base_memory_service import SearchMemoryResponse
    from google.adk.memory.memory_entry import MemoryEntry
    from google.genai import types
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("the ADK memory service needs google-adk: pip install 'memdir[adk]'") from exc

if TYPE_CHECKING:
    from google.adk.events.event import Event
    from google.adk.sessions.session import Session

    from memdir.extract.extractor import Extractor
    from memdir.llm.base import ChatModel

__all__ = ["MemdirMemoryService", "to_conversation"]


def _part_blocks(part: types.Part) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(content blocks of the speaker, tool results) of one part."""
    if part.text and not part.thought:
        return [{"type": "text", "text": part.text}], []
    if part.function_call is not None:
        call = part.function_call
        return [{"type": "tool_use", "id": call.id, "name": call.name, "input": dict(call.args or {})}], []
    if part.function_response is not None:
        response = part.function_response
        result = {"type": "tool_result", "tool_use_id": response.id, "content": str(response.response or "")}
        return [], [result]
    return [], []


def to_conversation(events: Sequence[Event]) -> list[dict[str, Any]]:
    """An ADK session's events in memdir's message JSON (what extraction reads), each event's id
    its ``uuid``; partial (streamed) events are left out, their final event carries the text."""
    out: list[dict[str, Any]] = []
    for event in events:
        if event.partial or event.content is None or not event.content.parts:
            continue
        blocks: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for part in event.content.parts:
            said, returned = _part_blocks(part)
            blocks += said
            results += returned
        role = "user" if event.author == "user" else "assistant"
        if blocks:
            out.append({"role": role, "content": blocks, "uuid": event.id})
        if results:
            out.append({"role": "user", "content": results, "uuid": f"{event.id}-results"})
    return out


def _legacy_name(value: str) -> str | None:
    """The directory name this service gave ``value`` before names were made safe for any id (the
    value itself, when it held no separator), so a user's existing memory is still found."""
    if not value or "/" in value or "\\" in value or value.startswith(".") or "\x00" in value:
        return None
    return value


def _file_of(memory_id: str) -> str:
    """The memory file an entry's id names: the file name a search returned (``project_deploys.md``,
    a path in the directory), or the same without ``.md``; the directory checks it."""
    return memory_id if memory_id.endswith(".md") else f"{memory_id}.md"


def _entry_text(entry: MemoryEntry) -> str:
    parts = entry.content.parts or []
    return "\n".join(part.text for part in parts if part.text)


class MemdirMemoryService(BaseMemoryService):
    """An ADK memory service over memdir directories (see the module docstring)."""

    def __init__(
        self,
        memory_dir: str | os.PathLike[str],
        *,
        model: ChatModel | None = None,
        model_spec: str | None = None,
        selector: str | None = None,
        limit: int = 5,
    ) -> None:
        """``selector`` is the recall selector's kind (default: the prompt hook's, the settings key
        ``memdir.hookSelector``, offline unless set otherwise: ``PreloadMemoryTool`` searches before
        every model call). ``memory_dir`` may name ``{app_name}`` and ``{user_id}``, nothing else
        (refused here, not at the first request)."""
        self.memory_dir = os.fspath(memory_dir)
        check_template(self.memory_dir, ("app_name", "user_id"))
        self.selector = selector
        self.model = model
        self.model_spec = model_spec
        self.limit = limit
        self._lock = threading.Lock()
        self._memories: dict[str, AgentMemory] = {}
        self._extractors: dict[tuple[str, str | None], Extractor] = {}

    def directory_for(self, app_name: str, user_id: str) -> str:
        """The memory directory of one application and user: the template filled with a directory
        name safe for any id (:mod:`memdir.integrations.frameworks.user_dirs`). A user whose directory an
        earlier memdir named after the id as it is keeps that one."""
        template = self.memory_dir
        names = placeholders(template)
        if not names:
            return template
        values = {"app_name": app_name, "user_id": user_id}
        directory = fill_template(template, **{name: values[name] for name in names})
        legacy = {name: _legacy_name(values[name]) for name in names}
        if not os.path.isdir(directory) and all(legacy.values()):
            earlier = template.format(**legacy)
            if earlier != directory and os.path.isdir(earlier):
                return earlier
        return directory

    def memory_for(self, app_name: str, user_id: str) -> AgentMemory:
        """The memory of one application and user (one per directory)."""
        directory = self.directory_for(app_name, user_id)
        with self._lock:
            memory = self._memories.get(directory)
            if memory is None:
                session = open_session(
                    directory, model=self.model, model_spec=self.model_spec, selector_kind=self.selector
                )
                memory = self._memories[directory] = AgentMemory(session, extract=False, by="adk")
            return memory

    async def _extract(self, memory: AgentMemory, session_id: str | None, events: Sequence[Event]) -> None:
        """Extraction over ``events`` with the extractor of one ADK session (its cursor: events it
        already read are not read again)."""
        key = (memory.session.memory_dir.root, session_id)
        with self._lock:
            extractor = self._extractors.get(key)
        if extractor is None:
            extractor = memory.session.extractor()  # ModelNotConfigured, naming the ways to set one
            with self._lock:
                extractor = self._extractors.setdefault(key, extractor)
        memory.session.memory_dir.ensure()
        label = f"extract:adk:{session_id}" if session_id else "extract:adk"
        with acting_as(label, label="adk add to memory", session=session_id):
            await extractor.arun_once(to_conversation(events))

    async def add_session_to_memory(self, session: Session) -> None:
        await self._extract(self.memory_for(session.app_name, session.user_id), session.id, session.events)

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Extraction over some events of a session (``ctx.add_events_to_memory``: the latest
        turn, say): read as a delta, after what the session's earlier events taught."""
        await self._extract(self.memory_for(app_name, user_id), session_id, events)

    async def search_memory(self, *, app_name: str, user_id: str, query: str) -> SearchMemoryResponse:
        memory = self.memory_for(app_name, user_id)
        result = memory.toolbox.recaller.recall(query, limit=self.limit, asked=True)
        headers = {header.filename: header for header in memory.session.memory_dir.headers()}
        entries = []
        for surfaced in result.memories:
            header = headers.get(surfaced.file)
            metadata: dict[str, Any] = {"file": surfaced.file}
            if header is not None:
                metadata.update(
                    name=header.name,
                    description=header.description,
                    type=header.type.value if header.type else None,
                )
            entries.append(
                MemoryEntry(
                    id=surfaced.file,
                    content=types.Content(role="user", parts=[types.Part.from_text(text=surfaced.content)]),
                    custom_metadata=neutral(metadata),
                    timestamp=datetime.fromtimestamp(surfaced.mtime_ms / 1000, tz=UTC).isoformat(),
                )
            )
        return SearchMemoryResponse(memories=entries)

    async def add_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        memory = self.memory_for(app_name, user_id)
        directory = memory.session.agent_dir  # memdir.agentWrites: direct, proposals, or refused
        directory.ensure()
        for entry in memories:
            text = _entry_text(entry)
            fields = {**(custom_metadata or {}), **entry.custom_metadata}
            first = next((line.strip() for line in text.splitlines() if line.strip()), "memory")
            name = str(fields.get("name") or (first if len(first) <= 60 else first[:59].rstrip() + "…"))
            description = " ".join(str(fields.get("description") or first).split())
            kind = fields.get("type")
            saved = Memory(
                name=name,
                description=description if len(description) <= 150 else description[:149].rstrip() + "…",
                type=parse_type(kind) if isinstance(kind, str) else None,
                body=text,
            )
            file = _file_of(entry.id) if entry.id else None
            with acting_as("adk", label="adk add_memory"):
                result = directory.save(saved, file=file, force=file is not None)
            note_index_refused(result, warn=True)

    async def delete_memory(self, *, app_name: str, user_id: str, memory_id: str | None = None) -> None:
        if not memory_id:
            raise MemoryFormatError("delete_memory needs the memory_id a search returned", rule="adk-memory-id")
        with acting_as("adk", label="adk delete_memory"):
            self.memory_for(app_name, user_id).session.agent_dir.delete(_file_of(memory_id))
