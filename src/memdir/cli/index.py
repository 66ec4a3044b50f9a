"""``memdir reindex``: bring the derived SQLite index in step with the memory files, or rebuild it."""

from __future__ import annotations

import click

from memdir.cli.main import CliState, cli, echo_json, pass_state
from memdir.cli.terminal import PROGRESS_MINIMUM, progress
from memdir.config import open_index
from memdir.recall.lexical import LexicalIndex

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
@pass_state
def reindex(state: CliState, rebuild: bool, embed: bool, as_json: bool) -> None:
    """Refresh the derived index of the memory directory (a cache: the Markdown files stay the truth).

    The index lives outside the memory directory, under <configHome>/memdir/index/, so Claude
    Code and team sync never see it. Deleting it is always safe.
    """
    with open_index(state.config) as index:
        with progress("reading memories", minimum=PROGRESS_MINIMUM) as advance:
            index.on_progress = advance
            stats = index.rebuild() if rebuild else index.refresh()
            index.on_progress = None
        # The lexical analyses too, so that the first recall of a hook does not have to make them.
        LexicalIndex(cache=index).sync(index.headers())
        embedded = 0
        if embed:
            from memdir.recall.embedding import EmbeddingRanker

            headers = index.headers()
            ranker = EmbeddingRanker(model_path=state.config.environment.embed_model or None, cache=index)
            # In slices, so a bar can move: each slice encodes (and caches) the memories it holds.
            with progress("embedding memories", minimum=1) as advance:
                for start in range(0, len(headers), EMBED_SLICE):
                    ranker.similarities("warm up", headers[start : start + EMBED_SLICE])
                    advance(min(start + EMBED_SLICE, len(headers)), len(headers))
            embedded = len(headers)
        memories = len(index.headers())
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
        f"{index.path}: {memories} memories ({stats.added} added, {stats.updated} updated, "
        f"{stats.removed} removed, {stats.skipped} unreadable) in {stats.seconds:.2f}s"
    )
    if embed:
        click.echo(f"embeddings cached for {embedded} memories")
