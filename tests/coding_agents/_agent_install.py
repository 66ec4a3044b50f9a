"""Installs Codex CLI and Gemini CLI from the npm registry into a cache outside the repository.

Two pinned releases of each are tested: the oldest memdir supports (the first whose hooks it
uses all run in a non-interactive session) and the newest it was checked against. Each is
installed once into ``<cache>/<name>-<version>`` and reused by later runs; an install goes to a
scratch directory first and is renamed into place, so an interrupted one leaves nothing behind.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# The Claude Code suite's installer serves these CLIs too.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "claude_code"))

from _install import Unavailable, install_package

NPM_TIMEOUT = 300


@dataclass(frozen=True)
class Cli:
    name: str  # the command
    package: str
    oldest: str
    newest: str


CODEX = Cli("codex", "@openai/codex", oldest="0.144.0", newest="0.171.0")
GEMINI = Cli("gemini", "@google/gemini-cli", oldest="0.40.1", newest="0.61.0")


@dataclass(frozen=True)
class Release:
    cli: Cli
    version: str
    executable: str


def default_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memdir" / "coding-agents"


def install(cli: Cli, version: str, cache: Path) -> Release:
    """``cli`` at ``version``, installed into the cache unless it is there already, and checked to run."""
    target = cache / f"{cli.name}-{version}"
    executable = target / "node_modules" / ".bin" / cli.name
    if not executable.exists():
        install_package(f"{cli.package}@{version}", target, timeout=NPM_TIMEOUT)
    if shutil.which("node") is None:
        raise Unavailable("node is not on PATH")
    try:
        printed = subprocess.run(
            [str(executable), "--version"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"{cli.name} {version} --version did not run: {exc}") from exc
    if version not in printed:
        raise Unavailable(f"{cli.name} {version} --version printed {printed!r}")
    return Release(cli, version, str(executable))
