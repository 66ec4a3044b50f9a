"""The installed memdir's version, as the MCP server, the team server and Codex's app-server
handshake announce it."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["installed_version"]


def installed_version() -> str:
    """memdir's version from its installed metadata; ``0+unknown`` (a valid version that sorts
    below every release) when run from a source tree that was never installed."""
    try:
        return version("memdir")
    except PackageNotFoundError:
        return "0+unknown"
