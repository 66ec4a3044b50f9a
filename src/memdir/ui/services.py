"""Building the web view's services from one project configuration.

The web view ranks with the same offline lexical ranking recall uses, and previews recall with
the project's own selector (``memdir.selector``, ``memdir.model``), so a page shows what an agent
would get. When that selector is itself the lexical one, the two share one index.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from memdir.config import MemoryConfig, open_memory_dir
from memdir.recall.factory import make_selector
from memdir.recall.recaller import Recaller
from memdir.recall.selectors import LexicalSelector
from memdir.store.index_db import IndexedMemoryDir
from memdir.team.sync import TeamStatus
from memdir.ui.app import UiServices

__all__ = ["build_services"]


def build_services(
    config: MemoryConfig,
    *,
    env: Mapping[str, str] | None = None,
    team_status: Callable[[], TeamStatus] | None = None,
) -> UiServices:
    memory_dir = open_memory_dir(config)
    selector = make_selector(config, env=env)
    recaller = Recaller(memory_dir, selector=selector)
    if isinstance(selector, LexicalSelector):
        ranker = selector
    else:
        ranker = LexicalSelector()
        if isinstance(memory_dir, IndexedMemoryDir):
            ranker.use_analysis_cache(memory_dir.index)
    return UiServices(config=config, memory_dir=memory_dir, recaller=recaller, ranker=ranker, team_status=team_status)
