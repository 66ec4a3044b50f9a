"""The header scan of a memory directory (SPEC §6.2).

Recall and extraction both need "every memory, newest first, with its description and type",
and they ask for it on every turn. Reading only the first 30 lines of each file keeps that
cheap; a cache keyed by (path, mtime, size) makes a rescan of an unchanged directory cost one
``stat`` per file and no reads at all. Given a file, the cache also keeps the headers between
processes (every Claude Code hook is a new one): a derived copy, read again whenever a memory's
mtime or size differs, and ignored when missing, corrupt or of another format.
"""

from __future__ import annotations

import json
import os
from _thread import allocate_lock  # threading's Lock itself, without importing threading (1 ms a hook)
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from memdir.containment import normalize_root
from memdir.errors import MemoryFormatError
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.frontmatter import normalize_newlines, parse_frontmatter
from memdir.model.memory_type import FrontmatterLayout, MemoryType, parse_memory_type, type_from_frontmatter
from memdir.model.relations import DISTINCT_KEY, REPLACES_KEY, relation_targets
from memdir.model.timefields import expiry_date, modified_ms
from memdir.paths import djb2, sanitize_path
from memdir.store.files import atomic_write, open_regular

__all__ = [
    "HEADER_LINES",
    "LOGS_DIRNAME",
    "MAX_MEMORY_FILES",
    "MemoryHeader",
    "ScanCache",
    "cache_file_path",
    "entry_stat",
    "iter_memory_paths",
    "memory_title",
    "read_header",
    "same_headers",
    "scan_memory_files",
    "subject_key",
]

HEADER_LINES = 30
# Daily logs (logs/YYYY/MM/YYYY-MM-DD.md) are raw notes for the dream to distil, not memories:
# scans, recall, listings and the index never treat them as memories.
LOGS_DIRNAME = "logs"
MAX_MEMORY_FILES = 200
# A header never needs more than this; a file with a 50 MB first line must not be read whole.
_HEADER_BYTES = 64 * 1024
# Bump when read_header gives another result for the same bytes: headers kept in files by an
# earlier version are then read again.
HEADER_FORMAT = 4
# A header is kept for a file while its (mtime, size, ctime) stay the same. The ctime is in the key
# because a write that puts the file's old mtime back at the same size (recording a relation keeps a
# memory's time) would otherwise be served the header from before it; nothing can set a ctime back.


class MemoryHeader(NamedTuple):
    """What a scan knows about one memory file without reading all of it."""

    filename: str  # path relative to the memory directory, with "/" separators
    path: str  # absolute path
    mtime_ms: float
    size: int
    description: str | None
    type: MemoryType | None
    name: str | None = None
    preview: str = ""  # the body text within the first 30 lines, for offline ranking
    nested_type: bool = False  # the type was read from ``metadata.type`` (the 2.1.330 layout)
    modified_ms: float | None = None  # the frontmatter's ``modified:`` time, when it has one
    expires: str | None = None  # the frontmatter's ``expires:`` date (YYYY-MM-DD), when it has one
    replaces: tuple[str, ...] = ()  # the memories its ``replaces:`` names (:mod:`memdir.model.relations`)
    distinct: tuple[str, ...] = ()  # the memories its ``distinct-from:`` names: decided to be other facts

    @property
    def time_ms(self) -> float:
        """When the memory last changed: its ``modified:`` stamp, else the file's mtime (a copy,
        a checkout or a sync resets the mtime; the stamp travels with the text)."""
        return self.modified_ms if self.modified_ms is not None else self.mtime_ms


def memory_title(header: MemoryHeader) -> str:
    """What a memory is called: its ``name:``, else its file's stem."""
    if header.name:
        return header.name
    stem = header.filename.rsplit("/", 1)[-1]
    return stem[:-3] if stem.endswith(".md") else stem


def subject_key(header: MemoryHeader) -> str:
    """A memory's title as its terms, space-separated: case, spacing, punctuation and script forms
    aside ("Caroline, session 3" and "caroline session 3" are one key). Recall counts the memories
    of a key to tell a category name from one fact's, over a scan or the derived index alike."""
    from memdir.model.analysis import tokenize  # the scan alone needs no analyser

    return " ".join(tokenize(memory_title(header)))


def same_headers(headers: Sequence[MemoryHeader], known: list[MemoryHeader]) -> bool:
    """Whether ``headers`` is the list a cache was built from, cheaply enough for every query.

    Headers are frozen values, so equal lists mean the same memories. List equality tests
    identity first, element by element, in C: the same header objects as last time (every warm
    query of a long-lived process) compare in well under a millisecond at 100,000 memories,
    where hashing their ids cost 30 ms.
    """
    if len(headers) != len(known):
        return False
    return (headers if isinstance(headers, list) else list(headers)) == known


