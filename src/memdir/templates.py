"""Prompt templates shipped as package data, and the one substitution rule they use.

Templates live in ``memdir/prompts/*.md`` so that prompt text can be read and reviewed as text,
and snapshot-tested, instead of hiding in string constants. Substitution is a single pass over
``{{name}}`` markers: values are inserted literally (no ``$`` handling) and never re-scanned,
unknown names stay as written and ``{{ name }}`` with spaces is not a marker — the same rule
Claude Code applies to user-supplied session-memory prompts, so custom templates behave alike.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import cache

__all__ = ["frontmatter_type", "load_sections", "load_template", "render_template", "substitute_variables"]

_MARKER = re.compile(r"\{\{(\w+)\}\}")
# Read with open(), not importlib.resources: that import alone cost every hook process milliseconds.
_PROMPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prompts")


def substitute_variables(template: str, variables: Mapping[str, str]) -> str:
    """Replace every ``{{name}}`` whose name is in ``variables``, in one pass."""

    def replace(match: re.Match[str]) -> str:
        key = match.group(1)
        return variables[key] if key in variables else match.group(0)

    return _MARKER.sub(replace, template)


@cache
def load_template(name: str) -> str:
    """The text of ``memdir/prompts/<name>.md`` (trailing newlines removed)."""
    with open(os.path.join(_PROMPTS, f"{name}.md"), encoding="utf-8") as handle:
        return handle.read().rstrip("\n")


@cache
def load_sections(name: str) -> Mapping[str, str]:
    """The ``## heading`` sections of ``memdir/prompts/<name>.md``, by heading, each stripped.

    For short texts that are read side by side (the descriptions of one set of tools and their
    arguments): one file for the set rather than a file each. Lines before the first heading are a
    note for whoever edits the file and are not sent anywhere."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in load_template(name).splitlines():
        if line.startswith("## "):
            current = sections.setdefault(line[3:].strip(), [])
        elif current is not None:
            current.append(line)
    return {heading: "\n".join(lines).strip() for heading, lines in sections.items()}


def render_template(name: str, **variables: str) -> str:
    return substitute_variables(load_template(name), variables)


def frontmatter_type(*, nested: bool, value: str = "{{user, feedback, project or reference}}", indent: str = "") -> str:
    """The frontmatter that gives a memory's type in a prompt's example, as the Claude Code release
    in use writes it: ``type:`` at the top level, or (``nested``, 2.1.330 on) inside ``metadata:``.
    ``indent`` is put before every line but the first, which the template already indents."""
    if nested:
        return f"metadata:\n{indent}  type: {value}"
    return f"type: {value}"
