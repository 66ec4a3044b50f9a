"""Package exports imported on first use (PEP 562), so importing a package costs only what is used.

A package ``__init__`` that re-exports its modules' names eagerly makes every import of any of its
modules pay for all of them: ``memdir.journal.gate`` (one ``stat``, run by every hook) used to
import the dream agent, the model layer and YAML. A package lists its names and their modules here
instead, and keeps the same imports under ``TYPE_CHECKING`` for the type checker.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``homes[name]`` (a module path) and
    returns ``name`` from it, keeping it in the package so the next access is a plain lookup."""

    def resolve(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)
        return value

    return resolve
