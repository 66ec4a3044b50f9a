"""The environment variables memdir reads, as one immutable value.

The process environment is read once, at the edge (:func:`memdir.config.read_environment`), into an
:class:`Environment`; everything below receives it (or the one field it needs) instead of a mapping.
That keeps every variable memdir honours listed in one place, makes each function's inputs visible
in its signature, and lets a test hand in a made-up environment without touching ``os.environ``.

Values stay the raw strings (or None when unset): how a variable is read (``1``/``true``/``on``, an
empty value counting as unset, ``~`` expansion) is the business of the rule that uses it.
"""

import os
from collections.abc import Mapping
from typing import Annotated, NamedTuple

__all__ = ["Environment"]


class Environment(NamedTuple):
    """Every environment variable memdir honours: each field names, in its annotation, the variable
    (or variables, the first one set winning) it is read from; ``VARIABLES`` is derived from them."""

    home: str  # $HOME, else the account's home directory (Node's os.homedir())
    path: Annotated[str | None, "PATH"] = None  # where a `claude` executable may be found (release detection)
    # where memory lives (Claude Code's own variables)
    claude_config_dir: Annotated[str | None, "CLAUDE_CONFIG_DIR"] = None
    remote_memory_dir: Annotated[str | None, "CLAUDE_CODE_REMOTE_MEMORY_DIR"] = None
    memory_path_override: Annotated[str | None, "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"] = None
    disable_auto_memory: Annotated[str | None, "CLAUDE_CODE_DISABLE_AUTO_MEMORY"] = None
    simple: Annotated[str | None, "CLAUDE_CODE_SIMPLE"] = None  # bare mode
    remote: Annotated[str | None, "CLAUDE_CODE_REMOTE"] = None
    extra_guidelines: Annotated[str | None, "CLAUDE_COWORK_MEMORY_EXTRA_GUIDELINES"] = None
    memory_stores: Annotated[str | None, "CLAUDE_MEMORY_STORES"] = None
    project_dir: Annotated[str | None, "CLAUDE_PROJECT_DIR"] = None  # set by Claude Code for hooks
    # the CLAUDE.md chain
    disable_claude_mds: Annotated[str | None, "CLAUDE_CODE_DISABLE_CLAUDE_MDS"] = None
    additional_directories_claude_md: Annotated[str | None, "CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD"] = None
    # session-notes compaction switches
    enable_sm_compact: Annotated[str | None, "ENABLE_CLAUDE_CODE_SM_COMPACT"] = None
    disable_sm_compact: Annotated[str | None, "DISABLE_CLAUDE_CODE_SM_COMPACT"] = None
    # the other coding agents memdir hooks into
    codex_home: Annotated[str | None, "CODEX_HOME"] = None  # Codex CLI's home (default ~/.codex)
    # memdir's own
    managed_dir: Annotated[str | None, "MEMDIR_MANAGED_DIR"] = None  # where managed settings live
    daily_log: Annotated[str | None, "MEMDIR_DAILY_LOG"] = None
    team_server: Annotated[str | None, "MEMDIR_TEAM_SERVER", "TEAM_MEMORY_SYNC_URL"] = None  # the first one set wins
    team_token: Annotated[str | None, "MEMDIR_TEAM_TOKEN"] = None
    mcp_token: Annotated[str | None, "MEMDIR_MCP_TOKEN"] = None  # the bearer token of `memdir mcp --http`
    model: Annotated[str | None, "MEMDIR_MODEL"] = None
    embed_model: Annotated[str | None, "MEMDIR_EMBED_MODEL"] = None
    forbid_model_calls: Annotated[str | None, "MEMDIR_FORBID_MODEL_CALLS"] = None
    hook_launch_record: Annotated[str | None, "MEMDIR_HOOK_LAUNCH_RECORD"] = None
    # model providers (the SDKs' own variable names)
    anthropic_api_key: Annotated[str | None, "ANTHROPIC_API_KEY"] = None
    anthropic_auth_token: Annotated[str | None, "ANTHROPIC_AUTH_TOKEN"] = None
    anthropic_base_url: Annotated[str | None, "ANTHROPIC_BASE_URL"] = None
    openai_api_key: Annotated[str | None, "OPENAI_API_KEY"] = None
    openai_base_url: Annotated[str | None, "OPENAI_BASE_URL"] = None

    @classmethod
    def read(cls, variables: Mapping[str, str]) -> "Environment":
        """The values memdir honours from a mapping of variables (the process's, or a test's)."""
        values: dict[str, str | None] = {}
        for name, sources in _SOURCES.items():
            value = variables.get(sources[0])
            for fallback in sources[1:]:
                value = value or variables.get(fallback)
            values[name] = value
        return cls(variables.get("HOME") or os.path.expanduser("~"), **values)


# field -> the variables it is read from, in order, as the annotations above say
_SOURCES: Mapping[str, tuple[str, ...]] = {
    name: hint.__metadata__ for name, hint in Environment.__annotations__.items() if name != "home"
}
# field -> the variable it is read from (the first, for a field with a fallback)
VARIABLES: Mapping[str, str] = {name: sources[0] for name, sources in _SOURCES.items()}
