"""What recall asks of a store it ranks in: the derived index's side of the stored rankings.

Recall over the whole store (the default) ranks inside the derived index
(:class:`memdir.store.index_db.MemoryIndex`) rather than over headers held in memory: the stored
lexical postings and the stored vectors keep their tables and files beside its rows, and read the
headers of the best few memories only. :meth:`memdir.store.directory.MemoryDir.ranked_store` hands
out such a store; the selectors, the stored rankings and the recaller are typed against this
protocol, so none of them imports the index (or SQLite) to name it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from memdir.store.scan import MemoryHeader

if TYPE_CHECKING:
    import sqlite3

__all__ = ["RankedStore"]

_T = TypeVar("_T")


class RankedStore(Protocol):
    """A derived index a selector ranks the whole store in."""

    path: str
    """The index's database file; derived files of its own (the vector matrix) sit next to it."""

    background_due: bool
    """Set when work was left for a background ``memdir reindex`` (a stored ranking behind by more
    than the caller's budget); the prompt hook starts one."""

    def transact(self, step: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``step`` on the index's connection: for the tables other layers keep beside its rows."""

    def generation(self) -> int:
        """A number that changes whenever a memory row changed (what a stored ranking is behind by)."""

    def row_header(self, row: Sequence[Any]) -> MemoryHeader:
        """A header from the memory row's columns ``file, mtime_ns, size, name, description, type,
        nested_type, preview`` (and optionally ``modified_ms, expires, replaces, distinct_from``)."""

    def headers_by_ids(self, ids: Sequence[int]) -> dict[int, MemoryHeader]: ...

    def headers_by_files(self, files: Sequence[str]) -> dict[str, MemoryHeader]: ...

    def newest(self, count: int) -> list[MemoryHeader]: ...

    def replacing(self) -> list[MemoryHeader]: ...

    def name_counts(self, keys: Sequence[str]) -> dict[str, int]: ...

    def count(self) -> int: ...
