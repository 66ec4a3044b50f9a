"""``memdir hook <event>`` (run by a coding agent) and ``memdir hooks install | uninstall``."""

from __future__ import annotations

import click

from memdir.cli.hook_entry import run_hook_command
from memdir.cli.main import CliState, cli, pass_state
from memdir.config import read_environment
from memdir.integrations.hooks.coding_agents import AGENT_NAMES, AGENTS, CLAUDE_CODE
from memdir.integrations.hooks.events import HOOK_EVENTS
from memdir.integrations.hooks.install import SCOPES, Scope, install_hooks, plugin_enabled_in, uninstall_hooks
from memdir.paths import config_home

__all__ = ["hook", "hooks"]

_AGENT = click.option(
    "--agent",
    type=click.Choice(AGENT_NAMES),
    default="claude-code",
    show_default=True,
    help="The coding agent: claude-code, codex (Codex CLI) or gemini (Gemini CLI).",
)


@cli.command(
    epilog="""\b
Examples:
  echo '{"session_id":"s1","cwd":"/repo","prompt":"how do we deploy the api?"}' | memdir hook user-prompt-submit
  echo '{"session_id":"s1","cwd":"/repo","prompt":"how do we deploy?"}' | memdir hook --agent gemini user-prompt-submit
  memdir hooks install    # writes the hook entries that call this command
"""
)
@_AGENT
@click.argument("event", type=click.Choice(list(HOOK_EVENTS)))
@pass_state
def hook(state: CliState, agent: str, event: str) -> None:
    """Handle one hook event of a coding agent: JSON on stdin, JSON (or nothing) on stdout.

    Always exits 0: an error is one line on stderr and the agent carries on without memdir.
    """
    run_hook_command(event, project=state.project, memory_dir=state.memory_dir_option, agent=agent)


@cli.group(
    epilog="""\b
Examples:
  memdir hooks install
  memdir hooks install --agent codex
  memdir hooks install --agent gemini --scope project --mcp
  memdir hooks uninstall --scope local
"""
)
def hooks() -> None:
    """Add memdir's hooks to Claude Code's, Codex CLI's or Gemini CLI's settings, or remove them."""


_SCOPE_HELP = (
    "user: your settings for every project; project: the repository's (shared); local: yours for this "
    "project (Claude Code only). Claude Code: <configHome>/settings.json, .claude/settings.json, "
    ".claude/settings.local.json; Codex: ~/.codex/hooks.json, .codex/hooks.json; Gemini: "
    "~/.gemini/settings.json, .gemini/settings.json."
)
_MCP_HELP = "Also register `memdir mcp` as the MCP server 'memdir' of the agent (with uninstall: remove it)."


@hooks.command(
    epilog="""\b
Examples:
  memdir hooks install
  memdir hooks install --agent codex --mcp
  memdir --memory-dir ~/agent-memory hooks install --scope project
"""
)
@_AGENT
@click.option("--scope", type=click.Choice(SCOPES), default="user", show_default=True, help=_SCOPE_HELP)
@click.option("--mcp", is_flag=True, help=_MCP_HELP)
@pass_state
def install(state: CliState, agent: str, scope: Scope, mcp: bool) -> None:
    """Merge memdir's hook entries into an agent's settings file, keeping every other hook.

    A global --memory-dir is written into the hook commands. Running it again replaces memdir's
    entries instead of adding more. For Codex, which runs only hooks it trusts, the hooks are
    then trusted through `codex app-server` (or it says how to trust them by hand).
    """
    options = ["--memory-dir", state.memory_dir_option] if state.memory_dir_option else []
    environment = read_environment()
    home = config_home(environment)
    result = install_hooks(
        scope, project=state.project, config_home=home, global_options=options, agent=agent, environment=environment
    )
    replaced = f" (replaced {result.removed} earlier memdir entries)" if result.removed else ""
    click.echo(f"installed memdir hooks for {', '.join(result.events)} in {result.path}{replaced}")
    if agent == "codex":
        from memdir.integrations.hooks.agent_setup import trust_codex_hooks
        from memdir.paths import project_root

        click.echo(trust_codex_hooks(result.path, cwd=project_root(state.project), environment=environment))
    if mcp:
        from memdir.integrations.hooks.agent_setup import register_mcp

        line = register_mcp(
            agent, scope, project=state.project, config_home=home, environment=environment, global_options=options
        )
        click.echo(line)
    if not AGENTS[agent].loads_memory:
        click.echo(f"{AGENTS[agent].title} sessions now share the memory directory {state.config.memory_dir}")
    plugin = plugin_enabled_in(config_home=home, project=state.project) if agent == CLAUDE_CODE.name else None
    if plugin is not None:
        click.echo(
            f"note: the memdir plugin for Claude Code is enabled in {plugin} and runs these hooks too, so each "
            "prompt would be recalled twice; keep one: 'memdir hooks uninstall' or 'claude plugin uninstall "
            "memdir@memdir'",
            err=True,
        )


@hooks.command(
    epilog="\b\nExamples:\n  memdir hooks uninstall\n  memdir hooks uninstall --agent gemini --scope project --mcp"
)
@_AGENT
@click.option("--scope", type=click.Choice(SCOPES), default="user", show_default=True, help=_SCOPE_HELP)
@click.option("--mcp", is_flag=True, help=_MCP_HELP)
@pass_state
def uninstall(state: CliState, agent: str, scope: Scope, mcp: bool) -> None:
    """Remove memdir's hook entries (and nothing else) from an agent's settings file."""
    environment = read_environment()
    home = config_home(environment)
    result = uninstall_hooks(scope, project=state.project, config_home=home, agent=agent, environment=environment)
    if result.removed:
        click.echo(f"removed {result.removed} memdir hook entries from {result.path}")
    else:
        click.echo(f"no memdir hooks in {result.path}")
    if mcp:
        from memdir.integrations.hooks.agent_setup import unregister_mcp

        click.echo(unregister_mcp(agent, scope, project=state.project, config_home=home, environment=environment))