def iter_memory_paths(
    root: str, *, dirs: dict[str, int] | None = None, start: str = ""
) -> Iterator[tuple[str, os.stat_result]]:
    """Yield (relative path, stat) for every ``*.md`` file under ``root`` except ``MEMORY.md`` files
    and the daily logs (the top-level ``logs/`` folder).

    Symlinked directories are not followed (as Node's recursive readdir does not), and symlinked
    files are yielded only when their target stays inside ``root``, so a link cannot make recall
    read outside the directory. ``dirs``, when given, receives the mtime of every directory
    listed (taken before listing it, so a change during the walk shows next time): the derived
    index compares them to notice an added, removed or replaced file without a ``stat`` per file.
    ``start`` walks only that folder (relative to ``root``) and what is below it.
    """
    real_root = os.path.realpath(root)
    stack = [start]
    while stack:
        rel_dir = stack.pop()
        try:
            if dirs is not None:
                dirs[rel_dir] = os.stat(os.path.join(root, rel_dir)).st_mtime_ns
            entries = list(os.scandir(os.path.join(root, rel_dir)))
        except OSError:
            continue
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if rel != LOGS_DIRNAME:
                        stack.append(rel)
                    continue
                st = entry_stat(entry, real_root)
            except OSError:
                continue
            if st is not None:
                yield rel, st


def entry_stat(entry: os.DirEntry[str], real_root: str) -> os.stat_result | None:
    """The stat of a listed file that counts as a memory (``*.md``, not ``MEMORY.md``, a symlink
    only when its target stays inside the directory), else None. Raises OSError like ``stat``."""
    if not entry.name.endswith(".md") or entry.name == ENTRYPOINT_NAME:
        return None
    if entry.is_symlink():
        target = os.path.realpath(entry.path)
        if not target.startswith(real_root + os.sep) or not os.path.isfile(target):
            return None
        return os.stat(entry.path)
    if entry.is_file(follow_symlinks=False):
        return entry.stat(follow_symlinks=False)
    return None


def read_header(path: str, *, filename: str, mtime_ms: float, size: int) -> MemoryHeader:
    """Parse the frontmatter in the first 30 lines of ``path`` (BOM stripped, CRLF folded).

    A change to what this returns for the same bytes must bump :data:`HEADER_FORMAT` (and the
    derived index's ``SCHEMA_VERSION``), or stored headers would keep the old reading."""
    lines: list[str] = []
    budget = _HEADER_BYTES
    with open_regular(path) as handle:
        for raw in handle:
            if len(lines) >= HEADER_LINES or budget <= 0:
                break
            chunk = raw[:budget]
            budget -= len(chunk)
            lines.append(chunk.decode("utf-8", errors="replace"))
    head = normalize_newlines("".join(lines))
    head_lines = head.split("\n")
    if len(head_lines) > HEADER_LINES:
        head = "\n".join(head_lines[:HEADER_LINES])
    frontmatter, content = parse_frontmatter(head)
    raw_type, layout = type_from_frontmatter(frontmatter)
    description = frontmatter.get("description")
    name = frontmatter.get("name")
    return MemoryHeader(
        filename=filename,
        path=path,
        mtime_ms=mtime_ms,
        size=size,
        description=str(description) if description not in (None, "") else None,
        type=parse_memory_type(raw_type),
        name=str(name) if name not in (None, "") else None,
        preview=content,
        nested_type=layout is FrontmatterLayout.NESTED,
        modified_ms=modified_ms(frontmatter),
        expires=expiry_date(frontmatter),
        replaces=relation_targets(frontmatter, REPLACES_KEY),
        distinct=relation_targets(frontmatter, DISTINCT_KEY),
    )


def cache_file_path(memory_dir: str, home: str, kind: str) -> str:
    """``<home>/memdir/<kind>/<the directory as one name>-<hash>.json``: where a derived cache of one
    memory directory lives under the config home ``home`` (headers here, lexical analyses in recall).

    The sanitised name alone would give ``/a-b`` and ``/a_b`` one file, which the two would then
    rewrite in turn; the djb2 hash of the exact directory keeps them apart."""
    root = normalize_root(memory_dir)
    return os.path.join(home, "memdir", kind, f"{sanitize_path(root)}-{djb2(root) & 0xFFFFFFFF:08x}.json")


_Key = tuple[int, int, int]  # mtime_ns, size, ctime_ns


