"""The local web view of a memory directory (``memdir ui``; extra ``ui``).

Importing this package loads nothing heavy; the pages live in :mod:`memdir.ui.app`.
"""

from __future__ import annotations

__all__: list[str] = []
