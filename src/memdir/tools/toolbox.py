"""What the memory tools do, as plain Python over one memory directory.

Each tool is a method here, and its signature is its declaration (:mod:`memdir.tools.declared`):
the MCP server and the agent-framework adapters only turn these methods into their own tools, so
the behaviour a model sees (what a write reports, which rule refused it, how a loosely named file
is found) is the same everywhere and testable without a transport. Every call answers with an
:class:`~memdir.tools.outcome.Outcome`: the files and index line that changed, or the rule that refused the call and
its message (SPEC Part A 10).

Every payload carries all the text a model needs, because Claude Code hands the model a tool's
structured result instead of its text content whenever both are present: ``recall`` puts the
rendered memories in ``text`` and ``read`` the file in ``content``. Every string of every answer
is neutralised (:mod:`memdir.model.markup`, through :func:`~memdir.tools.outcome.neutral`): memory text, file names,
who made a change (``team:<token name>`` is a teammate's choice) and the messages that quote
them are data, and cannot open or close a block of the prompt they land in. The one exception is
``recall``'s ``text``, whose memories are neutralised as they are rendered inside memdir's own
reminder tags.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from memdir.errors import ConfigError, MemdirError, MemoryFormatError, MemoryNotFound
from memdir.model.index import IndexEntry
from memdir.model.markup import neutralise
from memdir.model.memory import Memory
from memdir.model.memory_type import MEMORY_TYPES, MemoryType
from memdir.model.relations import REPLACES_KEY
from memdir.model.timefields import iso_mtime
from memdir.recall.recaller import Recaller
from memdir.recall.selector_protocol import Selector
from memdir.store.directory import MemoryDir
from memdir.store.history_ops import HistoryView
from memdir.store.records import SaveResult
from memdir.store.relations import with_relation
from memdir.store.scan import MemoryHeader
from memdir.templates import render_template
from memdir.tools.declared import ArgumentMissing, Body, Description, File, Name, NewFile, Query, Replaces, TypeName
from memdir.tools.outcome import Outcome, neutral
from memdir.writes.near import Near, save_unless_identical

__all__ = ["MemoryToolbox", "parse_type"]

_TYPE_NAMES = ", ".join(t.value for t in MEMORY_TYPES)
_NO_HISTORY = "no history is kept for this memory directory (the settings key memdir.history is false)"


def parse_type(value: str | None) -> MemoryType | None:
    """A memory type from what a model typed: case and surrounding space do not matter."""
    if value is None or not value.strip():
        return None
    cleaned = value.strip().lower()
    if cleaned not in MemoryType._value2member_map_:
        raise MemoryFormatError(
            f"unknown memory type {value!r}; use one of: {_TYPE_NAMES}",
            rule="invalid-type",
        )
    return MemoryType(cleaned)


def _header_json(header: MemoryHeader) -> dict[str, Any]:
    return {
        "file": neutralise(header.filename),
        "type": header.type.value if header.type else None,
        "name": None if header.name is None else neutralise(header.name),
        "description": None if header.description is None else neutralise(header.description),
        "modified": iso_mtime(header.mtime_ms),
    }


def _save_json(result: SaveResult, entry: IndexEntry | None) -> dict[str, Any]:
    """What a save answers, neutralised (the caller adds the status)."""
    payload: dict[str, Any] = {
        "file": result.file,
        "path": result.path,
        "index_file": result.index_file,
        "index_changed": result.index_changed,
    }
    if result.index_refused is not None:
        payload["index_refused"] = result.index_refused
        payload["index_warning"] = result.index_warning
    if entry is not None:
        payload["index_line"] = entry.render()
    answer: dict[str, Any] = neutral(payload)
    return answer


def _near_json(near: list[Near], new_file: str) -> dict[str, Any]:
    """The memories that may already say what a new one says, and what the model can do about it."""
    first = neutralise(near[0].header.filename)
    return {
        "near": [{**_header_json(n.header), "same_words": round(n.score, 2)} for n in near],
        "next": render_template("near_remember", file=repr(first), new=repr(neutralise(new_file))),
    }


class MemoryToolbox:
    """recall / remember / update / forget / list / read / history / restore over one :class:`MemoryDir`.

    :attr:`MemorySession.toolbox <memdir.memory_session.MemorySession.toolbox>` hands out the one
    toolbox of a session, over its agent-facing directory and with its recaller."""

    def __init__(
        self,
        memory_dir: MemoryDir,
        *,
        recaller: Callable[[], Recaller] | None = None,
        writer_ranker: Callable[[], Selector] | None = None,
    ) -> None:
        """``recaller`` gives the session's recaller on the first recall, so a selector that cannot
        be built (the hybrid without the ``embed`` extra) fails that call with a clear message
        instead of keeping a server from starting; a toolbox without one only writes and reads.
        ``writer_ranker`` builds the offline ranking a write is checked with
        (:mod:`memdir.writes.near`; default: BM25)."""
        self.memory_dir = memory_dir
        self._recaller = recaller
        self._writer_ranker = writer_ranker

    @property
    def recaller(self) -> Recaller:
        if self._recaller is None:
            raise ConfigError("this toolbox recalls nothing: use MemorySession.toolbox", rule="no-recaller")
        return self._recaller()

    # -- finding files -------------------------------------------------------------------
    def find(self, file: str) -> str:
        """The relative file a model meant: the name as given, with ``.md`` added, or a memory's title."""
        from memdir.store.lookup import find_memory

        try:
            return find_memory(self.memory_dir, file)
        except MemoryNotFound as exc:
            raise MemoryNotFound(exc.message + "; call list to see the file names", path=file) from None

    # -- read-only tools -----------------------------------------------------------------
    def recall(self, query: Query, limit: int = 5) -> Outcome:
        """The memories relevant to ``query``, rendered as the system reminders an agent receives."""
        try:
            result = self.recaller.recall(query or "", limit=max(1, min(limit, 20)), asked=True)
        except MemdirError as exc:
            return Outcome.refused(exc)
        if result.reminders:
            text = "\n\n".join(result.reminders)
        elif result.skipped:
            text = f"recall skipped: {result.skipped}"
        else:
            text = "no relevant memories"
        payload = {
            "text": text,  # rendered: each memory neutralised inside memdir's own reminder tags
            **neutral(
                {"files": [m.file for m in result.memories], "selector": result.selector, "skipped": result.skipped}
            ),
        }
        return Outcome(ok=True, payload=payload, text=text)

    def list_memories(self, type: TypeName = None) -> Outcome:
        try:
            wanted = parse_type(type)
        except MemdirError as exc:
            return Outcome.refused(exc)
        headers = [h for h in self.memory_dir.headers() if wanted is None or h.type is wanted]
        return Outcome(
            ok=True,
            payload={"memory_dir": neutralise(self.memory_dir.path), "memories": [_header_json(h) for h in headers]},
        )

    def read(self, file: File) -> Outcome:
        try:
            rel = self.find(file or "")
            text = neutralise(self.memory_dir.read_text(rel))
        except MemdirError as exc:
            return Outcome.refused(exc)
        from memdir.store.history_ops import provenance_json

        return Outcome(
            ok=True,
            payload=neutral({"file": rel, "content": text, **provenance_json(self.memory_dir, rel)}),
            text=text,
        )

    def _history_name(self, view: HistoryView, file: str) -> str:
        """A file the history knows: a live memory found as :meth:`find` finds it, else a deleted one
        by its name or last title (:meth:`HistoryView.find`), as the CLI finds them."""
        try:
            return self.find(file)
        except MemoryNotFound:
            return view.find(file)

    def history(self, file: File = None, limit: int = 50) -> Outcome:
        """Recorded changes newest first (of one memory, or of the whole directory), with who made
        each (``by``) and the run it belonged to."""
        view = self.memory_dir.history
        if view is None:
            return Outcome(ok=False, payload={"status": "refused", "rule": "no-history", "message": _NO_HISTORY})
        try:
            rel = self._history_name(view, file) if file else None
            rows = view.versions(rel, limit=max(1, min(limit, 500)))
        except MemdirError as exc:
            return Outcome.refused(exc)
        versions = [row.as_json() for row in rows]
        return Outcome(ok=True, payload=neutral({"file": rel, "versions": versions}))

    def restore(self, file: File, version: int | None) -> Outcome:
        """Bring back ``file`` as its version ``version`` left it (a deleted memory too); recorded
        as a new version, so it can be undone."""
        view = self.memory_dir.history
        if view is None:
            return Outcome(ok=False, payload={"status": "refused", "rule": "no-history", "message": _NO_HISTORY})
        try:
            if version is None:
                raise ArgumentMissing("the argument 'version' is required")
            row = view.restore(self._history_name(view, file or ""), version)
        except MemdirError as exc:
            return Outcome.refused(exc)
        payload = neutral({"restored_from": version, **row.as_json()})
        return Outcome(ok=True, payload=self._reported(payload, "restored"))

    def index(self) -> str:
        return neutralise(self.memory_dir.index_text())

    def read_resource(self, file: str) -> str:
        """One memory file as the ``memdir://memory/…`` resource shows it (neutralised, as ``read``)."""
        return neutralise(self.memory_dir.read_text(self.find(file)))

    # -- writes --------------------------------------------------------------------------
    def remember(
        self,
        *,
        type: TypeName = None,
        name: Name,
        description: Description,
        body: Body = None,
        file: NewFile = None,
        force: bool = False,
        replaces: Replaces = None,
    ) -> Outcome:
        """Save a new memory and its index line, and name the memories that may already say it
        (with what to do: update one, or record that the new one replaces it). A memory nearly
        identical to one that exists is refused (rule ``identical``) unless ``force``; an existing
        file is refused too. ``replaces``: a memory the new one replaces, recorded in its frontmatter."""
        try:
            memory = Memory(
                name=(name or "").strip(),
                description=(description or "").strip(),
                type=parse_type(type),
                body=body or "",
            )
            if file:
                self.memory_dir.resolve(file)  # a path outside the directory is refused before anything else
            if replaces:
                memory = with_relation(memory, REPLACES_KEY, self.find(replaces))
            ranker = self._writer_ranker() if self._writer_ranker is not None else None
            result, near = save_unless_identical(self.memory_dir, memory, file=file or None, force=force, ranker=ranker)
        except MemdirError as exc:
            return Outcome.refused(exc)
        entry = IndexEntry(title=memory.name or "", file=result.file, hook=memory.description or "")
        payload = self._reported(_save_json(result, entry), "created" if result.created else "replaced")
        if near and not replaces:
            payload.update(_near_json(near, result.file))
        _warn_long_description(payload, memory.description)
        return Outcome(ok=True, payload=payload)

    def update(
        self,
        file: File,
        *,
        name: Name = None,
        description: Description = None,
        type: TypeName = None,
        body: Body = None,
        append: str | None = None,
        replaces: Replaces = None,
    ) -> Outcome:
        """Change some fields of an existing memory; the others, and unknown frontmatter keys, are
        kept. ``replaces``: record that this memory replaces another (added to its frontmatter)."""
        try:
            rel = self.find(file or "")
            before = self.memory_dir.read(rel).memory
            related = before
            if replaces:
                replaced = self.find(replaces)
                if replaced == rel:
                    raise MemoryFormatError(f"{rel} cannot replace itself", rule="relation")
                related = with_relation(before, REPLACES_KEY, replaced)
            new_body = before.body if body is None else body
            if append:
                new_body = f"{new_body.rstrip()}\n{append.strip()}" if new_body.strip() else append.strip()
            after = replace(
                related,
                name=before.name if name is None else name.strip(),
                description=before.description if description is None else description.strip(),
                type=before.type if type is None else parse_type(type),
                body=new_body,
            )
            changed = [
                key
                for key in ("name", "description", "type", "body")
                if getattr(before, key) != getattr(after, key) or (key == "type" and before.raw_type != after.raw_type)
            ]
            if related is not before:
                changed.append(REPLACES_KEY)
            if not changed:
                return Outcome(ok=True, payload=neutral({"status": "unchanged", "file": rel, "changed": []}))
            result = self.memory_dir.save(after, file=rel, force=True)
        except MemdirError as exc:
            return Outcome.refused(exc)
        entry = IndexEntry(title=after.name or "", file=result.file, hook=after.description or "")
        payload = self._reported(_save_json(result, entry), "updated")
        payload["changed"] = changed
        _warn_long_description(payload, after.description)
        return Outcome(ok=True, payload=payload)

    def forget(self, file: File) -> Outcome:
        """Delete a memory file and every index line that points to it."""
        file = file or ""
        try:
            rel = self.find(file)
            result = self.memory_dir.delete(rel)
        except MemoryNotFound:
            try:
                # An index line left behind for a missing file, named as find names files: with
                # or without its .md.
                result = self.memory_dir.delete(file if file.strip().endswith(".md") else f"{file.strip()}.md")
            except MemdirError as exc:
                return Outcome.refused(exc)
        except MemdirError as exc:
            return Outcome.refused(exc)
        payload = neutral(
            {
                "file": result.file,
                "deleted": result.deleted,
                "index_file": result.index_file,
                "index_changed": result.index_changed,
            }
        )
        return Outcome(ok=True, payload=self._reported(payload, "deleted" if result.deleted else "index line removed"))

    def _reported(self, payload: dict[str, Any], status: str) -> dict[str, Any]:
        """``payload`` with the status of a change made: ``status``, or ``proposed`` (and a note
        saying a person accepts it) when this directory's writes are proposals (``memdir.agentWrites``
        is review)."""
        if not self.memory_dir.proposes:
            return {"status": status, **payload}
        from memdir.store.review import PROPOSED

        return {"status": "proposed", **payload, "note": PROPOSED}


def _warn_long_description(payload: dict[str, object], description: str | None) -> None:
    """A saved memory whose description is longer than ``doctor`` accepts: the answer says so, and
    that ``update`` fixes it."""
    from memdir.model.memory import long_description_warning

    warning = long_description_warning(description)
    if warning is not None:
        payload["warning"] = f"{warning}; call update with a shorter description"
