"""Where a session's notes live, and the user's custom template and prompt.

The notes sit beside Claude Code's transcript of the same session,
``<configHome>/projects/<sanitize(cwd)>/<sessionId>/session-memory/summary.md``, so both tools
find the same file. The key is the working directory, not the git root: two checkouts of one
repository are two places where work happens.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from memdir.errors import ConfigError, MemoryFormatError
from memdir.model.frontmatter import decode_memory_bytes
from memdir.store.files import FILE_MODE, ensure_dir, read_bytes_limited
from memdir.templates import load_template

__all__ = [
    "NOTES_NAME",
    "STATE_NAME",
    "SessionPaths",
    "custom_config_dir",
    "load_session_prompt",
    "load_session_template",
    "validate_session_id",
]

NOTES_NAME = "summary.md"
DRAFT_NAME = "summary.draft.md"
STATE_NAME = "state.json"
_DIRNAME = "session-memory"

log = logging.getLogger("memdir.session_notes")


def validate_session_id(session_id: str) -> str:
    """A session id becomes a directory name, so it must be exactly one safe path component."""
    if (
        not session_id
        or session_id in (".", "..")
        or "/" in session_id
        or "\\" in session_id
        or "\x00" in session_id
        or session_id != session_id.strip()
    ):
        raise ConfigError(
            f"session id {session_id!r} cannot be used as a directory name; pass the id Claude Code "
            "gives the session (the transcript's file name without .jsonl) with --session-id",
            rule="session-id",
        )
    return session_id


@dataclass(frozen=True)
class SessionPaths:
    directory: str  # .../<sessionId>/session-memory
    config_home: str

    @classmethod
    def for_session(cls, session_id: str, *, transcripts_dir: str, config_home: str) -> SessionPaths:
        """The notes of ``session_id`` beside its transcript in ``transcripts_dir`` (a project's
        ``MemoryConfig.transcripts_dir``); ``config_home`` holds the user's notes template."""
        directory = os.path.join(transcripts_dir, validate_session_id(session_id), _DIRNAME)
        return cls(directory=directory, config_home=config_home)

    @property
    def notes(self) -> str:
        return os.path.join(self.directory, NOTES_NAME)

    @property
    def state(self) -> str:
        return os.path.join(self.directory, STATE_NAME)

    def read_notes(self) -> str | None:
        """The notes, or None when there are none; a binary, non-UTF-8 or oversized file is a
        :class:`~memdir.errors.MemoryFormatError` naming it, never a crash."""
        try:
            data = read_bytes_limited(self.notes)
        except FileNotFoundError:
            return None
        except IsADirectoryError as exc:
            raise MemoryFormatError(
                f"{self.notes} is a directory, not session notes; remove it", rule="not-a-file", path=self.notes
            ) from exc
        return decode_memory_bytes(data, path=self.notes)

    @property
    def draft(self) -> str:
        """Where the first notes are written before they become ``summary.md``."""
        return os.path.join(self.directory, DRAFT_NAME)

    def notes_to_edit(self) -> tuple[str, str | None]:
        """The file the update agent edits, and the template it starts from when it is a new draft.

        Existing notes are edited in place. Without notes the template goes into a draft beside
        them, never into ``summary.md``: Claude Code 2.1.88 counts notes as empty only when they
        equal its own template, so an untouched template of ours there would become the summary of
        a ``/compact``. :meth:`settle_draft` moves the draft in once the agent has written notes.
        """
        ensure_dir(self.directory)
        if os.path.lexists(self.notes):
            return self.notes, None
        template = load_session_template(self.config_home)
        fd = os.open(self.draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(template)
        return self.draft, template

    def settle_draft(self, template: str) -> bool:
        """Make the draft the notes when it holds more than the template, else drop it; True when moved.

        Notes that appeared meanwhile (another writer) are never replaced; the draft then stays.
        """
        try:
            with open(self.draft, encoding="utf-8") as handle:
                written = handle.read()
        except FileNotFoundError:
            return False
        if written.strip() == template.strip():
            os.remove(self.draft)
            return False
        if os.path.lexists(self.notes):
            return False  # the draft stays beside them, nothing is lost
        os.replace(self.draft, self.notes)
        return True


def custom_config_dir(home: str) -> str:
    return os.path.join(home, _DIRNAME, "config")


def _custom(home: str, name: str) -> str | None:
    path = os.path.join(custom_config_dir(home), name)
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("cannot read custom session-memory file %s (%s); using the built-in one", path, exc)
        return None


def load_session_template(home: str) -> str:
    """``<configHome>/session-memory/config/template.md`` when present, else memdir's template."""
    custom = _custom(home, "template.md")
    return custom if custom is not None else load_template("session_template") + "\n"


def load_session_prompt(home: str) -> str:
    """``<configHome>/session-memory/config/prompt.md`` when present, else memdir's prompt."""
    custom = _custom(home, "prompt.md")
    return custom if custom is not None else load_template("session_update")
