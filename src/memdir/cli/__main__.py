"""``python -m memdir.cli``: the CLI without relying on the console script being on PATH."""

from __future__ import annotations

from memdir.cli import main

__all__: list[str] = []

main()
