"""Building the web view's services from one project configuration.

The web view ranks with the same offline lexical ranking recall uses, and previews recall with
the project's own selector (``memdir.selector``, ``memdir.model``), so a page shows what an agent
would get. When that selector is itself the lexical one, the two share one index.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from memdir.config import MemoryConfig
from memdir.recall.selectors import LexicalSelector
from memdir.session_context import MemorySession
from memdir.team.sync import TeamStatus
from memdir.ui.app import UiServices

__all__ = ["build_services"]


def build_services(
    config: MemoryConfig,
    *,
    env: Mapping[str, str] | None = None,
    team_status: Callable[[], TeamStatus] | None = None,
) -> UiServices:
    session = MemorySession(config, env=env)
    memory_dir = session.memory_dir
    selector = session.selector
    recaller = session.recaller
    ranker = selector if isinstance(selector, LexicalSelector) else LexicalSelector(cache=session.index)
    return UiServices(config=config, memory_dir=memory_dir, recaller=recaller, ranker=ranker, team_status=team_status)
