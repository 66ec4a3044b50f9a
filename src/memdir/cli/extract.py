"""``memdir extract``: run the extraction agent once over a conversation file."""

from __future__ import annotations

import os

import click

from memdir.cli.main import CliState, cli, echo_json, pass_state
from memdir.conversation import load_conversation
from memdir.extract.cursor import cursor_state_path, load_cursor, session_id_from_transcript
from memdir.store.provenance import acting_as

__all__ = ["extract"]


@cli.command(
    epilog="""\b
Examples:
  memdir extract --transcript ~/.claude/projects/-home-me-app/3f2a9c1e-....jsonl
  memdir extract --transcript conversation.json --model anthropic:claude-sonnet-4-6 --json
  MEMDIR_MODEL=openai:gpt-4o-mini memdir extract --transcript session.jsonl --all
"""
)
@click.option(
    "--transcript",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A Claude Code transcript (.jsonl) or memdir message JSON.",
)
@click.option("--model", "model_spec", default=None, help="Model spec (else MEMDIR_MODEL, else settings memdir.model).")
@click.option("--all", "whole", is_flag=True, help="Ignore the saved cursor and look at the whole conversation.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: skipped, written, turns, denied, error.")
@pass_state
def extract(state: CliState, transcript: str, model_spec: str | None, whole: bool, as_json: bool) -> None:
    """Save what a conversation taught into memory, with the background extraction agent.

    For a Claude Code transcript the cursor is kept per session (next to the transcript, in
    <configHome>/projects/<project>/<sessionId>/memdir-extract.json), so running this after
    every turn looks only at the new messages. Exits 1 when the model call fails.
    """
    session_id = session_id_from_transcript(transcript)
    cursor_file = cursor_state_path(state.config, session_id) if session_id is not None else None
    cursor = load_cursor(cursor_file) if cursor_file is not None and not whole else None
    extractor = state.session(model_spec=model_spec).extractor(cursor=cursor, cursor_file=cursor_file)
    with acting_as(f"extract:{session_id or os.path.basename(transcript)}", label="extract"):
        result = extractor.run_once(load_conversation(transcript))
    if as_json:
        echo_json(result.as_json())
    else:
        for denial in result.denied:
            click.echo(f"refused {denial.tool}: {denial.reason}", err=True)
        click.echo(result.summary(), err=result.error is not None)
        for path in result.written:
            click.echo(f"  {path}")
    if result.error is not None:
        raise SystemExit(1)
