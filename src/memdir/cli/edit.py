"""``memdir edit | mv | merge | relate``: changing a memory by hand, with the index and the links
and relations that reach it kept in step."""

from __future__ import annotations

import os
import sys
import tempfile

import click

from memdir.cli.listing import complete_memory_file
from memdir.cli.main import CliState, cli, fail, pass_state
from memdir.cli.terminal import is_terminal
from memdir.doctor.checks import check_memory_text
from memdir.model.index import IndexEntry, upsert_entry
from memdir.model.memory import Memory
from memdir.model.relations import DISTINCT_KEY, REPLACES_KEY
from memdir.store.files import FILE_MODE, lock_directory
from memdir.store.links import LinkResolver, link_key
from memdir.store.lookup import find_memory
from memdir.store.merge import merge_memories, relink
from memdir.store.relations import relate as relate_memories
from memdir.store.relations import repoint_relations, unrelate

__all__ = ["edit", "merge", "mv", "relate"]


@cli.command(
    epilog="""\b
Examples:
  memdir edit feedback_testing.md
  EDITOR="code --wait" memdir edit user_role.md
"""
)
@click.argument("file", shell_complete=complete_memory_file)
@pass_state
def edit(state: CliState, file: str) -> None:
    """Open a memory in $VISUAL or $EDITOR; check it on save, then write it and its MEMORY.md line.

    A file whose frontmatter would not load (no name or description, a value that is not plain
    text) is not saved: at a terminal you are asked to reopen it with your changes; otherwise the
    command refuses, and your text is kept in a file it names. The memory is never half-written.
    """
    directory = state.memory_dir
    record = directory.read(find_memory(directory, file))
    text = record.text
    while True:
        edited = click.edit(text, extension=".md", require_save=True)
        if edited is None or edited == record.text:
            click.echo(f"unchanged {record.file}")
            return
        problems = check_memory_text(record.file, edited)
        if not problems:
            break
        for problem in problems:
            click.echo(f"memdir: {problem}", err=True)
        text = edited
        if not (is_terminal(sys.stdin) and click.confirm("reopen the editor to fix it?", default=True, err=True)):
            fail(f"{record.file} was not changed; your text is kept in {_rescue(edited, record.file)}")
    memory = Memory.parse(edited)
    with lock_directory(directory.root, timeout=directory.lock_timeout):
        current = directory.read_text(record.file)
        if current != record.text:
            rescue = _rescue(edited, record.file)
            fail(f"{record.file} changed on disk while you edited it; not saved (your text is kept in {rescue})")
        if directory.stamp is not None:
            # A hand edit is a write like any other: its modified: stamp moves, as a save's (and the
            # web view's) does; the rest stays as typed.
            edited = _restamp(edited, directory.stamp())
        directory.update_text(record.file, lambda _: edited)
        index_note = ""
        if directory.index_read_only is None and memory.name and memory.description:
            index_path, target = directory.index_for(record.file)
            entry = IndexEntry(title=memory.name, file=target, hook=memory.description)
            if directory.rewrite_index(lambda current: upsert_entry(current, entry), index_path=index_path):
                index_note = f"; {directory.relative(index_path)} updated"
    click.echo(f"saved {record.path}{index_note}")


def _restamp(text: str, when: str) -> str:
    """``text`` with the value of its frontmatter's ``modified:`` line (top level or in
    ``metadata:``) set to ``when``; a text without one is returned as typed."""
    import re

    if not text.startswith("---"):
        return text
    end = text.find("\n---", 3)
    if end < 0:
        return text
    head = re.sub(r"(?m)^(\s*modified:)[^\n]*$", lambda m: f"{m.group(1)} {when}", text[:end], count=1)
    return head + text[end:]


