"""A store key as a memory file's name, and back: one file per key, any key.

A key-value store (LangGraph's ``BaseStore``) takes any string as a key, so the mapping is a
bijection on every key, not only on those that happen to be file names:

* a key that is a portable file name (no control character, none of ``/ \\ : * ? " < > |``, not
  starting or ending with a dot or a space, not a device name Windows reserves, at most 150 bytes,
  in Unicode's composed form) is the file ``<key>.md``: ``food_preference`` is
  ``food_preference.md``, ``notes.md`` is ``notes.md.md``, and a file's key is its name without
  the last ``.md``, so a file Claude Code wrote (``feedback_testing.md``) is the key
  ``feedback_testing``;
* any other key (``user:42``, ``C:foo``, ``a\\tb``, 300 characters) is a readable prefix of it, ``+``
  and 16 hex digits of its SHA-256, and the file keeps the key itself in its frontmatter
  (``key:``), where the way back reads it;
* the index, ``MEMORY.md``, is no key's file.

LangMem's ``manage_memory`` tool takes only UUIDs as ids, so a store may show every memory under
a UUID instead (:func:`alias`, the UUID 5 of its path in the directory): a file named ``<uuid>.md``
is its own, and any other file, Claude Code's included, has a stable one that ``get``, ``put`` and
``delete`` accept.
"""

from __future__ import annotations

import re
import unicodedata
import uuid

from memdir.errors import UnsafePathError
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.sha256 import sha256_hex

__all__ = ["KEY_FIELD", "alias", "file_for_key", "is_uuid", "key_for_file", "needs_stored_key"]

# The frontmatter field that keeps a key its file name could not hold.
KEY_FIELD = "key"
_MAX_BYTES = 150
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]')
_SLUG_UNSAFE = re.compile(r'[\x00-\x20\x7f/\\:*?"<>|]+')
_DIGEST = re.compile(r"\+[0-9a-f]{16}\Z")
_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)), *(f"lpt{n}" for n in range(10))})
# The namespace of the UUIDs a store shows for files not named by one (uuid5 of the file's path).
_ALIASES = uuid.UUID("6f0d9a4e-3c1b-5e8f-9a27-4d6b1c0e8f53")


def _portable(key: str) -> bool:
    return (
        not _UNSAFE.search(key)
        and key[0] not in ". "
        and key[-1] not in ". "
        and len(key.encode("utf-8", "surrogatepass")) <= _MAX_BYTES
        and key.split(".", 1)[0].lower() not in _DEVICES
        and unicodedata.is_normalized("NFC", key)
        and not _DIGEST.search(key)  # the form of a digested name: keeps the two kinds apart
    )


def file_for_key(key: str) -> str:
    """The memory file of a store key (see the module docstring); an empty key, and a key whose
    file would be the index, are refused."""
    if not isinstance(key, str) or not key:
        raise UnsafePathError("a store key must be a non-empty string", rule="store-key", path=str(key))
    if _portable(key):
        file = f"{key}.md"
    else:
        prefix = _SLUG_UNSAFE.sub("-", key)[:60].strip("-. ")
        file = f"{prefix or 'key'}+{sha256_hex(key.encode('utf-8', 'surrogatepass'))[:16]}.md"
    if file.casefold() == ENTRYPOINT_NAME.casefold():
        raise UnsafePathError(
            f"store key {key!r} names the index, {ENTRYPOINT_NAME}; memdir keeps it in step with the memories",
            rule="store-key",
            path=key,
        )
    return file


def key_for_file(file: str, stored: object = None) -> str:
    """The key of a memory file's base name: the name without ``.md``, or, for a digested name,
    the key its frontmatter keeps (``stored``) when that key leads back to this file."""
    if isinstance(stored, str) and stored and _DIGEST.search(file.removesuffix(".md")):
        try:
            if file_for_key(stored) == file:
                return stored
        except UnsafePathError:
            pass
    return file.removesuffix(".md")


def needs_stored_key(key: str) -> bool:
    """Whether the file of ``key`` has a digested name, and so keeps the key in its frontmatter."""
    return not _portable(key)


def alias(rel: str) -> str:
    """The UUID a store shows for the memory at ``rel`` (its path in the directory): the file's own
    name when it is a UUID, else a UUID 5 of the path, the same in every process."""
    stem = rel.rsplit("/", 1)[-1].removesuffix(".md")
    return stem if is_uuid(stem) else str(uuid.uuid5(_ALIASES, rel))


def is_uuid(key: str) -> bool:
    """Whether ``key`` is a UUID in its usual form (LangMem's keys)."""
    try:
        return str(uuid.UUID(key)) == key
    except ValueError:
        return False
