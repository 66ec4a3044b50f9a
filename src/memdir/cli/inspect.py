"""``memdir path | init | prompt | recall | doctor``: what memdir resolves, shows and surfaces."""

from __future__ import annotations

import json
import re
from typing import TextIO

import click

from memdir.cli.main import CliState, cli, echo_json, pass_state
from memdir.cli.terminal import PROGRESS_MINIMUM, print_table, progress
from memdir.doctor.checks import DoctorReport, Problem, checked_and_loaded
from memdir.errors import ConfigError
from memdir.memory_session import MemorySession
from memdir.model.text import counted
from memdir.recall.batch import rank_batch
from memdir.recall.registry import find_selector, is_selector, selector_kinds
from memdir.recall.selector_protocol import RankingSelector
from memdir.store.files import ensure_dir
from memdir.store.provenance import recorded_as

__all__ = ["SelectorChoice", "doctor", "init", "path", "prompt", "recall"]


class SelectorChoice(click.Choice[str]):
    """``--selector``: the kinds the selector registry knows when the command runs, plugins
    included. A built-in or registered kind is accepted without looking further; the installed
    plugins are read only for another name (then click's refusal lists every kind) or for help."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return selector_kinds()

    @choices.setter
    def choices(self, value: tuple[str, ...]) -> None:
        """Ignored: the choices are the registry's."""

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if isinstance(value, str):
            if is_selector(value):
                return value
            try:
                find_selector(value)
            except ConfigError as exc:
                if exc.rule != "settings":  # an installed plugin that cannot be loaded: say why
                    self.fail(exc.message, param, ctx)
        return super().convert(value, param, ctx)


@cli.command(epilog="\b\nExamples:\n  memdir path\n  memdir --project ~/code/app path --json")
@click.option("--json", "as_json", is_flag=True, help="Print JSON with every resolved path.")
@pass_state
def path(state: CliState, as_json: bool) -> None:
    """Print the memory directory of the project."""
    cfg = state.config
    if as_json:
        echo_json(
            {
                "memory_dir": cfg.memory_dir,
                "entrypoint": state.memory_dir.entrypoint,
                "team_dir": cfg.team_dir,
                "project_root": cfg.project_root,
                "transcripts_dir": cfg.transcripts_dir,
                "enabled": cfg.enabled,
                "disabled_reason": cfg.disabled_reason,
                "team_enabled": cfg.team_enabled,
            }
        )
        return
    click.echo(cfg.memory_dir)


@cli.command(epilog="\b\nExamples:\n  memdir init")
@pass_state
def init(state: CliState) -> None:
    """Create the memory directory (mode 0700) if it does not exist."""
    cfg = state.config
    ensure_dir(cfg.memory_dir)
    if cfg.team_enabled:
        ensure_dir(cfg.team_dir)
    click.echo(cfg.memory_dir)
    if not cfg.enabled:
        click.echo(f"note: auto memory is disabled ({cfg.disabled_reason})", err=True)


@cli.command(epilog="\b\nExamples:\n  memdir prompt\n  memdir prompt --json")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: the system section and the user context.")
@pass_state
def prompt(state: CliState, as_json: bool) -> None:
    """Print the memory section of the system prompt and the index block an agent receives."""
    session = MemorySession(state.config, memory_dir=state.memory_dir)
    section = session.system_prompt_section()
    context = session.user_context()
    if as_json:
        echo_json({"enabled": state.config.enabled, "system": section, "user_context": context})
        return
    if section is None:
        raise click.ClickException(f"auto memory is disabled ({state.config.disabled_reason})")
    click.echo(section)
    if context:
        click.echo(context)


