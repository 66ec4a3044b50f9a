"""``python -m memdir``: the command line."""

from __future__ import annotations

from memdir.cli import main

__all__: list[str] = []

if __name__ == "__main__":
    main()
