"""The one containment check, and the one place paths are spelled.

How a path is spelled decides which memory it reaches: the same directory typed precomposed or
decomposed (macOS keyboards produce both), with ``//`` or a trailing ``/``, must be one key. Every
layer spells paths through the three functions here, never with its own ``unicodedata`` or
``realpath`` call:

- :func:`spell_lexical`: Claude Code's lexical spelling (Node's ``path.posix.normalize``) in NFC,
  no filesystem access: directory names derived from settings and environment variables, and
  anything compared with them by string prefix;
- :func:`spell_real`: ``realpath`` in NFC: a working directory as the key its project is filed under;
- :func:`normalize_root`: the directory memdir works in (``~`` expanded, absolute, NFC, no trailing
  separator, symlinks kept).

``tests/test_path_spelling.py`` fails when another module spells a path on its own.

Containment: names reach memdir from models, MCP clients, HTTP bodies and team-sync servers. A name is accepted
only when both its lexical form and the real file it would reach stay inside the root, so neither
``..`` segments nor symlinks planted inside the directory can redirect a read or write. Lexical
handling follows Node's POSIX ``path`` module, because the reference implementation's string
prefix tests depend on its exact normalisation (``//x`` collapses, trailing ``/`` is kept).

Paths are POSIX paths: memdir's directories are shared with Claude Code on macOS and Linux.
"""

from __future__ import annotations

import errno
import os
import re
import unicodedata

from memdir.errors import PathTraversalError, UnsafePathError
from memdir.model.keys import sanitize_path_key

__all__ = [
    "basename_lexical",
    "contain",
    "dirname_lexical",
    "join_lexical",
    "normalize_lexical",
    "normalize_root",
    "realpath_deepest_existing",
    "resolve_lexical",
    "spell_lexical",
    "spell_real",
    "validate_team_mem_key",
    "validate_team_mem_write_path",
    "within",
]

SEP = "/"
_DRIVE = re.compile(r"^[A-Za-z]:")


def normalize_root(path: str | os.PathLike[str]) -> str:
    """The one spelling of a directory memdir works in: ``~`` expanded, made absolute, NFC, and
    without a trailing separator (``/`` stays ``/``). Symlinks are not resolved: the directory is
    keyed by the name it was given, and containment checks the real files separately.

    The configuration, the store and the derived index all call this, so one directory is one
    key everywhere (the index's database name is a hash of it): a name typed in decomposed form
    on macOS and the same name precomposed reach the same memory and the same index.
    """
    text = unicodedata.normalize("NFC", os.path.abspath(os.path.expanduser(os.fspath(path))))
    return text.rstrip(os.sep) or os.sep


def spell_lexical(path: str) -> str:
    """A path as Claude Code spells it (:func:`normalize_lexical`: ``.``/``..`` resolved, ``/`` runs
    collapsed, a trailing ``/`` kept), in NFC so that one name typed two ways is one key. No
    filesystem access: symlinks keep their names."""
    return unicodedata.normalize("NFC", normalize_lexical(path))


def spell_real(path: str) -> str:
    """``realpath(path)`` in NFC: the one spelling of a working directory, whatever links led to it
    (Claude Code files a project's memory, transcripts and session notes under it)."""
    return unicodedata.normalize("NFC", os.path.realpath(path))


def normalize_lexical(path: str) -> str:
    """Node's ``path.posix.normalize``: resolves ``.``/``..``, collapses every run of ``/``
    (including a leading ``//``, which Python's ``normpath`` keeps) and keeps a trailing ``/``."""
    if not path:
        return "."
    absolute = path.startswith(SEP)
    trailing = path.endswith(SEP)
    parts: list[str] = []
    for part in path.split(SEP):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not absolute:
                parts.append("..")
            continue
        parts.append(part)
    body = SEP.join(parts)
    if not body and not absolute:
        body = "."
    if body and trailing:
        body += SEP
    return SEP + body if absolute else body


def dirname_lexical(path: str) -> str:
    """Node's ``path.posix.dirname``: the parent by string, ``/`` for the root."""
    stripped = path.rstrip(SEP)
    if not stripped:
        return SEP if path else "."
    head = stripped.rpartition(SEP)[0].rstrip(SEP)
    if head:
        return head
    return SEP if stripped.startswith(SEP) else "."


