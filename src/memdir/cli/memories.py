"""``memdir add | list | show | rm``: managing memories by hand or from scripts."""

from __future__ import annotations

import sys
import time

import click

from memdir.cli.listing import all_headers, complete_memory_file, filter_headers, one_line, parse_since
from memdir.cli.main import CliState, cli, echo_json, fail, pass_state
from memdir.cli.terminal import is_terminal, print_table, show_text
from memdir.errors import MemoryExists, MemoryNotFound
from memdir.model.memory import Memory
from memdir.model.memory_type import MEMORY_TYPES, MemoryType
from memdir.model.timefields import is_expired, iso_mtime
from memdir.recall.surfacing import memory_age
from memdir.store.lookup import find_memory
from memdir.writes.near import Near, near_memories, save_unless_identical

__all__ = ["add", "list_memories", "rm", "show"]


@cli.command(
    epilog="""\b
Examples:
  memdir add --type user --name "Role" --description "Leads the payments team; prefers short reviews"
  printf 'Never mock the DB.\\n**Why:** a mock hid a broken migration.\\n' | \\
    memdir add --type feedback --name "Real DB in tests" --description "Integration tests hit a real DB" --body -
  memdir add --type project --name "Checkout latency" --description "Checkout p95 is 140 ms" \\
    --update project_checkout_latency.md
"""
)
@click.option(
    "--type",
    "type_",
    type=click.Choice([t.value for t in MEMORY_TYPES]),
    required=True,
    help="user, feedback, project or reference.",
)
@click.option("--name", required=True, help="Short title of the memory.")
@click.option("--description", required=True, help="One specific line; recall matches against it.")
@click.option("--body", default="", help="The memory text; '-' reads it from standard input.")
@click.option("--file", "file_", default=None, help="File name (default: <type>_<slug>.md).")
@click.option("--team", is_flag=True, help="Save it in team/, shared with the team by 'memdir team sync'.")
@click.option(
    "--force",
    is_flag=True,
    help="Save even when a memory says nearly the same word for word, and replace an existing file of the same name.",
)
@click.option(
    "--replaces",
    "replaces",
    default=None,
    metavar="FILE",
    shell_complete=complete_memory_file,
    help="Record that the new memory replaces this one (recall then shows it first and labels the old one).",
)
@click.option(
    "--update",
    "update_file",
    default=None,
    metavar="FILE",
    shell_complete=complete_memory_file,
    help="Replace the content of this existing memory instead of adding one (the file keeps its name).",
)
@pass_state
def add(
    state: CliState,
    type_: str,
    name: str,
    description: str,
    body: str,
    file_: str | None,
    force: bool,
    replaces: str | None,
    update_file: str | None,
    team: bool,
) -> None:
    """Save a memory and add (or replace) its line in MEMORY.md.

    Before saving, the memories that may already say the same are looked up (the offline ranking,
    with the sentence encoder where the embed extra is installed) and named with their dates, so the
    fact can be updated where it lives (--update FILE) or the new memory recorded as replacing one
    (--replaces FILE); at a terminal you are asked first. Only a memory nearly identical to one that
    exists is refused (exit 1; --force saves it anyway). Prints what it did on stdout: at a terminal,
    "created PATH; MEMORY.md updated"; piped, the path alone.
    """
    text = sys.stdin.read() if body == "-" else body
    memory = Memory(name=name, description=description, type=MemoryType(type_), body=text.strip("\n"))
    warn_long_description(description)
    if team:
        from memdir.store.names import default_filename

        file_ = file_ or default_filename(memory.type, name)
        file_ = file_ if file_.startswith("team/") else f"team/{file_}"
    if update_file is not None:
        if file_ is not None or replaces is not None:
            fail("--update names the file already; leave out --file and --replaces")
        _update(state, update_file, memory)
        return
    directory = state.memory_dir
    if replaces is not None:
        from memdir.model.relations import REPLACES_KEY
        from memdir.store.relations import with_relation

        memory = with_relation(memory, REPLACES_KEY, find_memory(directory, replaces))
    ranker = state.session().writer_ranker()
    asking = not force and replaces is None and is_terminal(sys.stdin) and is_terminal(sys.stdout)
    if asking:
        looked = [n for n in near_memories(directory, memory, ranker=ranker) if not n.identical]
        if looked:
            click.echo(_near_text(looked), err=True)
            if not click.confirm("Save it as a new memory anyway?", default=True, err=True):
                fail("not saved")
    try:
        result, near = save_unless_identical(directory, memory, file=file_, force=force, ranker=ranker)
    except MemoryExists as exc:
        existing = directory.relative(exc.path) if exc.path else file_
        if exc.rule == "identical":
            fail(
                f"not saved: {existing} already says this nearly word for word; change it with "
                f"--update {existing}, or add --force to save a second copy"
            )
        fail(f"{existing} already exists; add --force to replace it, or --file NAME to save under another name")
    if result.index_refused is not None:
        click.echo(f"memdir: saved {result.file} without an index line: {result.index_refused}", err=True)
    if near and not asking and replaces is None:
        click.echo(_near_text(near, saved=result.file), err=True)
    if not is_terminal(sys.stdout):
        click.echo(result.path)  # piped: the path alone, for scripts (path=$(memdir add ...))
        return
    verb = "created" if result.created else "replaced"
    index_note = f"; {result.index_file} updated" if result.index_changed else ""
    click.echo(f"{verb} {result.path}{index_note}")


