"""``memdir instructions``: which instruction files an agent started here would load, and why."""

from __future__ import annotations

import click

from memdir.cli.main import CliState, cli, echo_json, pass_state
from memdir.instructions.agent_files import agent_instruction_files
from memdir.instructions.discovery import load_instructions
from memdir.instructions.files import MAX_MEMORY_CHARACTER_COUNT
from memdir.instructions.render import render_instructions

__all__ = ["instructions"]


@cli.command(
    epilog="""\b
Examples:
  memdir instructions
  memdir instructions --json | jq '.[] | select(.chars > 40000)'
  memdir instructions --touch src/api/handler.ts
  memdir instructions --render
"""
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print [{"path", "type", "included_from", "chars"}], then Codex\'s and Gemini\'s files with "agent".',
)
@click.option("--touch", "touched", multiple=True, help="Also show the conditional rules this file would attach.")
@click.option("--add-dir", "add_dirs", multiple=True, help="An --add-dir directory (loaded when enabled by env).")
@click.option("--render", is_flag=True, help="Print the user-context message the model receives.")
@pass_state
def instructions(
    state: CliState, as_json: bool, touched: tuple[str, ...], add_dirs: tuple[str, ...], render: bool
) -> None:
    """List the CLAUDE.md chain in context order: managed, user, project and local files, includes,
    then the memory indexes; then the AGENTS.md files Codex CLI and the GEMINI.md files Gemini CLI
    load here (memdir reads them, never writes them)."""
    chain = load_instructions(state.config, add_dirs=add_dirs)
    if as_json:
        others = agent_instruction_files(state.config)
        echo_json([*(file.as_json() for file in chain.files), *(file.as_json() for file in others)])
        return
    if render:
        click.echo(render_instructions(chain.files, skip_index=state.config.memdir.skip_index) or "")
        return
    others = agent_instruction_files(state.config)
    if chain.disabled:
        click.echo(f"instruction files are switched off: {chain.disabled}", err=True)
    for number, file in enumerate(chain.files, start=1):
        indent = "   " if file.included_from else ""
        click.echo(f"{number:>3}. {indent}[{file.type.value}] {file.path} ({file.chars} chars) - {file.reason}")
        if file.too_large:
            click.echo(
                f"     warning: over {MAX_MEMORY_CHARACTER_COUNT} characters; it is loaded whole, "
                "but consider trimming it",
                err=True,
            )
    if not chain.files and not chain.disabled:
        click.echo("no instruction files found", err=True)
    for skipped in chain.skipped:
        source = f" (from {skipped.included_from})" if skipped.included_from else ""
        click.echo(f"skipped {skipped.path}{source}: [{skipped.rule}] {skipped.detail}", err=True)
    for rule in chain.conditional:
        click.echo(f"conditional: {rule.path} applies to {', '.join(rule.globs)}")
    for agent, title in (("codex", "Codex CLI loads"), ("gemini", "Gemini CLI loads")):
        files = [file for file in others if file.agent == agent]
        if files:
            click.echo(f"{title}:")
        for number, other in enumerate(files, start=1):
            click.echo(f"{number:>3}. [{other.scope}] {other.path} ({other.chars} chars) - {other.reason}")
    for path in touched:
        matches = chain.rules_for(path)
        names = ", ".join(rule.path for rule in matches) or "no conditional rule"
        click.echo(f"touching {path} attaches: {names}")
