"""Where memory lives: the resolution chain shared with Claude Code.

A Python agent and Claude Code working on the same project must land in the same directory, so
every step here reproduces the reference exactly: the config home, the sanitised project name
(UTF-16 code units, djb2 for long names), the canonical git root that makes all worktrees of a
repository share one memory, and the validation of configured directories. Functions take the
:class:`~memdir.environment.Environment` value read once at the edge (or just the value they need),
so callers and tests decide what they see; nothing happens at import.

Containment checks and the spelling of paths live in :mod:`memdir.containment` (``contain``,
``spell_lexical``, ``spell_real``, ``normalize_root``); this module spells every path through them.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from memdir.containment import (
    basename_lexical,
    dirname_lexical,
    join_lexical,
    normalize_lexical,
    resolve_lexical,
    spell_lexical,
    spell_real,
)
from memdir.envflags import env_defined_falsy, env_truthy
from memdir.environment import VARIABLES
from memdir.model.text import js_trim, utf16_len
from memdir.settings_table import AUTO_MEMORY_DIRECTORY, AUTO_MEMORY_ENABLED, claude_setting

if TYPE_CHECKING:
    from memdir.environment import Environment
    from memdir.settings import Settings

__all__ = [
    "AUTO_MEM_DIRNAME",
    "AUTO_MEM_ENTRYPOINT_NAME",
    "MAX_SANITIZED_LENGTH",
    "auto_mem_entrypoint",
    "auto_mem_path",
    "auto_memory_disabled_reason",
    "clear_git_root_cache",
    "config_home",
    "djb2",
    "find_canonical_git_root",
    "find_git_root",
    "find_project_dir",
    "is_auto_mem_path",
    "is_auto_memory_enabled",
    "memory_base",
    "project_root",
    "projects_dir",
    "resolve_canonical_root",
    "sanitize_path",
    "team_mem_path",
    "validate_memory_path",
]

AUTO_MEM_DIRNAME = "memory"
AUTO_MEM_ENTRYPOINT_NAME = "MEMORY.md"
MAX_SANITIZED_LENGTH = 200
SEP = "/"

ENV_REMOTE_MEMORY_DIR = VARIABLES["remote_memory_dir"]
ENV_DISABLE = VARIABLES["disable_auto_memory"]
ENV_SIMPLE = VARIABLES["simple"]
ENV_REMOTE = VARIABLES["remote"]

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_DRIVE_ROOT = re.compile(r"^[A-Za-z]:$")
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _strip_trailing(path: str) -> str:
    return path.rstrip(SEP) or path[:1]


def config_home(environment: Environment) -> str:
    """``$CLAUDE_CONFIG_DIR`` (``~`` expanded) or ``~/.claude``; an empty value counts as unset."""
    configured = environment.claude_config_dir
    if configured:
        if configured == "~" or configured.startswith("~/"):
            configured = environment.home + configured[1:]
        return _strip_trailing(spell_lexical(configured))
    return spell_lexical(join_lexical(environment.home, ".claude"))


def memory_base(environment: Environment) -> str:
    """``$CLAUDE_CODE_REMOTE_MEMORY_DIR`` when non-empty, else the config home."""
    remote = environment.remote_memory_dir
    if remote:
        return _strip_trailing(spell_lexical(remote))
    return config_home(environment)


def projects_dir(config_home: str) -> str:
    """Transcripts and session memory: always under the config home, even with a remote memory base."""
    return join_lexical(config_home, "projects")


def djb2(text: str) -> int:
    """JS ``h = ((h << 5) - h + charCode) | 0`` over UTF-16 code units: a signed 32-bit value."""
    value = 0
    for unit in _utf16_units(text):
        value = ((value << 5) - value + unit) & 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _utf16_units(text: str) -> list[int]:
    """``text``'s UTF-16 code units (a lone surrogate is its own unit), computed rather than
    encoded: the UTF-16 codec is one more module for every hook process to import."""
    units = []
    for char in text:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            units.append(0xD800 | (code >> 10))
            units.append(0xDC00 | (code & 0x3FF))
        else:
            units.append(code)
    return units


def _base36(number: int) -> str:
    digits = []
    while True:
        number, digit = divmod(number, 36)
        digits.append(_BASE36[digit])
        if number == 0:
            return "".join(reversed(digits))


def sanitize_path(name: str) -> str:
    """A project path as one directory name: every non-``[A-Za-z0-9]`` UTF-16 unit becomes ``-``.

    Names longer than 200 units are cut and suffixed with ``-<abs(djb2)>`` in base 36 (the
    current scheme; older directories with another hash are found by :func:`find_project_dir`).
    Callers NFC-normalize first: NFD spells accented letters with two units.
    """
    sanitized = "".join(ch if ch in _ALNUM else ("--" if ord(ch) > 0xFFFF else "-") for ch in name)
    if len(sanitized) <= MAX_SANITIZED_LENGTH:
        return sanitized
    return f"{sanitized[:MAX_SANITIZED_LENGTH]}-{_base36(abs(djb2(name)))}"


def find_project_dir(projects: str, project_path: str) -> str | None:
    """The existing directory under ``projects`` for ``project_path``, or None.

    Long names were hashed differently by other runtimes and versions, so when the exact name is
    missing any directory sharing the 200-unit prefix is taken (the first in name order).
    """
    sanitized = sanitize_path(project_path)
    exact = os.path.join(projects, sanitized)
    if os.path.isdir(exact):
        return exact
    if len(sanitized) <= MAX_SANITIZED_LENGTH:
        return None
    prefix = sanitized[:MAX_SANITIZED_LENGTH] + "-"
    try:
        names = sorted(os.listdir(projects))
    except (FileNotFoundError, NotADirectoryError):
        return None
    for name in names:
        entry = os.path.join(projects, name)
        if name.startswith(prefix) and os.path.isdir(entry):
            return entry
    return None


@lru_cache(maxsize=50)
def _find_git_root_cached(resolved: str) -> str | None:
    current = resolved
    while True:
        try:
            os.stat(os.path.join(current, ".git"))
        except (OSError, ValueError):
            pass
        else:
            return spell_lexical(current)
        parent = dirname_lexical(current)
        if parent == current:
            return None
        current = parent


def find_git_root(start: str) -> str | None:
    """The nearest ancestor of ``start`` (lexically resolved) holding a ``.git`` file or directory."""
    return _find_git_root_cached(resolve_lexical(start))


def clear_git_root_cache() -> None:
    """Forget memoized git roots (after creating or removing repositories, e.g. in tests)."""
    _find_git_root_cached.cache_clear()


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _read_trimmed(path: str) -> str:
    return js_trim(_read(path))


def resolve_canonical_root(git_root: str) -> str:
    """The main checkout of a worktree, so that all worktrees of a repository share one memory.

    A ``.git`` file can say anything, so the worktree link is only followed when the main
    repository links back to this very worktree; otherwise (and on any error) ``git_root`` is used.
    """
    try:
        content = _read(os.path.join(git_root, ".git"))
        if not content.startswith("gitdir:"):
            return git_root
        worktree_git_dir = resolve_lexical(git_root, js_trim(content[len("gitdir:") :]))
        common_dir = resolve_lexical(worktree_git_dir, _read_trimmed(join_lexical(worktree_git_dir, "commondir")))
        if resolve_lexical(dirname_lexical(worktree_git_dir)) != join_lexical(common_dir, "worktrees"):
            return git_root
        back_link = os.path.realpath(_read_trimmed(join_lexical(worktree_git_dir, "gitdir")), strict=True)
        if back_link != join_lexical(os.path.realpath(git_root, strict=True), ".git"):
            return git_root
        if basename_lexical(common_dir) != ".git":
            return spell_lexical(common_dir)
        return spell_lexical(dirname_lexical(common_dir))
    except (OSError, ValueError):
        return git_root


def find_canonical_git_root(start: str) -> str | None:
    root = find_git_root(start)
    return None if root is None else resolve_canonical_root(root)


def project_root(cwd: str | None = None) -> str:
    """``realpath(cwd)`` in NFC: the key a session's project memory is filed under."""
    return spell_real(cwd or os.getcwd())


