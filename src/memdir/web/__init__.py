"""The web stack the local web view (:mod:`memdir.ui`) and the team server's dashboard and API
(:mod:`memdir.server`) share: pages, forms and static files (:mod:`memdir.web.pages`), and one rule
from a failure to an answer (:mod:`memdir.web.handlers`). It imports nothing of memdir beyond the
errors and the team protocol's error envelope, so the team server uses it without a memory store.
"""

from __future__ import annotations

__all__: list[str] = []
