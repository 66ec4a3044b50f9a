"""Claude Code releases and the memory rules that differ between them: one table, one lookup.

memdir shares its memory directory with whichever Claude Code the user runs, and releases
disagree on details: where a memory file keeps its type, whether writes stamp ``modified:``,
what counts against the ``MEMORY.md`` limits, whether hook context may carry
``<system-reminder>`` tags, whether session notes replace the conversation at ``/compact``.
Every such rule is a field of :class:`ReleaseRules`, and :data:`RELEASE_TABLE` says from which
release each value holds. Code asks ``config.claude_code.rules.<rule>``; nothing else compares
version numbers.

Which release is in use is found, in this order, from: the setting ``memdir.claudeCodeVersion``;
the ``version`` in the hook input or in the transcript Claude Code is writing (every transcript
line carries it); the newest transcript of the project; ``claude --version`` when ``claude`` is
on ``PATH``; ``lastReleaseNotesSeen`` in Claude Code's ``.claude.json``. With none of them the
newest rules apply. The composition root (config.py) gathers these sources into a
:class:`ReleaseHint`; :func:`detect_release` only reads files and runs ``claude``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from enum import StrEnum
from typing import NamedTuple

from memdir.model.memory_type import FrontmatterLayout
from memdir.model.patterns import LazyPattern

__all__ = [
    "NEWEST",
    "RELEASE_TABLE",
    "IndexOverflow",
    "Release",
    "ReleaseFinder",
    "ReleaseHint",
    "ReleaseRules",
    "Version",
    "detect_release",
    "rules_for",
    "version_from_transcript",
]

_VERSION_PATTERN = LazyPattern(r"(\d+)\.(\d+)\.(\d+)")


class Version(NamedTuple):
    """A Claude Code version, ``major.minor.patch``; compared numerically (2.1.88 < 2.1.330)."""

    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> Version | None:
        """The first ``N.N.N`` in ``text`` ("2.1.330 (Claude Code)" included), or None."""
        match = _VERSION_PATTERN.search(text)
        if match is None:
            return None
        return cls(int(match.group(1)), int(match.group(2)), int(match.group(3)))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


class IndexOverflow(StrEnum):
    """What a write that makes ``MEMORY.md`` longer than Claude Code loads does."""

    TRUNCATE_WARNING = "truncate"  # the write succeeds; Claude Code loads the head and a warning
    REFUSE = "refuse"  # the write fails with an error naming the limit


class ReleaseRules(NamedTuple):
    """The memory behaviour of one range of Claude Code releases."""

    frontmatter: FrontmatterLayout = FrontmatterLayout.FLAT  # where a memory file keeps its type
    stamps_modified: bool = False  # every write records ``modified:`` (ISO time) in the frontmatter
    index_limits_skip_comments: bool = False  # MEMORY.md limits ignore its frontmatter and HTML comments
    index_overflow: IndexOverflow = IndexOverflow.TRUNCATE_WARNING
    memory_stores: bool = False  # CLAUDE_MEMORY_STORES mounts stores under team/<mount>
    hook_context_reminders: bool = True  # ``<system-reminder>`` in hook additionalContext reaches the model
    dated_memory_headers: bool = True  # "Memory (saved today): <path>:" rather than "Memory: <path>:"
    session_compaction: bool = True  # /compact can use the session notes as the summary
    links_memories: bool = False  # its memory template asks for [[name]] links between related memories


# From which release each rule holds. A release between two rows follows the older row; rows
# name only what changed. 2.1.88 and 2.1.330 are verified against the real CLI; the rows in
# between come from Claude Code's changelog. The nested frontmatter, the escaped hook context
# and the end of session-memory compaction are first seen in 2.1.330 (the exact release in
# between that introduced them is not known, so releases before 2.1.330 keep the older rule).
RELEASE_TABLE: tuple[tuple[Version, Mapping[str, object]], ...] = (
    (Version(2, 1, 0), {}),
    (Version(2, 1, 172), {"memory_stores": True}),
    (Version(2, 1, 210), {"index_overflow": IndexOverflow.REFUSE}),
    (Version(2, 1, 211), {"index_limits_skip_comments": True}),
    (Version(2, 1, 214), {"stamps_modified": True}),
    (
        Version(2, 1, 330),
        {
            "frontmatter": FrontmatterLayout.NESTED,
            "hook_context_reminders": False,
            "dated_memory_headers": False,
            "session_compaction": False,
            "links_memories": True,
        },
    ),
)

NEWEST: Version = RELEASE_TABLE[-1][0]


def rules_for(version: Version) -> ReleaseRules:
    """The rules of ``version``: every row up to it applied in order (older than the table: the first row)."""
    rules = ReleaseRules()
    for since, changes in RELEASE_TABLE:
        if since > version:
            break
        rules = rules._replace(**changes)  # type: ignore[arg-type]
    return rules


class Release(NamedTuple):
    """The Claude Code release memdir follows, and how it was found (shown by ``memdir session``)."""

    version: Version
    source: str
    rules: ReleaseRules


class ReleaseHint(NamedTuple):
    """Where the release may be read from; built by the composition root from env and settings."""

    setting: Version | None = None  # memdir.claudeCodeVersion, read by the settings table (None: detect)
    reported: str | None = None  # a version named by the caller (a hook input's "version")
    transcript: str | None = None  # the transcript of the current session
    transcripts_dir: str | None = None  # the project's transcripts, newest first
    claude_json: str | None = None  # Claude Code's global config file (.claude.json)
    path: str | None = None  # PATH, to find ``claude``
    run_claude: bool = True  # ``claude --version`` may be run


_TAIL_BYTES = 64 * 1024
_CLAUDE_TIMEOUT = 5.0


def version_from_transcript(path: str) -> Version | None:
    """The ``version`` of the last transcript line that has one (the release writing it now)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - _TAIL_BYTES))
            tail = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        if '"version"' not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        value = entry.get("version") if isinstance(entry, dict) else None
        if isinstance(value, str):
            found = Version.parse(value)
            if found is not None:
                return found
    return None


