"""What ``memdir hooks install --agent …`` does besides writing the hooks: Codex's trust, and MCP.

* **Trust (Codex CLI).** Codex skips a hook it has not been told to trust, without a word. After
  the hooks are written, :func:`trust_codex_hooks` asks Codex itself (``codex app-server``,
  :mod:`memdir.integrations.hooks.codex_app`) for the hooks it sees and records memdir's as trusted;
  where ``codex`` cannot be run it says exactly how to do it by hand. :func:`codex_trust_problems`
  is the same question for ``memdir doctor``.
* **MCP.** With ``--mcp`` the installer registers ``memdir mcp`` the way each CLI configures MCP
  servers: ``[mcp_servers.memdir]`` in Codex's ``config.toml`` (written by Codex), ``mcpServers``
  in Gemini's ``settings.json``, and for Claude Code ``mcpServers`` in the project's ``.mcp.json``
  or the user's ``.claude.json``. Only the entry named ``memdir`` is written or removed.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Sequence
from typing import Any, NamedTuple

from memdir.environment import Environment
from memdir.errors import ConfigError
from memdir.integrations.hooks.codex_app import CodexApp, CodexHook, find_codex
from memdir.integrations.hooks.install import (
    Scope,
    hook_command_prefix,
    is_memdir_command,
    load_settings,
    settings_path,
)
from memdir.paths import project_root
from memdir.store.files import write_json

__all__ = ["TrustFinding", "codex_trust_problems", "register_mcp", "trust_codex_hooks", "unregister_mcp"]

MCP_NAME = "memdir"
_HOW_TO_TRUST = (
    "start Codex in this project, type /hooks and trust the memdir hooks, "
    "or run this command again where `codex` is on PATH"
)


def _ours(hooks: Sequence[CodexHook], path: str) -> list[CodexHook]:
    return [
        h for h in hooks if os.path.abspath(h.source_path) == os.path.abspath(path) and is_memdir_command(h.command)
    ]


def trust_codex_hooks(path: str, *, cwd: str, environment: Environment) -> str:
    """Record memdir's hooks in ``path`` as trusted by Codex; one line saying what happened."""
    codex = find_codex(environment.path)
    if codex is None:
        return f"Codex runs only hooks it trusts, and `codex` is not on PATH: {_HOW_TO_TRUST}"
    with CodexApp(codex, cwd=cwd) as app:
        ours = _ours(app.hooks(cwd), path)
        if not ours:
            return (
                f"Codex does not load {path} from {cwd} (a project's .codex/ counts only once Codex trusts the "
                "project: start Codex there and trust it), then run this command again"
            )
        pending = [h for h in ours if h.trust_status != "trusted"]
        app.trust(pending)
    return f"Codex trusts the {len(ours)} memdir hooks ({len(pending)} newly trusted)"


class TrustFinding(NamedTuple):
    """A Codex hooks file holding memdir hooks, and what is known of their trust."""

    path: str
    message: str
    checked: bool  # Codex itself said they are not trusted (else: no ``codex`` to ask)


def codex_trust_problems(*, project: str, config_home: str, environment: Environment) -> list[TrustFinding]:
    """Each Codex hooks file (the user's, the project's) holding memdir hooks that Codex will not
    run, or whose trust cannot be checked because ``codex`` is not on ``PATH``."""
    files = [
        settings_path(scope, config_home=config_home, project=project, agent="codex", environment=environment)
        for scope in ("user", "project")
    ]
    paths = [path for path in files if _has_memdir_hooks(path)]
    codex = find_codex(environment.path)
    if not paths or codex is None:
        message = f"`codex` is not on PATH to check these memdir hooks' trust; {_HOW_TO_TRUST}"
        return [TrustFinding(path, message, False) for path in paths]
    cwd = project_root(project)
    with CodexApp(codex, cwd=cwd) as app:  # one app-server: its answer lists the hooks of every layer
        hooks = app.hooks(cwd)
    found: list[TrustFinding] = []
    for path in paths:
        untrusted = [h for h in _ours(hooks, path) if h.trust_status != "trusted"]
        if untrusted:
            events = ", ".join(sorted({h.key.split(":")[-3] for h in untrusted}))
            message = (
                f"Codex skips {len(untrusted)} memdir hooks here ({events}): not trusted; "
                "run `memdir hooks install --agent codex` again, or trust them with /hooks in Codex"
            )
            found.append(TrustFinding(path, message, True))
    return found


