"""``memdir session status | show | update | compact``: session notes from a transcript.

Each command reads the conversation from a Claude Code transcript (``<sessionId>.jsonl``) or a
memdir message JSON file, so it can run from a hook after every turn; the session's cursors are
kept in ``state.json`` beside the notes between calls.
"""

from __future__ import annotations

import os

import click

from memdir.cli.main import CliState, cli, echo_json, pass_state
from memdir.conversation import ConversationMessage, load_conversation
from memdir.releases import Release, ReleaseFinder
from memdir.session_notes.compact import CompactionResult
from memdir.session_notes.notes import analyze_section_sizes
from memdir.session_notes.session import SessionNotes
from memdir.session_notes.tokens import rough_token_count

__all__ = ["session"]


def _memory(
    state: CliState,
    transcript: str | None,
    session_id: str | None,
    *,
    update: bool = False,
    model_spec: str | None = None,
) -> SessionNotes:
    """The session's notes; an ``update`` gets the session's model too (``--model``, else the configured one)."""
    session = state.session(model_spec=model_spec)
    return session.session_notes(session_id, transcript=transcript, with_model=update)


def _release(state: CliState, transcript: str | None) -> Release:
    """The Claude Code release writing this session: the transcript's own ``version`` comes first."""
    config = state.config
    if transcript is not None and config.release.hint.transcript is None:
        config = config._replace(release=ReleaseFinder(config.release.hint._replace(transcript=transcript)))
    return config.claude_code


def _compaction_json(release: Release) -> dict[str, object]:
    return {
        "version": str(release.version),
        "found_by": release.source,
        "uses_notes_at_compact": release.rules.session_compaction,
    }


def _compaction_line(release: Release) -> str:
    if release.rules.session_compaction:
        return f"Claude Code {release.version} ({release.source}): /compact can use these notes"
    return (
        f"Claude Code {release.version} ({release.source}) has no session-memory compaction: its /compact "
        "never reads these notes; `memdir session compact` and memdir's own agents still use them"
    )


def _messages(transcript: str) -> list[ConversationMessage]:
    return load_conversation(transcript)


_TRANSCRIPT = click.option(
    "--transcript",
    type=click.Path(dir_okay=False),
    required=True,
    help="Claude Code transcript (.jsonl) or memdir message JSON with the conversation.",
)
_SESSION_ID = click.option("--session-id", default=None, help="Session id (default: the transcript's file name).")
_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@cli.group(
    epilog="""\b
Examples:
  memdir session status --transcript ~/.claude/projects/-work-app/3f2a.jsonl
  memdir session update --transcript 3f2a.jsonl --model anthropic:claude-sonnet-4-6
  memdir session compact --transcript 3f2a.jsonl --json
"""
)
def session() -> None:
    """Session notes: rolling notes about the current session that survive context compaction."""


@session.command(
    epilog="""\b
Examples:
  memdir session status --transcript 3f2a.jsonl
  memdir session status --transcript conversation.json --session-id run-7 --json
"""
)
@_TRANSCRIPT
@_SESSION_ID
@_JSON
@pass_state
def status(state: CliState, transcript: str, session_id: str | None, as_json: bool) -> None:
    """Show the context size, the update cursor and whether an update is due."""
    memory = _memory(state, transcript, session_id)
    current = memory.status(_messages(transcript))
    release = _release(state, transcript)
    if as_json:
        echo_json({**current.to_json(), "claude_code": _compaction_json(release)})
        return
    click.echo(f"notes: {current.notes_path}{'' if current.notes_exist else ' (not created yet)'}")
    click.echo(f"tokens: {current.tokens}")
    click.echo(f"initialized: {'yes' if current.initialized else 'no'}")
    click.echo(f"tool calls since the last update: {current.tool_calls_since_update}")
    click.echo(f"update due: {'yes' if current.update_due else 'no'}")
    click.echo(_compaction_line(release))


@session.command(
    epilog="""\b
Examples:
  memdir session show --session-id 3f2a9c1e-0000-4000-8000-000000000001
  memdir session show --transcript 3f2a.jsonl --json
"""
)
@click.option("--transcript", type=click.Path(dir_okay=False), default=None, help="Transcript naming the session.")
@_SESSION_ID
@_JSON
@pass_state
def show(state: CliState, transcript: str | None, session_id: str | None, as_json: bool) -> None:
    """Print the session's notes."""
    memory = _memory(state, transcript, session_id)
    notes = memory.read_notes()
    if as_json:
        echo_json(
            {
                "path": memory.paths.notes,
                "exists": notes is not None,
                "content": notes,
                "tokens": None if notes is None else rough_token_count(notes),
                "sections": {} if notes is None else analyze_section_sizes(notes),
            }
        )
        return
    if notes is None:
        raise click.ClickException(
            f"no session notes at {memory.paths.notes} yet; run `memdir session update --transcript ...`"
        )
    click.echo(notes, nl=False)


