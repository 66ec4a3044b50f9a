"""Adding memdir's hooks to a Claude Code settings file, and taking them out again.

The settings file belongs to the user and to other tools, so the merge touches only memdir's own
hook entries: a command whose words before ``hook`` include the memdir executable (``memdir``,
``.../bin/memdir`` or ``-m memdir.cli``) and whose word after it is one of memdir's events.
Installing twice replaces memdir's entries instead of adding more; uninstalling removes them and
any group or event list left empty by that. A file that is not valid JSON is refused and left as
it is. Writes are atomic.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from memdir.errors import ConfigError
from memdir.integrations.hooks import HOOK_EVENTS
from memdir.paths import project_root
from memdir.store.files import write_json

__all__ = [
    "SCOPES",
    "InstallResult",
    "Scope",
    "hook_command_prefix",
    "install_hooks",
    "is_memdir_command",
    "settings_path",
    "uninstall_hooks",
]

Scope = Literal["user", "project", "local"]
SCOPES: tuple[Scope, ...] = ("user", "project", "local")

# Per-event extras: recall must answer before the prompt goes out, so it gets a short timeout;
# Stop runs async because extraction only needs to start.
_EXTRA: Mapping[str, Mapping[str, Any]] = {
    "user-prompt-submit": {"timeout": 15},
    "session-start": {"timeout": 15},
    "stop": {"async": True, "timeout": 30},
    "pre-compact": {"timeout": 30},
    "session-end": {"timeout": 30},
}


@dataclass(frozen=True)
class InstallResult:
    path: str
    events: tuple[str, ...]  # Claude Code event names touched
    removed: int  # memdir entries taken out (replaced on install)
    written: bool


def settings_path(scope: Scope, *, config_home: str, project: str | None = None) -> str:
    """The settings file of ``scope``: the user's under ``config_home``, else the project's shared or local one."""
    if scope == "user":
        return os.path.join(config_home, "settings.json")
    root = project_root(project)
    name = "settings.json" if scope == "project" else "settings.local.json"
    return os.path.join(root, ".claude", name)


def hook_command_prefix(global_options: Sequence[str] = ()) -> list[str]:
    """The memdir console script beside this interpreter when there is one, else ``python -m memdir.cli``."""
    script = os.path.join(os.path.dirname(sys.executable), "memdir")
    base = [script] if os.access(script, os.X_OK) else [sys.executable, "-m", "memdir.cli"]
    return [*base, *global_options]


def is_memdir_command(command: object) -> bool:
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    for i, word in enumerate(words[:-1]):
        if word == "hook" and words[i + 1] in HOOK_EVENTS:
            before = words[:i]
            return any(os.path.basename(w) == "memdir" or w == "memdir.cli" for w in before)
    return False


def _load(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(
            f"{path} is not valid JSON ({exc}); fix it by hand, then run the command again (file left unchanged)",
            rule="settings-json",
            path=path,
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object; file left unchanged", rule="settings-json", path=path)
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise ConfigError(f'{path}: "hooks" must be an object; file left unchanged', rule="settings-json", path=path)
    return data


def _strip(hooks: dict[str, Any]) -> tuple[int, set[str]]:
    """Remove memdir's entries in place; returns how many and which events they were under."""
    removed = 0
    events: set[str] = set()
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                kept_groups.append(group)
                continue
            kept = [h for h in inner if not (isinstance(h, dict) and is_memdir_command(h.get("command")))]
            if len(kept) == len(inner):
                kept_groups.append(group)
                continue
            removed += len(inner) - len(kept)
            events.add(event)
            if kept:
                kept_groups.append({**group, "hooks": kept})
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    return removed, events


def _write(path: str, data: dict[str, Any]) -> None:
    write_json(path, data)


def install_hooks(
    scope: Scope = "user",
    *,
    config_home: str,
    project: str | None = None,
    global_options: Sequence[str] = (),
    events: Sequence[str] = tuple(HOOK_EVENTS),
) -> InstallResult:
    """Merge memdir's hook entries into the scope's settings file, replacing earlier memdir entries."""
    path = settings_path(scope, project=project, config_home=config_home)
    data = _load(path)
    hooks: dict[str, Any] = data.setdefault("hooks", {})
    removed, _ = _strip(hooks)
    prefix = hook_command_prefix(global_options)
    touched = []
    for verb in events:
        event = HOOK_EVENTS[verb]
        entry = {"type": "command", "command": shlex.join([*prefix, "hook", verb]), **_EXTRA.get(verb, {})}
        hooks.setdefault(event, []).append({"hooks": [entry]})
        touched.append(event)
    _write(path, data)
    return InstallResult(path=path, events=tuple(touched), removed=removed, written=True)


def uninstall_hooks(scope: Scope = "user", *, config_home: str, project: str | None = None) -> InstallResult:
    """Remove memdir's entries only; a file without any is not rewritten."""
    path = settings_path(scope, project=project, config_home=config_home)
    data = _load(path)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return InstallResult(path=path, events=(), removed=0, written=False)
    removed, events = _strip(hooks)
    if not removed:
        return InstallResult(path=path, events=(), removed=0, written=False)
    if not hooks:
        del data["hooks"]
    _write(path, data)
    return InstallResult(path=path, events=tuple(sorted(events)), removed=removed, written=True)
