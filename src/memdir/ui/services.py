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

from memdir.config import MemoryConfig, uses_derived_index
from memdir.memory_session import MemorySession
from memdir.recall.lexical_selector import LexicalSelector
from memdir.team.sync import TeamStatus
from memdir.ui.app import UiServices

__all__ = ["build_services"]


def build_services(
    config: MemoryConfig,
    *,
    team_status: Callable[[], TeamStatus] | None = None,
) -> UiServices:
    session = MemorySession(config)
    browse = session  # the store the pages list and search
    if config.memdir.derived_index is None and not uses_derived_index(config):
        browse = MemorySession(config._replace(memdir=config.memdir._replace(scan_cap=None)))
    selector = session.selector
    recaller = session.recaller
    # Search shares the recall selector only when both rank the same memories.
    ranker = selector if browse is session and isinstance(selector, LexicalSelector) else browse.lexical_ranker()
    return UiServices(
        config=config,
        memory_dir=browse.memory_dir,
        recaller=recaller,
        ranker=ranker,
        writer_ranker=browse.writer_ranker,
        team_status=team_status,
    )
