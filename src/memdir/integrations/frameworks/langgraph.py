"""memdir as a LangGraph store: :class:`MemdirStore`, a ``langgraph.store.base.BaseStore``.

Every item is a memory file in Claude Code's format, so what a LangGraph agent (or LangMem's
memory tools, which read and write the same store) saves is what Claude Code recalls, and the
reverse. It answers as LangGraph's ``InMemoryStore`` does, so an application built on that one
keeps working: values of any shape come back as they were put, ``created_at`` is when the item
was first put, a search without a query lists items in the order they were first put.

Namespaces and directories:

* the store's namespace (``namespace=``, default ``("memories",)``, LangMem's) is the memory
  directory itself, and a longer one a subdirectory, one level per label: ``("memories",
  "user-42")`` is ``user-42/`` in the same memory (recall scans subdirectories, and their index
  lines go to the root ``MEMORY.md``); ``("memories", "team")`` is the team memory when team sync
  is on;
* any other namespace is a subdirectory too, one level per label: LangGraph's documented
  ``("u1", "memories")`` is ``u1/memories/`` and ``("docs",)`` is ``docs/``, listed and searched
  under the name they were put with (a ``.namespace`` file in the top directory says so);
  ``("memories", "docs")`` is the same directory;
* with ``memory_dir="/srv/memories/{user_id}"`` and a namespace naming ``"{user_id}"``
  (``("memories", "{user_id}")``, LangMem's ``("memories", "{langgraph_user_id}")`` filled, or
  ``("{user_id}", "memories")``), each user's items are a memory directory of their own
  (:mod:`memdir.integrations.frameworks.user_dirs`), and a namespace must follow that pattern.

How a value maps to a file is :mod:`memdir.integrations.frameworks.item_values`, a key to a file name
:mod:`memdir.integrations.frameworks.item_keys` (``uuid_keys=True`` shows every memory under a UUID, for
LangMem's ``manage_memory``, which takes no other id). ``search`` with a ``query`` ranks with
memdir's offline ranking (the prompt hook's; no model, no network) and returns only the items
that match, best first, each with its score; with only a ``filter``, values are read from the
derived index, not from every file. Writes take the directory's lock and are atomic; the puts of
one burst (each within a minute of the last) are one run in the history (``memdir undo --run``);
TTLs are not supported (``supports_ttl`` is False).

Needs the ``langgraph`` extra (``pip install 'memdir[langgraph]'``).
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import json
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from memdir.errors import MemdirError, MemoryNotFound
from memdir.integrations.frameworks.agent_memory import note_index_refused, open_session
from memdir.integrations.frameworks.item_keys import KEY_FIELD, alias, file_for_key, is_uuid, key_for_file
from memdir.integrations.frameworks.item_values import created_ms, matches, memory_from_value, value_from_memory
from memdir.integrations.frameworks.user_dirs import directory_name, placeholders, user_memory_dir
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.model.timefields import iso_mtime
from memdir.recall.selector_protocol import RankingSelector
from memdir.store.files import atomic_write, read_bytes_limited
from memdir.store.provenance import acting_as, new_run_id
from memdir.store.scan import MemoryHeader
from memdir.tools.toolbox import parse_type

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
USER = "{user_id}"
# The file in a user's directory that keeps the user id its name could not hold (list_namespaces reads it).
USER_ID_FILE = ".user_id"
# The file in a top directory of namespaces put without the store's own labels (see _mark_outside).
NAMESPACE_MARK = ".namespace"
# Puts this close together are one run of the history (one `memdir undo --run`).
BURST_SECONDS = 60.0
_CACHE_LIMIT = 50_000
# The derived index keeps each file's item (an analysis, like the lexical ranker's), under this version.
_ENTRY_VERSION = "langgraph-item-1"


class _Entry(NamedTuple):
    """What a search needs of one memory file: its value, when the store first wrote it, and the
    key its frontmatter keeps (for a file whose name could not hold it)."""

    value: dict[str, Any]
    created_ms: float | None
    key: str | None


def _entry(memory: Memory) -> _Entry:
    stored = memory.extra.get(KEY_FIELD)
    return _Entry(value_from_memory(memory), created_ms(memory), stored if isinstance(stored, str) else None)


def _payload(entry: _Entry) -> str | None:
    """``entry`` as JSON, when JSON gives it back as it is (a frontmatter written by hand may hold
    what JSON cannot: a mapping with number keys)."""
    try:
        payload = json.dumps(list(entry), ensure_ascii=False)
    except (TypeError, ValueError):
        return None
    return payload if json.loads(payload) == list(entry) else None


class _Place(NamedTuple):
    """Where a namespace lives: the session of its memory directory, the subdirectory in it ("" for
    the directory itself), and the labels that name that directory (items' namespaces start so)."""

    session: MemorySession
    subdir: str
    shown: Namespace


def _check_label(label: str, namespace: Namespace) -> None:
    if not isinstance(label, str) or not label or "/" in label or "\\" in label or label.startswith("."):
        raise InvalidNamespaceError(
            f"namespace label {label!r} in {namespace} must be one plain directory name (no '/', not starting with '.')"
        )
    if any(ord(ch) < 0x20 or ch == "\x7f" for ch in label):
        raise InvalidNamespaceError(f"namespace label {label!r} in {namespace} holds a control character")


def _stamp(ms: float) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


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
    """A LangGraph store whose items are the memory files of a memdir directory (see the module docstring).

    ``MemdirStore(memory_dir=PATH)`` uses that directory as it is (``"/srv/memories/{user_id}"``:
    one per user); ``MemdirStore(session=...)`` a :class:`MemorySession`'s; with neither, the
    project's directory as Claude Code resolves it (``project``, default the working directory),
    so the agent and Claude Code share it. ``default_type`` is the memory type of a value that
    names none (Claude Code's four; None for no type).
    """

    supports_ttl = False

    def __init__(
        self,
        memory_dir: str | os.PathLike[str] | None = None,
        *,
        session: MemorySession | None = None,
        project: str | None = None,
        namespace: Namespace = ("memories",),
        default_type: str | None = "user",
        uuid_keys: bool = False,
    ) -> None:
        self.namespace = tuple(namespace)
        self.default_type = parse_type(default_type)
        self.uuid_keys = uuid_keys
        self._lock = threading.RLock()
        self._run: tuple[str, float] | None = None
        self._sessions: dict[str, MemorySession] = {}
        self._rankers: dict[str, RankingSelector] = {}
        self._values: dict[tuple[str, str], tuple[float, int, str]] = {}
        self._aliases: dict[str, tuple[list[MemoryHeader], dict[str, str]]] = {}
        given = os.path.expanduser(os.fspath(memory_dir)) if memory_dir is not None else None
        self.template = given if given is not None and placeholders(given) else None
        if self.template is not None:
            user_memory_dir(self.template, "check")  # an unknown placeholder is refused here
            if USER not in self.template.split(os.sep):
                raise InvalidNamespaceError(f"memory_dir {self.template!r}: {USER} must be a whole directory name")
            if self.namespace.count(USER) != 1:
                raise InvalidNamespaceError(
                    f"memory_dir {self.template!r} keeps one directory per user: name the user's label in the "
                    f'namespace with "{USER}", e.g. namespace=("memories", "{USER}")'
                )
            self.session: MemorySession | None = None
        else:
            self.session = open_session(given, session=session, project=project)
        for label in self.namespace:
            if label != USER:
                _check_label(label, self.namespace)

    @property
    def memory_dir(self) -> str:
        """The memory directory (the template, for one directory per user)."""
        if self.session is not None:
            return self.session.memory_dir.root
        assert self.template is not None
        return self.template

    @property
    def ranker(self) -> RankingSelector:
        """The offline ranking of the store's directory (one directory only)."""
        if self.session is None:
            raise InvalidNamespaceError("this store keeps one directory per user; rank within one user's namespace")
        return self._ranker(self.session)

    def _ranker(self, session: MemorySession) -> RankingSelector:
        root = session.memory_dir.root
        with self._lock:
            if root not in self._rankers:
                self._rankers[root] = session.lexical_ranker()
            return self._rankers[root]

    # -- namespaces and places -------------------------------------------------------------------
    def _user_session(self, user: str) -> MemorySession:
        assert self.template is not None
        directory = user_memory_dir(self.template, user)
        with self._lock:
            found = self._sessions.get(directory)
            if found is None:
                found = self._sessions[directory] = open_session(directory)
            return found

    def _place(self, namespace: Namespace) -> _Place:
        """Where the items of exactly ``namespace`` live."""
        for label in namespace:
            _check_label(label, namespace)
        if self.session is None:
            pattern = self.namespace
            fits = len(namespace) >= len(pattern) and all(
                want in (USER, got) for want, got in zip(pattern, namespace, strict=False)
            )
            if not fits:
                raise InvalidNamespaceError(
                    f"namespace {namespace} does not follow this store's {pattern}: each user's memory is "
                    f"{self.template!r}, and a namespace names the user where the pattern says {USER}"
                )
            user = namespace[pattern.index(USER)]
            return _Place(self._user_session(user), "/".join(namespace[len(pattern) :]), namespace[: len(pattern)])
        root = self.namespace
        if namespace[: len(root)] == root:
            return _Place(self.session, "/".join(namespace[len(root) :]), root)
        return _Place(self.session, "/".join(namespace), ())

    def _places_under(self, prefix: Namespace) -> Iterator[_Place]:
        """Every place whose items a search or a listing under ``prefix`` covers."""
        for label in prefix:
            _check_label(label, prefix)
        if self.session is not None:
            root = self.namespace
            if root[: len(prefix)] == prefix or prefix[: len(root)] == root:
                yield _Place(self.session, "/".join(prefix[len(root) :]), root)
            else:
                yield _Place(self.session, "/".join(prefix), ())
            return
        pattern = self.namespace
        if len(prefix) >= len(pattern):
            yield self._place(prefix)
            return
        at = pattern.index(USER)
        for user in [prefix[at]] if len(prefix) > at else self._users():
            shown = tuple(user if label == USER else label for label in pattern)
            if shown[: len(prefix)] == prefix:
                yield _Place(self._user_session(user), "", shown)

    def _users(self) -> list[str]:
        """The users that have a directory, by the id each was put under (a name that could not hold
        it keeps it in a file of its own)."""
        assert self.template is not None
        parts = self.template.split(os.sep)
        at = parts.index(USER)
        found = []
        for directory in sorted(
            glob.glob(os.sep.join([*map(glob.escape, parts[:at]), "*", *map(glob.escape, parts[at + 1 :])]))
        ):
            try:
                user = read_bytes_limited(os.path.join(directory, USER_ID_FILE), max_bytes=4096).decode("utf-8")
            except (OSError, MemdirError, UnicodeDecodeError):
                user = directory.split(os.sep)[at]
            if user_memory_dir(self.template, user) == directory:
                found.append(user)
        return found

    def _remember_user(self, place: _Place) -> None:
        """Write the user id into a user's directory whose name could not hold it (once)."""
        if self.session is not None:
            return
        user = place.shown[self.namespace.index(USER)]
        root = place.session.memory_dir.root
        if directory_name(user) != user and not os.path.exists(os.path.join(root, USER_ID_FILE)):
            atomic_write(os.path.join(root, USER_ID_FILE), user)

    # -- files and keys --------------------------------------------------------------------------
    def _rel(self, place: _Place, key: str) -> str:
        """The file of ``key`` in a place: its own name, or (``uuid_keys``) the memory a UUID names."""
        if self.uuid_keys and is_uuid(key):
            found = self._alias_map(place).get(key)
            if found is not None:
                return found
        file = file_for_key(key)
        return f"{place.subdir}/{file}" if place.subdir else file

    def _alias_map(self, place: _Place) -> dict[str, str]:
        directory = place.session.memory_dir
        headers = directory.headers()
        with self._lock:
            known = self._aliases.get(directory.root)
            if known is None or known[0] != headers:
                known = (headers, {alias(h.filename): h.filename for h in headers})
                self._aliases[directory.root] = known
            return known[1]

    def _read(self, session: MemorySession, rel: str) -> tuple[Memory, float] | None:
        try:
            record = session.memory_dir.read(rel)
        except MemoryNotFound:
            return None
        return record.memory, record.mtime_ms

    def _entries(self, session: MemorySession, headers: Sequence[MemoryHeader]) -> dict[str, _Entry]:
        """Each header's item, read once per version of its file: from this store's cache, else the
        derived index's copy of it (kept there by the first process that read it), else the text the
        index holds, else the file. The derived index is never the only place anything is kept."""
        root = session.memory_dir.root
        payloads: dict[str, str] = {}
        with self._lock:
            for header in headers:
                cached = self._values.get((root, header.filename))
                if cached is not None and cached[:2] == (header.mtime_ms, header.size):
                    payloads[header.filename] = cached[2]
        missing = [h for h in headers if h.filename not in payloads]
        index = getattr(session.memory_dir, "index", None)
        if index is not None and missing:
            stored = index.get_analyses([h.path for h in missing], _ENTRY_VERSION)
            for header in missing:
                found = stored.get(header.path)
                if found is not None and found[:2] == (header.mtime_ms, header.size):
                    payloads[header.filename] = found[2]
            missing = [h for h in missing if h.filename not in payloads]
        texts = index.texts([h.filename for h in missing]) if index is not None and missing else {}
        entries: dict[str, _Entry] = {}
        made: dict[str, tuple[float, int, str]] = {}
        for header in missing:
            text = texts.get(header.filename)
            if text is not None and (text[0] / 1e6, text[1]) == (header.mtime_ms, header.size):
                memory = Memory.parse(text[2])
            else:
                read = self._read(session, header.filename)
                if read is None:
                    continue
                memory = read[0]
            entry = _entry(memory)
            payload = _payload(entry)
            if payload is None:
                entries[header.filename] = entry  # not JSON as it stands: read again each time
            else:
                payloads[header.filename] = payload
                made[header.path] = (header.mtime_ms, header.size, payload)
        if index is not None and made:
            index.put_analyses(made, _ENTRY_VERSION)
        with self._lock:
            if len(self._values) + len(payloads) >= _CACHE_LIMIT:
                self._values.clear()
            for header in headers:
                if header.filename in payloads:
                    self._values[(root, header.filename)] = (header.mtime_ms, header.size, payloads[header.filename])
        entries.update({rel: _Entry(*json.loads(payload)) for rel, payload in payloads.items()})
        return entries

    @contextlib.contextmanager
    def _acting(self, label: str) -> Iterator[None]:
        """The history's provenance of a write: ``langgraph``, in the run of the current burst."""
        now = time.monotonic()
        with self._lock:
            if self._run is None or now - self._run[1] > BURST_SECONDS:
                self._run = (new_run_id(), now)
            else:
                self._run = (self._run[0], now)
            run = self._run[0]
        with acting_as("langgraph", run=run, label=f"langgraph store {label}"):
            yield

    # -- operations ------------------------------------------------------------------------------
    def _namespace(self, place: _Place, rel: str) -> Namespace:
        """The namespace of the file ``rel``: the labels of its place and its subdirectories, less
        the store's own when its top directory holds namespaces put without them."""
        labels = tuple(rel.split("/")[:-1])
        outside = place.shown == self.namespace and self.session is not None and bool(labels)
        if outside and os.path.exists(os.path.join(place.session.memory_dir.root, labels[0], NAMESPACE_MARK)):
            return labels
        return place.shown + labels

    def _mark_outside(self, place: _Place) -> None:
        """Note, in its top directory, that a namespace was put without the store's own labels
        (``("docs",)``), so listings and searches name it as it was put."""
        if self.session is None or place.shown or not place.subdir:
            return
        mark = os.path.join(place.session.memory_dir.root, place.subdir.split("/")[0], NAMESPACE_MARK)
        if not os.path.exists(mark):
            atomic_write(mark, "LangGraph namespaces here are named without the store's own labels.\n")

    def _item(self, place: _Place, rel: str, entry: _Entry, mtime_ms: float) -> dict[str, Any]:
        key = alias(rel) if self.uuid_keys else key_for_file(rel.rsplit("/", 1)[-1], entry.key)
        return {
            "value": entry.value,
            "key": key,
            "namespace": self._namespace(place, rel),
            "created_at": _stamp(entry.created_ms if entry.created_ms is not None else mtime_ms),
            "updated_at": _stamp(mtime_ms),
        }

    def _get(self, op: GetOp) -> Item | None:
        place = self._place(tuple(op.namespace))
        rel = self._rel(place, op.key)
        found = self._read(place.session, rel)
        if found is None:
            return None
        return Item(**self._item(place, rel, _entry(found[0]), found[1]))

    def _put(self, op: PutOp) -> None:
        place = self._place(tuple(op.namespace))
        rel = self._rel(place, op.key)
        directory = place.session.agent_dir  # memdir.agentWrites: direct, proposals, or refused
        if op.value is None:
            if os.path.lexists(directory.resolve(rel)):
                with self._acting("delete"):
                    directory.delete(rel)
            return
        existing = self._read(place.session, rel)
        now = iso_mtime(time.time() * 1000)
        memory = memory_from_value(
            op.key, op.value, existing[0] if existing else None, default_type=self.default_type, now=now
        )
        directory.ensure()
        with self._acting("put"):
            result = directory.save(memory, file=rel, force=True)
        self._remember_user(place)
        self._mark_outside(place)
        note_index_refused(result, warn=True)

    def _headers(self, place: _Place) -> list[MemoryHeader]:
        start = f"{place.subdir}/" if place.subdir else ""
        return [h for h in place.session.memory_dir.headers() if h.filename.startswith(start)]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        wanted = max(op.offset, 0) + max(op.limit, 0)
        scored: list[tuple[float | None, float, dict[str, Any]]] = []
        for place in self._places_under(tuple(op.namespace_prefix)):
            headers = self._headers(place)
            ranked: list[tuple[MemoryHeader, float | None]]
            if op.query:
                ranked = [(h, s) for h, s in self._ranker(place.session).rank(op.query, headers) if s > 0]
            else:
                ranked = [(h, None) for h in headers]
            entries = self._entries(place.session, [h for h, _ in ranked])
            for header, score in ranked:
                entry = entries.get(header.filename)
                if entry is None:
                    continue
                item = self._item(place, header.filename, entry, header.mtime_ms)
                if matches(item["value"], op.filter):
                    scored.append((score, item["created_at"].timestamp(), item))
        if op.query:
            scored.sort(key=lambda entry: -(entry[0] or 0.0))
        else:
            scored.sort(key=lambda entry: (entry[1], entry[2]["namespace"], entry[2]["key"]))
        return [SearchItem(**item, score=score) for score, _, item in scored[op.offset : wanted]]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[Namespace]:
        found = set()
        for place in self._places_under(()):
            for header in self._headers(place):
                found.add(self._namespace(place, header.filename))
        namespaces = [ns for ns in found if all(_matches_condition(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            namespaces = list({ns[: op.max_depth] for ns in namespaces})
        return sorted(namespaces)[op.offset : op.offset + op.limit]

    def _run_op(self, op: Op) -> Result:
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
        return [self._run_op(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread, so file I/O and the lock never block the event loop."""
        listed: Sequence[Op] = list(ops)
        return await asyncio.to_thread(self.batch, listed)

    def __repr__(self) -> str:
        return f"MemdirStore({self.memory_dir!r}, namespace={self.namespace!r})"