def basename_lexical(path: str) -> str:
    return path.rstrip(SEP).rpartition(SEP)[2]


def join_lexical(*parts: str) -> str:
    """Node's ``path.posix.join``: concatenate the non-empty parts, then normalize."""
    joined = SEP.join(part for part in parts if part)
    return normalize_lexical(joined) if joined else "."


def resolve_lexical(*parts: str) -> str:
    """Node's ``path.posix.resolve``: absolute, normalized, no trailing ``/``, no filesystem access.

    The last absolute part restarts the path; a relative result is anchored at the working directory.
    """
    resolved = ""
    for part in reversed(parts):
        if not part:
            continue
        resolved = f"{part}{SEP}{resolved}" if resolved else part
        if part.startswith(SEP):
            break
    if not resolved.startswith(SEP):
        resolved = f"{os.getcwd()}{SEP}{resolved}"
    normalized = normalize_lexical(resolved)
    return normalized.rstrip(SEP) or SEP


def within(path: str, root: str) -> bool:
    """String containment with a separator boundary, so ``/a/root-evil`` is not inside ``/a/root``."""
    root = root.rstrip(SEP)
    return path == root or path.startswith(root + SEP)


def realpath_deepest_existing(path: str) -> str:
    """The real path of ``path``'s deepest existing ancestor, with the missing tail re-attached.

    Lets a not-yet-created file be checked: its future location is wherever its existing parent
    really is. A dangling symlink on the way would create a file at the link's target, so it is
    refused, as is a symlink loop or anything that cannot be examined (fail closed).
    """
    tail: list[str] = []
    start = current = resolve_lexical(path)
    while True:
        parent = dirname_lexical(current)
        if parent == current:
            return start
        try:
            real = os.path.realpath(current, strict=True)
        except OSError as exc:
            code = exc.errno
            if code == errno.ENOENT:
                if os.path.islink(current):
                    raise UnsafePathError(
                        f"{current} is a dangling symlink; writing through it would create a file "
                        "wherever it points. Remove the link or point it at an existing file inside "
                        "the memory directory",
                        rule="dangling-symlink",
                        path=current,
                    ) from exc
            elif code == errno.ELOOP:
                raise UnsafePathError(
                    f"{current} is part of a symlink loop; remove one of the links",
                    rule="symlink-loop",
                    path=current,
                ) from exc
            elif code not in (errno.ENOTDIR, errno.ENAMETOOLONG):
                raise UnsafePathError(
                    f"cannot verify that {current} stays inside its directory ({exc.strerror}); "
                    "fix the permissions of the path",
                    rule="cannot-verify",
                    path=current,
                ) from exc
        except ValueError as exc:
            raise UnsafePathError(f"cannot verify {current!r}: {exc}", rule="cannot-verify", path=current) from exc
        else:
            return join_lexical(real, *reversed(tail)) if tail else real
        tail.append(current[len(parent) :].lstrip(SEP))
        current = parent


def _real_root(root: str, candidate: str, error: type[UnsafePathError]) -> str | None:
    """``realpath(root)``, or None when the root does not exist yet (nothing inside it can escape)."""
    try:
        return os.path.realpath(root, strict=True)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return None
        raise error(
            f"cannot verify that {candidate!r} stays inside {root} ({exc.strerror}); "
            "fix the permissions of the directory",
            rule="cannot-verify",
            path=candidate,
        ) from exc


def _check_real(root: str, resolved: str, candidate: str, error: type[UnsafePathError]) -> None:
    try:
        real = realpath_deepest_existing(resolved)
    except UnsafePathError as exc:
        if isinstance(exc, error):
            raise
        raise error(exc.message, rule=exc.rule, path=candidate) from exc
    real_root = _real_root(root, candidate, error)
    if real_root is not None and not within(real, real_root):
        raise error(
            f"{candidate!r} leads through a symlink to {real}, outside {real_root} "
            "(rule: symlink-escape); memdir only follows links that stay inside the directory",
            rule="symlink-escape",
            path=candidate,
        )


def _reject(candidate: str, rule: str, why: str, fix: str) -> UnsafePathError:
    return UnsafePathError(
        f"refusing path {_shown(candidate)!r}: {why} (rule: {rule}); {fix}", rule=rule, path=candidate
    )


