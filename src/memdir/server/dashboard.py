"""The team server's dashboard: what a person sees of the shared memory in a browser.

Per repository: the files, who changed what when (the storage's history), and the
pushes the server refused because the secret scanner flagged them — by rule, key, token id and
time, never the text. Administrators also see the token list. The pages sit behind the same
bearer tokens as the API: a browser signs in once by pasting its token, which then travels in an
HttpOnly, SameSite=Strict cookie; a client that sends ``Authorization: Bearer`` needs no cookie.
"""

from __future__ import annotations

import difflib
import threading
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from memdir.model.markup import describe_markup
from memdir.server.auth import bearer_token
from memdir.server.storage.base import TOKEN_ID_CHARS, Storage, TokenScope, hash_token, utc_now_iso
from memdir.team.protocol import validate_key, validate_repo
from memdir.web.handlers import WebError, error_handlers, static_route
from memdir.web.pages import page_environment, read_form, render_page, same_origin

__all__ = ["DASHBOARD_PATH", "Dashboard", "Refusal", "RefusalLog", "create_dashboard", "token_id"]

DASHBOARD_PATH = "/dashboard"
_COOKIE = "memdir_team_dashboard"
_HISTORY_ROWS = 100


def token_id(token: str | None) -> str:
    """The shown id of a token (the start of its hash, as ``memdir team token list`` prints it)."""
    return hash_token(token)[:TOKEN_ID_CHARS] if token else ""


@dataclass(frozen=True)
class Refusal:
    """One key of a push refused for a potential secret: the rule that matched, never the text."""

    at: str
    repo: str
    key: str
    rule_id: str
    label: str
    line: int
    token: str  # the pushing token's id
    by: str = ""  # the pushing token's name, when it has one


class RefusalLog:
    """The most recent secret refusals of this server process, newest first (bounded)."""

    def __init__(self, capacity: int = 1000) -> None:
        self._items: deque[Refusal] = deque(maxlen=capacity)
        self._lock = threading.Lock()

    def record(self, repo: str, findings: Iterable[Mapping[str, Any]], *, token: str | None, by: str = "") -> None:
        now = utc_now_iso()
        with self._lock:
            for finding in findings:
                self._items.appendleft(
                    Refusal(
                        at=now,
                        repo=repo,
                        key=str(finding.get("key", "")),
                        rule_id=str(finding.get("rule_id", "")),
                        label=str(finding.get("label", "")),
                        line=int(finding.get("line", 0)),
                        token=token_id(token),
                        by=by,
                    )
                )

    def for_repo(self, repo: str) -> list[Refusal]:
        with self._lock:
            return [item for item in self._items if item.repo == repo]

    def repos(self) -> list[str]:
        with self._lock:
            return sorted({item.repo for item in self._items})