def validate_memory_path(raw: str | None, *, home: str | None) -> str | None:
    """A configured memory directory made absolute with one trailing ``/``, or None when unsafe.

    Refuses relative paths, the filesystem root and near-root paths, drive roots, UNC paths and
    NUL bytes. With a ``home`` (settings values; the override variable expands no ``~``), ``~/x``
    is taken under it, but ``~/`` alone (the whole home directory) and anything normalising to it
    or above it is refused.
    """
    if not raw:
        return None
    candidate = raw
    if home is not None and candidate.startswith(("~/", "~\\")):
        rest = candidate[2:]
        if normalize_lexical(rest or ".") in (".", ".."):
            return None
        candidate = join_lexical(home, rest)
    normalized = normalize_lexical(candidate).rstrip("/\\")
    if (
        not normalized.startswith(SEP)
        or utf16_len(normalized) < 3
        or _DRIVE_ROOT.match(normalized)
        or normalized.startswith(("\\\\", "//"))
        or "\0" in normalized
    ):
        return None
    return spell_lexical(normalized + SEP)


def auto_mem_path(project_root: str, *, settings: Settings, environment: Environment) -> str:
    """The auto-memory directory for a project, ending in exactly one ``/``.

    Order: the override env var, then ``autoMemoryDirectory`` from trusted settings (never the
    checked-in project file; an invalid first value falls back to the default rather than to a
    later source), then ``<memory base>/projects/<sanitized canonical root>/memory/``.
    """
    override = validate_memory_path(environment.memory_path_override, home=None)
    if override is not None:
        return override
    configured = claude_setting(settings, AUTO_MEMORY_DIRECTORY)
    if isinstance(configured, str):
        valid = validate_memory_path(configured, home=environment.home)
        if valid is not None:
            return valid
    root = spell_lexical(project_root)
    base = find_canonical_git_root(root) or root
    directory = join_lexical(memory_base(environment), "projects", sanitize_path(base), AUTO_MEM_DIRNAME)
    return spell_lexical(directory + SEP)


