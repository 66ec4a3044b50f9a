"""``memdir extract``: run the extraction agent once over a conversation file."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator

import click

from memdir.agent_transcripts import file_agent
from memdir.cli.main import CliState, cli, echo_json, pass_state
from memdir.conversation import ConversationMessage, load_conversation, parse_transcript_lines
from memdir.errors import LockTimeout
from memdir.extract.cursor import cursor_state_path, load_cursor, session_id_from_transcript
from memdir.extract.extractor import NO_NEW_MESSAGES
from memdir.extract.result import ExtractionResult
from memdir.extract.window import window_since
from memdir.store.files import lock_directory
from memdir.store.provenance import acting_as

__all__ = ["extract"]

# One run of a session at a time: a Stop run and the SessionEnd run right after it must not both
# send the same turn to the model. A run can take minutes (several model calls), hence the wait.
SESSION_LOCK_SECONDS = 600.0
_REPLY = re.compile(r"^(?:[0-9a-f]{16}|new)$")


@contextlib.contextmanager
def _one_run_per_session(cursor_file: str | None) -> Iterator[None]:
    if cursor_file is None:
        yield
        return
    with lock_directory(os.path.dirname(cursor_file), timeout=SESSION_LOCK_SECONDS):
        yield


def _wait(
    transcript: str, *, wait: float, cursor: str | None, reply: str | None, prompt_id: str | None
) -> tuple[bool, str]:
    """Wait (``--wait``) for the transcript to hold the turn; whether it exists, and how the wait went."""
    if wait <= 0:
        return True, "read at once"
    from memdir.integrations.hooks.turn_wait import wait_for_turn

    turn = wait_for_turn(transcript, timeout=wait, cursor=cursor, reply=reply, prompt_id=prompt_id)
    return turn.exists, f"{turn.reason} ({turn.waited:.2f} s)"


def _read(transcript: str, *, waited: bool) -> list[ConversationMessage]:
    """The conversation as it is now; after a wait, only complete lines and nothing for a missing file."""
    if not waited or not transcript.endswith(".jsonl"):
        return load_conversation(transcript)
    from memdir.integrations.hooks.turn_wait import read_complete_lines

    lines = read_complete_lines(transcript)
    return [] if lines is None else parse_transcript_lines(lines, source=transcript)


@cli.command(
    epilog="""\b
Examples:
  memdir extract --transcript ~/.claude/projects/-home-me-app/3f2a9c1e-....jsonl
  memdir extract --transcript conversation.json --model anthropic:claude-sonnet-4-6 --json
  MEMDIR_MODEL=openai:gpt-4o-mini memdir extract --transcript session.jsonl --all
  memdir extract --transcript 3f2a9c1e-....jsonl --wait 10 --reply new --log extract.log
"""
)
@click.option(
    "--transcript",
    required=True,
    type=click.Path(dir_okay=False),
    help="A Claude Code transcript (.jsonl) or memdir message JSON.",
)
@click.option("--model", "model_spec", default=None, help="Model spec (else MEMDIR_MODEL, else settings memdir.model).")
@click.option("--all", "whole", is_flag=True, help="Ignore the saved cursor and look at the whole conversation.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: skipped, written, turns, denied, error.")
@click.option(
    "--wait",
    type=click.FloatRange(0, 600),
    default=0.0,
    show_default=True,
    help="Wait up to this many seconds for the transcript to hold the turn (it may not be written yet).",
)
@click.option(
    "--reply",
    default=None,
    help="The turn to wait for: its last reply's digest (16 hex digits of SHA-256), or 'new' for any new reply.",
)
@click.option("--prompt-id", default=None, help="The turn's prompt id (transcripts of Claude Code 2.1.330+).")
@click.option(
    "--log",
    "log_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Append one line saying what was read and written, or why nothing was.",
)
@pass_state
def extract(
    state: CliState,
    transcript: str,
    model_spec: str | None,
    whole: bool,
    as_json: bool,
    wait: float,
    reply: str | None,
    prompt_id: str | None,
    log_file: str | None,
) -> None:
    """Save what a conversation taught into memory, with the background extraction agent.

    For a Claude Code transcript the cursor is kept per session (next to the transcript, in
    <configHome>/projects/<project>/<sessionId>/memdir-extract.json), so running this after
    every turn looks only at the new messages; runs of one session take turns. Exits 1 when the
    model call fails.
    """
    if reply is not None and not _REPLY.match(reply):
        raise click.BadParameter(f"{reply!r} is neither 16 hex digits nor 'new'", param_hint="--reply")
    if (reply is not None or prompt_id is not None) and wait <= 0:
        raise click.UsageError("--reply and --prompt-id name a turn to wait for: add --wait SECONDS")
    session_id = session_id_from_transcript(transcript)
    cursor_file = cursor_state_path(state.config, session_id) if session_id is not None else None
    who = f"session {session_id or os.path.basename(transcript)}"
    # The wait holds no lock: a run that waits in vain must not hold up the session's next one.
    # It looks for the turn after the cursor as it is now; the run reads the cursor again under the
    # lock, so what another run extracted meanwhile is not sent twice.
    saved = load_cursor(cursor_file) if cursor_file is not None and not whole else None
    exists, how = _wait(transcript, wait=wait, cursor=saved, reply=reply, prompt_id=prompt_id)
    messages: list[ConversationMessage] = []
    try:
        with _one_run_per_session(cursor_file):
            cursor = load_cursor(cursor_file) if cursor_file is not None and not whole else None
            messages = _read(transcript, waited=wait > 0) if exists else []
            if not messages:
                result = ExtractionResult(skipped="the conversation holds no messages yet", cursor=cursor)
            elif window_since(messages, cursor, state.config.memory_dir).count == 0:
                # Known before a model is built: a run after another one's (SessionEnd after Stop) stays cheap.
                result = ExtractionResult(skipped=NO_NEW_MESSAGES, cursor=cursor)
            else:
                extractor = state.session(model_spec=model_spec).extractor(cursor=cursor, cursor_file=cursor_file)
                # A Codex or Gemini session's extraction says which agent's conversation it read.
                agent = file_agent(transcript)
                by = f"extract:{agent + ':' if agent else ''}{session_id or os.path.basename(transcript)}"
                with acting_as(by, label="extract", session=session_id):
                    result = extractor.run_once(messages)
    except LockTimeout as exc:
        _log(log_file, f"{who}: gave up: {exc.message}")
        raise
    if log_file is not None:
        from memdir.integrations.hooks.log import describe_extraction, describe_read

        _log(log_file, f"{who}: {how}; {describe_read(messages)}; {describe_extraction(result)}")
    if as_json:
        echo_json(result.as_json())
    else:
        for denial in result.denied:
            click.echo(f"refused {denial.tool}: {denial.reason}", err=True)
        review = state.config.memdir.agent_writes == "review"
        click.echo(result.summary(proposed=review), err=result.error is not None)
        if (result.written or result.deleted) and review:
            click.echo("memdir.agentWrites is review: these are proposals, not yet memories; see 'memdir review'")
        for path in result.written:
            click.echo(f"  {path}")
    if result.error is not None:
        raise SystemExit(1)


def _log(log_file: str | None, text: str) -> None:
    if log_file is not None:
        from memdir.integrations.hooks.log import log_line

        log_line(log_file, "extract", text)
