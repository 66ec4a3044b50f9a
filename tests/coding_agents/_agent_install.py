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
import tempfile
from dataclasses import dataclass
from pathlib import Path

NPM_TIMEOUT = 300


class Unavailable(Exception):
    """The CLI cannot be installed or run here; the message says why, in one line."""


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


def _npm(*args: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not on PATH")
    try:
        done = subprocess.run(
            [npm, *args], capture_output=True, text=True, timeout=NPM_TIMEOUT, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired as exc:
        raise Unavailable(f"npm {args[0]} timed out after {NPM_TIMEOUT}s") from exc
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if line.startswith("npm error")]
        raise Unavailable(f"npm {args[0]} failed: {' / '.join(errors[:3]) or done.stderr.strip()[-300:]}")


def install(cli: Cli, version: str, cache: Path) -> Release:
    """``cli`` at ``version``, installed into the cache unless it is there already, and checked to run."""
    target = cache / f"{cli.name}-{version}"
    executable = target / "node_modules" / ".bin" / cli.name
    if not executable.exists():
        cache.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{cli.name}-{version}-", dir=cache))
        try:
            _npm(
                "install", "--prefix", str(scratch), "--no-audit", "--no-fund", "--no-save", f"{cli.package}@{version}"
            )
            if target.exists():
                shutil.rmtree(target)
            scratch.rename(target)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
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
