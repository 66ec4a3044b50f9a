"""SHA-256 for the prompt hook's path, without ``hashlib``'s OpenSSL load.

``import hashlib`` loads OpenSSL's libcrypto (about 2 ms, a sixth of a bare interpreter start)
to offer every algorithm; the prompt hook needs one SHA-256 of the memory directory to find its
derived index. CPython also ships its own SHA-256 as a small extension module (``_sha2`` from
3.12, ``_sha256`` before), which gives the same digests; ``hashlib`` itself falls back to it.
An interpreter built without it uses ``hashlib``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["sha256_hex"]


class _Hash(Protocol):
    def hexdigest(self) -> str: ...


def _constructor() -> Callable[[bytes], _Hash]:
    for name in ("_sha256", "_sha2"):
        try:
            found: Callable[[bytes], _Hash] = __import__(name).sha256
        except (ImportError, AttributeError):
            continue
        return found
    from hashlib import sha256

    return sha256


_SHA256 = _constructor()


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` as 64 hex digits, the same as ``hashlib.sha256(data).hexdigest()``."""
    return _SHA256(data).hexdigest()
