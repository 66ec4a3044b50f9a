"""The answer to one tool call, as every memory tool gives it: a payload, or the rule that refused it.

Every string of a payload is neutralised (:mod:`memdir.model.markup`): memory text, file names, who
made a change and the messages that quote them are data, and cannot open or close a block of the
prompt they land in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memdir.errors import MemdirError
from memdir.model.markup import neutralise

__all__ = ["Outcome", "neutral"]


@dataclass(frozen=True)
class Outcome:
    """The answer to one tool call: ``ok`` with a payload, or refused with the rule and message."""

    ok: bool
    payload: dict[str, Any] = field(default_factory=dict)
    text: str | None = None  # plain text to show instead of the JSON payload

    @classmethod
    def refused(cls, exc: MemdirError) -> Outcome:
        payload: dict[str, Any] = {"status": "refused", "rule": exc.rule, "message": exc.message}
        if exc.path:
            payload["path"] = exc.path
        return cls(ok=False, payload=neutral(payload))


def neutral(value: Any) -> Any:
    """``value`` (a payload: dicts, lists, strings, numbers) with every string neutralised."""
    if isinstance(value, str):
        return neutralise(value)
    if isinstance(value, dict):
        return {key: neutral(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [neutral(item) for item in value]
    return value
