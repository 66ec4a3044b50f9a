"""``memdir doctor --stores``: the memory stores no session loads, and ``--fix`` to move them home.

The search and the move are :mod:`memdir.stranded`; this module opens the stores through the
composition root (each one's history and write rules apply, as for any command) and prints.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import asdict

import click

from memdir.cli.main import CliState, echo_json, fail
from memdir.config import claude_json_path
from memdir.containment import normalize_root
from memdir.model.text import counted
from memdir.stranded import MoveResult, StrandedStore, find_stranded, move_memories, store_files

__all__ = ["check_stores", "note_of", "stranded_here"]


def _stranded(state: CliState, *, into: str | None = None) -> list[StrandedStore]:
    config = state.config
    return find_stranded(
        config_home=config.config_home,
        settings=config.settings,
        environment=config.environment,
        claude_json=claude_json_path(config.environment),
        in_use=[config.memory_dir],
        projects=[config.project_root],
        into=into,
    )


def stranded_here(state: CliState) -> list[StrandedStore]:
    """The stranded stores whose memories belong in this project's store (for doctor's note)."""
    return _stranded(state, into=state.config.memory_dir)


def note_of(store: StrandedStore) -> str:
    """Doctor's note, in the project the store's memories belong to."""
    return (
        f"note: {store.store}: [stranded] {_memories(store.memories)} of this project ({store.why}); "
        "move them: memdir doctor --stores --fix"
    )


def _memories(count: int) -> str:
    return counted(count, "memory", "memories")


def _describe(store: StrandedStore) -> str:
    unindexed = f" ({store.unindexed} not in its MEMORY.md)" if store.unindexed else ""
    where = (
        f"they belong in {store.target_store}"
        if store.target_store
        else f"no project is known for it: move it into one with "
        f"'memdir --project DIR doctor --stores --fix --from {store.store}'"
    )
    return f"{store.store}: {_memories(store.memories)}{unindexed}; {store.why}; {where}"


def _label(store: str, project: str | None) -> str:
    """What a second file kept beside one of the same name is called after: the stranded project."""
    name = os.path.basename(project.rstrip("/")) if project else os.path.basename(os.path.dirname(store))
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "stranded"


def _move(store: str, target_project: str, project: str | None) -> tuple[str, MoveResult]:
    source = CliState(project=target_project, memory_dir_option=store).memory_dir
    target = CliState(project=target_project, memory_dir_option=None).memory_dir
    return target.root, move_memories(source, target, label=_label(store, project))


def _report(store: str, into: str, result: MoveResult) -> None:
    moved = len(result.moved) + len(result.kept_both)
    lines = f"; {len(result.indexed)} index lines added" if result.indexed else ""
    click.echo(f"moved {_memories(moved)} from {store} into {into}{lines}")
    for pair in result.kept_both:
        click.echo(f"  kept both: {pair} (a memory of that name was there)")
    for rel in result.already_there:
        click.echo(f"  already there: {rel}")
    for pair in result.near:
        click.echo(f"  near: {pair}; combine them with memdir merge")
    for why in result.left:
        click.echo(f"  left in place: {why}", err=True)


def check_stores(state: CliState, *, fix: bool, as_json: bool, sources: Sequence[str]) -> None:
    """List the stranded stores; with ``fix``, move each into the project it belongs to (or the
    ``sources`` into this project); exit 1 while stranded memories remain."""
    if sources and not fix:
        fail("--from moves a store: add --fix (memdir doctor --stores --fix --from STORE)")
    moves: list[tuple[str, str, str | None]] = []  # (store, target project, its project)
    found = _stranded(state)
    if fix and sources:
        known = {os.path.normpath(s.store): s for s in found}
        own = os.path.normpath(CliState(project=state.config.project_root, memory_dir_option=None).config.memory_dir)
        for given in sources:
            store = normalize_root(given)
            if not os.path.isdir(store) or not store_files(store):
                fail(f"{given} holds no memories to move")
            if os.path.normpath(store) == own:
                fail(f"{store} is this project's own memory directory; nothing to move")
            stranded = known.get(os.path.normpath(store))
            moves.append((store, state.config.project_root, stranded.project if stranded else None))
    elif fix:
        moves = [(s.store, s.target, s.project) for s in found if s.target is not None]
    results = []
    for store, target_project, project in moves:
        into, result = _move(store, target_project, project)
        results.append((store, into, result))
    remaining = _stranded(state) if moves else found
    if as_json:
        echo_json(
            {
                "stranded": [s.as_json() for s in remaining],
                "moved": [{"store": store, "into": into, **asdict(result)} for store, into, result in results],
            }
        )
    else:
        for store, into, result in results:
            _report(store, into, result)
        if remaining:
            count = len(remaining)
            stores = counted(count, "stranded memory store")
            click.echo(f"{stores}: no session loads {'its' if count == 1 else 'their'} memories")
            for stranded in remaining:
                click.echo(_describe(stranded))
            if any(s.target for s in remaining):
                click.echo("Move them where they belong: memdir doctor --stores --fix")
        else:
            click.echo("no stranded memory stores")
    if remaining:
        raise SystemExit(1)
