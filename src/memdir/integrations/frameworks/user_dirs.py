"""One memory directory per user: the directory name of any user id, and ``{user_id}`` templates.

An application that serves many users gives each one a memory directory of their own, as Claude
Code gives each project one: ``memory_dir="/srv/memories/{user_id}"`` in every framework adapter.
What a user id may be is the application's business (an email, a UUID, an OAuth subject, a
number), so the name a directory gets from it must be safe for any id, on every file system:

* an id that is already a plain lower-case name (letters ``a-z``, digits, and ``.``, ``_``,
  ``-``, ``@`` inside, at most 64 characters, not a name Windows reserves) is used as it is, so
  the directories read as the ids they hold;
* any other id (capitals, which a case-blind file system would merge, ``/``, spaces, other
  scripts, control characters, 300 characters) becomes a readable prefix of it and ``+`` and 16
  hex digits of its SHA-256: two ids never share a directory (a plain name has no ``+``), and
  nothing in an id can reach outside the parent directory.

A template names only the placeholders the adapter fills (``{user_id}``, and ``{app_name}`` for
ADK); anything else in braces is refused when the adapter is built, not at the first user.
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Collection

from memdir.errors import ConfigError
from memdir.model.sha256 import sha256_hex

__all__ = ["check_template", "directory_name", "fill_template", "placeholders", "user_memory_dir"]

_PLAIN = re.compile(r"[a-z0-9](?:[a-z0-9._@-]{0,62}[a-z0-9])?\Z")
_UNSAFE = re.compile(r"[^a-z0-9._@-]+")
# Names Windows gives to devices, with or without an extension: never a directory of its own.
_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)), *(f"lpt{n}" for n in range(10))})
_PREFIX = 40


def directory_name(value: str) -> str:
    """The directory name of a user id (or an application name): the id itself when it is a plain
    name, else a readable prefix and a digest of it (see the module docstring)."""
    if not isinstance(value, str) or not value:
        raise ConfigError(f"a user id must be a non-empty string, not {value!r}", rule="user-id")
    if _PLAIN.match(value) and ".." not in value and value.split(".", 1)[0] not in _RESERVED:
        return value
    prefix = _UNSAFE.sub("-", value.lower())[:_PREFIX].strip("-._")
    return f"{prefix or 'id'}+{sha256_hex(value.encode('utf-8', 'surrogatepass'))[:16]}"


def placeholders(template: str) -> set[str]:
    """The names in braces in a directory template (``{user_id}`` → ``user_id``)."""
    try:
        return {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}
    except ValueError as exc:
        raise ConfigError(
            f"memory_dir {template!r} is not a valid template: {exc}", rule="memory-dir-template"
        ) from None


def check_template(template: str, allowed: Collection[str]) -> None:
    """Refuse a template with a placeholder the adapter does not fill, or a field or format spec."""
    names = placeholders(template)
    unknown = sorted(name for name in names if name not in allowed)
    if unknown:
        known = ", ".join("{" + name + "}" for name in allowed)
        raise ConfigError(
            f"memory_dir {template!r} names {', '.join('{' + n + '}' for n in unknown)}, which memdir does not fill; "
            f"use {known} (each becomes a directory name safe for any value), or double the braces for a literal one",
            rule="memory-dir-template",
        )


def fill_template(template: str, **values: str) -> str:
    """The template with each placeholder replaced by the directory name of its value."""
    check_template(template, values)
    return template.format(**{name: directory_name(value) for name, value in values.items()})


def user_memory_dir(memory_dir: str | os.PathLike[str], user_id: str | None) -> str:
    """The memory directory of ``user_id`` under ``memory_dir``: the template filled when it names
    ``{user_id}``; a template without it (or no user) is refused, so that a user id given for
    separate memories is never silently ignored."""
    template = os.fspath(memory_dir)
    names = placeholders(template)
    if user_id is None:
        if names:
            raise ConfigError(
                f"memory_dir {template!r} names {{user_id}}: pass user_id= for the user whose memory this is",
                rule="memory-dir-template",
            )
        return template
    if "user_id" not in names:
        raise ConfigError(
            f"user_id={user_id!r} needs a memory_dir that names {{user_id}} (e.g. '/srv/memories/{{user_id}}'), "
            f"so that each user has a directory of their own; {template!r} does not",
            rule="memory-dir-template",
        )
    return fill_template(template, user_id=user_id)
