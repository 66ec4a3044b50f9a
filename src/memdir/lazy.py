"""Package exports imported on first use (PEP 562), so importing a package costs only what is used.

A package ``__init__`` that re-exports its modules' names eagerly makes every import of any of its
modules pay for all of them: ``memdir.journal.gate`` (one ``stat``, run by every hook) used to
import the dream agent, the model layer and YAML. A package lists its names once, by module, in a
call to :func:`lazy_exports`, which gives both its ``__getattr__`` and its ``__all__``; the same
imports under ``TYPE_CHECKING`` (``name as name``, an explicit re-export) are for the type checker,
and ``tests/test_lazy_exports.py`` checks that they say the same.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, modules: Mapping[str, Sequence[str]]) -> tuple[Callable[[str], Any], list[str]]:
    """The module ``__getattr__`` and ``__all__`` of ``package``, from its exported names by the
    module that defines them. Asking for a name imports that module and keeps the value in the
    package, so the next access is a plain lookup."""
    homes = {name: module for module, names in modules.items() for name in names}

    def resolve(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)
        return value

    return resolve, sorted(homes)
