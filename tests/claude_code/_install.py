"""Installs the Claude Code CLI from the npm registry into a cache outside the repository.

Two releases are tested: the oldest one memdir was written against (it ships ``cli.js``, run with
node) and the newest on the registry (a native binary in the optional dependency
``@anthropic-ai/claude-code-linux-x64``). Each version is installed once into its own directory of
the cache and reused by later runs; an install goes to a scratch directory first and is renamed into
place, so an interrupted install never leaves a half-filled version behind.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "@anthropic-ai/claude-code"
NATIVE_PACKAGE = "@anthropic-ai/claude-code-linux-x64"
OLDEST = "2.1.88"
NPM_TIMEOUT = 240
VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")


class Unavailable(Exception):
    """The CLI cannot be installed or run here; the message says why, in one line."""


@dataclass(frozen=True)
class Release:
    version: str
    argv: tuple[str, ...]

    @property
    def parts(self) -> tuple[int, ...]:
        return tuple(int(p) for p in self.version.split("."))


def default_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memdir" / "claude-code"


def _npm(*args: str, timeout: int = NPM_TIMEOUT) -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not on PATH")
    try:
        done = subprocess.run([npm, *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise Unavailable(f"npm {args[0]} timed out after {timeout}s") from exc
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if line.startswith("npm error")]
        lines = [line for line in errors if "log of this run" not in line]
        raise Unavailable(f"npm {args[0]} failed: {' / '.join(lines[:3]) or done.stderr.strip()[-300:]}")
    return done.stdout


def newest_version(cache: Path) -> str:
    """The registry's newest version; offline, the newest one already in the cache."""
    try:
        version = _npm("view", PACKAGE, "version").strip()
    except Unavailable:
        cached = [p.name for p in cache.glob("*") if VERSION_RE.match(p.name) and p.name != OLDEST]
        if not cached:
            raise
        return max(cached, key=lambda v: tuple(int(p) for p in v.split(".")))
    if not VERSION_RE.match(version):
        raise Unavailable(f"npm view {PACKAGE} version printed {version!r}, not a version")
    return version


def _entry(root: Path, version: str) -> tuple[str, ...]:
    modules = root / "node_modules"
    script = modules / PACKAGE / "cli.js"
    native = modules / NATIVE_PACKAGE / "claude"
    if native.is_file():
        native.chmod(0o755)
        return (str(native),)
    if script.is_file():
        node = shutil.which("node")
        if node is None:
            raise Unavailable("node is not on PATH")
        for rg in (modules / PACKAGE / "vendor" / "ripgrep").glob("*/rg"):
            rg.chmod(0o755)
        return (node, str(script))
    raise Unavailable(f"{PACKAGE}@{version} installed neither cli.js nor {NATIVE_PACKAGE}/claude")


def install_package(spec: str, target: Path, timeout: int = NPM_TIMEOUT) -> None:
    """npm's install of ``spec`` (``package@version``) into ``target``, through a scratch folder
    beside it that is renamed into place, so an interrupted install leaves nothing half-filled."""
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        _npm("install", "--prefix", str(scratch), "--no-audit", "--no-fund", "--no-save", spec, timeout=timeout)
        if target.exists():
            shutil.rmtree(target)
        scratch.rename(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def install(version: str, cache: Path) -> Release:
    """The release at ``version``, installed into ``cache/<version>`` unless it is there already."""
    target = cache / version
    if not (target / "node_modules" / PACKAGE / "package.json").is_file():
        install_package(f"{PACKAGE}@{version}", target)
    release = Release(version, _entry(target, version))
    try:
        printed = subprocess.run(
            [*release.argv, "--version"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"claude {version} --version did not run: {exc}") from exc
    if not printed.startswith(version):
        raise Unavailable(f"claude {version} --version printed {printed!r}")
    return release
