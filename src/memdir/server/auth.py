"""Bearer-token authentication of the team-memory server.

Tokens replace claude.ai OAuth: each is scoped to repositories (``owner/name``, ``owner/*`` or
``*``) and may carry the admin flag that allows deleting keys. Only their hashes are stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from memdir.server.storage.base import Storage, TokenScope

__all__ = ["AuthDenied", "authenticate", "bearer_token", "permit"]


@dataclass(frozen=True)
class AuthDenied:
    status: int
    code: str
    message: str


def bearer_token(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def authenticate(storage: Storage, header: str | None) -> TokenScope | AuthDenied:
    """Blocking (it reads the token table): call it from a worker thread."""
    token = bearer_token(header)
    if token is None:
        return AuthDenied(401, "unauthorized", "missing bearer token; send 'Authorization: Bearer <token>'")
    scope = storage.verify_token(token)
    if scope is None:
        return AuthDenied(401, "unauthorized", "unknown token; create one with 'memdir team token create'")
    return scope


def permit(scope: TokenScope, repo: str, *, admin: bool = False) -> AuthDenied | None:
    if not scope.allows(repo):
        return AuthDenied(403, "forbidden", f"this token is not allowed to access repository {repo!r}")
    if admin and not scope.admin:
        return AuthDenied(403, "forbidden", "deleting team-memory keys needs a token created with --admin")
    return None
