"""Validation of team-memory keys, shared by the sync client and the sync server.

A key is a relative path inside ``team/`` that arrives from the network (a server's pull
response, a client's push body). The rules are those of Claude Code's ``sanitizePathKey``;
the filesystem half of the check (realpath containment) lives in :mod:`memdir.paths`.
"""

from __future__ import annotations

import unicodedata

from memdir.errors import PathTraversalError

__all__ = ["sanitize_path_key"]


def _decode_uri_component(key: str) -> str | None:
    """``decodeURIComponent`` or None when the escapes are malformed (JS throws URIError)."""
    index = 0
    while True:
        index = key.find("%", index)
        if index < 0:
            break
        chunk = key[index + 1 : index + 3]
        if len(chunk) < 2 or any(c not in "0123456789abcdefABCDEF" for c in chunk):
            return None
        index += 3
    from urllib.parse import unquote  # here: only a key with an escape needs it, and it costs a hook 2 ms

    try:
        decoded = unquote(key, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        return None
    return decoded


def sanitize_path_key(key: str) -> str:
    """Return ``key`` unchanged when it is an acceptable relative team key, else raise.

    Rejects NUL, URL-encoded traversal, Unicode-normalisation traversal (fullwidth dots and
    slashes), backslashes and absolute keys. ``..`` segments in a plain key are caught by the
    containment check that follows, which knows the team directory.
    """
    if "\0" in key:
        raise PathTraversalError(f"team key {key!r} contains a NUL byte", path=key)
    decoded = _decode_uri_component(key)
    if decoded is not None and decoded != key and (".." in decoded or "/" in decoded):
        raise PathTraversalError(
            f"team key {key!r} hides a path traversal in URL encoding (decodes to {decoded!r})", path=key
        )
    normalized = unicodedata.normalize("NFKC", key)
    if normalized != key and any(bad in normalized for bad in ("..", "/", "\\", "\0")):
        raise PathTraversalError(
            f"team key {key!r} becomes a path traversal after Unicode normalisation ({normalized!r})",
            path=key,
        )
    if "\\" in key:
        raise PathTraversalError(f"team key {key!r} contains a backslash; use '/' between folders", path=key)
    if key.startswith("/"):
        raise PathTraversalError(f"team key {key!r} is absolute; keys are relative to team/", path=key)
    return key
