"""Per-turn relevance recall: which memories to surface for a user message (SPEC §6.1, §6.4-§6.7).

A :class:`RecallState` belongs to one conversation and remembers what it has already been shown,
so a memory is surfaced once, memories the agent already read are skipped, and the total stays
within the 60 KB session budget until compaction resets it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from memdir.model.analysis import has_unspaced_words
from memdir.model.text import utf16_len
from memdir.model.timefields import is_expired
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.selector_protocol import (
    Query,
    Selection,
    SelectionRequest,
    Selector,
    StoreRequest,
    StoreSelector,
)
from memdir.recall.surfacing import (
    MAX_SURFACED_FILES,
    SESSION_SURFACED_BUDGET,
    SurfacedMemory,
    read_memory_for_surfacing,
    render_reminder,
)
from memdir.recall.versions import Shown, VersionLookup, arrange, newer_note
from memdir.store.directory import MemoryDir
from memdir.store.scan import MemoryHeader, same_headers

if TYPE_CHECKING:
    from memdir.store.ranked_store import RankedStore

__all__ = [
    "STORE_CATCH_UP_BUDGET",
    "RecallResult",
    "RecallState",
    "Recaller",
    "current_memories",
    "prefetch_skip_reason",
]

# When work is deferred (a prompt hook), how much catching up of the stored postings
# recall does before it ranks, in memories analysed from nothing (about 0.1 s; a changed memory
# counts eight); more is left to the background ``memdir reindex``.
STORE_CATCH_UP_BUDGET = 300


class RecallState:
    """What one conversation has been shown; reset it when the conversation is compacted.

    A plain class, not a dataclass: every hook process builds it, and the ``dataclasses`` import
    alone was a tenth of that process.
    """

    __slots__ = ("read_files", "surfaced", "surfaced_bytes")

    def __init__(
        self,
        surfaced: dict[str, SurfacedMemory] | None = None,
        surfaced_bytes: int = 0,
        read_files: dict[str, float] | None = None,
    ) -> None:
        self.surfaced: dict[str, SurfacedMemory] = {} if surfaced is None else surfaced
        self.surfaced_bytes = surfaced_bytes
        self.read_files: dict[str, float] = {} if read_files is None else read_files  # path -> mtime_ms when read

    def note_read(self, path: str, mtime_ms: float = 0.0) -> None:
        """Record a file the agent read, wrote or edited itself, so recall does not repeat it."""
        self.read_files[path] = mtime_ms

    def reset(self) -> None:
        self.surfaced.clear()
        self.surfaced_bytes = 0
        self.read_files.clear()


class _Choice(NamedTuple):
    """What a selector chose, the headers it chose from by file name, and the derived index it
    ranked in (None when it ranked headers)."""

    selection: Selection
    by_name: Mapping[str, MemoryHeader]
    store: RankedStore | None = None


class RecallResult(NamedTuple):
    """The memories one recall surfaced, rendered, or why it looked nothing up."""

    memories: tuple[SurfacedMemory, ...] = ()
    reminders: tuple[str, ...] = ()
    selector: str | None = None
    skipped: str | None = None  # why nothing was looked up, when nothing was
    notes: tuple[str, ...] = ()


def prefetch_skip_reason(query: str, state: RecallState | None, *, asked: bool = False) -> str | None:
    """Why recall should not run for this message, or None when it should. ``asked``: a search
    someone asked for (a recall tool, a memory service's search), where one word is the query."""
    text = query.strip()
    if not text:
        return "empty message"
    # Claude Code counts a message without whitespace as one word and skips it; memdir also counts
    # one with two letters of a script written without spaces (Chinese, Japanese, Thai) as more,
    # since a whole sentence in those scripts has no space in it.
    if not asked and not any(ch.isspace() for ch in text) and not has_unspaced_words(text):
        return "single-word message"
    if state is not None and state.surfaced_bytes >= SESSION_SURFACED_BUDGET:
        return f"session budget of {SESSION_SURFACED_BUDGET} characters already surfaced"
    return None


def current_memories(headers: Sequence[MemoryHeader], now_s: float) -> Sequence[MemoryHeader]:
    """``headers`` without the memories past their ``expires:`` date (local time): they are kept on
    disk and listed as expired, but never recalled. The list itself when none has expired, so a
    selector still recognises the list it indexed last time."""
    if not any(header.expires for header in headers):
        return headers
    today = time.strftime("%Y-%m-%d", time.localtime(now_s))
    expired = [header for header in headers if is_expired(header.expires, today)]
    if not expired:
        return headers
    return [header for header in headers if not is_expired(header.expires, today)]


class Recaller:
    """Runs recall against one memory directory with one selector."""

    def __init__(
        self,
        memory_dir: MemoryDir,
        *,
        selector: Selector | None = None,
        clock: Callable[[], float] = time.time,
        limit: int = MAX_SURFACED_FILES,
        dated_headers: bool = True,
        follow_links: bool = True,
        defer_work: bool = False,
    ) -> None:
        """``dated_headers``: surfaced memories say when they were saved (Claude Code 2.1.88) or
        only name their path (2.1.330); see :func:`memory_header`. ``follow_links``: a memory a
        chosen one links to is surfaced after it when it bears on the message (:mod:`memdir.recall.linked`).
        ``defer_work``: recall must answer now (the prompt hook): the derived index's long work (a
        first build, a due full refresh, a catch-up of its stored rankings beyond
        :data:`STORE_CATCH_UP_BUDGET`) is left to a background ``memdir reindex``, which the index asks
        for (``background_due``)."""
        self.follow_links = follow_links
        self.defer_work = defer_work
        self.memory_dir = memory_dir
        self.dated_headers = dated_headers
        self.selector: Selector = selector or LexicalSelector()
        self.clock = clock
        self.limit = limit
        # One attribute, replaced whole, so a thread never pairs one pool with another's mapping.
        self._named: tuple[list[MemoryHeader], dict[str, MemoryHeader]] = ([], {})

    def _names(self, pool: Sequence[MemoryHeader]) -> dict[str, MemoryHeader]:
        """The pool's headers by file name, rebuilt only when the pool changed.

        A store read through the derived index hands back the same header objects until a file
        changes; rebuilding the mapping for every query cost 50 ms at 100,000 memories.
        """
        known, by_name = self._named
        if not same_headers(pool, known):
            by_name = {header.filename: header for header in pool}
            self._named = (list(pool), by_name)
        return by_name

    def select(
        self,
        query: str,
        *,
        recent_tools: Sequence[str] = (),
        state: RecallState | None = None,
        limit: int | None = None,
        headers: Sequence[MemoryHeader] | None = None,
    ) -> Selection:
        """Rank without reading: the selector's choice among the not-yet-surfaced candidates, with
        the versions of what it chose in their places (:func:`memdir.recall.versions.arrange`)."""
        choice = self._choose(query, recent_tools=recent_tools, state=state, limit=limit, headers=headers)
        shown = self._arranged(choice, state)
        return choice.selection._replace(files=tuple(item.header.filename for item in shown[: limit or self.limit]))

    def chosen(
        self,
        query: str,
        *,
        limit: int | None = None,
        headers: Sequence[MemoryHeader] | None = None,
        store: RankedStore | None = None,
    ) -> list[MemoryHeader]:
        """:meth:`select`'s memories as headers, read from ``headers`` or else the store (its derived
        index when it has one): what a writer is shown as possibly saying the same
        (:mod:`memdir.writes.near`). ``store``: the derived index the caller already opened
        (:meth:`~memdir.store.directory.MemoryDir.ranked_store`), so that its catch-up runs once."""
        choice = self._choose(query, recent_tools=(), state=None, limit=limit, headers=headers, store=store)
        return [item.header for item in self._arranged(choice, None)[: limit or self.limit]]

    def _from_store(
        self,
        query: Query,
        recent_tools: Sequence[str],
        surfaced: Mapping[str, object],
        limit: int,
        store: RankedStore | None = None,
    ) -> _Choice | None:
        """The selection ranked inside the derived index over the whole store (``store``, else the
        directory's), when the store has one and the selector can rank there; None otherwise
        (recall then ranks headers)."""
        if not isinstance(self.selector, StoreSelector):
            return None
        if store is None:
            store = self.memory_dir.ranked_store(defer_work=self.defer_work)
        if store is None:
            return None
        request = StoreRequest(
            query=query,
            store=store,
            exclude=frozenset(surfaced),
            recent_tools=tuple(recent_tools),
            limit=limit,
            budget=STORE_CATCH_UP_BUDGET if self.defer_work else None,
            now_s=self.clock(),
        )
        stored = self.selector.select_store(request)
        if stored is None:
            return None
        by_file = stored.headers
        files = tuple(dict.fromkeys(name for name in stored.selection.files if name in by_file))
        if self.follow_links:
            # Only the memories the store's ranking read can be reached here (its best 50 or so).
            files = _with_linked(query, files, by_file, list(by_file.values()), limit)
        return _Choice(stored.selection._replace(files=files), by_file, store)

    def _choose(
        self,
        query: str,
        *,
        recent_tools: Sequence[str],
        state: RecallState | None,
        limit: int | None,
        headers: Sequence[MemoryHeader] | None,
        store: RankedStore | None = None,
    ) -> _Choice:
        """What the selector chooses for ``query``, analysed here once (:class:`Query`) for every stage."""
        message = Query(query)
        surfaced = state.surfaced if state is not None else {}
        cap = limit or self.limit
        if headers is None:
            stored = self._from_store(message, recent_tools, surfaced, cap, store)
            if stored is not None:
                return stored
        pool = self.memory_dir.recall_scan(defer_work=self.defer_work) if headers is None else headers
        if any(".conflict-" in header.filename for header in pool):
            # A conflict copy is the same memory a second time, waiting for a person to resolve it:
            # never a candidate of its own.
            from memdir.model.conflicts import is_conflict_copy

            pool = [header for header in pool if not is_conflict_copy(header.filename)]
        # Passing the pool itself when nothing was surfaced yet lets the selector see the very list
        # it indexed last time, which it recognises without re-reading any header.
        candidates = [header for header in pool if header.path not in surfaced] if surfaced else pool
        candidates = current_memories(candidates, self.clock())
        by_name = self._names(pool)
        if not candidates:
            return _Choice(Selection(files=(), selector=self.selector.name), by_name)
        request = SelectionRequest(query=message, candidates=candidates, recent_tools=tuple(recent_tools), limit=cap)
        selection = self.selector.select(request)
        files = tuple(
            dict.fromkeys(name for name in selection.files if name in by_name and by_name[name].path not in surfaced)
        )
        if self.follow_links:
            files = _with_linked(message, files, by_name, candidates, cap)
        return _Choice(Selection(files=files, selector=selection.selector, notes=selection.notes), by_name)

    @staticmethod
    def _earlier(
        store: RankedStore, state: RecallState | None, by_name: Mapping[str, MemoryHeader]
    ) -> list[MemoryHeader]:
        """The headers of the memories this conversation was shown before, that a store ranking did
        not read (a newer version shown earlier is named beside an older one surfaced now)."""
        if state is None or not state.surfaced:
            return []
        known = {header.path for header in by_name.values()}
        missing = [memory.file for path, memory in state.surfaced.items() if path not in known]
        found = store.headers_by_files(missing).values() if missing else ()
        return [header for header in found if header.path in state.surfaced]

    def _arranged(self, choice: _Choice, state: RecallState | None) -> list[Shown]:
        """The chosen memories with their versions (:mod:`memdir.recall.versions`): over the whole
        pool of headers, or over what the store ranking read, the memories this conversation was shown
        and the few that record replacing others."""
        by_name, store = choice.by_name, choice.store
        chosen = [by_name[name] for name in choice.selection.files if name in by_name]
        if not chosen:
            return []
        pool = list(by_name.values())
        if store is None:
            lookup = VersionLookup(pool)
        else:
            pool += self._earlier(store, state, by_name)
            lookup = VersionLookup(pool, replacers=store.replacing(), name_counts=store.name_counts)
        now_s = self.clock()
        today = time.strftime("%Y-%m-%d", time.localtime(now_s))

        def shown_before(path: str) -> bool:
            return state is not None and (path in state.surfaced or path in state.read_files)

        return arrange(
            chosen,
            lookup,
            shown_before=shown_before,
            current=lambda header: not is_expired(header.expires, today),
        )

    def recall(
        self,
        query: str,
        *,
        state: RecallState | None = None,
        recent_tools: Sequence[str] = (),
        limit: int | None = None,
        asked: bool = False,
    ) -> RecallResult:
        """The memories to surface for ``query``, read and rendered, recorded in ``state``.
        ``asked``: an explicit search (a tool call), not a chat message: one word is searched too."""
        reason = prefetch_skip_reason(query, state, asked=asked)
        if reason is not None:
            return RecallResult(skipped=reason)
        cap = limit or self.limit
        choice = self._choose(query, recent_tools=recent_tools, state=state, limit=cap, headers=None)
        selection = choice.selection
        now_ms = self.clock() * 1000
        memories: list[SurfacedMemory] = []
        unread: set[str] = set()
        for item in self._arranged(choice, state):
            header = item.header
            if state is not None and header.path in state.read_files:
                continue
            surfaced = read_memory_for_surfacing(
                header.path, file=header.filename, mtime_ms=header.mtime_ms, now_ms=now_ms, dated=self.dated_headers
            )
            if surfaced is None or not surfaced.content:
                unread.add(header.path)
                continue
            if item.newer is not None:
                if item.newer.path in unread:
                    continue  # its newer version could not be read: the older one is not shown alone
                # A line of its own above the memory's header, never inside the memory's text.
                note = newer_note(item.newer, recorded=item.recorded, now_ms=now_ms)
                surfaced = surfaced._replace(header=f"{note}\n{surfaced.header}")
            memories.append(surfaced)
            if len(memories) >= cap:
                break
        if state is not None:
            for memory in memories:
                state.surfaced[memory.path] = memory
                state.surfaced_bytes += utf16_len(memory.content)
                state.note_read(memory.path, memory.mtime_ms)
        return RecallResult(
            memories=tuple(memories),
            reminders=tuple(render_reminder(memory) for memory in memories),
            selector=selection.selector,
            notes=selection.notes,
        )


def _with_linked(
    query: Query, files: tuple[str, ...], by_name: Mapping[str, MemoryHeader], pool: Sequence[MemoryHeader], cap: int
) -> tuple[str, ...]:
    """``files`` with the memories they link to (:mod:`memdir.recall.linked`), imported only when a
    chosen memory has a link: most stores have none, and the prompt hook pays for every import."""
    if not any("[[" in by_name[file].preview for file in files if file in by_name):
        return files
    from memdir.recall.linked import with_linked

    return with_linked(query, files, by_name, pool, limit=cap)
