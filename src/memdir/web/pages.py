"""The web stack shared by the local memory view and the team dashboard.

Both are server-rendered pages: Jinja2 templates (autoescaped, so file names and memory text can
never become markup), one stylesheet, one small script, and urlencoded forms. This module holds
the pieces both need and imports nothing else of memdir, so the team server may use it without
depending on the memory store.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

__all__ = [
    "MAX_FORM_BYTES",
    "FormTooLarge",
    "csrf_token",
    "new_secret",
    "page_environment",
    "read_form",
    "render_page",
    "same_origin",
    "static_response",
    "tokens_match",
]

# A memory file is at most a few hundred KB; a form beyond this is not one of ours.
MAX_FORM_BYTES = 1_000_000

_STATIC_TYPES = {"style.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8"}


class FormTooLarge(Exception):
    """A form body over :data:`MAX_FORM_BYTES`."""


def new_secret() -> str:
    """A URL-safe random token (256 bits), as Jupyter uses for its local server."""
    return secrets.token_urlsafe(32)


def tokens_match(given: str | None, expected: str) -> bool:
    """Constant-time comparison, so the response time reveals nothing about the token."""
    return given is not None and hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def csrf_token(secret: str, purpose: str = "form") -> str:
    """The hidden form value a page must send back: derived from the session secret, so a page of
    another origin, which cannot read ours, cannot forge it."""
    return hmac.new(secret.encode("utf-8"), f"csrf:{purpose}".encode(), hashlib.sha256).hexdigest()


def same_origin(request: Request) -> bool:
    """False when the browser says the request comes from another site (Origin or Referer).

    The whole ``host:port`` must match: another port of 127.0.0.1 is another site. ``Origin: null``
    proves nothing either way (our own pages send it, since they ask for no referrer): the form's
    CSRF value is what refuses such a post from elsewhere."""
    host = request.headers.get("host", "")
    for header in ("origin", "referer"):
        value = request.headers.get(header)
        if value and value != "null":
            rest = value.split("://", 1)[-1]
            return rest.split("/", 1)[0] == host
    return True


async def read_form(request: Request) -> dict[str, str]:
    """An urlencoded form as single values (the last one wins); bodies over the limit are refused."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            raise FormTooLarge(size)
        chunks.append(chunk)
    text = b"".join(chunks).decode("utf-8", errors="replace")
    parsed = parse_qs(text, keep_blank_values=True)
    return {key: values[-1] for key, values in parsed.items()}


def page_environment(package: str) -> jinja2.Environment:
    """Templates of ``package`` (its ``templates/`` folder) over the shared base layout."""
    loader = jinja2.ChoiceLoader(
        [jinja2.PackageLoader(package, "templates"), jinja2.PackageLoader("memdir.web", "templates")]
    )
    env = jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined)
    env.trim_blocks = True
    env.lstrip_blocks = True
    return env


def render_page(env: jinja2.Environment, name: str, context: Mapping[str, Any], status: int = 200) -> HTMLResponse:
    headers = {
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": "default-src 'self'; style-src 'self'; script-src 'self'; "
        "img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    }
    return HTMLResponse(env.get_template(name).render(**context), status_code=status, headers=headers)


def static_response(name: str) -> Response:
    """The shared stylesheet or script; anything else is a 404."""
    media = _STATIC_TYPES.get(name)
    if media is None:
        return Response("not found", status_code=404, media_type="text/plain")
    body = resources.files("memdir.web").joinpath("static", name).read_bytes()
    return Response(body, media_type=media, headers={"Cache-Control": "max-age=300"})
