"""The notes file as text: its sections, their sizes, the update prompt, and truncation.

A notes file is Markdown whose sections start at lines beginning with ``"# "``; under each
header an italic ``_..._`` line says what the section is for. Those two kinds of line are the
file's fixed structure: the update agent may only change what lies beneath them, which keeps
the notes comparable across updates and sessions.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from memdir.model.text import js_trim, utf16_len
from memdir.session_notes.tokens import rough_token_count
from memdir.templates import render_template, substitute_variables

__all__ = [
    "MAX_SECTION_TOKENS",
    "MAX_TOTAL_TOKENS",
    "TRUNCATION_MARKER",
    "Truncated",
    "analyze_section_sizes",
    "build_update_prompt",
    "is_notes_empty",
    "section_reminders",
    "structure_check",
    "structure_lines",
    "truncate_for_compact",
]

MAX_SECTION_TOKENS = 2000
MAX_TOTAL_TOKENS = 12000
TRUNCATION_MARKER = "\n[... section truncated for length ...]"
_HEADER = "# "


def analyze_section_sizes(notes: str) -> dict[str, int]:
    """Rough tokens of each section's trimmed body, keyed by its header line, in file order.

    A header followed directly by another header has no body and is left out; a repeated
    header keeps its first position and its last size, as a JS object would.
    """
    sizes: dict[str, int] = {}
    current = ""
    body: list[str] = []
    for line in [*notes.split("\n"), None]:
        if line is None or line.startswith(_HEADER):
            if current and body:
                sizes[current] = rough_token_count(js_trim("\n".join(body)))
            if line is None:
                break
            current, body = line, []
        else:
            body.append(line)
    return sizes


def section_reminders(sizes: dict[str, int], total_tokens: int) -> str:
    """What to append to the prompt when the notes outgrow their budgets ("" when they fit)."""
    over_budget = total_tokens > MAX_TOTAL_TOKENS
    oversized = sorted(
        ((header, tokens) for header, tokens in sizes.items() if tokens > MAX_SECTION_TOKENS),
        key=lambda item: item[1],
        reverse=True,
    )
    parts: list[str] = []
    if over_budget:
        parts.append(
            "\n\n"
            + render_template("session_over_budget", totalTokens=str(total_tokens), maxTokens=str(MAX_TOTAL_TOKENS))
        )
    if oversized:
        # Claude Code's titles (SPEC), kept as data: the update prompt reads as Claude Code's.
        title = (
            "Oversized sections to condense"
            if over_budget
            else "IMPORTANT: The following sections exceed the per-section limit and MUST be condensed"
        )
        lines = [f'- "{header}" is ~{tokens} tokens (limit: {MAX_SECTION_TOKENS})' for header, tokens in oversized]
        parts.append(f"\n\n{title}:\n" + "\n".join(lines))
    return "".join(parts)


def build_update_prompt(template: str, notes: str, notes_path: str) -> str:
    """The update instructions: one substitution pass, then the budget reminders."""
    base = substitute_variables(template, {"currentNotes": notes, "notesPath": notes_path})
    return base + section_reminders(analyze_section_sizes(notes), rough_token_count(notes))


def is_notes_empty(notes: str, template: str) -> bool:
    """True while the notes are still the bare template (nothing worth compacting from)."""
    return js_trim(notes) == js_trim(template)


@dataclass(frozen=True)
class Truncated:
    text: str
    was_truncated: bool


def _flush(header: str, body: list[str], limit: int) -> tuple[list[str], bool]:
    if not header:
        return body, False
    if utf16_len("\n".join(body)) <= limit:
        return [header, *body], False
    kept = [header]
    count = 0
    for line in body:
        size = utf16_len(line) + 1
        if count + size > limit:
            break
        kept.append(line)
        count += size
    kept.append(TRUNCATION_MARKER)
    return kept, True


def truncate_for_compact(notes: str, *, max_section_tokens: int = MAX_SECTION_TOKENS) -> Truncated:
    """Cut every section body to about ``max_section_tokens`` (4 characters each) at a line end.

    The compaction summary goes into every later request, so one runaway section must not
    crowd out the rest; the full notes stay on disk and the summary says where.
    """
    limit = max_section_tokens * 4
    out: list[str] = []
    truncated = False
    header = ""
    body: list[str] = []
    for line in notes.split("\n"):
        if line.startswith(_HEADER):
            lines, cut = _flush(header, body, limit)
            out.extend(lines)
            truncated = truncated or cut
            header, body = line, []
        else:
            body.append(line)
    lines, cut = _flush(header, body, limit)
    out.extend(lines)
    return Truncated("\n".join(out), truncated or cut)


def _is_description(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= 2 and stripped.startswith("_") and stripped.endswith("_")


def structure_lines(notes: str) -> list[str]:
    """The fixed lines: every header and the italic description line directly under it."""
    lines = notes.split("\n")
    fixed: list[str] = []
    for index, line in enumerate(lines):
        if line.startswith(_HEADER):
            fixed.append(line)
            if index + 1 < len(lines) and _is_description(lines[index + 1]):
                fixed.append(lines[index + 1])
    return fixed


def structure_check(path: str, before: str, after: str) -> str | None:
    """An edit check for the update agent: refuse any change to headers or description lines."""
    old, new = structure_lines(before), structure_lines(after)
    if old == new:
        return None
    changed = next((f"{a!r} -> {b!r}" for a, b in zip(old, new, strict=False) if a != b), None)
    if changed is None:
        changed = "a header or description line was " + ("removed" if len(new) < len(old) else "added")
    return (
        f"edit refused for {os.path.basename(path)}: section headers (lines starting with '# ') and the "
        f"italic description line under each must stay exactly as they are ({changed}); "
        "change only the text below them"
    )
