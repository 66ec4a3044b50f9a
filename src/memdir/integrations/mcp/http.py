"""``memdir mcp --http``: who may call the MCP server over HTTP, and from where.

On 127.0.0.1 every local user can connect, and with a non-loopback address anyone on the network
can; a browser can also be made to send requests to a local port (DNS rebinding, a page on another
local server). So every request passes three checks, whatever address the server is bound to:

1. ``Host`` names this server: ``127.0.0.1``, ``localhost`` or ``[::1]``, the address it is bound
   to, or a name given with ``--allow-host``; with the port it listens on, or none (421 otherwise);
2. an ``Origin``, when a browser sends one, is this very server (scheme, host and port: another
   port of 127.0.0.1 is another site) (403 otherwise);
3. ``Authorization: Bearer <token>`` carries the server's token, compared in constant time (401).

The token is the person's: ``MEMDIR_MCP_TOKEN``, or the token file (``<config home>/memdir/
mcp-token`` unless ``--token-file``), created on first use with 256 random bits and mode 0600, so
that a client configured once keeps working across restarts.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
import stat
from collections.abc import Iterable
from typing import NamedTuple

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from memdir.environment import VARIABLES
from memdir.errors import ConfigError

__all__ = [
    "LOOPBACK_NAMES",
    "McpGate",
    "TokenSource",
    "claude_add_command",
    "is_loopback",
    "load_or_create_token",
    "token_path",
]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_TOKEN_FILE = ("memdir", "mcp-token")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server off the network (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def token_path(config_home: str) -> str:
    return os.path.join(config_home, *_TOKEN_FILE)


class TokenSource(NamedTuple):
    token: str
    where: str  # "MEMDIR_MCP_TOKEN", or the file it was read from or written to
    created: bool


def load_or_create_token(path: str, *, given: str | None = None) -> TokenSource:
    """The token from ``given`` (the environment), else from ``path``, else a new one written there.

    A token file another user could read is refused, not trusted: whoever reads it can use the
    server as you.
    """
    if given is not None:
        if len(given.strip()) < 16:
            raise ConfigError("MEMDIR_MCP_TOKEN is shorter than 16 characters; use a long random value")
        return TokenSource(given.strip(), VARIABLES["mcp_token"], False)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return TokenSource(_create(path), path, True)
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"the MCP token file {path} is not a regular file; remove it", path=path)
    if info.st_mode & 0o077 or info.st_uid != os.geteuid():
        raise ConfigError(
            f"the MCP token file {path} can be read by other users (mode {stat.S_IMODE(info.st_mode):o}) or is "
            f"not yours; run: chmod 600 {path}, or remove it for a new token",
            path=path,
        )
    with open(path, encoding="utf-8") as handle:
        token = handle.read().strip()
    if len(token) < 16:
        raise ConfigError(f"the MCP token file {path} holds no usable token; remove it for a new one", path=path)
    return TokenSource(token, path, False)


def _create(path: str) -> str:
    from memdir.store.files import ensure_dir

    ensure_dir(os.path.dirname(path))
    token = "mdm_" + secrets.token_urlsafe(32)
    # O_EXCL: two servers started at once do not overwrite each other's token; the loser reads it.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return load_or_create_token(path).token
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token


def claude_add_command(url: str, *, name: str = "memdir", token: str = "$MEMDIR_MCP_TOKEN") -> str:
    """The exact command that configures Claude Code for this server."""
    return f'claude mcp add --transport http {name} {url} --header "Authorization: Bearer {token}"'


def _split_host(value: str) -> tuple[str, str | None]:
    """``name[:port]`` with IPv6 brackets kept: ``[::1]:8000`` -> (``[::1]``, ``8000``)."""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return value, None
        rest = value[end + 1 :]
        return value[: end + 1], rest[1:] if rest.startswith(":") else None
    name, sep, port = value.rpartition(":")
    return (name, port) if sep and port.isdigit() else (value, None)


class McpGate:
    """ASGI middleware in front of the MCP app: Host, then Origin, then the bearer token."""

    def __init__(self, app: ASGIApp, *, token: str, port: int, hosts: Iterable[str]) -> None:
        self.app = app
        self.token = token.encode("utf-8")
        self.port = str(port)
        self.hosts = {name.lower() for name in (*LOOPBACK_NAMES, *hosts)}

    def _host_ok(self, value: str) -> bool:
        name, port = _split_host(value.strip().lower())
        return name in self.hosts and port in (None, self.port)

    def _origin_ok(self, value: str) -> bool:
        scheme, sep, rest = value.strip().lower().partition("://")
        if not sep or scheme != "http" or "/" in rest:
            return False
        name, port = _split_host(rest)
        return name in self.hosts and port == self.port

    def _token_ok(self, header: str | None) -> bool:
        scheme, _, given = (header or "").strip().partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode("utf-8"), self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        response: PlainTextResponse | None = None
        origin = headers.get("origin")
        if not self._host_ok(headers.get("host", "")):
            response = PlainTextResponse("this server does not answer to that Host name", status_code=421)
        elif origin is not None and not self._origin_ok(origin):
            response = PlainTextResponse("requests from another site are refused", status_code=403)
        elif not self._token_ok(headers.get("authorization")):
            response = PlainTextResponse(
                "missing or wrong bearer token; send 'Authorization: Bearer <token>' (memdir mcp --http prints it)",
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="memdir"'},
            )
        if response is not None:
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
