"""``memdir team``: sync a project's team memory, and run and administer the sync server.

The group is assembled from two modules: the server's commands (:mod:`memdir.cli.team_server`:
serve, token, rm) and a clone's (:mod:`memdir.cli.team_client`: pull, push, sync, status, log,
show, restore, watch).
"""

from __future__ import annotations

from memdir.cli.main import cli
from memdir.cli.team_client import CLIENT_COMMANDS
from memdir.cli.team_resolve import resolve_command
from memdir.cli.team_server import SERVER_COMMANDS

__all__ = ["team"]


@cli.group(epilog="Example:\n\n\b\n  memdir team token create --repo acme/widgets\n  memdir team serve")
def team() -> None:
    """Team memory: sync team/ with a server (pull, push, sync, status, watch); run and administer one."""


for _command in (*SERVER_COMMANDS, *CLIENT_COMMANDS, resolve_command):
    team.add_command(_command)
