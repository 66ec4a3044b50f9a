"""The team-memory sync server: Claude Code's team-memory API over pluggable storage.

Defence in depth on top of the client's own checks: every key is validated, every entry is
size-checked and scanned for secrets, and a push that fails any check stores nothing. Storage
calls block, so they run in Starlette's threadpool.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from memdir.errors import MemdirError
from memdir.server.auth import AuthDenied, authenticate, bearer_token, permit
from memdir.server.dashboard import DASHBOARD_PATH, RefusalLog, create_dashboard
from memdir.server.storage.base import DEFAULT_MAX_ENTRIES, PutConflict, PutTooMany, RepoState, Storage
from memdir.team.protocol import (
    API_PATH,
    MAX_ENTRY_BYTES,
    PutResponse,
    TeamMemorySnapshot,
    TooManyEntries,
    error_body,
    format_etag,
    parse_etag,
    parse_put_request,
    validate_key,
    validate_repo,
)
from memdir.team.secrets import scan_for_secrets

__all__ = ["DEFAULT_MAX_BODY_BYTES", "ServerConfig", "create_app"]

DEFAULT_MAX_BODY_BYTES = 2_000_000
_DRAIN_FACTOR = 8


@dataclass(frozen=True)
class ServerConfig:
    max_entries: int = DEFAULT_MAX_ENTRIES
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    organization_id: str = "memdir"


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None, **details: Any) -> Response:
    return JSONResponse(error_body(code, message, **details), status_code=status, headers=headers)


class _Refused(Exception):
    """A request check failed; carries the response to send."""

    def __init__(self, response: Response, findings: list[dict[str, Any]] | None = None) -> None:
        super().__init__(response.status_code)
        self.response = response
        self.findings = findings or []  # secret-scanner findings, for the dashboard's refusal log


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
        raise _Refused(
            _error(
                413,
                "request_too_large",
                f"request body exceeds {limit} bytes; push in smaller batches",
                max_bytes=limit,
            )
        )
    return b"".join(chunks)


def _check_entries(entries: dict[str, str]) -> None:
    """Every key, size and secret rule, before anything is stored."""
    for key in sorted(entries):
        try:
            validate_key(key)
        except MemdirError as exc:
            raise _Refused(_error(400, "team_memory_invalid_key", exc.message, key=key, rule=exc.rule)) from exc
        content = entries[key]
        if "\0" in content:
            raise _Refused(
                _error(
                    400,
                    "team_memory_invalid_content",
                    f"entry {key!r} contains a NUL byte; team memory holds text files only",
                    key=key,
                    rule="content-nul",
                )
            )
        size = len(content.encode("utf-8", "surrogatepass"))
        if size > MAX_ENTRY_BYTES:
            raise _Refused(
                _error(
                    413,
                    "team_memory_entry_too_large",
                    f"entry {key!r} is {size} UTF-8 bytes; the limit is {MAX_ENTRY_BYTES}",
                    key=key,
                    max_bytes=MAX_ENTRY_BYTES,
                    received_bytes=size,
                )
            )
    findings = [
        {"key": key, "rule_id": finding.rule_id, "label": finding.label, "line": finding.line}
        for key in sorted(entries)
        for finding in scan_for_secrets(entries[key])
    ]
    if findings:
        named = "; ".join(f"{f['key']} line {f['line']}: {f['label']} ({f['rule_id']})" for f in findings)
        raise _Refused(
            _error(
                422,
                "team_memory_secret_detected",
                f"push refused, nothing stored: potential secrets in "
                f"{named}. Team memory is shared with all repository collaborators; remove them and "
                "push again.",
                findings=findings,
            ),
            findings,
        )


def create_app(storage: Storage, config: ServerConfig | None = None) -> Starlette:
    """The ASGI app. ``storage`` stays owned by the caller, who closes it after the server stops."""
    config = config or ServerConfig()
    refusals = RefusalLog()

    def snapshot(state: RepoState) -> TeamMemorySnapshot:
        return TeamMemorySnapshot(
            organization_id=config.organization_id,
            repo=state.repo,
            version=state.version,
            last_modified=state.last_modified,
            checksum=state.checksum,
            entries=state.entries,
            entry_checksums=state.entry_checksums,
        )

    async def team_memory(request: Request) -> Response:
        scope = await run_in_threadpool(authenticate, storage, request.headers.get("authorization"))
        if isinstance(scope, AuthDenied):
            return _error(scope.status, scope.code, scope.message, {"WWW-Authenticate": "Bearer"})
        repo = request.query_params.get("repo", "")
        try:
            validate_repo(repo)
        except MemdirError as exc:
            return _error(400, "invalid_repo", exc.message, rule=exc.rule)
        denied = permit(scope, repo, admin=request.method == "DELETE")
        if denied is not None:
            return _error(denied.status, denied.code, denied.message)
        try:
            if request.method == "GET":
                return await _get(request, repo)
            if request.method == "PUT":
                return await _put(request, repo)
            return await _delete(request, repo)
        except _Refused as refused:
            if refused.findings:
                refusals.record(repo, refused.findings, token=bearer_token(request.headers.get("authorization")))
            return refused.response

    async def _get(request: Request, repo: str) -> Response:
        view = request.query_params.get("view")
        if view not in (None, "hashes"):
            return _error(400, "invalid_view", f"unknown view {view!r}; the only view is 'hashes'")
        hashes = view == "hashes"
        state = await run_in_threadpool(storage.get_hashes if hashes else storage.get_repo, repo)
        if state is None:
            return _error(404, "not_found", f"repository {repo!r} has no team memory yet")
        etag = {"ETag": format_etag(state.checksum)}
        wanted = request.headers.get("if-none-match")
        if not hashes and wanted and state.checksum in {parse_etag(tag) for tag in wanted.split(",")}:
            return Response(status_code=304, headers=etag)
        return JSONResponse(snapshot(state).to_json(include_entries=not hashes), headers=etag)

    async def _put(request: Request, repo: str) -> Response:
        raw = await _read_body(request, config.max_body_bytes)
        try:
            parsed = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return _error(400, "invalid_json", f"request body is not JSON: {exc}")
        try:
            entries = dict(parse_put_request(parsed).entries)
        except MemdirError as exc:
            return _error(400, "invalid_body", exc.message, rule=exc.rule)
        _check_entries(entries)
        if_match = parse_etag(request.headers.get("if-match"))
        outcome = await run_in_threadpool(storage.put_entries, repo, entries, if_match, max_entries=config.max_entries)
        if isinstance(outcome, PutConflict):
            return _error(
                412,
                "team_memory_etag_mismatch",
                "the repository changed since your If-Match checksum; fetch ?view=hashes and push again",
                {"ETag": format_etag(outcome.current_checksum)},
                current_checksum=outcome.current_checksum,
            )
        if isinstance(outcome, PutTooMany):
            return JSONResponse(TooManyEntries(outcome.max_entries, outcome.received_entries).to_json(), 413)
        body = PutResponse(outcome.checksum, outcome.last_modified, outcome.version).to_json()
        body.update(organizationId=config.organization_id, repo=repo, written=list(outcome.written))
        return JSONResponse(body, headers={"ETag": format_etag(outcome.checksum)})

    async def _delete(request: Request, repo: str) -> Response:
        key = request.query_params.get("key", "")
        try:
            validate_key(key)
        except MemdirError as exc:
            return _error(400, "team_memory_invalid_key", exc.message, key=key, rule=exc.rule)
        result = await run_in_threadpool(storage.delete_key, repo, key)
        if not result.deleted:
            return _error(404, "not_found", f"repository {repo!r} has no team-memory key {key!r}")
        return JSONResponse({"deleted": key, "checksum": result.checksum, "version": result.version})

    routes = [
        Route(API_PATH, team_memory, methods=["GET", "PUT", "DELETE"]),
        Mount(DASHBOARD_PATH, create_dashboard(storage, refusals)),
    ]
    return Starlette(routes=routes)
