"""What the CLI shows a person at a terminal: tables on stdout, progress bars on stderr.

Both appear only on a terminal. Piped or redirected output stays plain, line per item, so
scripts and ``grep`` see the same text as before; progress never reaches a pipe at all. ``rich``
is imported here only, and only when a terminal is there to draw on, so hooks, pipes and the
library never pay for it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO

import click

from memdir.model.printable import printable

__all__ = ["PROGRESS_MINIMUM", "Progress", "is_terminal", "print_table", "progress", "say", "show_text"]

Progress = Callable[[int, int], None]
# Below this many items a command finishes before a bar would be worth drawing.
PROGRESS_MINIMUM = 500


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream (tests, daemons)
        return False


def print_table(
    title: str | None, columns: Sequence[str], rows: Sequence[Sequence[str]], plain: Callable[[Sequence[str]], str]
) -> None:
    """A table when stdout is a terminal; otherwise ``plain(row)`` per line, the scriptable form.

    Cells often come from outside (a teammate's file name, a server's key): each is made printable,
    and on a terminal it is shown as text, never read as ``rich`` markup."""
    rows = [[printable(cell) for cell in row] for row in rows]
    if not is_terminal(sys.stdout):
        if rows:  # one write: 20,000 separate echoes cost more than the listing itself
            click.echo("\n".join(plain(row) for row in rows))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_edge=False, header_style="bold")
    for column in columns:
        table.add_column(column, overflow="fold")
    from rich.text import Text

    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    Console(soft_wrap=False).print(table)


def say(text: str, *, err: bool = False) -> None:
    """``click.echo`` for a line that holds text from outside (a server's key, a token's name): no
    control character reaches the terminal, where ESC could rewrite the screen or the clipboard."""
    click.echo(printable(text, keep="\n\t"), err=err)


def show_text(text: str) -> None:
    """A whole file on stdout: as it is into a pipe or a file (``show > copy.md`` keeps every byte),
    made printable on a terminal (line breaks and tabs kept)."""
    click.echo(printable(text, keep="\n\t") if is_terminal(sys.stdout) else text, nl=False)


@contextlib.contextmanager
def progress(label: str, *, minimum: int = 0) -> Iterator[Progress]:
    """A ``(done, total)`` callback that draws a bar on stderr when it is a terminal.

    The bar appears only once ``total`` reaches ``minimum`` (a doctor run over fifty files needs
    none); off a terminal the callback does nothing, so piped stderr stays one line per event.
    """
    if not is_terminal(sys.stderr):
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeRemainingColumn
    from rich.progress import Progress as Bar

    bar = Bar(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=Console(stderr=True),
    )
    task: list[TaskID] = []

    def update(done: int, total: int) -> None:
        if total < minimum:
            return
        if not task:
            bar.start()
            task.append(bar.add_task(label, total=total))
        bar.update(task[0], completed=done, total=total)

    try:
        yield update
    finally:
        if task:
            bar.stop()
