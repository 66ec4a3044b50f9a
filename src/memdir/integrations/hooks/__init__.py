"""The hooks of the coding-agent CLIs (Claude Code, Codex CLI, Gemini CLI): what each event does
(:mod:`.events`), installing them (:mod:`.install`, :mod:`.agent_setup`), and what a hook hands to the
background commands it starts (:mod:`.launch`, :mod:`.log`, :mod:`.state`, :mod:`.turn_wait`).

Nothing is exported here: the prompt hook imports the one module it runs, and pays for nothing else.
"""

from __future__ import annotations

__all__: list[str] = []
