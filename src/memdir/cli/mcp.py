"""``memdir mcp``: serve the project's memory over the Model Context Protocol."""

from __future__ import annotations

import sys

import click

from memdir.cli.extras import require_extra
from memdir.cli.main import CliState, cli, pass_state

__all__ = ["mcp"]


@cli.command(
    epilog="""\b
Examples:
  memdir mcp
  memdir --memory-dir ~/notes/agent-memory mcp
  memdir mcp --http --port 8765
  claude mcp add memdir -- memdir --project "$PWD" mcp
"""
)
@click.option("--http", "use_http", is_flag=True, help="Serve Streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on (with --http).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535), help="TCP port (with --http).")
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow a --host other than loopback: anyone who can reach the port and has the token gets your memory.",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="Another Host name clients use to reach the server (repeatable); loopback names are always allowed.",
)
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False),
    help="Where the bearer token is kept [default: <config home>/memdir/mcp-token; env MEMDIR_MCP_TOKEN wins].",
)
@pass_state
def mcp(
    state: CliState,
    use_http: bool,
    host: str,
    port: int,
    allow_remote: bool,
    allow_hosts: tuple[str, ...],
    token_file: str | None,
) -> None:
    """Run an MCP server with recall, remember, update, forget, list and read tools.

    The memory directory is the project's (see `memdir path`), or the one given with the global
    --project / --memory-dir options. Over HTTP the endpoint is http://HOST:PORT/mcp, and every
    request needs the bearer token printed at start (kept in a 0600 file, or MEMDIR_MCP_TOKEN).
    """
    require_extra("memdir mcp", "mcp", "mcp")
    from memdir.config import watch_external_changes

    # Outside edits recorded as they happen, not at the next call; a client starts the server and
    # calls at once, so the watch comes up beside it, not before it.
    watch = watch_external_changes(state.config, wait=False)
    try:
        _run(state, use_http, host, port, allow_remote, allow_hosts, token_file)
    finally:
        if watch is not None:
            watch.stop()


def _run(
    state: CliState,
    use_http: bool,
    host: str,
    port: int,
    allow_remote: bool,
    allow_hosts: tuple[str, ...],
    token_file: str | None,
) -> None:
    from memdir.integrations.mcp.server import create_server

    if not use_http:
        create_server(state.config, memory_dir=state.memory_dir).run()
        return
    from memdir.integrations.mcp.http import is_loopback, load_or_create_token, token_path

    if not is_loopback(host) and not allow_remote:
        raise click.UsageError(
            f"--host {host} serves your memory beyond this machine; add --allow-remote if you mean it "
            "(and put TLS in front: the token travels in every request)"
        )
    config = state.config
    source = load_or_create_token(token_file or token_path(config.config_home), given=config.environment.mcp_token)
    server = create_server(config, memory_dir=state.memory_dir)
    _serve(
        server,
        host=host,
        port=port,
        token=source.token,
        hosts=allow_hosts,
        memory=state.memory_dir.path,
        where=source.where,
    )


def _serve(
    server: object, *, host: str, port: int, token: str, hosts: tuple[str, ...], memory: str, where: str
) -> None:
    import socket

    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from memdir.integrations.mcp.http import McpGate, claude_add_command, is_loopback
    from memdir.integrations.mcp.server import MemdirMCPServer

    assert isinstance(server, MemdirMCPServer)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}; pick another --port") from exc
    shown_host = f"[{host.strip('[]')}]" if ":" in host else host
    named = hosts if is_loopback(host) or host in ("0.0.0.0", "::") else (shown_host, *hosts)
    # memdir's gate does the Host and Origin checks (stricter than the library's, whatever the bind
    # address); the library's own stay off so that the two never disagree.
    app = server.streamable_http_app(
        host=host, transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False)
    )
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') or is_loopback(host) else shown_host}:{port}/mcp"
    if not is_loopback(host):
        click.echo(
            f"warning: listening on {host}, beyond this machine: anyone who can reach port {port} and has the "
            "token reads and changes your memories, and plain HTTP shows the token to the network; "
            "put TLS in front, or use --host 127.0.0.1",
            err=True,
        )
        if host in ("0.0.0.0", "::") and not hosts:
            click.echo(
                "warning: only loopback Host names are accepted; add --allow-host NAME for the name clients use",
                err=True,
            )
    click.echo(f"memdir MCP server on {url} ({memory})", err=True)
    click.echo(f"bearer token ({where}): {token}", err=True)
    click.echo(f"connect Claude Code with:\n  {claude_add_command(url, token=token)}", err=True)
    sys.stderr.flush()
    gate = McpGate(app, token=token, port=port, hosts=named)
    uvicorn.Server(uvicorn.Config(gate, log_level="warning")).run(sockets=[sock])
