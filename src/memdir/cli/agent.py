"""``memdir agent path | prompt | snapshot``: memory of sub-agents, per agent type and scope."""

from __future__ import annotations

import click

from memdir.agents import SNAPSHOT_JSON, AgentMemory, AgentScope
from memdir.cli.main import CliState, cli, echo_json, pass_state
from memdir.config import watch_history

__all__ = ["agent"]

_agent_type = click.option("--agent-type", required=True, help="The agent's type, e.g. code-reviewer or plugin:agent.")
_scope = click.option(
    "--scope",
    type=click.Choice([s.value for s in AgentScope]),
    default="user",
    show_default=True,
    help="user (everywhere), project (checked in) or local (this project, this machine).",
)


def _memory(state: CliState, agent_type: str, scope: str) -> AgentMemory:
    config = state.config
    return AgentMemory.resolve(agent_type, scope, cwd=config.project_root, environment=config.environment)


@cli.group(
    epilog="""\b
Examples:
  memdir agent path --agent-type code-reviewer --scope project
  memdir agent prompt --agent-type code-reviewer
  memdir agent snapshot check --agent-type code-reviewer
"""
)
def agent() -> None:
    """Memory directories, prompts and snapshots of sub-agents."""


@agent.command(name="path", epilog="\b\nExamples:\n  memdir agent path --agent-type reviewer --scope local")
@_agent_type
@_scope
@pass_state
def agent_path(state: CliState, agent_type: str, scope: str) -> None:
    """Print the agent's memory directory."""
    click.echo(_memory(state, agent_type, scope).dir)


@agent.command(name="prompt", epilog="\b\nExamples:\n  memdir agent prompt --agent-type reviewer --scope project")
@_agent_type
@_scope
@pass_state
def agent_prompt(state: CliState, agent_type: str, scope: str) -> None:
    """Print the memory section appended to the agent's system prompt (its index inlined)."""
    if not state.config.enabled:
        raise click.ClickException(f"auto memory is disabled ({state.config.disabled_reason})")
    memory = _memory(state, agent_type, scope)
    # A print command creates nothing: the agent that runs with this prompt gets its folder then.
    prompt = memory.prompt(extra_guidelines=state.config.extra_guidelines, create=False)
    click.echo(prompt, nl=False)


@agent.command(
    name="snapshot",
    epilog="""\b
Examples:
  memdir agent snapshot check --agent-type reviewer
  memdir agent snapshot initialize --agent-type reviewer
  memdir agent snapshot replace --agent-type reviewer --json
  memdir agent snapshot mark --agent-type reviewer
""",
)
@click.argument("action", type=click.Choice(["check", "initialize", "replace", "mark"]))
@_agent_type
@_scope
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def agent_snapshot(state: CliState, action: str, agent_type: str, scope: str, as_json: bool) -> None:
    """Compare the project's snapshot (.claude/agent-memory-snapshots/<type>/) with the agent's memory,
    or apply it: initialize copies it in, replace drops local *.md files first, mark records it as seen."""
    memory = _memory(state, agent_type, scope)
    watch_history(state.config, memory.dir)
    check = memory.check_snapshot()
    copied: list[str] = []
    if action != "check":
        timestamp = memory.snapshot_timestamp()
        if timestamp is None:
            raise click.ClickException(
                f'no valid {SNAPSHOT_JSON} in {memory.snapshot_dir}; it must hold {{"updatedAt": "<timestamp>"}}'
            )
        if action == "initialize":
            copied = memory.initialize_from_snapshot(timestamp)
        elif action == "replace":
            copied = memory.replace_from_snapshot(timestamp)
        else:
            memory.mark_snapshot_synced(timestamp)
    if as_json:
        echo_json(
            {
                "action": check.action if action == "check" else action,
                "snapshot_timestamp": check.snapshot_timestamp,
                "snapshot_dir": memory.snapshot_dir,
                "memory_dir": memory.dir,
                "copied": copied,
            }
        )
        return
    if action == "check":
        click.echo(check.action)
        return
    for path in copied:
        click.echo(path)
    click.echo(f"{action}: {memory.dir} synced from snapshot", err=True)
