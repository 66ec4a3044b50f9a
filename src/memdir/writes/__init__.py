"""What every write path shares above the store: the memories a writer is shown before saving, and
the one refusal of a memory that says nearly word for word what one already says
(:mod:`memdir.writes.near`).
"""

from __future__ import annotations

__all__: list[str] = []
