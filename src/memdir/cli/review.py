"""``memdir review``: the changes agents proposed while ``memdir.agentWrites`` is ``review``.

Extraction and the dream then write proposals, not memories (:mod:`memdir.store.review`); a
person lists them with their diffs, accepts or rejects them. A proposal whose file changed after
it was made is shown as stale and cannot be accepted, so it never overwrites that change.
"""

from __future__ import annotations

import sys

import click

from memdir.cli.main import CliState, cli, echo_json, fail, pass_state
from memdir.store.history_records import iso_time
from memdir.store.review import Review, open_review

__all__ = ["review"]


def _review(state: CliState) -> Review:
    return open_review(state.memory_dir, state.config.config_home)


@cli.group(
    invoke_without_command=True,
    epilog="""\b
Examples:
  memdir review
  memdir review --json
  memdir review accept 3
  memdir review reject --all
""",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON: id, file, change, by, at, run, stale, diff.")
@click.pass_context
def review(ctx: click.Context, as_json: bool) -> None:
    """List the changes agents proposed (memdir.agentWrites = review), each with its diff."""
    if ctx.invoked_subcommand is not None:
        return
    state = ctx.find_object(CliState)
    assert state is not None
    found = _review(state)
    proposals = found.proposals()
    if as_json:
        echo_json([found.as_json(proposal) for proposal in proposals])
        return
    mode = state.config.memdir.agent_writes
    if not proposals:
        click.echo(f"no proposals to review (memdir.agentWrites is {mode})", err=True)
        return
    for proposal in proposals:
        stale = "  STALE: the file changed since; it can only be rejected" if found.is_stale(proposal) else ""
        click.echo(
            f"#{proposal.id}  {proposal.change} {proposal.file}  by {proposal.by} at {iso_time(proposal.at)}{stale}"
        )
        click.echo(found.diff(proposal), nl=False)
    click.echo("accept with 'memdir review accept ID' (or --all); reject with 'memdir review reject ID' (or --all)")


def _settle(state: CliState, number: int | None, every: bool, accept: bool) -> None:
    if (number is None) == (not every):
        fail(f"review {'accept' if accept else 'reject'} needs a proposal ID or --all (see 'memdir review')", code=2)
    found = _review(state)
    verb = "accepted" if accept else "rejected"
    if number is not None:
        proposal = found.accept(number) if accept else found.reject(number)
        click.echo(f"{verb} #{proposal.id}: {proposal.change} {proposal.file}")
        return
    done, refused = found.settle_all(accept)
    for proposal in done:
        click.echo(f"{verb} #{proposal.id}: {proposal.change} {proposal.file}")
    for proposal, why in refused:
        click.echo(f"memdir: left #{proposal.id} ({proposal.file}) open: {why}", err=True)
    if not done and not refused:
        click.echo("no proposals to review", err=True)
    if refused:
        sys.exit(1)


@review.command(epilog="\b\nExamples:\n  memdir review accept 3\n  memdir review accept --all")
@click.argument("number", metavar="ID", type=int, required=False)
@click.option("--all", "every", is_flag=True, help="Every open proposal (stale ones are left and named).")
@pass_state
def accept(state: CliState, number: int | None, every: bool) -> None:
    """Apply a proposal to the memory directory (MEMORY.md follows); recorded as its agent's change."""
    _settle(state, number, every, True)


@review.command(epilog="\b\nExamples:\n  memdir review reject 3\n  memdir review reject --all")
@click.argument("number", metavar="ID", type=int, required=False)
@click.option("--all", "every", is_flag=True, help="Every open proposal.")
@pass_state
def reject(state: CliState, number: int | None, every: bool) -> None:
    """Drop a proposal; the memory directory is not changed."""
    _settle(state, number, every, False)
