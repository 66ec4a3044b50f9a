"""The HTTP side of team-memory sync: one repository on one server, with §9.1's timeouts and retries.

Only this module talks to the network. It returns parsed protocol values or raises a
:class:`~memdir.errors.SyncError` subclass whose message says what to fix; what to send and what
to do with the answers is :mod:`memdir.team.sync`'s business.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from memdir.errors import SyncAuthError, SyncError, SyncTooManyEntries
from memdir.team.protocol import (
    API_PATH,
    PutRequest,
    PutResponse,
    TeamMemorySnapshot,
    format_etag,
    parse_etag,
    parse_put_response,
    parse_snapshot,
    parse_too_many_entries,
)

if TYPE_CHECKING:
    import httpx

    from memdir.environment import Environment

__all__ = [
    "DEFAULT_TIMEOUT",
    "GET_ATTEMPTS",
    "Fetched",
    "TeamClient",
    "TeamEndpoint",
    "resolve_endpoint",
    "retry_delay",
]

DEFAULT_TIMEOUT = 30.0
GET_ATTEMPTS = 4
_RETRYABLE = frozenset({408, 429})


@dataclass(frozen=True)
class TeamEndpoint:
    """Where and as whom to sync: server base URL, bearer token, ``owner/name``."""

    server: str
    token: str
    repo: str

    @property
    def url(self) -> str:
        return self.server.rstrip("/") + API_PATH


@dataclass(frozen=True)
class Fetched:
    """Outcome of a pull GET: a snapshot (200), unchanged (304) or nothing stored (404)."""

    snapshot: TeamMemorySnapshot | None
    not_modified: bool = False


def retry_delay(attempt: int, jitter: float) -> float:
    """Seconds before GET attempt ``attempt + 1``: ``min(0.5 * 2^(attempt-1), 32)`` plus up to 25%."""
    base: float = min(0.5 * 2.0 ** (attempt - 1), 32.0)
    return base + base * 0.25 * jitter


def _server_message(response: httpx.Response) -> str:
    try:
        body = response.json()
        return str(body["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return response.text[:200].strip() or response.reason_phrase


def _json(response: httpx.Response, what: str) -> Any:
    try:
        return response.json()
    except ValueError as exc:
        raise SyncError(f"invalid team-memory {what}: the body is not JSON ({exc})", rule="sync-protocol") from exc


class TeamClient:
    """A synchronous client for one repository. ``sleep`` and ``jitter`` are injectable so tests
    exercise the retry schedule without waiting."""

    def __init__(
        self,
        endpoint: TeamEndpoint,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        try:
            import httpx
        except ImportError as exc:  # pragma: no cover - depends on the installed extras
            raise SyncError("team sync needs httpx: pip install 'memdir[team]'", rule="sync-dependency") from exc
        self.endpoint = endpoint
        self._sleep = sleep
        self._jitter = jitter
        self.bytes_sent = 0
        self.requests = 0
        self._http = httpx.Client(
            timeout=timeout,
            transport=transport,
            headers={"Authorization": f"Bearer {endpoint.token}", "User-Agent": "memdir-team-sync"},
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> TeamClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def fetch(self, etag: str | None = None) -> Fetched:
        """``GET`` with every entry; ``etag`` becomes ``If-None-Match``."""
        headers = {"If-None-Match": format_etag(etag)} if etag else {}
        response = self._get({}, headers, accepted=(200, 304, 404))
        if response.status_code == 304:
            return Fetched(None, not_modified=True)
        if response.status_code == 404:
            return Fetched(None)
        return Fetched(self._snapshot(response, hashes_only=False))

    def fetch_hashes(self) -> TeamMemorySnapshot | None:
        """``GET ?view=hashes``: metadata and entry checksums only; None when the repo is empty."""
        response = self._get({"view": "hashes"}, {}, accepted=(200, 404))
        if response.status_code == 404:
            return None
        return self._snapshot(response, hashes_only=True)

    def put(
        self,
        entries: Mapping[str, str],
        if_match: str | None,
        *,
        deletions: Sequence[str] = (),
        base_checksums: Mapping[str, str] | None = None,
    ) -> PutResponse | None:
        """``PUT`` one batch (upsert, and delete ``deletions``). None means 412: the repo moved past
        ``if_match`` and a key the batch touches is not at its ``base_checksums`` any more. Not
        retried: the caller's conflict loop decides what to send again."""
        import httpx

        request = PutRequest(entries, tuple(deletions), base_checksums)
        body = json.dumps(request.to_json(), ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if if_match:
            headers["If-Match"] = format_etag(if_match)
        self.requests += 1
        self.bytes_sent += len(body)
        try:
            response = self._http.put(
                self.endpoint.url, params={"repo": self.endpoint.repo}, content=body, headers=headers
            )
        except httpx.TransportError as exc:
            raise self._transport_error(exc, "push") from exc
        if response.status_code == 412:
            return None
        if response.status_code != 200:
            raise self._status_error(response, "push")
        return parse_put_response(_json(response, "push response"))

    def history(self, key: str | None = None, *, limit: int = 100) -> list[dict[str, Any]]:
        """The server's history of the repository (or of one key), newest first."""
        params = {"limit": str(limit), **({"key": key} if key else {})}
        response = self._get(params, {}, accepted=(200,), path="/history")
        body = _json(response, "history response")
        rows = body.get("history") if isinstance(body, dict) else None
        if not isinstance(rows, list):
            raise SyncError("invalid team-memory history response: 'history' must be a list", rule="sync-protocol")
        return [row for row in rows if isinstance(row, dict)]

    def fetch_version(
        self, key: str, *, version: int | None = None, checksum: str | None = None
    ) -> dict[str, Any] | None:
        """One stored version of ``key`` with its content (by version number or by hash); None when
        the server has no such version, or keeps no history (a Claude Code server)."""
        params = {"key": key, **({"hash": checksum} if checksum else {"version": str(version)})}
        response = self._get(params, {}, accepted=(200, 404, 405), path="/version")
        if response.status_code != 200:
            return None
        body = _json(response, "version response")
        if not isinstance(body, dict) or not isinstance(body.get("content"), str):
            raise SyncError("invalid team-memory version response: no 'content'", rule="sync-protocol")
        return body

    def _get(
        self, params: dict[str, str], headers: dict[str, str], *, accepted: tuple[int, ...], path: str = ""
    ) -> httpx.Response:
        import httpx

        error: SyncError | None = None
        for attempt in range(1, GET_ATTEMPTS + 1):
            self.requests += 1
            try:
                response = self._http.get(
                    self.endpoint.url + path, params={"repo": self.endpoint.repo, **params}, headers=headers
                )
            except httpx.TransportError as exc:
                error = self._transport_error(exc, "pull")
            else:
                if response.status_code in accepted:
                    return response
                error = self._status_error(response, "pull")
                if response.status_code < 500 and response.status_code not in _RETRYABLE:
                    raise error
            if attempt < GET_ATTEMPTS:
                self._sleep(retry_delay(attempt, self._jitter()))
        assert error is not None
        raise error

    def _snapshot(self, response: httpx.Response, *, hashes_only: bool) -> TeamMemorySnapshot:
        what = "hashes response" if hashes_only else "pull response"
        snapshot = parse_snapshot(_json(response, what), hashes_only=hashes_only)
        if not snapshot.checksum:
            header = parse_etag(response.headers.get("etag"))
            if header:
                snapshot = replace(snapshot, checksum=header)
        return snapshot

    def _transport_error(self, exc: httpx.TransportError, action: str) -> SyncError:
        import httpx

        if isinstance(exc, httpx.TimeoutException):
            return SyncError(
                f"team {action} timed out talking to {self.endpoint.server} ({type(exc).__name__}); "
                "check that the server is up and reachable, then retry",
                rule="sync-timeout",
            )
        return SyncError(
            f"cannot reach the team server {self.endpoint.server} ({exc or type(exc).__name__}); "
            "check --server / MEMDIR_TEAM_SERVER and that the server is running",
            rule="sync-network",
        )

    def _status_error(self, response: httpx.Response, action: str) -> SyncError:
        status, repo, server = response.status_code, self.endpoint.repo, self.endpoint.server
        message = _server_message(response)
        error: SyncError
        if status == 401:
            error = SyncAuthError(
                f"{server} refused the token (401: {message}); check --token / MEMDIR_TEAM_TOKEN, "
                f"or create one on the server with 'memdir team token create --repo {repo}'"
            )
        elif status == 403:
            error = SyncAuthError(
                f"{server} refused access to {repo} (403: {message}); use a token created with --repo {repo}"
            )
        elif status == 413 and (limit := parse_too_many_entries(_body_or_none(response))) is not None:
            error = SyncTooManyEntries(
                f"{server} holds at most {limit.max_entries} team-memory entries for {repo} "
                f"(the push would make {limit.received_entries}); delete unneeded files in team/ "
                "or ask the administrator to raise --max-entries",
                max_entries=limit.max_entries,
                received=limit.received_entries,
            )
        elif status < 500:
            error = SyncError(
                f"team {action} refused by {server} ({status}: {message}); fix the files named and retry",
                rule="sync-refused",
            )
        else:
            error = SyncError(
                f"team {action} failed on {server} ({status}: {message}); the server is failing, retry later",
                rule="sync-server",
            )
        error.status = status
        return error


def _body_or_none(response: httpx.Response) -> object:
    try:
        return response.json()
    except ValueError:
        return None


def resolve_endpoint(
    *,
    cwd: str,
    server: str | None = None,
    token: str | None = None,
    repo: str | None = None,
    settings_server: object = None,
    environment: Environment,
) -> TeamEndpoint:
    """Options first, then ``MEMDIR_TEAM_SERVER`` / ``TEAM_MEMORY_SYNC_URL`` / settings
    ``memdir.teamServer`` for the server, ``MEMDIR_TEAM_TOKEN`` for the token, the git remote of
    ``cwd`` for the repository; the variables come from ``environment``."""
    from memdir.team.repo import resolve_repo

    url = server or environment.team_server or settings_server
    if not isinstance(url, str) or not url:
        raise SyncError(
            "no team server configured; pass --server URL or set MEMDIR_TEAM_SERVER "
            "(also read: TEAM_MEMORY_SYNC_URL, settings key memdir.teamServer)",
            rule="sync-no-server",
        )
    if not url.startswith(("http://", "https://")):
        raise SyncError(f"team server {url!r} is not an http:// or https:// URL", rule="sync-no-server")
    secret = token or environment.team_token
    if not secret:
        raise SyncAuthError(
            "no team token; pass --token or set MEMDIR_TEAM_TOKEN "
            "(an administrator creates one with 'memdir team token create --repo OWNER/NAME')"
        )
    return TeamEndpoint(url, secret, resolve_repo(repo, cwd))
