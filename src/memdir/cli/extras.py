"""Optional dependencies: a command that needs one fails with the line that installs it.

memdir's server, web view, MCP server and watcher live in extras so that the core install stays
small; checking with ``find_spec`` before importing keeps the failure one readable line instead of
an ImportError traceback from deep inside the command.
"""

from __future__ import annotations

import importlib.util

import click

__all__ = ["require_extra"]


def require_extra(command: str, extra: str, *modules: str) -> None:
    """Fail with ``<command> needs <module>: pip install 'memdir[<extra>]'`` when a module is missing."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise click.ClickException(f"{command} needs {module}: pip install 'memdir[{extra}]'")