def _has_memdir_hooks(path: str) -> bool:
    try:
        data = load_settings(path)
    except ConfigError:
        return False
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return False
    return any(
        isinstance(entry, dict) and is_memdir_command(entry.get("command"))
        for groups in hooks.values()
        if isinstance(groups, list)
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for entry in group["hooks"]
    )


def _server(global_options: Sequence[str]) -> dict[str, Any]:
    prefix = hook_command_prefix(global_options)
    return {"command": prefix[0], "args": [*prefix[1:], "mcp"]}


def _mcp_json_path(agent: str, scope: Scope, *, project: str | None, config_home: str, environment: Environment) -> str:
    """The JSON file holding ``mcpServers`` for Gemini CLI or Claude Code at ``scope``."""
    if agent == "gemini":
        return settings_path(scope, config_home=config_home, project=project, agent=agent, environment=environment)
    if scope == "project":
        return os.path.join(project_root(project), ".mcp.json")
    if scope == "user":
        base = environment.claude_config_dir or environment.home
        return os.path.join(base, ".claude.json")
    raise ConfigError(
        "Claude Code's local MCP servers live in ~/.claude.json per project: use `claude mcp add`", rule="mcp-scope"
    )


def register_mcp(
    agent: str,
    scope: Scope,
    *,
    project: str | None,
    config_home: str,
    environment: Environment,
    global_options: Sequence[str] = (),
) -> str:
    """Register ``memdir mcp`` as the MCP server ``memdir`` of ``agent``; one line saying where."""
    server = _server(global_options)
    if agent == "codex":
        codex = find_codex(environment.path)
        args = shlex.join([server["command"], *server["args"]])
        if codex is None:
            return f"`codex` is not on PATH: register the MCP server with `codex mcp add {MCP_NAME} -- {args}`"
        cwd = project_root(project)
        target = None if scope == "user" else os.path.join(cwd, ".codex", "config.toml")
        with CodexApp(codex, cwd=cwd) as app:
            app.set_value(f"mcp_servers.{MCP_NAME}", server, file_path=target)
        return f"registered the MCP server {MCP_NAME} in {target or 'Codex config.toml'}"
    path = _mcp_json_path(agent, scope, project=project, config_home=config_home, environment=environment)
    data = load_settings(path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError(
            f'{path}: "mcpServers" must be an object; file left unchanged', rule="settings-json", path=path
        )
    servers[MCP_NAME] = {"type": "stdio", **server} if agent == "claude-code" else server
    write_json(path, data)
    return f"registered the MCP server {MCP_NAME} in {path}"


def _is_memdir_server(entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    args = entry.get("args")
    words = [entry.get("command"), *(args if isinstance(args, list) else [])]
    return "mcp" in words and any(os.path.basename(str(w)) == "memdir" or w == "memdir.cli" for w in words)


def unregister_mcp(agent: str, scope: Scope, *, project: str | None, config_home: str, environment: Environment) -> str:
    """Remove the MCP server ``memdir`` when it runs memdir; one line saying what happened."""
    if agent == "codex":
        codex = find_codex(environment.path)
        if codex is None:
            return f"`codex` is not on PATH: remove the MCP server with `codex mcp remove {MCP_NAME}`"
        try:
            done = subprocess.run([codex, "mcp", "remove", MCP_NAME], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConfigError(f"`codex mcp remove {MCP_NAME}` did not run: {exc}", rule="codex-app-server") from exc
        if done.returncode != 0:
            said = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return f"`codex mcp remove {MCP_NAME}` failed ({said}): remove it by hand"
        return f"removed the MCP server {MCP_NAME} from Codex"
    path = _mcp_json_path(agent, scope, project=project, config_home=config_home, environment=environment)
    data = load_settings(path)
    servers = data.get("mcpServers")
    entry = servers.get(MCP_NAME) if isinstance(servers, dict) else None
    if not isinstance(servers, dict) or not _is_memdir_server(entry):
        return f"no memdir MCP server in {path}"
    del servers[MCP_NAME]
    if not servers:
        del data["mcpServers"]
    write_json(path, data)
    return f"removed the MCP server {MCP_NAME} from {path}"
