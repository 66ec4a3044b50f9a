"""What every memdir web app shares besides its pages: one rule from a failure to an answer, and
the handlers no app writes for itself (the static files, "no such page", "not this method").

The local web view, the team dashboard and the team server's API each hold their endpoints as
methods of one class; a method that cannot answer as asked raises (a :class:`WebError`, or one of
memdir's own refusals) instead of building an error response. :func:`error_handlers` gives the
app one exception handler for all of them, which reads the failure through :func:`web_error` (the
status, the rule id, the message) and hands it to the app's one presenter: an error page for the
pages, the team protocol's JSON envelope (:func:`json_error`) for the API. So a refusal reads the
same whichever handler meets it, and an expected failure is never a 500.

Like :mod:`memdir.web.pages`, this imports nothing of memdir beyond the errors and the team
protocol's error envelope, so the team server may use it without the memory store.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable, Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from memdir.errors import LockTimeout, MemdirError, MemoryExists, MemoryNotFound, SecretDetected
from memdir.team.protocol import error_body
from memdir.web.pages import FormTooLarge, static_response

__all__ = [
    "API_FAILURES",
    "PAGE_FAILURES",
    "WebError",
    "error_handlers",
    "json_error",
    "os_message",
    "static_route",
    "status_of",
    "web_error",
]

Present = Callable[[Request, "WebError"], Response]

# What a page app turns into an error page: its own refusals, memdir's, a form over the limit, the
# file system's refusal (a name too long, say), and the router's 404 and 405.
PAGE_FAILURES: tuple[type[Exception] | int, ...] = (MemdirError, FormTooLarge, OSError, 404, 405)
# An API answers its own refusals only; anything else is a bug to see, not a refusal to word.
API_FAILURES: tuple[type[Exception] | int, ...] = ()

_STATUS_OF: tuple[tuple[type[MemdirError], int], ...] = (
    (MemoryNotFound, 404),
    (MemoryExists, 409),
    (SecretDetected, 422),
    (LockTimeout, 503),
)


class WebError(MemdirError):
    """A request refused: its HTTP ``status``, the ``rule`` id that refused it and a ``message`` that
    says how to fix it. ``title`` heads an error page (None: the app's own word for a refusal);
    ``headers`` go on the answer; ``details`` join a JSON answer's details."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        rule: str,
        title: str | None = None,
        headers: Mapping[str, str] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message, rule=rule)
        self.status = status
        self.title = title
        self.headers = dict(headers or {})
        self.details = dict(details or {})


def status_of(exc: MemdirError) -> int:
    """The HTTP status of one of memdir's refusals: a missing memory 404, an existing one 409, a
    secret 422, a lock held too long 503, anything else the request's fault (400)."""
    if isinstance(exc, WebError):
        return exc.status
    return next((status for kind, status in _STATUS_OF if isinstance(exc, kind)), 400)


def os_message(exc: OSError, what: str) -> str:
    """The file system's refusal in words a person can act on."""
    if exc.errno == errno.ENAMETOOLONG:
        return f"{what}: the name is too long for the file system; choose a shorter file name"
    return f"{what}: {exc.strerror or exc}"


def web_error(request: Request, exc: Exception) -> WebError:
    """The one rule from a failure under a handler to the refusal the request gets."""
    if isinstance(exc, WebError):
        return exc
    if isinstance(exc, HTTPException):  # the router's: no route for the path, or not for the method
        if exc.status_code == 405:
            return WebError(405, f"{request.method} is not used here", rule="method-not-allowed", title="Not allowed")
        return WebError(exc.status_code, f"no page at {request.url.path}", rule="not-found", title="Not found")
    if isinstance(exc, FormTooLarge):
        return WebError(413, "the form is over 1 MB", rule="form-too-large", title="Too large")
    if isinstance(exc, MemdirError):
        return WebError(status_of(exc), exc.message, rule=exc.rule)
    if isinstance(exc, OSError):
        return WebError(400, os_message(exc, request.url.path), rule="os-error")
    raise exc  # not a failure this rule words: let the server report it


def error_handlers(present: Present, failures: tuple[type[Exception] | int, ...] = PAGE_FAILURES) -> dict[Any, Any]:
    """The ``exception_handlers`` of one app: :class:`WebError` and each of ``failures`` are read by
    :func:`web_error` and shown by ``present``, the app's one way to show a refusal."""

    async def handle(request: Request, exc: Exception) -> Response:
        return present(request, web_error(request, exc))

    return dict.fromkeys((WebError, *failures), handle)


class _AsciiJSON(JSONResponse):
    """Error bodies are ASCII JSON: they may echo a hostile key (a lone surrogate, say) that UTF-8
    cannot encode, and an error must never become a 500."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def json_error(_request: Request | None, error: WebError) -> Response:
    """An API's refusal: the team protocol's envelope, ``{"error": {"message", "details"}}``, with the
    rule id as ``error_code``."""
    return _AsciiJSON(error_body(error.rule, error.message, **error.details), error.status, headers=error.headers)


async def _static(request: Request) -> Response:
    return static_response(request.path_params["name"])


def static_route() -> Route:
    """``/static/{name}``: the shared stylesheet and script (anything else is a 404)."""
    return Route("/static/{name}", _static)