def _stored_header(path: str, entry: object) -> tuple[_Key, MemoryHeader] | None:
    """One stored ``[mtime_ns, size, filename, description, type, name, preview, nested_type,
    modified_ms, expires, replaces, distinct, ctime_ns]``."""
    if not isinstance(entry, list) or len(entry) != 13:
        return None
    mtime_ns, size, filename, description, raw_type, name, preview, nested, modified, expires = entry[:10]
    replaces, distinct, ctime_ns = entry[10:]
    if not (
        type(mtime_ns) is int
        and type(size) is int
        and type(ctime_ns) is int
        and isinstance(filename, str)
        and isinstance(description, str | None)
        and isinstance(raw_type, str | None)
        and isinstance(name, str | None)
        and isinstance(preview, str)
        and isinstance(nested, bool)
        and isinstance(modified, float | int | None)
        and isinstance(expires, str | None)
        and isinstance(replaces, list)
        and isinstance(distinct, list)
        and all(isinstance(target, str) for target in (*replaces, *distinct))
    ):
        return None
    try:
        memory_type = MemoryType(raw_type) if raw_type is not None else None
    except ValueError:
        return None
    stamp = float(modified) if modified is not None else None
    header = MemoryHeader(
        filename,
        path,
        mtime_ns / 1e6,
        size,
        description,
        memory_type,
        name,
        preview,
        nested,
        stamp,
        expires,
        tuple(replaces),
        tuple(distinct),
    )
    return (mtime_ns, size, ctime_ns), header


def _entry(key: _Key, header: MemoryHeader) -> list[object]:
    kind = header.type.value if header.type is not None else None
    return [
        *(key[0], key[1], header.filename, header.description, kind, header.name, header.preview),
        *(header.nested_type, header.modified_ms, header.expires, list(header.replaces), list(header.distinct)),
        key[2],
    ]


class ScanCache:
    """Headers remembered by (path, mtime, size, ctime); thread-safe, bounded by the files that exist.

    With ``path``, the headers are read from that file on first use and written back by
    :meth:`save` when a scan read or dropped any; a file that cannot be read counts as empty, one
    that cannot be written is left alone (the scan is right either way, only slower).
    """

    def __init__(self, path: str | None = None) -> None:
        self._entries: dict[str, tuple[_Key, MemoryHeader]] = {}
        self._lock = allocate_lock()
        self.reads = 0  # header reads performed, so tests and benchmarks can see cache hits
        self.writes = 0  # files written
        self.path = path
        self._unloaded = path is not None
        self._changed = False

    def _load(self, path: str) -> None:
        try:
            with open(path, "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError, RecursionError):  # missing, unreadable or corrupt: read the files
            return
        stored = data.get("headers") if isinstance(data, dict) and data.get("format") == HEADER_FORMAT else None
        if not isinstance(stored, dict):
            return
        for key, entry in stored.items():
            stored = _stored_header(key, entry)
            if stored is not None:
                self._entries.setdefault(key, stored)

    def header(self, path: str, filename: str, st: os.stat_result) -> MemoryHeader:
        key = (st.st_mtime_ns, st.st_size, st.st_ctime_ns)
        with self._lock:
            if self._unloaded and self.path is not None:
                self._unloaded = False
                self._load(self.path)
            cached = self._entries.get(path)
        if cached is not None and cached[0] == key and cached[1].filename == filename:
            return cached[1]
        header = read_header(path, filename=filename, mtime_ms=st.st_mtime_ns / 1e6, size=st.st_size)
        with self._lock:
            self._entries[path] = (key, header)
            self.reads += 1
            self._changed = True
        return header

    def prune(self, live: set[str]) -> None:
        with self._lock:
            for path in [p for p in self._entries if p not in live]:
                del self._entries[path]
                self._changed = True

    def save(self) -> None:
        """Write the headers to the cache's file when they changed since it was read or written."""
        with self._lock:
            if self.path is None or not self._changed:
                return
            self._changed = False
            headers = {path: _entry(key, header) for path, (key, header) in self._entries.items()}
            text = json.dumps({"format": HEADER_FORMAT, "headers": headers}, ensure_ascii=False, separators=(",", ":"))
            try:
                atomic_write(self.path, text, durable=False)
            except OSError:
                return  # a read-only or full config home: the next process reads the files again
            self.writes += 1


def scan_memory_files(
    root: str, *, max_files: int | None = MAX_MEMORY_FILES, cache: ScanCache | None = None
) -> list[MemoryHeader]:
    """Every memory header under ``root``, newest first, at most ``max_files`` (None: all).

    Unreadable files are dropped and a missing directory gives ``[]``, as in SPEC §6.2: a scan
    feeds a prompt and must never fail the turn. The order comes from ``stat`` alone, so only the
    newest ``max_files`` are read: a hook is a new process with no cache, and reading every
    header of a large store to keep 200 of them cost it most of a second per prompt.
    """
    found = [(-(st.st_mtime_ns / 1e6), rel, st) for rel, st in iter_memory_paths(root)]
    found.sort(key=lambda item: item[:2])
    headers: list[MemoryHeader] = []
    for _, rel, st in found:
        if max_files is not None and len(headers) >= max_files:
            break
        path = os.path.join(root, rel)
        try:
            if cache is not None:
                headers.append(cache.header(path, rel, st))
            else:
                headers.append(read_header(path, filename=rel, mtime_ms=st.st_mtime_ns / 1e6, size=st.st_size))
        except (OSError, MemoryFormatError):  # gone, unreadable, or swapped for a pipe since the listing
            continue
    if cache is not None:
        cache.prune({os.path.join(root, rel) for _, rel, _ in found})
        cache.save()
    return headers
