"""``memdir mcp``: serve the project's memory over the Model Context Protocol."""

from __future__ import annotations

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
@pass_state
def mcp(state: CliState, use_http: bool, host: str, port: int) -> None:
    """Run an MCP server with recall, remember, update, forget, list and read tools.

    The memory directory is the project's (see `memdir path`), or the one given with the global
    --project / --memory-dir options. Over HTTP the endpoint is http://HOST:PORT/mcp.
    """
    require_extra("memdir mcp", "mcp", "mcp")
    from memdir.integrations.mcp import create_server

    server = create_server(state.config, memory_dir=state.memory_dir)
    if use_http:
        click.echo(f"memdir MCP server on http://{host}:{port}/mcp ({state.memory_dir.path})", err=True)
        server.run("streamable-http", host=host, port=port)
    else:
        server.run()
