"""The instruction files Codex CLI and Gemini CLI load in a project: read, listed, never written.

People who switch between coding agents keep each one's instructions in its own files: Claude
Code's CLAUDE.md chain (:mod:`memdir.instructions.discovery`), Codex's ``AGENTS.md`` and Gemini's
``GEMINI.md``. memdir shares one memory directory between the three, but leaves these files to
their owners; it only shows, beside the CLAUDE.md chain, which of them each CLI would load here:

* **Codex CLI**: ``$CODEX_HOME/AGENTS.override.md``, else ``$CODEX_HOME/AGENTS.md`` (the
  user's, ``~/.codex`` by default); then, in each directory from the project's root (its git
  root) down to the working directory, ``AGENTS.override.md``, else ``AGENTS.md``. Codex joins
  them in that order and stops at 32 KiB (``project_doc_max_bytes``).
* **Gemini CLI**: ``~/.gemini/<name>`` (the user's), then ``<name>`` in each directory from the
  project's root down to the working directory, then below it (the first 200 directories, hidden
  ones and ``node_modules`` left out, as Gemini scans them). ``<name>`` is ``GEMINI.md`` unless
  ``context.fileName`` in the user's or the project's ``.gemini/settings.json`` names others.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import NamedTuple

from memdir.config import MemoryConfig
from memdir.containment import spell_real
from memdir.paths import find_git_root

__all__ = ["AgentInstructionFile", "agent_instruction_files"]

_SCAN_LIMIT = 200  # directories below the working directory Gemini looks into
_SKIPPED_DIRS = frozenset({"node_modules"})
_REASONS = {
    "user": "the user's instructions",
    "project": "instructions between the project root and the working directory",
    "below": "instructions below the working directory",
}


class AgentInstructionFile(NamedTuple):
    """One file another coding agent puts into its sessions here."""

    agent: str  # "codex" or "gemini"
    scope: str  # "user", "project" (the root down to the working directory) or "below" (under it)
    path: str
    chars: int
    reason: str

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "type": f"{self.agent}-{self.scope}", "agent": self.agent, "chars": self.chars}


def _chars(path: str) -> int | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return len(handle.read())
    except OSError:
        return None


def _file(agent: str, scope: str, path: str, reason: str) -> list[AgentInstructionFile]:
    chars = _chars(path) if os.path.isfile(path) else None
    return [] if chars is None else [AgentInstructionFile(agent, scope, path, chars, reason)]


def _chain(root: str, cwd: str) -> list[str]:
    """The directories from ``root`` down to ``cwd`` (just ``cwd`` when it is not under ``root``)."""
    chain = [cwd]
    current = cwd
    while current != root:
        parent = os.path.dirname(current)
        if parent == current:
            return [cwd]
        chain.append(parent)
        current = parent
    return list(reversed(chain))


def _codex(config: MemoryConfig, chain: list[str]) -> list[AgentInstructionFile]:
    home = config.environment.codex_home or os.path.join(config.environment.home, ".codex")
    files: list[AgentInstructionFile] = []
    for directory, scope in [(home, "user"), *((d, "project") for d in chain)]:
        for name in ("AGENTS.override.md", "AGENTS.md"):
            found = _file("codex", scope, os.path.join(directory, name), _REASONS[scope])
            if found:
                files += found
                break
    return files


def _gemini_names(config: MemoryConfig, root: str) -> tuple[str, ...]:
    """``context.fileName`` of the project's settings, else the user's, else ``GEMINI.md``."""
    for folder in (root, config.environment.home):
        try:
            with open(os.path.join(folder, ".gemini", "settings.json"), encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            continue
        context = data.get("context") if isinstance(data, dict) else None
        name = context.get("fileName") if isinstance(context, dict) else None
        if isinstance(name, str) and name:
            return (name,)
        if isinstance(name, list) and name and all(isinstance(n, str) and n for n in name):
            return tuple(name)
    return ("GEMINI.md",)


def _below(cwd: str) -> Iterator[str]:
    """Directories under ``cwd``, breadth first, at most :data:`_SCAN_LIMIT` of them."""
    queue, seen = [cwd], 0
    while queue and seen < _SCAN_LIMIT:
        directory = queue.pop(0)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if (
                entry.is_dir(follow_symlinks=False)
                and not entry.name.startswith(".")
                and entry.name not in _SKIPPED_DIRS
            ):
                seen += 1
                queue.append(entry.path)
                yield entry.path
                if seen >= _SCAN_LIMIT:
                    return


def _gemini(config: MemoryConfig, chain: list[str], root: str) -> list[AgentInstructionFile]:
    names = _gemini_names(config, root)
    places = [(os.path.join(config.environment.home, ".gemini"), "user"), *((d, "project") for d in chain)]
    places += [(d, "below") for d in _below(chain[-1])]
    return [
        found
        for directory, scope in places
        for name in names
        for found in _file("gemini", scope, os.path.join(directory, name), _REASONS[scope])
    ]


def agent_instruction_files(config: MemoryConfig, *, cwd: str | None = None) -> list[AgentInstructionFile]:
    """The AGENTS.md files Codex and the GEMINI.md files Gemini would load in ``cwd`` (the project
    root by default), in the order each CLI puts them into context."""
    origin = spell_real(cwd or config.project_root)
    root = find_git_root(origin) or origin
    chain = _chain(root, origin)
    return [*_codex(config, chain), *_gemini(config, chain, root)]
