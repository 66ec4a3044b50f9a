"""``memdir hook <event>`` without click: the process Claude Code starts for every hook event.

Claude Code waits for the UserPromptSubmit hook before it sends each prompt, and starts a fresh
process per event, so importing click (several times the cost of a bare interpreter) was paid on
every prompt. :func:`hook_call` recognises exactly the command lines ``memdir hooks install``
writes (global ``--project``/``--memory-dir`` options, then ``hook <event>``); anything else,
``--help`` included, goes through click unchanged. Both paths run :func:`run_hook_command`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["HookCall", "hook_call", "run_hook_command"]

_GLOBAL_OPTIONS = ("--project", "--memory-dir")


class HookCall(NamedTuple):
    """One ``memdir [--project P] [--memory-dir D] hook <event>`` command line, parsed."""

    event: str
    project: str | None
    memory_dir: str | None


def hook_call(argv: Sequence[str]) -> HookCall | None:
    """The hook call ``argv`` (without the program name) asks for, or None to let click parse it.

    None for anything unusual (a repeated option, an empty or file path, an unknown event, extra
    words) so click gives its usual answer and error messages.
    """
    from memdir.integrations.hooks import HOOK_EVENTS  # only once argv looked like a hook call

    options: dict[str, str] = {}
    rest = list(argv)
    while rest and rest[0] != "hook":
        word = rest.pop(0)
        name, equals, value = word.partition("=")
        if name not in _GLOBAL_OPTIONS or name in options:
            return None
        if not equals:
            if not rest:
                return None
            value = rest.pop(0)
        if not value or os.path.isfile(value):
            return None
        options[name] = value
    if len(rest) != 2 or rest[1] not in HOOK_EVENTS:
        return None
    return HookCall(event=rest[1], project=options.get("--project"), memory_dir=options.get("--memory-dir"))


def run_hook_command(event: str, *, project: str | None, memory_dir: str | None) -> None:
    """Read the hook's JSON on stdin, print the answer (if any) as one JSON line on stdout.

    Fails open: any error becomes one ``memdir hook <event>: ...`` line on stderr, nothing on
    stdout, and the caller still exits 0, so Claude Code carries on without memdir.
    """
    from memdir.integrations.hooks import run_hook

    try:
        raw = sys.stdin.read()
        data = json.loads(raw) if raw.strip() else {}
        result = run_hook(event, data, project=project, memory_dir=memory_dir)
    except Exception as exc:  # noqa: BLE001 - hooks fail open: log one line, never break the session
        line = " ".join(f"memdir hook {event}: {type(exc).__name__}: {exc}".split())
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
        return
    if result.output is not None:
        sys.stdout.write(json.dumps(result.output, ensure_ascii=False) + "\n")
        sys.stdout.flush()
