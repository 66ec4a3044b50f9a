"""The token gate of the local web view, as Jupyter does it for its notebook server.

The server listens on 127.0.0.1, where every local user can connect; the token printed to the
person who started it is what separates them. The first visit carries it in the URL; the gate
answers with a cookie (HttpOnly, SameSite=Strict, one name per port) and a redirect to the same
page without it, so the token leaves the address bar and the history. Form posts must also come
from our own origin and carry a value derived from the token (see :func:`memdir.ui.web.csrf_token`).
"""

from __future__ import annotations

from urllib.parse import urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from memdir.ui.web import render_page, same_origin, tokens_match

__all__ = ["TokenGate", "cookie_name"]

_OPEN_PREFIXES = ("/static/",)


def cookie_name(port: int | None) -> str:
    """Cookies are not scoped by port, so two local servers must not share one name."""
    return f"memdir_ui_{port or 0}"


class TokenGate:
    """ASGI middleware: nothing but the stylesheet and script is served without the token."""

    def __init__(self, app: ASGIApp, *, token: str, pages: jinja2.Environment) -> None:
        self.app = app
        self.token = token
        self.pages = pages

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(_OPEN_PREFIXES):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        name = cookie_name(request.url.port)
        given = request.query_params.get("token")
        if given is not None:
            if not tokens_match(given, self.token):
                await self._deny(request, "the token in the address is not this server's")(scope, receive, send)
                return
            rest = [(key, value) for key, value in request.query_params.multi_items() if key != "token"]
            target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
            response = RedirectResponse(target, status_code=303)
            response.set_cookie(name, self.token, httponly=True, samesite="strict", path="/")
            await response(scope, receive, send)
            return
        if not tokens_match(request.cookies.get(name), self.token):
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
