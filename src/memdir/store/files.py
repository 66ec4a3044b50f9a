"""The only code in memdir that writes bytes to a memory directory.

Writes are atomic (unique temp file in the target's directory, fsync, rename, fsync of the
directory) so that a process killed at any moment leaves either the old or the new file, never a
torn one. Temp names never end in ``.md`` so that a scan running at the same time cannot pick
them up. Read-modify-write sequences are serialised across processes with one file lock per
memory directory.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, BinaryIO, Protocol

from memdir.errors import LockTimeout, MemoryFormatError
from memdir.model.patterns import LazyPattern

if TYPE_CHECKING:
    from filelock import FileLock

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "LOCK_NAME",
    "MAX_MEMORY_FILE_BYTES",
    "atomic_write",
    "ensure_dir",
    "lock_directory",
    "move_path",
    "observe_writes",
    "observer_for",
    "open_regular",
    "read_bytes_limited",
    "remove_file",
    "remove_stale_temps",
    "remove_tree",
    "stale_temp_files",
    "sync_directories",
    "write_json",
]

FILE_MODE = 0o600
DIR_MODE = 0o700
LOCK_NAME = ".memdir.lock"
# A memory is a short Markdown note; anything this large is a mistake or an attack, and reading it
# whole into a prompt would be worse than refusing it.
MAX_MEMORY_FILE_BYTES = 1_000_000


def ensure_dir(path: str | os.PathLike[str]) -> None:
    """Create ``path`` and missing parents with mode 0700; existing directories are left as they are.

    ``os.makedirs`` gives its mode to the last directory only (parents get 0777 less the umask,
    usually 0755), so each missing directory is made here, outermost first.
    """
    path = os.path.abspath(os.fspath(path))
    if os.path.isdir(path):
        return
    missing: list[str] = []
    while not os.path.exists(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, DIR_MODE)
        except FileExistsError:
            if not os.path.isdir(directory):
                raise


def create_private_file(path: str | os.PathLike[str]) -> None:
    """Create ``path`` empty with mode 0600 when it does not exist, so that a file another library
    creates on open (SQLite, with its ``-wal`` and ``-shm`` files, which take the database's
    permissions) is never readable by other local users."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))


def _fsync_dir(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems (and platforms) refuse fsync on a directory; the rename still happened
    finally:
        os.close(fd)


def atomic_write(
    path: str | os.PathLike[str],
    data: str | bytes,
    *,
    mode: int | None = None,
    durable: bool = True,
    sync_directory: bool = True,
    check: Callable[[], None] | None = None,
) -> str:
    """Replace ``path`` with ``data`` atomically; returns the directory the file was renamed in.

    A symlink is followed so that its (already containment-checked) target is replaced, as
    Claude Code's own writes do. An existing file keeps its permission bits; a new one gets 0600
    unless ``mode`` says otherwise. ``durable=False`` skips waiting for the disk (the fsyncs): for
    derived caches that are rebuilt when a crash leaves them stale, never for memories or state.
    ``sync_directory=False`` leaves the fsync of the directory (which makes the rename itself
    durable) to the caller, who writes a second file there and syncs both renames at once with
    :func:`sync_directories`.

    ``check`` is called just before the rename, after the content about to go was kept in the
    history and the new one is on disk: it raises to leave the file as it is. A caller that read
    the file earlier compares it again there (a team pull: an edit saved while it talked to the
    server is never overwritten), which leaves only the rename itself between check and write.
    """
    target = os.path.realpath(os.fspath(path))
    directory = os.path.dirname(target)
    ensure_dir(directory)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        final_mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        final_mode = FILE_MODE if mode is None else mode
    tmp = os.path.join(directory, _temp_name(os.path.basename(target)))
    watched = _watched(target) if _observers else None
    if watched is not None:
        watched[0].before(watched[1])
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, final_mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp, final_mode)
        if check is not None:
            check()
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable and sync_directory:
        _fsync_dir(directory)
    if watched is not None:
        watched[0].written(watched[1], payload)
    return directory


def sync_directories(*directories: str) -> None:
    """fsync each of ``directories`` once: the renames :func:`atomic_write` made there with
    ``sync_directory=False`` are then on disk."""
    for directory in dict.fromkeys(directories):
        _fsync_dir(directory)


