"""The team-memory sync server: Claude Code's team-memory API over pluggable storage.

Defence in depth on top of the client's own checks: every key is validated, every entry (and
every key) is size-checked and scanned for secrets, and a push that fails any check stores
nothing. Parsing a body, checking it and every storage call block, so they run in Starlette's
threadpool and one large push never stalls the other clients.

Besides the team-memory path the server answers ``GET /`` (what it is), ``GET /health``
(liveness and database reachability, no token) and the history of each repository
(``GET .../history``, ``GET .../version``). A pushed file whose text reads as a prompt tag is
kept and flagged (``flagged`` in the answer, one log line, a mark on the dashboard).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from memdir.errors import MemdirError
from memdir.model.printable import printable
from memdir.server.auth import AuthDenied, authenticate, bearer_token, permit
from memdir.server.dashboard import DASHBOARD_PATH, RefusalLog, create_dashboard
from memdir.server.flags import markup_flags
from memdir.server.storage.base import (
    DEFAULT_MAX_ENTRIES,
    PutConflict,
    PutTooMany,
    RepoState,
    Retention,
    Storage,
    StorageUnavailable,
    TokenScope,
)
from memdir.team.protocol import (
    API_PATH,
    MAX_ENTRY_BYTES,
    PutRequest,
    PutResponse,
    TeamMemorySnapshot,
    TooManyEntries,
    format_etag,
    parse_etag,
    parse_put_request,
    validate_key,
    validate_repo,
)
from memdir.team.secrets import scan_for_secrets
from memdir.version import installed_version
from memdir.web.handlers import API_FAILURES, WebError, error_handlers, json_error

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "HISTORY_PATH",
    "SERVICE_NAME",
    "VERSION_PATH",
    "ServerConfig",
    "TeamServer",
    "create_app",
]

DEFAULT_MAX_BODY_BYTES = 2_000_000
SERVICE_NAME = "memdir-team-server"
HISTORY_PATH = API_PATH + "/history"
VERSION_PATH = API_PATH + "/version"
_DRAIN_FACTOR = 8
_MAX_HISTORY_LIMIT = 10_000
log = logging.getLogger("memdir.server")


@dataclass(frozen=True)
class ServerConfig:
    max_entries: int = DEFAULT_MAX_ENTRIES
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    organization_id: str = "memdir"
    retention: Retention | None = None


def _refused(status: int, code: str, message: str, headers: dict[str, str] | None = None, **details: Any) -> WebError:
    """A request check that failed: the API's refusal, with the protocol's error code."""
    return WebError(status, message, rule=code, headers=headers, details=details)


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length", "")
    too_large = declared.isdigit() and int(declared) > limit
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        too_large = too_large or size > limit
        if not too_large:
            chunks.append(chunk)
        elif size > limit * _DRAIN_FACTOR:
            break
    if too_large:
        raise _refused(
            413, "request_too_large", f"request body exceeds {limit} bytes; push in smaller batches", max_bytes=limit
        )
    return b"".join(chunks)


def _check_key(key: str) -> None:
    try:
        validate_key(key)
    except MemdirError as exc:
        raise _refused(400, "team_memory_invalid_key", exc.message, key=key, rule=exc.rule) from exc


def _parse_put(raw: bytes) -> PutRequest:
    """Parse and check one PUT body completely (blocking: run it off the event loop).

    Any malformed body is a 400: invalid UTF-8, bad JSON, nesting deeper than the parser allows, an
    integer too long to convert, lone surrogates in a key or a value."""
    try:
        parsed = json.loads(raw)
    except RecursionError:
        raise _refused(400, "invalid_json", "request body is nested too deeply to be a push") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise _refused(400, "invalid_json", f"request body is not JSON: {exc}") from None
    try:
        request = parse_put_request(parsed)
    except MemdirError as exc:
        raise _refused(400, "invalid_body", exc.message, rule=exc.rule) from exc
    for key in request.deletions:
        _check_key(key)
    for key, digest in (request.base_checksums or {}).items():
        _check_key(key)
        if not digest.isascii():
            raise _refused(400, "invalid_body", f"baseChecksums[{key!r}] is not a checksum")
    _check_entries(dict(request.entries))
    return request


def _check_entries(entries: dict[str, str]) -> None:
    """Every key, size and secret rule, before anything is stored."""
    for key in sorted(entries):
        _check_key(key)
        content = entries[key]
        if "\0" in content:
            raise _refused(
                400,
                "team_memory_invalid_content",
                f"entry {key!r} contains a NUL byte; team memory holds text files only",
                key=key,
                rule="content-nul",
            )
        try:
            size = len(content.encode("utf-8"))
        except UnicodeEncodeError:
            raise _refused(
                400,
                "team_memory_invalid_content",
                f"entry {key!r} is not valid Unicode text (it holds a lone surrogate)",
                key=key,
                rule="content-not-utf8",
            ) from None
        if size > MAX_ENTRY_BYTES:
            raise _refused(
                413,
                "team_memory_entry_too_large",
                f"entry {key!r} is {size} UTF-8 bytes; the limit is {MAX_ENTRY_BYTES}",
                key=key,
                max_bytes=MAX_ENTRY_BYTES,
                received_bytes=size,
            )
    findings = [
        {"key": key, "rule_id": finding.rule_id, "label": finding.label, "line": finding.line}
        for key in sorted(entries)
        for finding in scan_for_secrets(entries[key])
    ]
    findings += [
        {"key": key, "rule_id": finding.rule_id, "label": finding.label, "line": 0}
        for key in sorted(entries)
        for finding in scan_for_secrets(key)
    ]
    if findings:
        named = "; ".join(
            f"{f['key']} {'name' if f['line'] == 0 else 'line ' + str(f['line'])}: {f['label']} ({f['rule_id']})"
            for f in findings
        )
        raise _refused(
            422,
            "team_memory_secret_detected",
            f"push refused, nothing stored: potential secrets in "
            f"{named}. Team memory is shared with all repository collaborators; remove them and "
            "push again.",
            findings=findings,
        )


def _if_match(header: str | None) -> str | None:
    """The checksum a write must find; ``*`` (any version) and no header both mean "do not check"."""
    value = parse_etag(header)
    return None if value == "*" else value


class TeamServer:
    """The server's endpoints, one method each, over one storage (owned by the caller, who closes
    it after the server stops).

    A method that cannot answer raises :class:`WebError` with the protocol's error code; the app's
    one exception handler writes it as the protocol's JSON envelope (:func:`json_error`)."""

    def __init__(self, storage: Storage, config: ServerConfig | None = None) -> None:
        self.storage = storage
        self.config = config or ServerConfig()
        self.refusals = RefusalLog()  # secret refusals, for the dashboard

    def routes(self) -> list[Route | Mount]:
        """The endpoints, one line each, and the dashboard under its own path."""
        return [
            Route("/", self.root, methods=["GET"]),
            Route("/health", self.health, methods=["GET"]),
            Route(API_PATH, self.team_memory, methods=["GET", "PUT", "DELETE"]),
            Route(HISTORY_PATH, self.history, methods=["GET"]),
            Route(VERSION_PATH, self.version, methods=["GET"]),
            Mount(DASHBOARD_PATH, create_dashboard(self.storage, self.refusals, self.config)),
        ]

    def app(self) -> Starlette:
        handlers = error_handlers(json_error, API_FAILURES)
        return Starlette(routes=self.routes(), exception_handlers={**handlers, StorageUnavailable: self.unavailable})

    def snapshot(self, state: RepoState) -> TeamMemorySnapshot:
        return TeamMemorySnapshot(
            organization_id=self.config.organization_id,
            repo=state.repo,
            version=state.version,
            last_modified=state.last_modified,
            checksum=state.checksum,
            entries=state.entries,
            entry_checksums=state.entry_checksums,
            tombstones=state.tombstones,
            entry_authors=state.authors,
        )

    async def authorized(self, request: Request, *, admin: bool = False) -> tuple[TokenScope, str]:
        """The token's scope and the ``repo`` it asks for, or the refusal (401, 400, 403)."""
        scope = await run_in_threadpool(authenticate, self.storage, request.headers.get("authorization"))
        if isinstance(scope, AuthDenied):
            raise _refused(scope.status, scope.code, scope.message, {"WWW-Authenticate": "Bearer"})
        repo = request.query_params.get("repo", "")
        try:
            validate_repo(repo)
        except MemdirError as exc:
            raise _refused(400, "invalid_repo", exc.message, rule=exc.rule) from exc
        denied = permit(scope, repo, admin=admin)
        if denied is not None:
            raise _refused(denied.status, denied.code, denied.message)
        return scope, repo

    async def team_memory(self, request: Request) -> Response:
        """``GET`` (pull), ``PUT`` (push) or ``DELETE`` (one key) of ``.../team_memory?repo=R``; a push
        refused for secrets is kept in the refusal log (rule, key, token: never the text)."""
        scope, repo = await self.authorized(request, admin=request.method == "DELETE")
        try:
            if request.method == "GET":
                return await self.pull(request, repo)
            if request.method == "PUT":
                return await self.push(request, repo, scope)
            return await self.delete(request, repo, scope)
        except WebError as refused:
            findings = refused.details.get("findings")
            if findings:
                token = bearer_token(request.headers.get("authorization"))
                self.refusals.record(repo, findings, token=token, by=scope.name)
            raise

    async def pull(self, request: Request, repo: str) -> Response:
        view = request.query_params.get("view")
        if view not in (None, "hashes"):
            raise _refused(400, "invalid_view", f"unknown view {view!r}; the only view is 'hashes'")
        hashes = view == "hashes"
        state = await run_in_threadpool(self.storage.get_hashes if hashes else self.storage.get_repo, repo)
        if state is None:
            raise _refused(404, "not_found", f"repository {repo!r} has no team memory yet")
        etag = {"ETag": format_etag(state.checksum)}
        wanted = request.headers.get("if-none-match")
        if not hashes and wanted and state.checksum in {parse_etag(tag) for tag in wanted.split(",")}:
            return Response(status_code=304, headers=etag)
        return JSONResponse(self.snapshot(state).to_json(include_entries=not hashes), headers=etag)

    async def push(self, request: Request, repo: str, scope: TokenScope) -> Response:
        config = self.config
        raw = await _read_body(request, config.max_body_bytes)
        parsed = await run_in_threadpool(_parse_put, raw)
        outcome = await run_in_threadpool(
            lambda: self.storage.put_entries(
                repo,
                parsed.entries,
                _if_match(request.headers.get("if-match")),
                max_entries=config.max_entries,
                deletions=parsed.deletions,
                base_checksums=parsed.base_checksums,
                by=scope.name,
                retention=config.retention,
            )
        )
        if isinstance(outcome, PutConflict):
            raise _refused(
                412,
                "team_memory_etag_mismatch",
                "the repository changed since your If-Match checksum; fetch ?view=hashes and push again",
                {"ETag": format_etag(outcome.current_checksum)},
                current_checksum=outcome.current_checksum,
            )
        if isinstance(outcome, PutTooMany):
            return JSONResponse(TooManyEntries(outcome.max_entries, outcome.received_entries).to_json(), 413)
        body = PutResponse(
            outcome.checksum, outcome.last_modified, outcome.version, outcome.deleted, scope.name or None
        ).to_json()
        body.update(organizationId=config.organization_id, repo=repo, written=list(outcome.written))
        flagged = await run_in_threadpool(markup_flags, parsed.entries)
        if flagged:
            body["flagged"] = flagged
            keys = ", ".join(printable(flag["key"]) for flag in flagged)
            log.warning("push to %s by %s kept with prompt tags in: %s", printable(repo), printable(scope.name), keys)
        return JSONResponse(body, headers={"ETag": format_etag(outcome.checksum)})

    async def delete(self, request: Request, repo: str, scope: TokenScope) -> Response:
        key = request.query_params.get("key", "")
        _check_key(key)
        retention = self.config.retention
        result = await run_in_threadpool(lambda: self.storage.delete_key(repo, key, by=scope.name, retention=retention))
        if not result.deleted:
            raise _refused(404, "not_found", f"repository {repo!r} has no team-memory key {key!r}")
        return JSONResponse({"deleted": key, "checksum": result.checksum, "version": result.version})

    async def history(self, request: Request) -> Response:
        """``GET .../history?repo=R[&key=K][&limit=N]``: newest first, without bodies."""
        _scope, repo = await self.authorized(request)
        key = request.query_params.get("key") or None
        if key is not None:
            _check_key(key)
        limit = _int_param(request, "limit", 100, 1, _MAX_HISTORY_LIMIT)
        rows = await run_in_threadpool(lambda: self.storage.history(repo, key, limit=limit))
        return JSONResponse({"repo": repo, "history": [row.to_json() for row in rows]})

    async def version(self, request: Request) -> Response:
        """``GET .../version?repo=R&key=K&version=V`` (or ``&hash=sha256:...``): one version with its content."""
        _scope, repo = await self.authorized(request)
        key = request.query_params.get("key", "")
        _check_key(key)
        wanted_hash = request.query_params.get("hash")
        number = None if wanted_hash else _int_param(request, "version", None, 1, 2**62)
        storage = self.storage
        row = await run_in_threadpool(lambda: storage.history_entry(repo, key, version=number, checksum=wanted_hash))
        if row is None:
            what = f"hash {wanted_hash}" if wanted_hash else f"version {number}"
            raise _refused(404, "not_found", f"{repo!r} has no {what} of {key!r} in its history")
        return JSONResponse(row.to_json(with_content=True))

    async def health(self, _request: Request) -> Response:
        try:
            await run_in_threadpool(self.storage.ping)
        except Exception as exc:  # noqa: BLE001 - any failure to reach the database is "unhealthy", never a 500
            message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
            return JSONResponse({"status": "unavailable", "database": "unreachable", "error": message}, 503)
        return JSONResponse({"status": "ok", "database": "ok"})

    async def root(self, _request: Request) -> Response:
        about = {"service": SERVICE_NAME, "version": installed_version(), "api": API_PATH, "health": "/health"}
        return JSONResponse(about)

    async def unavailable(self, request: Request, exc: Exception) -> Response:
        """The database dropped out under a request: a 503 the client retries, never a 500."""
        message = getattr(exc, "message", str(exc))
        return json_error(request, WebError(503, message, rule="storage_unavailable", headers={"Retry-After": "1"}))


def create_app(storage: Storage, config: ServerConfig | None = None) -> Starlette:
    """The ASGI app. ``storage`` stays owned by the caller, who closes it after the server stops."""
    return TeamServer(storage, config).app()


def _int_param(request: Request, name: str, default: int | None, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        if default is None:
            raise _refused(400, "invalid_parameter", f"{name} is required (a whole number)")
        return default
    if not raw.isdigit() or len(raw) > 19 or not low <= int(raw) <= high:
        raise _refused(400, "invalid_parameter", f"{name} must be a whole number from {low} to {high}")
    return int(raw)
