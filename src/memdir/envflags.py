"""How Claude Code reads boolean environment variables, so memdir's switches behave the same."""

from __future__ import annotations

__all__ = ["env_defined_falsy", "env_truthy"]


def env_truthy(value: str | None) -> bool:
    """``1``, ``true``, ``yes`` or ``on`` (any case, trimmed)."""
    return value is not None and value.strip().lower() in ("1", "true", "yes", "on")


def env_defined_falsy(value: str | None) -> bool:
    """Set to ``0``, ``false``, ``no`` or ``off``: an explicit "no", which some rules treat differently from unset."""
    return value is not None and value.strip().lower() in ("0", "false", "no", "off")
