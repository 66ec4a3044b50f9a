"""The environment variables memdir reads, as one immutable value.

The process environment is read once, at the edge (:func:`memdir.config.read_environment`), into an
:class:`Environment`; everything below receives it (or the one field it needs) instead of a mapping.
That keeps every variable memdir honours listed in one place, makes each function's inputs visible
in its signature, and lets a test hand in a made-up environment without touching ``os.environ``.

Values stay the raw strings (or None when unset): how a variable is read (``1``/``true``/``on``, an
empty value counting as unset, ``~`` expansion) is the business of the rule that uses it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple

__all__ = ["Environment"]


class Environment(NamedTuple):
    """Every environment variable memdir honours; the metadata names the variable."""

    home: str  # $HOME, else the account's home directory (Node's os.homedir())
    path: str | None = None  # $PATH: where a `claude` executable may be found (release detection)
    # where memory lives (Claude Code's own variables)
    claude_config_dir: str | None = None  # CLAUDE_CONFIG_DIR
    remote_memory_dir: str | None = None  # CLAUDE_CODE_REMOTE_MEMORY_DIR
    memory_path_override: str | None = None  # CLAUDE_COWORK_MEMORY_PATH_OVERRIDE
    disable_auto_memory: str | None = None  # CLAUDE_CODE_DISABLE_AUTO_MEMORY
    simple: str | None = None  # CLAUDE_CODE_SIMPLE (bare mode)
    remote: str | None = None  # CLAUDE_CODE_REMOTE
    extra_guidelines: str | None = None  # CLAUDE_COWORK_MEMORY_EXTRA_GUIDELINES
    memory_stores: str | None = None  # CLAUDE_MEMORY_STORES
    project_dir: str | None = None  # CLAUDE_PROJECT_DIR (set by Claude Code for hooks)
    # the CLAUDE.md chain
    disable_claude_mds: str | None = None  # CLAUDE_CODE_DISABLE_CLAUDE_MDS
    additional_directories_claude_md: str | None = None  # CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD
    # session-notes compaction switches
    enable_sm_compact: str | None = None  # ENABLE_CLAUDE_CODE_SM_COMPACT
    disable_sm_compact: str | None = None  # DISABLE_CLAUDE_CODE_SM_COMPACT
    # memdir's own
    managed_dir: str | None = None  # MEMDIR_MANAGED_DIR: where managed settings live
    daily_log: str | None = None  # MEMDIR_DAILY_LOG
    team_server: str | None = None  # MEMDIR_TEAM_SERVER, else TEAM_MEMORY_SYNC_URL
    team_token: str | None = None  # MEMDIR_TEAM_TOKEN
    mcp_token: str | None = None  # MEMDIR_MCP_TOKEN: the bearer token of `memdir mcp --http`
    model: str | None = None  # MEMDIR_MODEL
    embed_model: str | None = None  # MEMDIR_EMBED_MODEL
    forbid_model_calls: str | None = None  # MEMDIR_FORBID_MODEL_CALLS
    hook_launch_record: str | None = None  # MEMDIR_HOOK_LAUNCH_RECORD
    # model providers (the SDKs' own variable names)
    anthropic_api_key: str | None = None  # ANTHROPIC_API_KEY
    anthropic_auth_token: str | None = None  # ANTHROPIC_AUTH_TOKEN
    anthropic_base_url: str | None = None  # ANTHROPIC_BASE_URL
    openai_api_key: str | None = None  # OPENAI_API_KEY
    openai_base_url: str | None = None  # OPENAI_BASE_URL

    @classmethod
    def read(cls, variables: Mapping[str, str]) -> Environment:
        """The values memdir honours from a mapping of variables (the process's, or a test's)."""
        values = {name: variables.get(variable) for name, variable in VARIABLES.items()}
        values["team_server"] = variables.get("MEMDIR_TEAM_SERVER") or variables.get("TEAM_MEMORY_SYNC_URL")
        return cls(home=variables.get("HOME") or os.path.expanduser("~"), **values)


# field -> the variable it is read from (team_server has a fallback, see Environment.read)
VARIABLES: Mapping[str, str] = {
    "path": "PATH",
    "claude_config_dir": "CLAUDE_CONFIG_DIR",
    "remote_memory_dir": "CLAUDE_CODE_REMOTE_MEMORY_DIR",
    "memory_path_override": "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
    "disable_auto_memory": "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
    "simple": "CLAUDE_CODE_SIMPLE",
    "remote": "CLAUDE_CODE_REMOTE",
    "extra_guidelines": "CLAUDE_COWORK_MEMORY_EXTRA_GUIDELINES",
    "memory_stores": "CLAUDE_MEMORY_STORES",
    "project_dir": "CLAUDE_PROJECT_DIR",
    "disable_claude_mds": "CLAUDE_CODE_DISABLE_CLAUDE_MDS",
    "additional_directories_claude_md": "CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD",
    "enable_sm_compact": "ENABLE_CLAUDE_CODE_SM_COMPACT",
    "disable_sm_compact": "DISABLE_CLAUDE_CODE_SM_COMPACT",
    "managed_dir": "MEMDIR_MANAGED_DIR",
    "daily_log": "MEMDIR_DAILY_LOG",
    "team_server": "MEMDIR_TEAM_SERVER",
    "team_token": "MEMDIR_TEAM_TOKEN",
    "mcp_token": "MEMDIR_MCP_TOKEN",
    "model": "MEMDIR_MODEL",
    "embed_model": "MEMDIR_EMBED_MODEL",
    "forbid_model_calls": "MEMDIR_FORBID_MODEL_CALLS",
    "hook_launch_record": "MEMDIR_HOOK_LAUNCH_RECORD",
    "anthropic_api_key": "ANTHROPIC_API_KEY",
    "anthropic_auth_token": "ANTHROPIC_AUTH_TOKEN",
    "anthropic_base_url": "ANTHROPIC_BASE_URL",
    "openai_api_key": "OPENAI_API_KEY",
    "openai_base_url": "OPENAI_BASE_URL",
}