def _rescue(text: str, file: str) -> str:
    """Keep text the user typed but that could not be saved, outside the memory directory."""
    stem = os.path.basename(file).removesuffix(".md")
    fd, path = tempfile.mkstemp(prefix=f"memdir-edit-{stem}-", suffix=".md")
    os.fchmod(fd, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


@cli.command(
    epilog="""\b
Examples:
  memdir mv feedback_testing.md feedback_integration_tests.md
  memdir mv project_freeze.md team/project_freeze.md
"""
)
@click.argument("old", shell_complete=complete_memory_file)
@click.argument("new")
@pass_state
def mv(state: CliState, old: str, new: str) -> None:
    """Rename or move a memory, repoint its MEMORY.md line and the [[links]] that reached it by its
    file name (never over an existing file)."""
    directory = state.memory_dir
    old = find_memory(directory, old)
    before = directory.relative(directory.resolve(old))
    by_stem = LinkResolver(directory.headers()).by_stem_only(before)
    result = directory.rename(old, new)
    note = f"; {result.index_file} updated" if result.index_changed else ""
    relinked: list[str] = []
    new_key = link_key(result.file)
    if by_stem is not None and link_key(before) != new_key:
        new_stem = result.file.rsplit("/", 1)[-1].removesuffix(".md")
        relinked = relink(directory, {link_key(before)}, new_stem, skip=frozenset({result.file}))
    if relinked:
        note += f"; links updated in {', '.join(relinked)}"
    related = repoint_relations(directory, {link_key(before)}, result.file, skip=frozenset({result.file}))
    if related:
        note += f"; relations updated in {', '.join(related)}"
    click.echo(f"moved {before} to {result.file}{note}")


@cli.command(
    epilog="""\b
Examples:
  memdir merge project_checkout_latency.md project_checkout_speed.md
"""
)
@click.argument("keep", shell_complete=complete_memory_file)
@click.argument("absorb", shell_complete=complete_memory_file)
@pass_state
def merge(state: CliState, keep: str, absorb: str) -> None:
    """Merge ABSORB into KEEP: KEEP keeps its file, name and description and gains ABSORB's text;
    ABSORB leaves MEMORY.md and the directory (its text stays in KEEP and in the local history),
    and [[links]] to ABSORB now reach KEEP."""
    directory = state.memory_dir
    result = merge_memories(directory, find_memory(directory, keep), find_memory(directory, absorb))
    note = f"; links updated in {', '.join(result.relinked)}" if result.relinked else ""
    click.echo(f"merged {result.removed} into {result.kept}{note}")


@cli.command(
    epilog="""\b
Examples:
  memdir relate project_pager_handover.md --replaces project_on_call.md
  memdir relate project_search_timeout.md --different project_checkout_timeout.md
  memdir relate project_pager_handover.md --forget project_on_call.md
"""
)
@click.argument("file", shell_complete=complete_memory_file)
@click.option(
    "--replaces",
    multiple=True,
    metavar="OTHER",
    shell_complete=complete_memory_file,
    help="FILE replaces OTHER: recall shows FILE first and labels OTHER as replaced (repeatable).",
)
@click.option(
    "--different",
    multiple=True,
    metavar="OTHER",
    shell_complete=complete_memory_file,
    help="FILE and OTHER are different facts: doctor stops proposing them, recall never orders them (repeatable).",
)
@click.option(
    "--forget",
    multiple=True,
    metavar="OTHER",
    help="Take back what FILE records about OTHER (repeatable).",
)
@pass_state
def relate(
    state: CliState, file: str, replaces: tuple[str, ...], different: tuple[str, ...], forget: tuple[str, ...]
) -> None:
    """Record what you decided about two memories, in FILE's frontmatter (a key Claude Code ignores,
    kept by team sync): FILE replaces another, or the two are different facts. Nothing is merged
    or deleted; the local history records the change and `memdir undo` takes it back."""
    if not (replaces or different or forget):
        fail("say what to record: --replaces OTHER, --different OTHER or --forget OTHER", code=2)
    directory = state.memory_dir
    rel = find_memory(directory, file)
    done: list[str] = []
    for key, others in ((REPLACES_KEY, replaces), (DISTINCT_KEY, different)):
        for other in others:
            target = find_memory(directory, other)
            if relate_memories(directory, rel, key, target):
                done.append(f"{rel} {key} {target}")
    if forget and unrelate(directory, rel, forget):
        done.append(f"{rel} no longer records {', '.join(forget)}")
    click.echo("; ".join(done) if done else "nothing to change: already recorded")