def _near_text(near: list[Near], *, saved: str | None = None) -> str:
    """The memories that may already say what a new one says, with their dates, and what to do."""
    now_ms = time.time() * 1000
    lines = ["memdir: these memories may already say it:"]
    for n in near:
        age = memory_age(n.header.time_ms, now_ms)
        lines.append(f"  {n.header.filename} (saved {age}): {one_line(n.header.description or n.header.name)}")
    new = saved or "NEW"
    lines.append(
        f"  to keep one memory per fact: memdir add --update {near[0].header.filename} ... (change it in place),"
        f" or memdir relate {new} --replaces {near[0].header.filename} (the new one replaces it)"
    )
    return "\n".join(lines)


def warn_long_description(description: str) -> None:
    """Say so when a description is longer than ``doctor`` accepts: the memory is saved, but recall
    and the index show a description, not a paragraph."""
    from memdir.model.memory import long_description_warning

    warning = long_description_warning(description)
    if warning is not None:
        click.echo(f"memdir: {warning}", err=True)


def _update(state: CliState, file: str, memory: Memory) -> None:
    """Replace an existing memory's content, keeping its file name and its place in MEMORY.md."""
    directory = state.memory_dir
    rel = find_memory(directory, file)
    result = directory.save(memory, file=rel, force=True)
    if result.index_refused is not None:
        click.echo(f"memdir: saved {result.file} without an index line: {result.index_refused}", err=True)
    if not is_terminal(sys.stdout):
        click.echo(result.path)
        return
    index_note = f"; {result.index_file} updated" if result.index_changed else ""
    click.echo(f"updated {result.path}{index_note}")


