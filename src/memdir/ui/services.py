"""Building the web view's services from one project configuration.

A person browsing wants every memory, and listing tens of thousands through the plain scan costs
one ``stat`` per file per page (about a second at 20,000), so the web view reads through the
derived index (rebuildable, never authoritative) unless the settings turn it off
(``memdir.derivedIndex: false``). The recall preview keeps the project's own configured store
and scan cap and the project's own selector (``memdir.selector``, ``memdir.model``), so it shows
exactly what an agent would get. Search is the same offline lexical ranking over every memory; it
shares the recall selector only when both look at the same memories, since a ranker's index follows
the pool it is given.
"""

from __future__ import annotations

from collections.abc import Callable

from memdir.config import MemoryConfig, open_memory_dir, uses_derived_index
from memdir.memory_session import MemorySession
from memdir.recall.selectors import LexicalSelector
from memdir.team.sync import TeamStatus
from memdir.ui.app import UiServices

__all__ = ["build_services"]


def build_services(
    config: MemoryConfig,
    *,
    team_status: Callable[[], TeamStatus] | None = None,
) -> UiServices:
    session = MemorySession(config)
    memory_dir = session.memory_dir
    if config.memdir.derived_index is None and not uses_derived_index(config):
        memory_dir = open_memory_dir(config._replace(scan_cap=None))
    selector = session.selector
    recaller = session.recaller
    if memory_dir is session.memory_dir and isinstance(selector, LexicalSelector):
        ranker = selector
    else:
        from memdir.store.index_db import IndexedMemoryDir

        ranker = LexicalSelector(cache=memory_dir.index if isinstance(memory_dir, IndexedMemoryDir) else None)
    return UiServices(config=config, memory_dir=memory_dir, recaller=recaller, ranker=ranker, team_status=team_status)