def _newest_transcript(folder: str) -> str | None:
    try:
        entries = [entry for entry in os.scandir(folder) if entry.name.endswith(".jsonl") and entry.is_file()]
    except OSError:
        return None
    if not entries:
        return None
    return max(entries, key=lambda entry: entry.stat().st_mtime_ns).path


def _claude_version(path: str | None) -> Version | None:
    """``claude --version`` of the ``claude`` on ``path``; None when there is none or it fails."""
    if not path:
        return None
    for folder in path.split(os.pathsep):
        candidate = os.path.join(folder, "claude")
        if folder and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            break
    else:
        return None
    import subprocess  # here: almost every process finds the release without running anything

    try:
        done = subprocess.run(
            [candidate, "--version"],
            capture_output=True,
            text=True,
            timeout=_CLAUDE_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return Version.parse(done.stdout) if done.returncode == 0 else None


def _notes_seen(path: str | None) -> Version | None:
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    value = data.get("lastReleaseNotesSeen") if isinstance(data, dict) else None
    return Version.parse(value) if isinstance(value, str) else None


def detect_release(hint: ReleaseHint) -> Release:
    """The release to follow: the first source in the module's order that names one."""
    if hint.setting is not None:
        return Release(hint.setting, "setting memdir.claudeCodeVersion", rules_for(hint.setting))
    if hint.reported and (found := Version.parse(hint.reported)) is not None:
        return Release(found, "hook input", rules_for(found))
    if hint.transcript and (found := version_from_transcript(hint.transcript)) is not None:
        return Release(found, f"transcript {hint.transcript}", rules_for(found))
    newest = _newest_transcript(hint.transcripts_dir) if hint.transcripts_dir else None
    if newest is not None and (found := version_from_transcript(newest)) is not None:
        return Release(found, f"transcript {newest}", rules_for(found))
    if hint.run_claude and (found := _claude_version(hint.path)) is not None:
        return Release(found, "claude --version", rules_for(found))
    if (found := _notes_seen(hint.claude_json)) is not None:
        return Release(found, f"lastReleaseNotesSeen in {hint.claude_json}", rules_for(found))
    return Release(NEWEST, "no Claude Code found: the newest rules", rules_for(NEWEST))


class ReleaseFinder:
    """The release a hint points to, found on first use and then kept.

    Detection may read transcripts or start ``claude --version``, so a configuration carries a
    finder rather than a release: a process that never asks which release it shares the directory
    with pays nothing, and one that asks twice detects once. Two finders are equal when their hints are.
    """

    __slots__ = ("_found", "hint")

    def __init__(self, hint: ReleaseHint) -> None:
        self.hint = hint
        self._found: Release | None = None

    def release(self) -> Release:
        if self._found is None:
            self._found = detect_release(self.hint)
        return self._found

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReleaseFinder) and other.hint == self.hint

    __hash__ = None  # type: ignore[assignment]  # a hint may hold a settings value of any JSON type

    def __repr__(self) -> str:
        return f"ReleaseFinder({self.hint!r})"
