"""The one exception hierarchy of memdir.

Every error memdir raises on purpose derives from :class:`MemdirError`, so a caller can catch
one class. Messages name the file or value at fault, the rule that refused it, and how to fix it.
No message ever contains a detected secret.

    MemdirError
    ├── ConfigError                 settings, env vars or CLI options that cannot be used
    ├── UnsafePathError             a path escapes its root, is a dangling symlink or loop, or is malformed
    │   └── PathTraversalError      a team-memory key that tries to leave team/ (server keys, pushed keys)
    ├── MemoryFormatError           a memory file that cannot be read as memory (encoding, size, binary)
    ├── MemoryNotFound              the named memory file does not exist
    ├── MemoryExists                a save would overwrite an existing memory without force
    ├── LockTimeout                 a file lock could not be taken in time
    ├── MemoryDisabled              auto memory is switched off by env or settings
    ├── SecretDetected              content holds something the secret scanner flags
    ├── ModelError                  a model call failed
    │   ├── ModelNotConfigured      no model spec given where one is needed
    │   ├── ModelUnavailable        missing API key or optional dependency
    │   ├── ModelCallsForbidden     real model calls are switched off (tests)
    │   ├── ModelTimeout            the call did not finish in time
    │   └── ModelOutputError        the model answered something that is not what was asked for
    ├── ToolDenied                  a sandboxed agent tool call was refused
    └── SyncError                   team sync failed
        ├── SyncAuthError           401/403 from the server, or no token
        ├── SyncConflict            412 after every retry
        └── SyncTooManyEntries      413 with the server's entry limit

    IndexFullWarning (a UserWarning)   a memory was saved without its MEMORY.md line (the index is full)
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "IndexFullWarning",
    "LockTimeout",
    "MemdirError",
    "MemoryDisabled",
    "MemoryExists",
    "MemoryFormatError",
    "MemoryNotFound",
    "ModelCallsForbidden",
    "ModelError",
    "ModelNotConfigured",
    "ModelOutputError",
    "ModelTimeout",
    "ModelUnavailable",
    "PathTraversalError",
    "SecretDetected",
    "SyncAuthError",
    "SyncConflict",
    "SyncError",
    "SyncTooManyEntries",
    "ToolDenied",
    "UnsafePathError",
]


class MemdirError(Exception):
    """Base of every error memdir raises on purpose.

    ``rule`` is a short stable identifier of the check that failed (for `doctor`, JSON output and
    tool errors); ``path`` is the file concerned when there is one.
    """

    rule: str = "memdir"

    def __init__(self, message: str, *, rule: str | None = None, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if rule is not None:
            self.rule = rule
        self.path = path


class ConfigError(MemdirError):
    rule = "config"


class UnsafePathError(MemdirError):
    rule = "unsafe-path"


class PathTraversalError(UnsafePathError):
    rule = "path-traversal"


class MemoryFormatError(MemdirError):
    rule = "format"


class MemoryNotFound(MemdirError):
    rule = "not-found"


class MemoryExists(MemdirError):
    rule = "exists"


class LockTimeout(MemdirError):
    rule = "lock-timeout"


class MemoryDisabled(MemdirError):
    rule = "disabled"


class SecretDetected(MemdirError):
    """Content holds a secret. ``labels`` names the scanner rules that hit, never the text."""

    rule = "secret"

    def __init__(self, message: str, *, labels: list[str], path: str | None = None) -> None:
        super().__init__(message, path=path)
        self.labels = labels


class ModelError(MemdirError):
    rule = "model"


class ModelNotConfigured(ModelError):
    rule = "model-not-configured"


class ModelUnavailable(ModelError):
    rule = "model-unavailable"


class ModelCallsForbidden(ModelError):
    rule = "model-calls-forbidden"


class ModelTimeout(ModelError):
    rule = "model-timeout"


class ModelOutputError(ModelError):
    rule = "model-output"


class ToolDenied(MemdirError):
    rule = "tool-denied"


class SyncError(MemdirError):
    """``status`` is the HTTP status when the server answered, so callers can tell lasting refusals apart."""

    rule = "sync"
    status: int | None = None


class SyncAuthError(SyncError):
    rule = "sync-auth"


class SyncConflict(SyncError):
    rule = "sync-conflict"


class SyncTooManyEntries(SyncError):
    rule = "sync-too-many-entries"

    def __init__(self, message: str, *, max_entries: int | None, received: int | None = None) -> None:
        super().__init__(message)
        self.max_entries = max_entries
        self.received = received


class IndexFullWarning(UserWarning):
    """A memory was saved, but ``MEMORY.md`` refused its line: the index holds what Claude Code
    loads (200 lines, 25 KB). Recall still finds the memory; ``memdir doctor`` shows what to trim.
    Warned by the calls that return nothing to put it in (a LangGraph ``put``, ADK's ``add_memory``)."""
