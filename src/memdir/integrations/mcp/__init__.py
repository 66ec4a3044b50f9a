"""memdir as an MCP server (extra ``mcp``): ``from memdir.integrations.mcp import create_server``.

The server and its endpoints are :mod:`memdir.integrations.mcp.server`; who may call it over HTTP,
:mod:`memdir.integrations.mcp.http`. Importing this package loads neither, nor the MCP SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.integrations.mcp.server import INDEX_URI as INDEX_URI
    from memdir.integrations.mcp.server import MEMORY_URI_PREFIX as MEMORY_URI_PREFIX
    from memdir.integrations.mcp.server import MCPEndpoints as MCPEndpoints
    from memdir.integrations.mcp.server import MemdirMCPServer as MemdirMCPServer
    from memdir.integrations.mcp.server import create_server as create_server

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.integrations.mcp.server": [
            "INDEX_URI",
            "MEMORY_URI_PREFIX",
            "MCPEndpoints",
            "MemdirMCPServer",
            "create_server",
        ],
    },
)