def _temp_name(name: str) -> str:
    """``.<name>.tmp.<pid>.<milliseconds>.<8 hex digits>``; a name too long to take the suffix within
    255 bytes (a file name of 220 bytes and more) is cut at a character boundary first, so a long
    name can be written at all."""
    suffix = f".tmp.{os.getpid()}.{int(time.time() * 1000)}.{os.urandom(4).hex()}"
    room = 255 - 1 - len(suffix)
    encoded = name.encode("utf-8", "surrogateescape")
    if len(encoded) > room:
        name = encoded[:room].decode("utf-8", "ignore")
    return f".{name}{suffix}"


# The name atomic_write gives its temp file: .<target>.tmp.<pid>.<milliseconds>.<8 hex digits>
_TEMP_NAME = LazyPattern(r"^\.(?P<target>.+)\.tmp\.(?P<pid>\d+)\.(?P<ms>\d+)\.[0-9a-f]{8}$")
# A save holds its temp file for milliseconds; one this old was left by a process that died.
STALE_TEMP_SECONDS = 3600.0


def _writer_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False  # alive under another user (or a pid no kernel hands out: kept, judged by age)
    return False


def stale_temp_files(directory: str | os.PathLike[str], *, now: float | None = None) -> list[str]:
    """Temp files of :func:`atomic_write` in ``directory`` whose save was killed before its rename.

    A temp file is stale when the process that wrote it no longer exists, or when it is more
    than an hour old (a pid can be reused; a real save never takes that long).
    """
    found: list[str] = []
    clock = time.time() if now is None else now
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return found
    for entry in entries:
        match = _TEMP_NAME.match(entry.name) if entry.name.startswith(".") else None
        if match is None:
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            age = clock - entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        if _writer_gone(int(match.group("pid"))) or age > STALE_TEMP_SECONDS:
            found.append(entry.path)
    return sorted(found)


def remove_stale_temps(directory: str | os.PathLike[str]) -> list[str]:
    """Delete what :func:`stale_temp_files` finds (never a memory: the rename that would have
    made it one never happened); returns the paths removed."""
    removed = []
    for path in stale_temp_files(directory):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
            removed.append(path)
    return removed


def write_json(path: str | os.PathLike[str], data: object, *, durable: bool = True) -> None:
    """Atomically write a small JSON state or settings file (indented, UTF-8, final newline);
    ``durable`` as for :func:`atomic_write`."""
    atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", durable=durable)


def remove_file(path: str | os.PathLike[str], *, check: Callable[[], None] | None = None) -> bool:
    """Delete ``path``; return False when it was already gone. ``check`` as for :func:`atomic_write`:
    called just before the file goes, it raises to keep it."""
    watched = _watched(_real_parent(path)) if _observers else None
    if watched is not None:
        watched[0].before(watched[1])
    if check is not None:
        check()
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    _fsync_dir(os.path.dirname(os.path.abspath(os.fspath(path))))
    if watched is not None:
        watched[0].removed(watched[1])
    return True


def remove_tree(path: str | os.PathLike[str]) -> None:
    """Delete a directory and everything in it, each file through :func:`remove_file` (so a
    watched directory's history records every file removed)."""
    import shutil

    top = os.fspath(path)
    if _observers and _watched(os.path.realpath(top) + os.sep + "x") is not None:
        for folder, _, names in os.walk(top, topdown=False):
            for name in names:
                remove_file(os.path.join(folder, name))
    shutil.rmtree(top)


def move_path(old: str | os.PathLike[str], new: str | os.PathLike[str]) -> None:
    """Rename a file or directory (``os.replace``); a watched directory's history records each
    file moved, with its content, under both names."""
    source, target = os.fspath(old), os.fspath(new)
    watched = _watched(_real_parent(source)) if _observers else None
    moved: list[tuple[str, str]] = []
    if watched is not None:
        if os.path.isdir(source) and not os.path.islink(source):
            for folder, _, names in os.walk(source):
                for name in names:
                    inner = os.path.relpath(os.path.join(folder, name), source).replace(os.sep, "/")
                    moved.append((f"{watched[1]}/{inner}", inner))
        else:
            moved.append((watched[1], ""))
        for rel, _ in moved:
            watched[0].before(rel)
    os.replace(source, target)
    destination = _watched(_real_parent(target)) if watched is not None else None
    if watched is None:
        return
    for rel, inner in moved:
        new_rel = None if destination is None else (f"{destination[1]}/{inner}" if inner else destination[1])
        watched[0].moved(rel, new_rel)


class WriteObserver(Protocol):
    """What watches a memory directory's writes (its history): told before a file changes, so the
    content about to be replaced is kept, and after, with what is there now."""

    def before(self, rel: str) -> None: ...

    def written(self, rel: str, data: bytes) -> None: ...

    def removed(self, rel: str) -> None: ...

    def moved(self, old: str, new: str | None) -> None: ...


