"""The cursors of one session's notes, kept in ``session-memory/state.json`` next to the notes.

Claude Code keeps them in process memory; memdir's CLI runs once per hook call, so they must
survive between processes. The file is written atomically and read leniently: a missing or
unreadable state means "start over", which only costs an early update, never lost notes.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass

from memdir.store.files import write_json

__all__ = ["SessionState"]

log = logging.getLogger("memdir.session_notes")


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclass
class SessionState:
    """Mutable on purpose: the update rule advances it the way Claude Code's module state moves."""

    initialized: bool = False
    tokens_at_last_extraction: int = 0
    last_summarized_message_id: str | None = None
    last_memory_message_uuid: str | None = None

    def copy(self) -> SessionState:
        return SessionState(**asdict(self))

    def assign(self, other: SessionState) -> None:
        """Take over ``other``'s values in place, so holders of this object see them."""
        self.initialized = other.initialized
        self.tokens_at_last_extraction = other.tokens_at_last_extraction
        self.last_summarized_message_id = other.last_summarized_message_id
        self.last_memory_message_uuid = other.last_memory_message_uuid

    def to_json(self) -> dict[str, object]:
        return {
            "initialized": self.initialized,
            "tokensAtLastExtraction": self.tokens_at_last_extraction,
            "lastSummarizedMessageId": self.last_summarized_message_id,
            "lastMemoryMessageUuid": self.last_memory_message_uuid,
        }

    @classmethod
    def from_json(cls, data: object) -> SessionState:
        if not isinstance(data, dict):
            return cls()
        tokens = data.get("tokensAtLastExtraction")
        return cls(
            initialized=data.get("initialized") is True,
            tokens_at_last_extraction=tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else 0,
            last_summarized_message_id=_opt_str(data.get("lastSummarizedMessageId")),
            last_memory_message_uuid=_opt_str(data.get("lastMemoryMessageUuid")),
        )

    @classmethod
    def load(cls, path: str) -> SessionState:
        try:
            with open(path, encoding="utf-8") as handle:
                return cls.from_json(json.load(handle))
        except FileNotFoundError:
            return cls()
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            log.warning("session state %s is unreadable (%s); starting from a fresh state", path, exc)
            return cls()

    def save(self, path: str) -> None:
        write_json(path, self.to_json())
