"""Adding memdir's hooks to a coding agent's settings file, and taking them out again.

Each CLI keeps its hooks in a file of its own (:func:`settings_path`): Claude Code in
``settings.json`` (user, project or local), Codex CLI in ``hooks.json`` under its home or the
project's ``.codex/``, Gemini CLI in the ``hooks`` of ``~/.gemini/settings.json`` or the
project's ``.gemini/settings.json``. All three nest them the same way (event -> groups ->
commands), with each CLI's event names and timeout unit (:mod:`memdir.integrations.hooks.coding_agents`).

The file belongs to the user and to other tools, so the merge touches only memdir's own
hook entries: a command whose words before ``hook`` include the memdir executable (``memdir``,
``.../bin/memdir`` or ``-m memdir.cli``) and whose word after it (or after ``--agent NAME``) is
one of memdir's events.
Installing twice replaces memdir's entries instead of adding more; uninstalling removes them and
any group or event list left empty by that. A file that is not valid JSON is refused and left as
it is. Writes are atomic.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from memdir.config import read_environment
from memdir.environment import Environment
from memdir.errors import ConfigError
from memdir.integrations.hooks.coding_agents import AGENTS, CLAUDE_CODE, CodingAgent, find_agent
from memdir.paths import project_root
from memdir.store.files import write_json

__all__ = [
    "SCOPES",
    "InstallResult",
    "Scope",
    "hook_command_prefix",
    "hook_entry",
    "install_hooks",
    "is_memdir_command",
    "load_settings",
    "plugin_enabled_in",
    "settings_path",
    "uninstall_hooks",
]

Scope = Literal["user", "project", "local"]
SCOPES: tuple[Scope, ...] = ("user", "project", "local")


@dataclass(frozen=True)
class InstallResult:
    path: str
    events: tuple[str, ...]  # the CLI's event names touched
    removed: int  # memdir entries taken out (replaced on install)
    written: bool


def settings_path(
    scope: Scope,
    *,
    config_home: str,
    project: str | None = None,
    agent: str = CLAUDE_CODE.name,
    environment: Environment | None = None,
) -> str:
    """The file holding ``agent``'s hooks at ``scope``.

    Claude Code: the user's ``settings.json`` under ``config_home``, else the project's shared or
    local one. Codex CLI: ``hooks.json`` in ``$CODEX_HOME`` (``~/.codex``) or the project's
    ``.codex/``. Gemini CLI: ``settings.json`` in ``~/.gemini`` or the project's ``.gemini/``.
    Neither of those two has a local scope.
    """
    coding_agent = find_agent(agent)
    if coding_agent is CLAUDE_CODE:
        if scope == "user":
            return os.path.join(config_home, "settings.json")
        root = project_root(project)
        name = "settings.json" if scope == "project" else "settings.local.json"
        return os.path.join(root, ".claude", name)
    if scope == "local":
        raise ConfigError(
            f"{coding_agent.title} has no local settings file; use --scope user or --scope project", rule="hook-scope"
        )
    folder, name = (".codex", "hooks.json") if coding_agent.name == "codex" else (".gemini", "settings.json")
    if scope == "project":
        return os.path.join(project_root(project), folder, name)
    env = environment or read_environment()
    if coding_agent.name == "codex" and env.codex_home:
        return os.path.join(env.codex_home, name)
    return os.path.join(env.home, folder, name)


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
        if word != "hook":
            continue
        rest = words[i + 1 :]
        agent = CLAUDE_CODE
        if len(rest) >= 3 and rest[0] == "--agent" and rest[1] in AGENTS:
            agent, rest = AGENTS[rest[1]], rest[2:]
        if rest[0] in agent.events:
            before = words[:i]
            return any(os.path.basename(w) == "memdir" or w == "memdir.cli" for w in before)
    return False


def load_settings(path: str) -> dict[str, Any]:
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


def plugin_enabled_in(*, config_home: str, project: str | None = None) -> str | None:
    """The settings file that enables memdir's Claude Code plugin (``memdir@<marketplace>``), or None.

    The plugin runs the same hooks: with both, each prompt would be recalled twice, so ``memdir
    hooks install`` says so. A file that cannot be read is no answer here (install reports it).
    """
    for scope in SCOPES:
        path = settings_path(scope, project=project, config_home=config_home)
        try:
            enabled = load_settings(path).get("enabledPlugins")
        except ConfigError:
            continue
        if isinstance(enabled, dict) and any(k.startswith("memdir@") and v is True for k, v in enabled.items()):
            return path
    return None


def hook_entry(agent: CodingAgent, verb: str, prefix: Sequence[str]) -> dict[str, Any]:
    """The hook entry that runs ``memdir hook <verb>`` for ``agent``, in that CLI's words."""
    words = [*prefix, "hook", verb] if agent is CLAUDE_CODE else [*prefix, "hook", "--agent", agent.name, verb]
    entry: dict[str, Any] = {"type": "command", "command": shlex.join(words)}
    if agent.name == "gemini":
        entry["name"] = f"memdir {verb}"  # how Gemini's /hooks lists it
    entry.update(agent.extra.get(verb, {}))
    entry["timeout"] = agent.timeouts[verb] * agent.timeout_scale
    return entry


def install_hooks(
    scope: Scope = "user",
    *,
    config_home: str,
    project: str | None = None,
    global_options: Sequence[str] = (),
    events: Sequence[str] | None = None,
    agent: str = CLAUDE_CODE.name,
    environment: Environment | None = None,
) -> InstallResult:
    """Merge memdir's hook entries into the scope's settings file of ``agent``, replacing earlier
    memdir entries (placed last in each event's list, so the other hooks keep their positions)."""
    coding_agent = find_agent(agent)
    path = settings_path(scope, project=project, config_home=config_home, agent=agent, environment=environment)
    data = load_settings(path)
    hooks: dict[str, Any] = data.setdefault("hooks", {})
    removed, _ = _strip(hooks)
    prefix = hook_command_prefix(global_options)
    touched = []
    for verb in coding_agent.events if events is None else events:
        event = coding_agent.events[verb]
        hooks.setdefault(event, []).append({"hooks": [hook_entry(coding_agent, verb, prefix)]})
        touched.append(event)
    write_json(path, data)
    return InstallResult(path=path, events=tuple(touched), removed=removed, written=True)


def uninstall_hooks(
    scope: Scope = "user",
    *,
    config_home: str,
    project: str | None = None,
    agent: str = CLAUDE_CODE.name,
    environment: Environment | None = None,
) -> InstallResult:
    """Remove memdir's entries only; a file without any is not rewritten."""
    path = settings_path(scope, project=project, config_home=config_home, agent=agent, environment=environment)
    data = load_settings(path)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return InstallResult(path=path, events=(), removed=0, written=False)
    removed, events = _strip(hooks)
    if not removed:
        return InstallResult(path=path, events=(), removed=0, written=False)
    if not hooks:
        del data["hooks"]
    write_json(path, data)
    return InstallResult(path=path, events=tuple(sorted(events)), removed=removed, written=True)