def auto_mem_entrypoint(auto_dir: str) -> str:
    return join_lexical(auto_dir, AUTO_MEM_ENTRYPOINT_NAME)


def team_mem_path(auto_dir: str) -> str:
    return join_lexical(auto_dir, "team") + SEP


def is_auto_mem_path(path: str, auto_dir: str) -> bool:
    """String prefix test only (no realpath), so the directory itself without ``/`` does not match."""
    return spell_lexical(path).startswith(auto_dir)


def auto_memory_disabled_reason(settings: Settings, environment: Environment) -> str | None:
    """Why auto memory is off (naming the variable or setting to change), or None when it is on."""
    disable = environment.disable_auto_memory
    if env_truthy(disable):
        return f"{ENV_DISABLE}={disable} is set; unset it to turn auto memory on"
    if env_defined_falsy(disable):
        return None
    if env_truthy(environment.simple):
        return f"{ENV_SIMPLE} (bare mode) is set; auto memory is off in bare mode"
    if env_truthy(environment.remote) and not environment.remote_memory_dir:
        return f"{ENV_REMOTE} is set without {ENV_REMOTE_MEMORY_DIR}; set it to a memory directory"
    if claude_setting(settings, AUTO_MEMORY_ENABLED) is False:
        return f'"autoMemoryEnabled": false in {settings.origin("autoMemoryEnabled")}; remove it or set it to true'
    return None


def is_auto_memory_enabled(settings: Settings, environment: Environment) -> bool:
    """The reference's enable chain: env switches first, then the merged ``autoMemoryEnabled``."""
    return auto_memory_disabled_reason(settings, environment) is None
