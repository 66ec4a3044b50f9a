"""``memdir ui``: serve the local web view of the project's memory on 127.0.0.1."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import shutil
import socket
import sys
import tempfile
import webbrowser
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from memdir.cli.extras import require_extra
from memdir.cli.main import CliState, cli, pass_state
from memdir.errors import SyncError

if TYPE_CHECKING:
    from memdir.team.sync import TeamStatus

__all__ = ["ui"]


def _team_status(state: CliState) -> Callable[[], TeamStatus] | None:
    """A callable asking the team server for the sync state, or None when none is configured."""
    from memdir.team.client import TeamClient, resolve_endpoint
    from memdir.team.state import SyncState
    from memdir.team.sync import status

    config = state.config
    try:
        endpoint = resolve_endpoint(
            cwd=config.project_root, settings_server=config.memdir.team_server, environment=config.environment
        )
    except SyncError:
        return None
    if importlib.util.find_spec("httpx") is None:
        return None

    def ask() -> TeamStatus:
        with TeamClient(endpoint) as client:
            return status(client, SyncState(), config.team_dir)

    return ask


@cli.command(
    epilog="""\b
Examples:
  memdir ui
  memdir ui --port 8800 --no-browser
"""
)
@click.option("--port", default=0, type=click.IntRange(0, 65535), help="TCP port (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the address only; do not open a browser.")
@pass_state
def ui(state: CliState, port: int, no_browser: bool) -> None:
    """Browse, search and edit this project's memories in a local web page.

    The first line printed is the address, with the access token that keeps other local users out.
    The browser is opened on a one-time code instead, handed over in a file only you can read, so
    neither the token nor the code ever appears on a command line.
    """
    require_extra("memdir ui", "ui", "starlette", "uvicorn", "jinja2")
    import uvicorn

    from memdir.config import watch_external_changes
    from memdir.ui.app import create_ui_app
    from memdir.ui.services import build_services
    from memdir.web.pages import new_secret

    services = build_services(state.config, team_status=_team_status(state))
    token = new_secret()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
        # Listening before the address is printed: a browser or script that connects at once waits
        # in the backlog until the server accepts, instead of being refused.
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}; pick another --port") from exc
    base = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    app = create_ui_app(services, token=token)
    # The browser's page is written before the address is printed: whoever reads that line (a
    # person, a script) finds the page there already.
    opener = None if no_browser else _open_browser(f"{base}?code={app.issue_code()}")
    click.echo(f"{base}?token={token}")
    sys.stdout.flush()
    click.echo(f"serving {state.config.memory_dir} until Ctrl-C", err=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    watch = watch_external_changes(state.config)  # an outside edit shows in History without a reload
    try:
        server.run(sockets=[sock])
    finally:
        if watch is not None:
            watch.stop()
        if opener is not None:
            shutil.rmtree(opener, ignore_errors=True)


def _open_browser(url: str) -> str:
    """Open the browser on ``url`` without putting it on a command line, as notebook servers do.

    Every local user can read a process's command line (``ps``, ``/proc/*/cmdline``), and a slow
    browser leaves the one-time code there long enough to be taken. The browser gets a local page
    instead, in a folder only this user can enter (0700, the page 0600), that moves it on to
    ``url``. Returns the folder, which goes when the server stops."""
    from memdir.ui.gate import moving_page

    folder = tempfile.mkdtemp(prefix="memdir-ui-")
    page = os.path.join(folder, "open.html")
    descriptor = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(moving_page(url))
    webbrowser.open(pathlib.Path(page).as_uri())
    return folder