@session.command(
    epilog="""\b
Examples:
  memdir session update --transcript 3f2a.jsonl
  memdir session update --transcript 3f2a.jsonl --force --model anthropic:claude-sonnet-4-6 --json
  memdir session update --transcript 3f2a.jsonl --session-id 3f2a --wait 10 --log session.log
"""
)
@_TRANSCRIPT
@_SESSION_ID
@click.option("--model", "model_spec", default=None, help="Model spec (default: MEMDIR_MODEL or memdir.model).")
@click.option("--force", is_flag=True, help="Update now, whatever the thresholds say.")
@click.option(
    "--wait",
    type=click.FloatRange(0, 600),
    default=0.0,
    show_default=True,
    help="Wait up to this many seconds for the transcript to exist and stop changing.",
)
@click.option(
    "--log",
    "log_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Append one line saying what was read and whether the notes changed.",
)
@_JSON
@pass_state
def update(
    state: CliState,
    transcript: str,
    session_id: str | None,
    model_spec: str | None,
    force: bool,
    wait: float,
    log_file: str | None,
    as_json: bool,
) -> None:
    """Update the notes when the update rule says so (always with --force)."""
    messages, how = _waited_messages(transcript, wait)
    if not messages and wait > 0:
        _log(log_file, f"session {session_id or transcript}: {how}; nothing to read, notes unchanged")
        return
    memory = _memory(state, transcript, session_id, update=True, model_spec=model_spec)
    outcome = memory.update(messages, force=force)
    if log_file is not None:
        from memdir.integrations.hooks.log import describe_read

        changed = {
            "not-due": f"notes unchanged: no update due (context ~{outcome.tokens} tokens)",
            "busy": "notes unchanged: another update of this session is running",
        }.get(outcome.reason, f"updated {outcome.notes_path} ({outcome.edits} edits)")
        _log(log_file, f"session {session_id or transcript}: {how}; {describe_read(messages)}; {changed}")
    if as_json:
        echo_json(
            {
                "updated": outcome.updated,
                "reason": outcome.reason,
                "path": outcome.notes_path,
                "created": outcome.created,
                "edits": outcome.edits,
                "denials": [{"tool": d.tool, "reason": d.reason} for d in outcome.denials],
                "turns": outcome.turns,
                "tokens": outcome.tokens,
            }
        )
        return
    if outcome.reason == "updated":
        click.echo(f"updated {outcome.notes_path} ({outcome.edits} edits)")
        for denial in outcome.denials:
            click.echo(f"refused {denial.tool}: {denial.reason}", err=True)
    elif outcome.reason == "busy":
        click.echo("skipped: another update of this session is running")
    else:
        click.echo(f"not due (context ~{outcome.tokens} tokens); use --force to update anyway")


def _waited_messages(transcript: str, wait: float) -> tuple[list[ConversationMessage], str]:
    """The conversation, after waiting up to ``wait`` seconds for Claude Code to write it."""
    if wait <= 0:
        return _messages(transcript), "read at once"
    from memdir.integrations.hooks.turn_wait import wait_for_turn

    turn = wait_for_turn(transcript, timeout=wait)
    how = f"{turn.reason} ({turn.waited:.2f} s)"
    return (_messages(transcript) if turn.exists else []), how


def _log(log_file: str | None, text: str) -> None:
    if log_file is not None:
        from memdir.integrations.hooks.log import log_line

        log_line(log_file, "session update", text)


@session.command(
    epilog="""\b
Examples:
  memdir session compact --transcript 3f2a.jsonl
  memdir session compact --transcript 3f2a.jsonl --auto-compact-threshold 160000 --json
"""
)
@_TRANSCRIPT
@_SESSION_ID
@click.option(
    "--auto-compact-threshold",
    type=click.IntRange(1),
    default=None,
    help="Fall back when the compacted context would still be this many tokens or more.",
)
@_JSON
@pass_state
def compact(
    state: CliState, transcript: str, session_id: str | None, auto_compact_threshold: int | None, as_json: bool
) -> None:
    """Compact from the notes: print the summary and the messages kept verbatim.

    When the notes cannot be used, says why ("compacted": false); compact the ordinary way then.
    """
    memory = _memory(state, transcript, session_id)
    outcome = memory.plan_compaction(
        _messages(transcript),
        transcript_path=os.path.abspath(transcript),
        auto_compact_threshold=auto_compact_threshold,
    )
    release = _release(state, transcript)
    if not isinstance(outcome, CompactionResult):
        if as_json:
            echo_json(
                {
                    "compacted": False,
                    "reason": outcome.reason,
                    "detail": outcome.detail,
                    "claude_code": _compaction_json(release),
                }
            )
        else:
            click.echo(f"no session-memory compaction: {outcome.detail}; compact the ordinary way")
            click.echo(_compaction_line(release))
        return
    kept = [message.uuid for message in outcome.kept]
    if as_json:
        echo_json(
            {
                "compacted": True,
                "claude_code": _compaction_json(release),
                "summary": outcome.summary,
                "kept": kept,
                "start_index": outcome.start_index,
                "was_truncated": outcome.was_truncated,
                "notes_path": outcome.notes_path,
                "pre_compact_tokens": outcome.pre_compact_tokens,
                "post_compact_tokens": outcome.post_compact_tokens,
            }
        )
        return
    click.echo(outcome.summary)
    click.echo(f"\n--- kept {len(kept)} messages verbatim: {' '.join(kept)}")
    click.echo(_compaction_line(release), err=True)
