"""Which repository a team memory belongs to: ``owner/name`` from the git remote, or given.

Claude Code only counts github.com remotes; memdir accepts any host (SPEC Part A 9), so a
GitLab, Gitea or self-hosted remote names its repository the same way.
"""

from __future__ import annotations

import re
import subprocess

from memdir.errors import SyncError
from memdir.team.protocol import validate_repo

__all__ = ["parse_remote_url", "repo_from_git", "resolve_repo"]

_SCP_LIKE = re.compile(r"^(?:[^@/\s]+@)?[^:/\s]+:(?P<path>[^/].*)$")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/]*@)?[^/]*(?P<path>/.*)$")


def parse_remote_url(url: str) -> str | None:
    """``owner/name`` of a remote URL (https, ssh://, git://, ``git@host:owner/name.git``), else None.

    The last two path segments are taken, so GitLab subgroups (``group/sub/name``) give
    ``sub/name``; a local path or a URL with fewer than two segments gives None.
    """
    url = url.strip()
    found = _URL.match(url) or (None if url.startswith(("/", ".", "file:")) else _SCP_LIKE.match(url))
    if found is None:
        return None
    path = found.group("path").split("?", 1)[0].split("#", 1)[0].rstrip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")]
    segments = [segment for segment in path.split("/") if segment]
    if len(segments) < 2:
        return None
    candidate = "/".join(segments[-2:])
    try:
        return validate_repo(candidate)
    except SyncError:
        return None


def repo_from_git(cwd: str) -> str | None:
    """``owner/name`` of ``remote.origin.url`` in the repository containing ``cwd``, or None."""
    try:
        completed = subprocess.run(
            ["git", "config", "--get", "remote.origin.url"],
            cwd=cwd,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if completed.returncode != 0:
        return None
    return parse_remote_url(completed.stdout)


def resolve_repo(explicit: str | None, cwd: str) -> str:
    """The repository to sync: ``explicit`` when given, else the git remote; raises when neither."""
    if explicit:
        return validate_repo(explicit)
    found = repo_from_git(cwd)
    if found is None:
        raise SyncError(
            f"no repository for team memory: {cwd} has no git remote 'origin' of the form .../OWNER/NAME; "
            "pass --repo OWNER/NAME (or add the remote)",
            rule="sync-no-repo",
        )
    return found
