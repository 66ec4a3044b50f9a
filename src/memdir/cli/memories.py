"""``memdir add | list | show | rm``: managing memories by hand or from scripts."""

from __future__ import annotations

import sys

import click

from memdir.cli.main import CliState, cli, echo_json, pass_state
from memdir.model.memory import MEMORY_TYPES, Memory, MemoryType
from memdir.recall.manifest import iso_mtime

__all__ = ["add", "list_memories", "rm", "show"]


@cli.command(
    epilog="""\b
Examples:
  memdir add --type user --name "Role" --description "Leads the payments team; prefers short reviews"
  echo "Never mock the DB.\\n**Why:** a mock hid a broken migration." | \\
    memdir add --type feedback --name "Real DB in tests" --description "Integration tests hit a real DB" --body -
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
@click.option("--force", is_flag=True, help="Replace an existing file of the same name.")
@pass_state
def add(state: CliState, type_: str, name: str, description: str, body: str, file_: str | None, force: bool) -> None:
    """Save a memory and add (or replace) its line in MEMORY.md."""
    text = sys.stdin.read() if body == "-" else body
    memory = Memory(name=name, description=description, type=MemoryType(type_), body=text.strip("\n"))
    result = state.memory_dir.save(memory, file=file_, force=force)
    verb = "created" if result.created else "replaced"
    click.echo(result.path)
    index_note = f"; {result.index_file} updated" if result.index_changed else ""
    click.echo(f"{verb} {result.file}{index_note}", err=True)


@cli.command(name="list", epilog="\b\nExamples:\n  memdir list\n  memdir list --json | jq '.[].file'")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def list_memories(state: CliState, as_json: bool) -> None:
    """List every memory, newest first."""
    headers = state.memory_dir.list()
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
                }
                for h in headers
            ]
        )
        return
    if not headers:
        click.echo(f"no memories in {state.memory_dir.root}", err=True)
    for h in headers:
        tag = f"[{h.type.value}] " if h.type else ""
        click.echo(f"{tag}{h.filename}: {h.description or '(no description)'}")


@cli.command(epilog="\b\nExamples:\n  memdir show feedback_testing.md")
@click.argument("file")
@pass_state
def show(state: CliState, file: str) -> None:
    """Print one memory file."""
    click.echo(state.memory_dir.read_text(file), nl=False)


@cli.command(epilog="\b\nExamples:\n  memdir rm project_release_freeze.md")
@click.argument("file")
@pass_state
def rm(state: CliState, file: str) -> None:
    """Delete a memory file and its line in MEMORY.md."""
    result = state.memory_dir.delete(file)
    parts = []
    if result.deleted:
        parts.append(f"deleted {result.file}")
    if result.index_changed:
        parts.append(f"removed its line from {result.index_file}")
    click.echo("; ".join(parts))
