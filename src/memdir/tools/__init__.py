"""The memory tools a model calls (recall, remember, update, forget, list, read, history, restore),
as plain Python over one memory directory: the MCP server and the agent-framework adapters hand
them to models (:mod:`memdir.tools.toolbox`).
"""

from __future__ import annotations

__all__: list[str] = []
