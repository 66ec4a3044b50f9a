"""The lexical analyses of one memory directory, kept in a file for processes that start cold.

Every Claude Code hook is a new process, so without a stored copy the offline ranking tokenised
and stemmed the text of every memory on every prompt (most of the hook's own work at 200
memories). A store read through the derived SQLite index keeps its analyses there; every other
store gets this file instead: ``<configHome>/memdir/analyses/<directory as one name>.json``.

It is a cache and never a source of truth. Each analysis is keyed by the memory's path, mtime
and size, and the file names the analysis version and the directory it belongs to; an entry
that does not match is analysed again, and a file that is missing, unreadable, corrupt, of
another version or another directory counts as empty. A file that cannot be written (a
read-only config home) is skipped without a word: the ranking is the same, only slower. The
file is replaced whole (write to a temporary name, then rename), so a reader never sees half of
one, and it holds only the memories the last ranking looked at, so deleted memories leave it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from memdir.containment import normalize_root
from memdir.store.files import atomic_write
from memdir.store.scan import cache_file_path

__all__ = ["AnalysisFile", "analysis_file_path"]

# Bump when the file's own layout changes (the analyses carry their own version).
_FILE_FORMAT = 1
_Entry = tuple[float, int, str]


def analysis_file_path(memory_dir: str, home: str) -> str:
    """``<home>/memdir/analyses/<sanitised directory>.json``, ``home`` being the config home."""
    return cache_file_path(memory_dir, home, "analyses")


class AnalysisFile:
    """An :class:`~memdir.recall.lexical.AnalysisCache` backed by one JSON file per memory directory."""

    def __init__(self, memory_dir: str, path: str) -> None:
        self.root = normalize_root(memory_dir)
        self.path = path
        self._entries: dict[str, _Entry] = {}
        self._asked: set[str] = set()
        self.writes = 0  # files written, so tests and benchmarks can see when the cache was used

    @classmethod
    def for_directory(cls, memory_dir: str, home: str) -> AnalysisFile:
        return cls(memory_dir, analysis_file_path(memory_dir, home))

    def _load(self, version: str) -> dict[str, _Entry]:
        try:
            with open(self.path, "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError, RecursionError):  # missing, unreadable or corrupt: analyse anew
            return {}
        if (
            not isinstance(data, dict)
            or data.get("format") != _FILE_FORMAT
            or data.get("version") != version
            or data.get("root") != self.root
            or not isinstance(data.get("analyses"), dict)
        ):
            return {}
        entries: dict[str, _Entry] = {}
        for path, entry in data["analyses"].items():
            if (
                isinstance(entry, list)
                and len(entry) == 3
                and isinstance(entry[0], int | float)
                and isinstance(entry[1], int)
                and isinstance(entry[2], str)
            ):
                entries[path] = (float(entry[0]), entry[1], entry[2])
        return entries

    def get_analyses(self, paths: Sequence[str], version: str) -> Mapping[str, _Entry]:
        """path -> (mtime_ms, size, payload) for the asked paths the file holds an analysis of."""
        self._entries = self._load(version)
        self._asked = set(paths)
        return {path: self._entries[path] for path in paths if path in self._entries}

    def put_analyses(self, items: Mapping[str, _Entry], version: str) -> None:
        """Store fresh analyses with the still-valid ones of the last :meth:`get_analyses`; the file
        then holds the memories that ranking looked at and no others."""
        kept = {path: entry for path, entry in self._entries.items() if path in self._asked}
        kept.update(items)
        self._entries = kept
        payload = {
            "format": _FILE_FORMAT,
            "version": version,
            "root": self.root,
            "analyses": {path: list(entry) for path, entry in kept.items()},
        }
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        try:
            atomic_write(self.path, text, durable=False)
        except OSError:
            return  # a read-only or full config home: the ranking stays right, the next process analyses again
        self.writes += 1
