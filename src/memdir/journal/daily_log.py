"""Daily logs: what a long-lived session learned, appended as timestamped bullets.

A session that runs for days cannot keep rewriting topic files and the index without racing other
sessions and itself; instead it appends one bullet per thing worth remembering to the day's file,
``logs/YYYY/MM/YYYY-MM-DD.md`` (the local date), and the dream later distils the logs into topic
files and ``MEMORY.md``. Appends never rewrite earlier bytes and run under the directory's lock, so
two sessions appending at once interleave whole bullets.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from memdir.errors import MemoryFormatError
from memdir.store.directory import MemoryDir
from memdir.store.files import FILE_MODE, ensure_dir, lock_directory
from memdir.store.scan import LOGS_DIRNAME

__all__ = ["LogEntry", "append_log", "format_bullet", "list_logs", "log_relpath"]

_LOG_NAME = re.compile(r"^\d{4}/\d{2}/\d{4}-\d{2}-\d{2}\.md$")
# A bullet is a note, not a document; a longer text belongs in a topic file.
MAX_ENTRY_CHARS = 4000


def _local_now() -> datetime:
    return datetime.now().astimezone()


@dataclass(frozen=True)
class LogEntry:
    """One appended bullet: where it went and whether the day's file was new."""

    path: str
    file: str  # relative to the memory directory
    line: str
    created: bool


def log_relpath(when: datetime) -> str:
    """``logs/YYYY/MM/YYYY-MM-DD.md`` for the (local) date of ``when``."""
    return f"{LOGS_DIRNAME}/{when:%Y}/{when:%m}/{when:%Y-%m-%d}.md"


def format_bullet(text: str, when: datetime) -> str:
    """``- HH:MM text``; further lines are indented under the bullet so it stays one list item."""
    lines = [line.rstrip() for line in text.strip().split("\n")]
    head, rest = lines[0], lines[1:]
    body = "\n".join([f"- {when:%H:%M} {head}", *(f"  {line}" if line else "" for line in rest)])
    return body + "\n"


def append_log(
    memory_dir: MemoryDir,
    text: str,
    *,
    now: Callable[[], datetime] = _local_now,
) -> LogEntry:
    """Append ``text`` as a timestamped bullet to today's log, creating the file and its folders."""
    cleaned = text.replace("\r\n", "\n").strip()
    if not cleaned:
        raise MemoryFormatError("a log entry needs some text", rule="empty-log-entry")
    if len(cleaned) > MAX_ENTRY_CHARS:
        raise MemoryFormatError(
            f"a log entry is limited to {MAX_ENTRY_CHARS} characters ({len(cleaned)} given); "
            "log a short note and save the detail as a memory",
            rule="log-entry-too-long",
        )
    when = now()
    rel = log_relpath(when)
    path = memory_dir.resolve(rel)
    line = format_bullet(cleaned, when)
    with lock_directory(memory_dir.root, timeout=memory_dir.lock_timeout):
        ensure_dir(os.path.dirname(path))
        created = not os.path.exists(path)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            size = os.fstat(fd).st_size
            prefix = f"# {when:%Y-%m-%d}\n\n" if size == 0 else _separator(fd, size)
            data = (prefix + line).encode("utf-8")
            while data:
                data = data[os.write(fd, data) :]
            os.fsync(fd)
        finally:
            os.close(fd)
    return LogEntry(path=path, file=rel, line=line.rstrip("\n"), created=created)


def _separator(fd: int, size: int) -> str:
    """A newline when the file does not end with one (a hand edit), so bullets never merge."""
    return "" if os.pread(fd, 1, size - 1) == b"\n" else "\n"


def list_logs(memory_dir: MemoryDir) -> list[str]:
    """The daily-log files of a memory directory, relative paths, oldest first."""
    base = os.path.join(memory_dir.root, LOGS_DIRNAME)
    found: list[str] = []
    for directory, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for name in filenames:
            rel = os.path.relpath(os.path.join(directory, name), base).replace(os.sep, "/")
            if _LOG_NAME.match(rel):
                found.append(f"{LOGS_DIRNAME}/{rel}")
    return sorted(found)