# POSIX limits (Linux and macOS alike): one name of at most 255 bytes, a whole path under 4,096.
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 4095


def _shown(candidate: str) -> str:
    """A name short enough to print in a one-line error (a 5,000-byte name would drown the message)."""
    return candidate if len(candidate) <= 80 else candidate[:60] + "…" + candidate[-15:]


def _check_length(resolved: str, candidate: str, error: type[UnsafePathError]) -> None:
    """Refuse, by name, what the operating system would refuse with ENAMETOOLONG (in bytes, after NFC)."""
    for part in resolved.split(SEP):
        size = len(unicodedata.normalize("NFC", part).encode("utf-8", "surrogateescape"))
        if size > MAX_NAME_BYTES:
            raise error(
                f"refusing path {_shown(candidate)!r}: a name in it is too long, {size} bytes, over the "
                f"{MAX_NAME_BYTES}-byte limit of file names (rule: name-too-long); choose a shorter name",
                rule="name-too-long",
                path=candidate,
            )
    size = len(unicodedata.normalize("NFC", resolved).encode("utf-8", "surrogateescape"))
    if size > MAX_PATH_BYTES:
        raise error(
            f"refusing path {_shown(candidate)!r}: the full path is too long, {size} bytes, over the "
            f"{MAX_PATH_BYTES + 1}-byte limit of paths (rule: path-too-long); use fewer or shorter folders",
            rule="path-too-long",
            path=candidate,
        )


def contain(root: str, candidate: str, *, allow_absolute: bool = False) -> str:
    """THE one containment check for every path memdir reads or writes for a caller.

    ``candidate`` is relative to ``root`` (or absolute, with ``allow_absolute``). Returns the
    lexically resolved absolute path (not the realpath, so a link inside the root keeps its name).
    """
    if not candidate:
        raise _reject(candidate, "empty", "the name is empty", "give a file name relative to the directory")
    if "\0" in candidate or "\0" in root:
        raise _reject(candidate, "nul", "it contains a NUL byte", "remove the NUL character")
    if _DRIVE.match(candidate):
        raise _reject(candidate, "windows-drive", "it names a Windows drive", "use a relative POSIX name")
    if candidate.startswith(("\\\\", "//")):
        raise _reject(candidate, "unc", "it is a UNC network path", "use a name relative to the directory")
    if "\\" in candidate:
        raise _reject(candidate, "backslash", "it contains a backslash", "separate folders with '/'")
    if candidate.startswith(SEP) and not allow_absolute:
        raise _reject(candidate, "absolute", "it is absolute", f"give a name relative to {root}")
    base = resolve_lexical(root)
    resolved = resolve_lexical(base, candidate)
    if not within(resolved, base):
        raise _reject(
            candidate,
            "outside-root",
            f"it resolves to {resolved}, outside {base}",
            "remove the '..' segments or use a path inside the directory",
        )
    _check_length(resolved, candidate, UnsafePathError)
    _check_real(base, resolved, candidate, UnsafePathError)
    return resolved


def _team_dir(team_dir: str) -> str:
    return team_dir if team_dir.endswith(SEP) else team_dir + SEP


def _team_checks(team_dir: str, resolved: str, shown: str) -> str:
    if not resolved.startswith(team_dir):
        raise PathTraversalError(
            f"team memory path {shown!r} resolves to {resolved}, outside {team_dir} (rule: outside-root); "
            "team files must stay under team/",
            rule="outside-root",
            path=shown,
        )
    _check_length(resolved, shown, PathTraversalError)
    _check_real(team_dir, resolved, shown, PathTraversalError)
    return resolved


def validate_team_mem_key(team_dir: str, key: str) -> str:
    """Check a team key received over the network; returns the absolute path it names."""
    sanitize_path_key(key)
    team_dir = _team_dir(team_dir)
    return _team_checks(team_dir, resolve_lexical(join_lexical(team_dir, key)), key)


def validate_team_mem_write_path(team_dir: str, file_path: str) -> str:
    """Check a file path an agent wants to write in team memory; returns it resolved."""
    if "\0" in file_path:
        raise PathTraversalError(
            f"team memory path {file_path!r} contains a NUL byte (rule: nul); remove it",
            rule="nul",
            path=file_path,
        )
    return _team_checks(_team_dir(team_dir), resolve_lexical(file_path), file_path)
