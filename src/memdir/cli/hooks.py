"""``memdir hook <event>`` (run by Claude Code) and ``memdir hooks install | uninstall``."""

from __future__ import annotations

import click

from memdir.cli.hook_entry import run_hook_command
from memdir.cli.main import CliState, cli, pass_state
from memdir.config import read_environment
from memdir.integrations.hooks import HOOK_EVENTS
from memdir.integrations.hooks_install import SCOPES, Scope, install_hooks, uninstall_hooks
from memdir.paths import config_home

__all__ = ["hook", "hooks"]


@cli.command(
    epilog="""\b
Examples:
  echo '{"session_id":"s1","cwd":"/repo","prompt":"how do we deploy the api?"}' | memdir hook user-prompt-submit
  memdir hooks install    # writes the hook entries that call this command
"""
)
@click.argument("event", type=click.Choice(list(HOOK_EVENTS)))
@pass_state
def hook(state: CliState, event: str) -> None:
    """Handle one Claude Code hook event: JSON on stdin, JSON (or nothing) on stdout.

    Always exits 0: an error is one line on stderr and Claude Code carries on without memdir.
    """
    run_hook_command(event, project=state.project, memory_dir=state.memory_dir_option)


@cli.group(
    epilog="""\b
Examples:
  memdir hooks install
  memdir hooks install --scope project
  memdir hooks uninstall --scope local
"""
)
def hooks() -> None:
    """Add memdir's hooks to Claude Code's settings, or remove them."""


_SCOPE_HELP = (
    "user: <configHome>/settings.json; project: <project>/.claude/settings.json (shared); "
    "local: <project>/.claude/settings.local.json (yours)."
)


@hooks.command(
    epilog="""\b
Examples:
  memdir hooks install
  memdir --memory-dir ~/agent-memory hooks install --scope project
"""
)
@click.option("--scope", type=click.Choice(SCOPES), default="user", show_default=True, help=_SCOPE_HELP)
@pass_state
def install(state: CliState, scope: Scope) -> None:
    """Merge memdir's hook entries into a settings file, keeping every other hook.

    A global --memory-dir is written into the hook commands. Running it again replaces memdir's
    entries instead of adding more.
    """
    options = ["--memory-dir", state.memory_dir_option] if state.memory_dir_option else []
    home = config_home(read_environment())
    result = install_hooks(scope, project=state.project, config_home=home, global_options=options)
    replaced = f" (replaced {result.removed} earlier memdir entries)" if result.removed else ""
    click.echo(f"installed memdir hooks for {', '.join(result.events)} in {result.path}{replaced}")


@hooks.command(epilog="\b\nExamples:\n  memdir hooks uninstall\n  memdir hooks uninstall --scope project")
@click.option("--scope", type=click.Choice(SCOPES), default="user", show_default=True, help=_SCOPE_HELP)
@pass_state
def uninstall(state: CliState, scope: Scope) -> None:
    """Remove memdir's hook entries (and nothing else) from a settings file."""
    result = uninstall_hooks(scope, project=state.project, config_home=config_home(read_environment()))
    if result.removed:
        click.echo(f"removed {result.removed} memdir hook entries from {result.path}")
    else:
        click.echo(f"no memdir hooks in {result.path}")
