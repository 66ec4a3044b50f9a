"""``memdir reindex``: bring the derived SQLite index in step with the memory files, or rebuild it."""

from __future__ import annotations

import glob
import os
from typing import TYPE_CHECKING, Any

import click

from memdir.cli.main import CliState, cli, echo_json, pass_state
from memdir.cli.terminal import PROGRESS_MINIMUM, progress
from memdir.config import open_index
from memdir.model.text import counted
from memdir.recall.stored_lexical import StoredPostings
from memdir.store.files import FILE_MODE, ensure_dir

if TYPE_CHECKING:
    from memdir.store.index_db import MemoryIndex, RefreshStats

__all__ = ["reindex"]

EMBED_SLICE = 256


@cli.command(
    epilog="""\b
Examples:
  memdir reindex
  memdir reindex --rebuild --json
  memdir reindex --embed
"""
)
@click.option("--rebuild", is_flag=True, help="Drop the index (cached vectors included) and build it from scratch.")
@click.option("--embed", is_flag=True, help="Also compute the embedding of every memory now (needs the embed extra).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--background",
    is_flag=True,
    hidden=True,
    help="Quietly, and not at all when another reindex is running (what the prompt hook starts).",
)
@pass_state
def reindex(state: CliState, rebuild: bool, embed: bool, as_json: bool, background: bool) -> None:
    """Refresh the derived index of the memory directory (a cache: the Markdown files stay the truth).

    The index lives outside the memory directory, under <configHome>/memdir/index/, so Claude
    Code and team sync never see it. Deleting it is always safe. One reindex runs at a time: a
    second one waits for the first (the one the prompt hook starts in the background gives way).
    """
    from filelock import FileLock, Timeout

    with open_index(state.config) as index:
        ensure_dir(os.path.dirname(index.path) or ".")
        lock = FileLock(index.path + ".build.lock", mode=FILE_MODE)  # 0600, as every file memdir makes
        try:
            lock.acquire(timeout=0 if background else -1)
        except Timeout:
            return  # a build is under way; it covers what this one would do
        model = state.config.environment.embed_model or None
        try:
            stats, postings = _build(index, rebuild=rebuild, quiet=background)
        finally:
            lock.release()
        if background:
            # Under a lock of its own: encoding a large store takes long, and the next prompt's
            # background reindex must still be able to bring the rows and postings in step.
            vectors = FileLock(index.path + ".vectors.lock", mode=FILE_MODE)
            try:
                vectors.acquire(timeout=0)
            except Timeout:
                return
            try:
                _vector_matrix(index, model, quiet=True, wanted=_ranks_by_embedding(state))
            finally:
                vectors.release()
            return
        embedded = 0
        if embed:
            from memdir.recall.embedding import EmbeddingRanker

            headers = index.headers()
            ranker = EmbeddingRanker(model_path=model, cache=index)
            # In slices, so a bar can move: each slice encodes (and caches) the memories it holds.
            with progress("embedding memories", minimum=1) as advance:
                for start in range(0, len(headers), EMBED_SLICE):
                    ranker.similarities("warm up", headers[start : start + EMBED_SLICE])
                    advance(min(start + EMBED_SLICE, len(headers)), len(headers))
            embedded = len(headers)
            _vector_matrix(index, model, quiet=False, ranker=ranker)
        memories = postings.count
    if as_json:
        echo_json(
            {
                "index": index.path,
                "memories": memories,
                "added": stats.added,
                "updated": stats.updated,
                "removed": stats.removed,
                "unchanged": stats.unchanged,
                "skipped": stats.skipped,
                "embedded": embedded,
                "seconds": round(stats.seconds, 3),
            }
        )
        return
    click.echo(
        f"{index.path}: {counted(memories, 'memory', 'memories')} ({stats.added} added, {stats.updated} updated, "
        f"{stats.removed} removed, {stats.skipped} unreadable) in {stats.seconds:.2f}s"
    )
    if embed:
        click.echo(f"embeddings cached for {counted(embedded, 'memory', 'memories')}")


def _ranks_by_embedding(state: CliState) -> bool:
    """Whether the prompt hook or the other entry points rank by embedding (then the background
    build makes the matrix of vectors too)."""
    kinds = {state.config.memdir.hook_selector, state.config.memdir.selector}
    return bool(kinds & {"embedding", "hybrid", "offline"})


def _vector_matrix(
    index: MemoryIndex, model: str | None, *, quiet: bool, ranker: Any = None, wanted: bool = True
) -> None:
    """Bring the memory-mapped matrix of vectors (``memdir.recall.stored_vectors``) in step: after
    ``--embed``, and in the background for a store that has one or whose selectors rank by
    embedding (never without the model: the background does not start encoding for nothing)."""
    from memdir.recall.embedding import EmbeddingRanker, embedding_available
    from memdir.recall.stored_vectors import StoredVectors

    if ranker is None:
        exists = bool(glob.glob(glob.escape(index.path) + ".vectors-*"))
        if not (exists or wanted) or not embedding_available(model):
            return
        ranker = EmbeddingRanker(model_path=model, cache=index)
    with progress("vector matrix", minimum=1 << 62 if quiet else PROGRESS_MINIMUM) as advance:
        StoredVectors(index, ranker).sync(progress=advance)


def _build(index: MemoryIndex, *, rebuild: bool, quiet: bool) -> tuple[RefreshStats, StoredPostings]:
    """Read the changed memory files, then bring the stored lexical postings in step (with a bar
    for each on a terminal), so that no prompt has to do either."""
    minimum = 1 << 62 if quiet else PROGRESS_MINIMUM
    with progress("reading memories", minimum=minimum) as advance:
        index.on_progress = advance
        stats = index.rebuild() if rebuild else index.refresh()
        index.on_progress = None
    postings = StoredPostings(index)
    with progress("ranking index", minimum=minimum) as advance:
        postings.sync(progress=advance)
    return stats, postings