# real directory + separator -> the function that opens its observer (called on the first write, so
# registering costs a read-only process nothing); and the observers opened so far.
_observers: dict[str, Callable[[], WriteObserver | None]] = {}
_opened: dict[str, WriteObserver | None] = {}
_MAX_OPEN = 16


def observe_writes(root: str, opener: Callable[[], WriteObserver | None] | None) -> None:
    """Have every write this module makes under ``root`` (and its real path) reported to the
    observer ``opener`` returns, opened on the first such write; None stops watching ``root``."""
    for spelling in {os.path.abspath(root), os.path.realpath(root)}:
        prefix = spelling.rstrip(os.sep) + os.sep
        _opened.pop(prefix, None)
        if opener is None:
            _observers.pop(prefix, None)
        else:
            _observers[prefix] = opener


def observer_for(root: str) -> WriteObserver | None:
    """The observer watching ``root``, opened now if it was not yet; None when nothing watches it."""
    found = _watched(os.path.realpath(root) + os.sep + "x")
    return None if found is None else found[0]


def _real_parent(path: str | os.PathLike[str]) -> str:
    """The real path of a name, its last part kept as it is (a symlink is removed, not its target)."""
    name = os.path.abspath(os.fspath(path))
    return os.path.join(os.path.realpath(os.path.dirname(name)), os.path.basename(name))


def _watched(target: str) -> tuple[WriteObserver, str] | None:
    """(observer, path relative to its directory) for a real path under a watched directory. Names
    starting with a dot (memdir's lock, temp and sync files, ``.git``) are never recorded."""
    for prefix, opener in _observers.items():
        if not target.startswith(prefix):
            continue
        rel = target[len(prefix) :].replace(os.sep, "/")
        if any(part.startswith(".") for part in rel.split("/")):
            return None
        if prefix not in _opened:
            while len(_opened) >= _MAX_OPEN:  # a process touching many directories keeps few open
                closing = _opened.pop(next(iter(_opened)))
                close = getattr(closing, "close", None)
                if callable(close):
                    close()
            _opened[prefix] = opener()
        observer = _opened[prefix]
        return None if observer is None else (observer, rel)
    return None


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open ``path`` for reading without ever blocking: a FIFO or device planted under a memory
    name would otherwise hang the reader forever (or feed it without end), so only a regular file
    is opened, and the check is made on the open descriptor, not on a name that could change."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        raise MemoryFormatError(
            f"{os.fspath(path)} is not a regular file (a pipe, socket or device); memory files are plain "
            "text files, remove it",
            rule="not-a-file",
            path=os.fspath(path),
        )
    return os.fdopen(fd, "rb")


def read_bytes_limited(path: str | os.PathLike[str], *, max_bytes: int = MAX_MEMORY_FILE_BYTES) -> bytes:
    """Read a whole file, refusing one larger than ``max_bytes`` with a specific error.

    Only regular files are read: a FIFO or device planted under a memory name would otherwise
    block the reader forever or feed it without end.
    """
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise MemoryFormatError(
                f"{os.fspath(path)} is {size} bytes, over the {max_bytes}-byte limit for a memory file; "
                "split it into smaller topic files",
                rule="too-large",
                path=os.fspath(path),
            )
        return handle.read(max_bytes + 1)


@contextlib.contextmanager
def lock_directory(directory: str | os.PathLike[str], *, timeout: float = 10.0) -> Iterator[None]:
    """Hold the directory's lock file for a read-modify-write.

    One lock covers a memory and the index together, so that a save and its index line can
    never be interleaved with another process's save. The lock is re-entrant within a thread.
    """
    ensure_dir(directory)
    import filelock  # only writers lock: a process that only reads never imports it

    lock_path = os.path.join(os.fspath(directory), LOCK_NAME)
    lock = _locks.get(lock_path)
    if lock is None:  # built once per path: building one is a tenth of a save's cost
        lock = _locks[lock_path] = filelock.FileLock(lock_path, timeout=timeout, mode=FILE_MODE)
    try:
        lock.acquire(timeout=timeout)
    except filelock.Timeout as exc:
        raise LockTimeout(
            f"could not lock {directory} within {timeout:g}s: another memdir process is writing there; "
            f"retry, or remove {lock_path} if no such process exists",
            path=lock_path,
        ) from exc
    try:
        yield
    finally:
        lock.release()


# One FileLock object per lock path, so that nested use in one thread re-enters instead of deadlocking.
_locks: dict[str, FileLock] = {}