@cli.command(
    epilog="""\b
Examples:
  memdir recall "how do we run the integration tests?"
  memdir recall "deploy the api" --recent-tool Bash --json
  memdir recall "why is the build slow?" --selector llm --model anthropic:claude-sonnet-4-6
  memdir recall --batch queries.jsonl --limit 10 --selector hybrid > ranked.jsonl
"""
)
@click.argument("query", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--recent-tool", "recent_tools", multiple=True, help="A tool used in this turn (repeatable).")
@click.option("--limit", type=click.IntRange(1, 1000), default=None, help="At most this many memories [5; batch: 10].")
@click.option(
    "--selector",
    "selector_kind",
    type=SelectorChoice(),
    default=None,
    help="Who picks: auto (default, settings memdir.selector: llm when a model is set, else lexical), llm, "
    "offline (hybrid when the embed extra is installed, else lexical), lexical, embedding or hybrid.",
)
@click.option("--model", "model_spec", default=None, help="Model spec for the llm selector (else MEMDIR_MODEL).")
@click.option(
    "--batch",
    "batch_file",
    type=click.File("r", encoding="utf-8"),
    default=None,
    help='Rank every query of a JSONL file ({"query": ...} per line; other keys pass through); "-" is stdin.',
)
@pass_state
def recall(
    state: CliState,
    query: str | None,
    as_json: bool,
    recent_tools: tuple[str, ...],
    limit: int | None,
    selector_kind: str | None,
    model_spec: str | None,
    batch_file: TextIO | None,
) -> None:
    """Show the memories recall would surface for a user message, exactly as an agent receives them."""
    if batch_file is not None:
        if query is not None:
            raise click.UsageError("give either a QUERY or --batch, not both")
        ranker = MemorySession(
            state.config, memory_dir=state.memory_dir, selector_kind=selector_kind or "offline", model_spec=model_spec
        ).selector
        if not isinstance(ranker, RankingSelector):
            raise click.UsageError("--batch ranks offline: use --selector offline, lexical, embedding or hybrid")
        candidates = state.memory_dir.headers()
        for line in rank_batch(batch_file, candidates, ranker, limit=limit or 10, source=batch_file.name):
            click.echo(json.dumps(line, ensure_ascii=False))
        return
    if query is None:
        raise click.UsageError("missing QUERY (or --batch FILE)")
    session = MemorySession(
        state.config, memory_dir=state.memory_dir, selector_kind=selector_kind, model_spec=model_spec
    )
    result = session.recaller.recall(query, recent_tools=recent_tools, limit=limit or 5)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    if as_json:
        echo_json(
            {
                "selector": result.selector,
                "notes": list(result.notes),
                "skipped": result.skipped,
                "memories": [
                    {
                        "file": m.file,
                        "path": m.path,
                        "header": m.header,
                        "content": m.content,
                        "truncated": m.truncated,
                    }
                    for m in result.memories
                ],
                "reminders": list(result.reminders),
            }
        )
        return
    if result.skipped:
        click.echo(f"recall skipped: {result.skipped}", err=True)
    elif not result.reminders:
        click.echo("no relevant memories", err=True)
    for reminder in result.reminders:
        click.echo(reminder)


@cli.command(
    epilog="""\b
Examples:
  memdir doctor
  memdir doctor --fix --json
  memdir doctor --stores
  memdir doctor --stores --fix
  memdir doctor --stores --fix --from ~/.claude/projects/-home-me-old-checkout/memory
"""
)
@click.option(
    "--fix",
    is_flag=True,
    help="Repair MEMORY.md: add missing lines, drop lines to missing files, shorten lines Claude Code would cut. "
    "With --stores: move stranded memories where they belong.",
)
@click.option(
    "--stores",
    is_flag=True,
    help="Check the memory stores under the config home instead: those of worktrees, of folders inside a "
    "repository and of projects that are gone, whose memories no session loads.",
)
@click.option(
    "--from",
    "sources",
    multiple=True,
    metavar="STORE",
    help="With --stores --fix: move this store's memories into this project's (when its own project is "
    "unknown, or to choose another). Repeatable.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
@recorded_as("doctor")
def doctor(state: CliState, fix: bool, stores: bool, sources: tuple[str, ...], as_json: bool) -> None:
    """Check every memory file and index, and say what Claude Code loads of MEMORY.md; exit 1
    when problems remain. With --stores, check the stores of other folders instead."""
    if stores or sources:
        from memdir.cli.stores import check_stores

        check_stores(state, fix=fix, as_json=as_json, sources=sources)
        return
    with progress("checking memories", minimum=PROGRESS_MINIMUM) as advance:
        report, loaded = checked_and_loaded(state.config, state.memory_dir, fix=fix, progress=advance)
    report = _with_settings_notes(state, _with_agent_hooks(state, report))
    from memdir.cli.stores import note_of, stranded_here

    stranded = stranded_here(state)
    if as_json:
        echo_json(
            {
                "ok": report.ok,
                "problems": [p.as_json() for p in report.problems],
                "fixed": list(report.fixed),
                "notes": [n.as_json() for n in report.notes],
                "claude_code": loaded.as_json(),
                "stranded": [store.as_json() for store in stranded],
            }
        )
    else:
        for index in report.fixed:
            click.echo(f"fixed {index}")
        rows = [(f"{p.file}:{p.line}" if p.line else p.file, p.rule, without_file(p)) for p in report.problems]
        count = len(rows)
        print_table(
            f"{counted(count, 'problem')} in {state.memory_dir.root}",
            ("file", "rule", "problem"),
            rows,
            lambda row: f"{row[0]}: [{row[1]}] {row[2]}",
        )
        for note in report.notes:
            click.echo(f"note: {note.file}: [{note.rule}] {without_file(note)}")
        for store in stranded:
            click.echo(note_of(store))
        click.echo(loaded.summary())
        for line, entry in loaded.load.dropped if loaded.load else ():
            click.echo(f"  past the cut, line {line}: {entry.file} ({entry.title})")
        if report.ok:
            click.echo(f"ok: {state.memory_dir.root}")
    if not report.ok:
        raise SystemExit(1)


def without_file(problem: Problem) -> str:
    """A problem's message without the file name (and line) it starts with: its row names them."""
    return re.sub(rf"^{re.escape(problem.file)}(?: line \d+)?:? ", "", problem.message, count=1)


def _with_settings_notes(state: CliState, report: DoctorReport) -> DoctorReport:
    """The report, plus a note for each settings mistake memdir kept a default for (an unknown key
    is often a newer memdir's, so a note, not a problem: it stops nothing)."""
    from dataclasses import replace

    found = state.config.settings_problems
    notes = [Problem(file=p.path or "settings", line=None, rule=p.rule, message=p.message) for p in found]
    return replace(report, notes=(*report.notes, *notes)) if notes else report


def _with_agent_hooks(state: CliState, report: DoctorReport) -> DoctorReport:
    """The report, plus memdir hooks Codex will not run (it skips untrusted hooks without a word);
    a note only when ``codex`` is not there to ask."""
    from dataclasses import replace

    from memdir.integrations.hooks.agent_setup import codex_trust_problems

    config = state.config
    found = codex_trust_problems(
        project=config.project_root, config_home=config.config_home, environment=config.environment
    )
    if not found:
        return report
    rule = "codex-hooks-untrusted"
    problems = [Problem(file=f.path, line=None, rule=rule, message=f.message) for f in found if f.checked]
    notes = [Problem(file=f.path, line=None, rule=rule, message=f.message) for f in found if not f.checked]
    return replace(report, problems=(*report.problems, *problems), notes=(*report.notes, *notes))