class Dashboard:
    """The dashboard's endpoints, one method each, over the server's storage and refusal log.

    A page method signs the request in first (:meth:`sign_in`) and raises :class:`WebError` for
    what it cannot show; the app's one exception handler turns that into the sign-in form (401) or
    an error page (:meth:`show_error`). ``config``, the server's
    :class:`~memdir.server.app.ServerConfig`, gives a restore its entry limit and retention."""

    def __init__(self, storage: Storage, refusals: RefusalLog, config: Any = None) -> None:
        self.storage = storage
        self.refusals = refusals
        self.config = config
        self.pages = page_environment("memdir.server")

    def routes(self) -> list[Route]:
        return [
            Route("/", self.home),
            Route("/repo", self.repo_page),
            Route("/file", self.file_page),
            Route("/tokens", self.tokens_page),
            Route("/change", self.change_page),
            Route("/restore", self.restore, methods=["POST"]),
            Route("/login", self.login, methods=["POST"]),
            Route("/logout", self.logout, methods=["POST"]),
            static_route(),
        ]

    def app(self) -> Starlette:
        return Starlette(routes=self.routes(), exception_handlers=error_handlers(self.show_error))

    # -- rendering ---------------------------------------------------------------------------
    def render(self, request: Request, name: str, status: int = 200, **context: Any) -> Response:
        base = {
            "nav": True,
            "base": DASHBOARD_PATH,
            "csrf": "",
            "status": status,
            "path": request.url.path,
            "layout": "dash_base.html",
            "admin": getattr(request.state, "admin", False),
        }
        return render_page(self.pages, name, {**base, **context}, status=status)

    def show_error(self, request: Request, error: WebError) -> Response:
        """A 401 is the sign-in form (without an error on a first visit); anything else an error page."""
        if error.status == 401:
            return self.render(request, "dash_login.html", 401, title="Sign in", message=error.message, nav=False)
        title = error.title or "Cannot show that"
        return self.render(request, "error.html", error.status, title=title, message=error.message)

    # -- who is asking -----------------------------------------------------------------------
    async def sign_in(self, request: Request) -> tuple[TokenScope, str]:
        """The scope and token of the request's bearer header or cookie; a 401 without one."""
        token = bearer_token(request.headers.get("authorization")) or request.cookies.get(_COOKIE)
        if token is None:
            raise WebError(401, "", rule="sign-in")  # a first visit: the sign-in form, without an error
        scope = await run_in_threadpool(self.storage.verify_token, token)
        if scope is None:
            raise WebError(401, "this token is unknown or revoked; sign in with another", rule="sign-in")
        request.state.admin = scope.admin  # the nav shows only the links this token can use
        return scope, token

    def repo_param(self, request: Request, scope: TokenScope) -> str:
        repo = validate_repo(request.query_params.get("name", ""))
        if not scope.allows(repo):
            raise _denied(403, f"this token is not allowed to read repository {repo!r}")
        return repo

    # -- pages -------------------------------------------------------------------------------
    async def home(self, request: Request) -> Response:
        scope, token = await self.sign_in(request)
        named = [pattern for pattern in scope.repos if "*" not in pattern]
        # A pattern (acme/*, *) covers repositories by name: the ones the server holds are listed.
        held = await run_in_threadpool(self.storage.list_repos)
        seen = sorted({repo for repo in [*held, *self.refusals.repos()] if scope.allows(repo) and repo not in named})
        return self.render(
            request, "dash_home.html", title="Team memory", scope=scope, repos=named + seen, me=token_id(token)
        )

    async def repo_page(self, request: Request) -> Response:
        scope, _token = await self.sign_in(request)
        repo = self.repo_param(request, scope)
        state = await run_in_threadpool(self.storage.get_repo, repo)
        files = []
        if state is not None:
            files = [
                {
                    "key": key,
                    "bytes": len(text.encode("utf-8")),
                    "checksum": state.entry_checksums.get(key, ""),
                    "markup": describe_markup(text),
                }
                for key, text in sorted(state.entries.items())
            ]
        history = await run_in_threadpool(lambda: self.storage.history(repo, limit=_HISTORY_ROWS))
        return self.render(
            request,
            "dash_repo.html",
            title=repo,
            repo=repo,
            state=state,
            files=files,
            history=history,
            refused=self.refusals.for_repo(repo),
        )

    async def file_page(self, request: Request) -> Response:
        scope, _token = await self.sign_in(request)
        repo = self.repo_param(request, scope)
        key = validate_key(request.query_params.get("key", ""))
        state = await run_in_threadpool(self.storage.get_repo, repo)
        if state is None or key not in state.entries:
            raise _denied(404, f"repository {repo!r} has no file {key!r}")
        return self.render(request, "dash_file.html", title=key, repo=repo, key=key, text=state.entries[key])

    async def change_page(self, request: Request) -> Response:
        """One history row: what that version changed (a diff against the version before) and, for
        an administrator, a button that makes it current again."""
        scope, token = await self.sign_in(request)
        repo = self.repo_param(request, scope)
        key = validate_key(request.query_params.get("key", ""))
        version = _version(request.query_params.get("version", ""))
        storage = self.storage
        entry = await run_in_threadpool(lambda: storage.history_entry(repo, key, version=version))
        if entry is None:
            raise _denied(404, f"repository {repo!r} has no version {version} of {key!r}")
        rows = await run_in_threadpool(lambda: storage.history(repo, key, limit=_HISTORY_ROWS))
        older = next((row for row in rows if row.version < version), None)
        before = None
        if older is not None and not older.deleted:
            found = await run_in_threadpool(lambda: storage.history_entry(repo, key, version=older.version))
            before = found.content if found is not None else None
        after = "" if entry.deleted else (entry.content or "")
        diff = list(
            difflib.unified_diff(
                (before or "").splitlines(), after.splitlines(), "before", f"version {version}", lineterm=""
            )
        )[2:]
        return self.render(
            request, "dash_change.html", title=f"{key} at version {version}", repo=repo, key=key, entry=entry,
            diff=diff, admin=scope.admin, me=token_id(token), restorable=entry.content is not None,
        )  # fmt: skip

    async def restore(self, request: Request) -> Response:
        scope, token = await self.sign_in(request)
        if not same_origin(request):
            raise _denied(403, "restore from this site only")
        form = await read_form(request)
        if form.get("me") != token_id(token):  # a page of another site cannot know it
            raise _denied(403, "this form was not made for your sign-in; reload the page")
        if not scope.admin:
            raise _denied(403, "restoring is for administrators (a token created with --admin)")
        repo = form.get("name", "")
        if not scope.allows(repo):
            raise _denied(403, f"this token is not allowed to write repository {repo!r}")
        key = validate_key(form.get("key", ""))
        version = _version(form.get("version", ""))
        storage = self.storage
        entry = await run_in_threadpool(lambda: storage.history_entry(repo, key, version=version))
        if entry is None or entry.content is None:
            raise _denied(404, f"repository {repo!r} has no version {version} of {key!r} to restore")
        text = entry.content
        limit = getattr(self.config, "max_entries", 1000)
        retention = getattr(self.config, "retention", None)
        await run_in_threadpool(
            lambda: storage.put_entries(repo, {key: text}, None, max_entries=limit, by=scope.name, retention=retention)
        )
        return RedirectResponse(f"{DASHBOARD_PATH}/repo?name={quote(repo)}", status_code=303)

    async def tokens_page(self, request: Request) -> Response:
        scope, token = await self.sign_in(request)
        if not scope.admin:
            raise _denied(403, "the token list is for administrators (a token created with --admin)")
        # An administrator of some repositories sees the tokens of those only: the others' names and
        # scopes would tell it which repositories exist elsewhere on the server.
        tokens = [info for info in await run_in_threadpool(self.storage.list_tokens) if scope.covers(info.repos)]
        return self.render(request, "dash_tokens.html", title="Tokens", tokens=tokens, me=token_id(token))

    # -- signing in and out --------------------------------------------------------------------
    async def login(self, request: Request) -> Response:
        if not same_origin(request):
            raise _denied(403, "sign in from this site only")
        form = await read_form(request)
        token = form.get("token", "").strip()
        scope = await run_in_threadpool(self.storage.verify_token, token) if token else None
        if scope is None:
            message = "this token is unknown or revoked; an administrator creates one with `memdir team token create`"
            raise WebError(401, message, rule="sign-in")
        response = RedirectResponse(DASHBOARD_PATH + "/", status_code=303)
        secure = request.url.scheme == "https"
        response.set_cookie(_COOKIE, token, httponly=True, samesite="strict", secure=secure, path=DASHBOARD_PATH)
        return response

    async def logout(self, request: Request) -> Response:
        response = RedirectResponse(DASHBOARD_PATH + "/", status_code=303)
        if same_origin(request):
            response.delete_cookie(_COOKIE, path=DASHBOARD_PATH)
        return response


def create_dashboard(storage: Storage, refusals: RefusalLog, config: Any = None) -> Starlette:
    """The dashboard app, to mount at :data:`DASHBOARD_PATH` in the team server (``config``, the
    server's :class:`~memdir.server.app.ServerConfig`, gives a restore its entry limit and retention)."""
    return Dashboard(storage, refusals, config).app()


def _denied(status: int, message: str) -> WebError:
    """What a signed-in token may not see or do (or what is not there): a page titled "Not allowed"."""
    return WebError(status, message, rule="forbidden" if status == 403 else "not-found", title="Not allowed")


def _version(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 2**62:
        raise WebError(
            400, f"version {text[:20]!r} is not a version number", rule="invalid-version", title="Not allowed"
        )
    return int(text)
