"""memdir's source, parsed once, for the tests that check a rule by reading the code."""

import ast
import functools
import pathlib

import memdir

SRC = pathlib.Path(memdir.__file__).parent


@functools.cache
def parsed_modules() -> tuple[tuple[str, ast.Module], ...]:
    """Every module as (path below ``src/memdir`` with ``/`` separators, syntax tree), in path order."""
    return tuple(
        (path.relative_to(SRC).as_posix(), ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        for path in sorted(SRC.rglob("*.py"))
    )
