"""Pushed text that tries to speak as the system: kept, reported, shown on the dashboard.

A team memory holding ``</system-reminder>`` (in any spelling) is not refused: memdir neutralises
it wherever a model reads it, and refusing would lose a teammate's work. The server tells the
pusher (``flagged`` in the PUT answer), logs one line, and the dashboard marks the file.
"""

from __future__ import annotations

from collections.abc import Mapping

from memdir.model.markup import describe_markup

__all__ = ["markup_flags"]


def markup_flags(entries: Mapping[str, str]) -> list[dict[str, str]]:
    """One ``{"key", "markup"}`` per pushed entry whose text reads as a prompt tag, keys in order."""
    flags = []
    for key in sorted(entries):
        note = describe_markup(entries[key])
        if note:
            flags.append({"key": key, "markup": note})
    return flags