@cli.command(
    name="list",
    epilog="""\b
Examples:
  memdir list
  memdir list --type feedback --since 7d
  memdir list --grep "postgres|database" --json | jq '.[].file'
""",
)
@click.option(
    "--type",
    "types",
    type=click.Choice([t.value for t in MEMORY_TYPES]),
    multiple=True,
    help="Only memories of this type (repeatable).",
)
@click.option(
    "--since",
    default=None,
    metavar="WHEN",
    help="Only memories changed since a date (2026-03-01) or within a span (90m, 12h, 7d, 2w).",
)
@click.option(
    "--grep",
    "pattern",
    default=None,
    metavar="REGEX",
    help="Only memories whose file, name or description matches (case-insensitive).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def list_memories(
    state: CliState, types: tuple[str, ...], since: str | None, pattern: str | None, as_json: bool
) -> None:
    """List every memory, newest first (a table on a terminal, one line per memory when piped)."""
    headers = filter_headers(
        all_headers(state.config, state.memory_dir),
        types=types,
        since_ms=parse_since(since, time.time()),
        pattern=pattern,
    )
    today = time.strftime("%Y-%m-%d")
    if as_json:
        echo_json(
            [
                {
                    "file": h.filename,
                    "path": h.path,
                    "type": h.type.value if h.type else None,
                    "name": h.name,
                    "description": h.description,
                    "mtime": iso_mtime(h.mtime_ms),
                    "expires": h.expires,
                    "expired": is_expired(h.expires, today),
                }
                for h in headers
            ]
        )
        return
    if not headers:
        filtered = bool(types or since or pattern)
        click.echo(f"no {'matching ' if filtered else ''}memories in {state.memory_dir.root}", err=True)
        return
    now_ms = time.time() * 1000
    drawn = is_terminal(sys.stdout)  # the age column is drawn only in the table
    rows = [
        (
            h.type.value if h.type else "",
            h.filename,
            memory_age(h.mtime_ms, now_ms) if drawn else "",
            (f"(expired {h.expires}) " if is_expired(h.expires, today) else "") + one_line(h.description),
        )
        for h in headers
    ]
    print_table(
        f"{len(rows)} {'memory' if len(rows) == 1 else 'memories'} in {state.memory_dir.root}",
        ("type", "file", "age", "description"),
        rows,
        lambda row: f"{f'[{row[0]}] ' if row[0] else ''}{row[1]}: {row[3] or '(no description)'}",
    )


@cli.command(
    epilog="\b\nExamples:\n  memdir show feedback_testing.md\n  memdir show feedback_testing.md --version 2\n"
    "  memdir show feedback_testing.md --json"
)
@click.argument("file", shell_complete=complete_memory_file)
@click.option("--version", "number", type=click.IntRange(min=1), default=None, help="A recorded version instead.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON, with where the memory came from.")
@pass_state
def show(state: CliState, file: str, number: int | None, as_json: bool) -> None:
    """Print one memory file (or one of its recorded versions).

    At a terminal a last line says where it came from and when it last changed; piped, the file alone.
    """
    from memdir.store.history_ops import provenance_json, provenance_line

    directory = state.memory_dir
    if number is not None:
        from memdir.cli.history import view_of

        view = view_of(state)
        file = view.find(file)
        text = view.text(file, number)
    else:
        file = find_memory(directory, file)
        text = directory.read_text(file)
    if as_json:
        rel = directory.relative(directory.resolve(file))
        echo_json({"file": rel, "version": number, "text": text, **provenance_json(directory, rel)})
        return
    show_text(text)
    if number is None and is_terminal(sys.stdout):
        line = provenance_line(directory, file)
        if line:
            click.echo(("" if text.endswith("\n") else "\n") + click.style(line, dim=True))


@cli.command(epilog="\b\nExamples:\n  memdir rm project_release_freeze.md")
@click.argument("file", shell_complete=complete_memory_file)
@pass_state
def rm(state: CliState, file: str) -> None:
    """Delete a memory file and its line in MEMORY.md."""
    try:
        file = find_memory(state.memory_dir, file)
    except MemoryNotFound:
        if not file.endswith(".md"):
            raise
        # no such file: delete still removes an index line left pointing at it (or says neither exists)
    result = state.memory_dir.delete(file)
    parts = []
    if result.deleted:
        parts.append(f"deleted {result.file}")
    if result.index_changed:
        parts.append(f"removed its line from {result.index_file}")
    if result.deleted and state.memory_dir.history is not None:
        parts.append(f"bring it back with: memdir restore {result.file}")
    click.echo("; ".join(parts))
