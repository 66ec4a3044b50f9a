"""The token gate of the local web view, as Jupyter does it for its notebook server, hardened.

The server listens on 127.0.0.1, where every local user can connect; the token printed to the
person who started it is what separates them. It never appears on a command line: ``memdir ui``
opens the browser on a one-time code (:meth:`TokenGate.issue_code`), which the first request
exchanges and which is worthless after that or after two minutes; the printed address carries the
token itself, for the person to paste. Either answer is a cookie and a move to the same page
without the secret, so it leaves the address bar and the history. The code's move is a page of
this server that refreshes to the target rather than a redirect: the browser reaches the code
from a local file (the code is never on a command line either, see ``memdir ui``), and a browser
does not send a ``SameSite=Strict`` cookie on a redirect a file started, only on a move this
server's own page starts.

The cookie holds a session value derived from the token and the port the server listens on, never
the token: browsers send every 127.0.0.1 cookie to every port, so a server on another port may
see it, and there it opens nothing (another port names another cookie and expects another value).
Every request must name this server in ``Host`` (127.0.0.1, localhost, [::1] or the bound name,
with the bound port), which defeats DNS rebinding. Form posts must also come from our own origin
(scheme, host and port) and carry a value derived from the token (see :func:`memdir.web.pages.csrf_token`).
"""

from __future__ import annotations

import hashlib
import hmac
import html
import secrets
import threading
import time
from urllib.parse import urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from memdir.web.pages import render_page, same_origin, tokens_match

__all__ = ["CODE_SECONDS", "TokenGate", "cookie_name", "moving_page", "session_value"]

_OPEN_PREFIXES = ("/static/",)
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
CODE_SECONDS = 120.0  # how long a one-time code for the browser stays good


def cookie_name(port: int | None) -> str:
    """Cookies are not scoped by port, so two local servers must not share one name."""
    return f"memdir_ui_{port or 0}"


def session_value(token: str, port: int | None) -> str:
    """What the cookie holds: derived from the token and bound to the port, so it cannot be turned
    back into the token, and the value of one port is not the value of another."""
    return hmac.new(token.encode("utf-8"), f"memdir-ui-session:{port or 0}".encode(), hashlib.sha256).hexdigest()


def _bound(scope: Scope) -> tuple[str, int | None]:
    """The address the server listens on (from the server, not from the request's headers)."""
    server = scope.get("server")
    if not server:
        return "", None
    host, port = server[0], server[1]
    return (f"[{host}]" if ":" in str(host) else str(host)), port


class TokenGate:
    """ASGI middleware: nothing but the stylesheet and script is served without the token."""

    def __init__(self, app: ASGIApp, *, token: str, pages: jinja2.Environment) -> None:
        self.app = app
        self.token = token
        self.pages = pages
        self._codes: dict[str, float] = {}  # one-time code -> when it stops being good (monotonic)
        self._lock = threading.Lock()

    def issue_code(self) -> str:
        """A code that opens one browser session, once, within :data:`CODE_SECONDS`: what
        ``memdir ui`` puts in the address it hands the browser, whose command line anyone can read."""
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = time.monotonic() + CODE_SECONDS
        return code

    def _redeem(self, code: str) -> bool:
        with self._lock:
            now = time.monotonic()
            self._codes = {known: until for known, until in self._codes.items() if until > now}
            match = next((known for known in self._codes if tokens_match(code, known)), None)
            if match is None:
                return False
            del self._codes[match]
            return True

    def _host_ok(self, scope: Scope, host_header: str) -> bool:
        bound_host, port = _bound(scope)
        header = host_header.strip().lower()
        if header.endswith("]") or ":" not in header:  # no port: a name, or a bracketed IPv6 address
            name, given_port = header, ""
        else:
            name, _, given_port = header.rpartition(":")
        if given_port and not given_port.isdigit():
            return False
        port_ok = given_port == str(port) or (not given_port and port == 80)
        return port_ok and name in (*_LOOPBACK, bound_host.lower())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if not self._host_ok(scope, request.headers.get("host", "")):
            await PlainTextResponse("this server does not answer to that Host name", status_code=421)(
                scope, receive, send
            )
            return
        if scope["path"].startswith(_OPEN_PREFIXES):
            await self.app(scope, receive, send)
            return
        port = _bound(scope)[1]
        name = cookie_name(port)
        given = request.query_params.get("token")
        code = request.query_params.get("code")
        if given is not None or code is not None:
            accepted = tokens_match(given, self.token) if given is not None else self._redeem(code or "")
            if not accepted:
                reason = (
                    "the token in the address is not this server's"
                    if given is not None
                    else "this sign-in link was already used or is too old; open the address memdir ui printed"
                )
                await self._deny(request, reason)(scope, receive, send)
                return
            rest = [(key, value) for key, value in request.query_params.multi_items() if key not in ("token", "code")]
            target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
            response = RedirectResponse(target, status_code=303) if given is not None else _moving_to(target)
            response.set_cookie(name, session_value(self.token, port), httponly=True, samesite="strict", path="/")
            await response(scope, receive, send)
            return
        if not tokens_match(request.cookies.get(name), session_value(self.token, port)):
            reason = "open the address printed by “memdir ui”: it carries the access token"
            await self._deny(request, reason)(scope, receive, send)
            return
        if request.method not in ("GET", "HEAD") and not same_origin(request):
            await self._deny(request, "this form was sent from another site")(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _deny(self, request: Request, reason: str) -> ASGIApp:
        context = {"title": "Access denied", "status": 403, "message": reason, "nav": False, "csrf": ""}
        return render_page(self.pages, "error.html", context, status=403)


def moving_page(target: str) -> str:
    """A page that moves the browser on to ``target`` at once, with a link for a browser that does
    not follow the refresh: what the code's answer is, and what ``memdir ui`` opens the browser on."""
    shown = html.escape(target, quote=True)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="0;url={shown}"><meta name="referrer" content="no-referrer">'
        f'<title>memdir</title></head><body><p><a href="{shown}">Open memdir</a></p></body></html>\n'
    )


def _moving_to(target: str) -> Response:
    """:func:`moving_page` served by this server: the same origin, so the session cookie set with
    it goes along when the browser moves on."""
    return HTMLResponse(moving_page(target), headers={"Cache-Control": "no-store"})
