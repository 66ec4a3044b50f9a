"""memdir as a LangGraph store: :class:`MemdirStore`, a ``langgraph.store.base.BaseStore``.

Every item is a memory file in Claude Code's format, so what a LangGraph agent (or LangMem's
memory tools, which read and write the same store) saves is what Claude Code recalls, and the
reverse. How a namespace maps to the memory directory:

* the store's namespace (``namespace=``, default ``("memories",)``, LangMem's) is the memory
  directory itself: its items are the topic files Claude Code reads, listed in ``MEMORY.md``;
* a longer namespace is a subdirectory, one level per label: ``("memories", "user-42")`` is
  ``user-42/`` in the same memory (recall scans subdirectories, and their index lines go to the
  root ``MEMORY.md``); ``("memories", "team")`` is the team memory when team sync is on;
* a namespace outside the store's is refused (``InvalidNamespaceError``), as is a label that is
  not one plain file name.

How a value maps to a file is in :mod:`memdir.integrations.item_values`. ``search`` with a
``query`` ranks with memdir's offline ranking (the one the prompt hook uses; no model, no network)
and returns only the items that match, best first, each with its score; without a query, items
come newest first. ``filter``, ``limit``, ``offset``, ``delete`` and ``list_namespaces`` follow the
interface; ``created_at`` and ``updated_at`` are the file's modification time. Writes take the
directory's lock and are atomic; TTLs are not supported (``supports_ttl`` is False).

Needs the ``langgraph`` extra (``pip install 'memdir[langgraph]'``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from memdir.errors import MemoryNotFound
from memdir.integrations.agent_memory import open_session
from memdir.integrations.item_values import (
    file_for_key,
    key_for_file,
    matches,
    memory_from_value,
    value_from_memory,
)
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.recall.selector_protocol import RankingSelector
from memdir.store.provenance import acting_as
from memdir.store.scan import MemoryHeader

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("the LangGraph store needs langgraph: pip install 'memdir[langgraph]'") from exc

__all__ = ["MemdirStore"]

Namespace = tuple[str, ...]


def _check_label(label: str, namespace: Namespace) -> None:
    if not isinstance(label, str) or not label or "/" in label or "\\" in label or label.startswith("."):
        raise InvalidNamespaceError(
            f"namespace label {label!r} in {namespace} must be one plain directory name (no '/', not starting with '.')"
        )


def _stamp(mtime_ms: float) -> datetime:
    return datetime.fromtimestamp(mtime_ms / 1000, tz=UTC)


def _matches_condition(condition: MatchCondition, namespace: Namespace) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    pairs = zip(namespace, path, strict=False)
    if condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    elif condition.match_type != "prefix":
        raise ValueError(f"unsupported namespace match type {condition.match_type!r}; use prefix or suffix")
    return all(wanted == "*" or label == wanted for label, wanted in pairs)


class MemdirStore(BaseStore):
    """A LangGraph store whose items are the memory files of one memdir directory.

    ``MemdirStore(memory_dir=PATH)`` uses that directory as it is; ``MemdirStore(session=...)``
    uses a :class:`MemorySession`'s; with neither, the project's directory as Claude Code
    resolves it (``project``, default the working directory), so the agent and Claude Code share it.
    """

    supports_ttl = False

    def __init__(
        self,
        memory_dir: str | os.PathLike[str] | None = None,
        *,
        session: MemorySession | None = None,
        project: str | None = None,
        namespace: Namespace = ("memories",),
    ) -> None:
        self.session = open_session(memory_dir, session=session, project=project)
        for label in namespace:
            _check_label(label, namespace)
        self.namespace = tuple(namespace)
        self._ranker: RankingSelector | None = None

    @property
    def memory_dir(self) -> str:
        return self.session.memory_dir.root

    @property
    def ranker(self) -> RankingSelector:
        """The offline ranking a query runs, with the directory's analysis cache (built on first search)."""
        if self._ranker is None:
            self._ranker = self.session.lexical_ranker()
        return self._ranker

    # -- namespaces and files ----------------------------------------------------------------
    def _subdir(self, namespace: Namespace) -> str:
        """The directory of a namespace, relative to the memory directory ("" for the store's own)."""
        root = self.namespace
        if tuple(namespace[: len(root)]) != root:
            raise InvalidNamespaceError(
                f"namespace {namespace} is outside this store's namespace {root}; its items are the "
                f"memories in {self.memory_dir} (a longer namespace is a subdirectory)"
            )
        rest = namespace[len(root) :]
        for label in rest:
            _check_label(label, namespace)
        return "/".join(rest)

    def _rel(self, namespace: Namespace, key: str) -> str:
        subdir = self._subdir(namespace)
        file = file_for_key(key)
        return f"{subdir}/{file}" if subdir else file

    def _namespace_of(self, rel: str) -> Namespace:
        return self.namespace + tuple(rel.split("/")[:-1])

    def _read(self, rel: str) -> tuple[Memory, float] | None:
        try:
            record = self.session.memory_dir.read(rel)
        except MemoryNotFound:
            return None
        return record.memory, record.mtime_ms

    # -- operations ------------------------------------------------------------------------------
    def _get(self, op: GetOp) -> Item | None:
        rel = self._rel(tuple(op.namespace), op.key)
        found = self._read(rel)
        if found is None:
            return None
        memory, mtime_ms = found
        when = _stamp(mtime_ms)
        return Item(
            value=value_from_memory(memory),
            key=key_for_file(rel.rsplit("/", 1)[-1]),
            namespace=self._namespace_of(rel),
            created_at=when,
            updated_at=when,
        )

    def _put(self, op: PutOp) -> None:
        namespace = tuple(op.namespace)
        rel = self._rel(namespace, op.key)
        directory = self.session.agent_dir  # memdir.agentWrites: direct, proposals, or refused
        if op.value is None:
            if os.path.lexists(directory.resolve(rel)):
                with acting_as("langgraph", label="langgraph store delete"):
                    directory.delete(rel)
            return
        existing = self._read(rel)
        memory = memory_from_value(op.key, op.value, existing[0] if existing else None)
        directory.ensure()
        with acting_as("langgraph", label="langgraph store put"):
            directory.save(memory, file=rel, force=True)

    def _headers(self, prefix: Namespace) -> list[MemoryHeader]:
        """The memories under a namespace prefix, newest first."""
        root = self.namespace
        if tuple(root[: len(prefix)]) == tuple(prefix):
            start = ""
        elif tuple(prefix[: len(root)]) == root:
            for label in prefix[len(root) :]:
                _check_label(label, prefix)
            start = "/".join(prefix[len(root) :]) + "/"
        else:
            return []
        return [h for h in self.session.memory_dir.headers() if h.filename.startswith(start)]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        headers = self._headers(tuple(op.namespace_prefix))
        scored: list[tuple[MemoryHeader, float | None]]
        if op.query:
            scored = [(h, s) for h, s in self.ranker.rank(op.query, headers) if s > 0]
        else:
            scored = [(h, None) for h in headers]
        items: list[SearchItem] = []
        wanted = max(op.offset, 0) + max(op.limit, 0)
        for header, score in scored:
            found = self._read(header.filename)
            if found is None:
                continue
            memory, mtime_ms = found
            value = value_from_memory(memory)
            if not matches(value, op.filter):
                continue
            when = _stamp(mtime_ms)
            items.append(
                SearchItem(
                    namespace=self._namespace_of(header.filename),
                    key=key_for_file(header.filename.rsplit("/", 1)[-1]),
                    value=value,
                    created_at=when,
                    updated_at=when,
                    score=score,
                )
            )
            if len(items) >= wanted:
                break
        return items[op.offset : op.offset + op.limit]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[Namespace]:
        found = {self._namespace_of(h.filename) for h in self.session.memory_dir.headers()}
        namespaces = [ns for ns in found if all(_matches_condition(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            namespaces = list({ns[: op.max_depth] for ns in namespaces})
        return sorted(namespaces)[op.offset : op.offset + op.limit]

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValueError(f"unknown store operation {type(op).__name__}")

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order; each sees the writes of the ones before it."""
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread, so file I/O and the lock never block the event loop."""
        listed: Sequence[Op] = list(ops)
        return await asyncio.to_thread(self.batch, listed)

    def __repr__(self) -> str:
        return f"MemdirStore({self.memory_dir!r}, namespace={self.namespace!r})"
