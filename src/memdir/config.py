"""Resolving one project's memory configuration from env vars, settings files and explicit options.

Claude Code's server-side feature gates become memdir settings with documented defaults (SPEC
Part A 2). They are read here, once, into a frozen :class:`MemoryConfig` that the rest of memdir
receives, so no other module reads the environment or settings files on its own.

memdir's own settings keys live in a ``"memdir"`` object inside the usual settings files
(``~/.claude/settings.json``, ``.claude/settings.json``, ``.claude/settings.local.json``, managed
settings), so that one file configures both Claude Code and memdir. Each key is declared, with
its type, default, check and doc, in :mod:`memdir.settings_table`, and checked there once, when
the configuration is resolved, into ``MemoryConfig.memdir``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from memdir.containment import normalize_root
from memdir.envflags import env_defined_falsy, env_truthy
from memdir.environment import VARIABLES, Environment
from memdir.errors import ConfigError
from memdir.model.timefields import iso_mtime
from memdir.paths import (
    auto_mem_path,
    auto_memory_disabled_reason,
    config_home,
    is_auto_memory_enabled,
    project_root,
    projects_dir,
    sanitize_path,
    team_mem_path,
)
from memdir.releases import IndexOverflow, Release, ReleaseFinder, ReleaseHint
from memdir.settings import Settings, default_managed_dir, load_settings
from memdir.settings_table import DEFAULT_SETTINGS, MemdirSettings, release_setting, resolve_memdir_settings
from memdir.store.directory import TEAM_DIRNAME, MemoryDir, WriteGuard
from memdir.store.files import WriteObserver, observe_writes
from memdir.store.scan import cache_file_path

if TYPE_CHECKING:
    from memdir.store.history_watch import ExternalWatch
    from memdir.store.index_db import MemoryIndex

__all__ = [
    "MemoryConfig",
    "agent_memory_dir",
    "claude_json_path",
    "extra_guidelines_from_env",
    "open_dream_dir",
    "open_index",
    "open_memory_dir",
    "read_environment",
    "resolve_config",
    "team_secret_guard",
    "uses_derived_index",
    "watch_external_changes",
    "watch_history",
    "write_guards",
]


def extra_guidelines_from_env(environment: Environment) -> tuple[str, ...]:
    """The operator's extra guideline block, when the env var holds non-blank text."""
    value = environment.extra_guidelines or ""
    return (value,) if value.strip() else ()


class MemoryConfig(NamedTuple):
    """Everything memdir needs to know about one project's memory, resolved once.

    A NamedTuple rather than a frozen dataclass: every hook process builds this class, and a
    dataclass costs that process the ``dataclasses`` import and six compiled methods.
    """

    project_root: str
    memory_dir: str  # with exactly one trailing separator
    config_home: str
    transcripts_dir: str  # <configHome>/projects/<sanitizePath(project root)>/
    enabled: bool
    disabled_reason: str | None
    team_enabled: bool
    extra_guidelines: tuple[str, ...]
    settings: Settings
    environment: Environment  # the variables it was resolved from, for the features that honour one
    release: ReleaseFinder  # the Claude Code release sharing the directory, detected on first use
    explicit_dir: bool = False  # the directory was given by the caller, not resolved
    daily_log: bool = False  # daily-log mode: sessions append to logs/, only the dream writes MEMORY.md
    memory_stores_env: str | None = None  # CLAUDE_MEMORY_STORES, used from the release that has stores
    # Every memdir.* setting, checked once, read by attribute: config.memdir.scan_cap is memdir.scanCap
    # (memdir.settings_table).
    memdir: MemdirSettings = DEFAULT_SETTINGS
    # The settings mistakes memdir kept a default for (an unknown key, a refused value), each warned once.
    settings_problems: tuple[ConfigError, ...] = ()

    @property
    def claude_code(self) -> Release:
        """The Claude Code release memdir shares this directory with, found on first use."""
        return self.release.release()

    @property
    def team_dir(self) -> str:
        return team_mem_path(self.memory_dir)


def _team_enabled(options: MemdirSettings, environment: Environment, enabled: bool) -> bool:
    if not enabled:
        return False
    if options.team_memory is not None:
        return options.team_memory
    return bool(environment.team_server or options.team_server)


def _daily_log(options: MemdirSettings, environment: Environment, team_enabled: bool) -> bool:
    from_env = environment.daily_log
    daily = env_truthy(from_env) or (not env_defined_falsy(from_env) and options.daily_log)
    if daily and team_enabled:
        raise ConfigError(
            "daily-log mode (memdir.dailyLog or MEMDIR_DAILY_LOG) and team memory (memdir.teamMemory, "
            "memdir.teamServer or MEMDIR_TEAM_SERVER) cannot be combined: a daily log has no team side; "
            "turn one of them off",
            rule="daily-log-team",
        )
    return daily


def read_environment(variables: Mapping[str, str] | None = None) -> Environment:
    """The environment memdir honours: of ``variables``, else of this process. The one place that reads it.

    MEMDIR_FORBID_MODEL_CALLS, in ``variables`` or in this process's own environment whatever
    ``variables`` says, turns the process-wide switch that refuses real model calls on (and never
    off): a test suite sets it once and no model call leaves any process it starts.
    """
    environment = Environment.read(os.environ if variables is None else variables)
    process_value = os.environ.get(VARIABLES["forbid_model_calls"])
    if environment.forbid_model_calls or process_value:
        from memdir.llm.base import forbid_real_model_calls, forbids_model_calls

        if forbids_model_calls(environment.forbid_model_calls) or forbids_model_calls(process_value):
            forbid_real_model_calls(True)
    return environment


def resolve_config(
    project: str | None = None,
    *,
    memory_dir: str | None = None,
    env: Mapping[str, str] | None = None,
    environment: Environment | None = None,
    settings: Settings | None = None,
    transcript: str | None = None,
    reported_version: str | None = None,
) -> MemoryConfig:
    """Resolve a project's memory configuration.

    ``memory_dir`` skips the resolution chain (an application keeping its own directory);
    otherwise the directory is Claude Code's, so both tools share it. ``transcript`` (the
    session's) and ``reported_version`` (a hook input's) help find the Claude Code release.
    ``env`` stands in for the process environment (tests); it is read here, once, into the
    configuration's :class:`Environment`, and nothing below reads variables again. A caller that
    already read it (a hook, which needs ``CLAUDE_PROJECT_DIR`` first) passes ``environment``.
    """
    if environment is None:
        environment = read_environment(env)
    elif env is not None:
        raise ValueError("resolve_config takes env (variables to read) or environment (already read), not both")
    home = config_home(environment)
    root = project_root(project)
    managed = default_managed_dir(environment.managed_dir)
    loaded = settings if settings is not None else load_settings(root, config_home=home, managed_dir=managed)
    problems: list[ConfigError] = []
    options = resolve_memdir_settings(loaded, problems=problems)
    _warn_once(problems)
    enabled = is_auto_memory_enabled(loaded, environment)
    if memory_dir is not None:
        directory = normalize_root(memory_dir).rstrip(os.sep) + os.sep
    else:
        directory = auto_mem_path(root, settings=loaded, environment=environment)
    team_enabled = _team_enabled(options, environment, enabled)
    transcripts_dir = os.path.join(projects_dir(home), sanitize_path(root)) + os.sep
    return MemoryConfig(
        project_root=root,
        memory_dir=directory,
        config_home=home,
        transcripts_dir=transcripts_dir,
        enabled=enabled,
        disabled_reason=None if enabled else auto_memory_disabled_reason(loaded, environment),
        team_enabled=team_enabled,
        extra_guidelines=extra_guidelines_from_env(environment),
        settings=loaded,
        explicit_dir=memory_dir is not None,
        daily_log=_daily_log(options, environment, team_enabled),
        release=_release_finder(options, environment, transcripts_dir, transcript, reported_version),
        memory_stores_env=environment.memory_stores,
        environment=environment,
        memdir=options,
        settings_problems=tuple(problems),
    )


def _release_finder(
    options: MemdirSettings,
    environment: Environment,
    transcripts_dir: str,
    transcript: str | None,
    reported_version: str | None,
) -> ReleaseFinder:
    """Where the Claude Code release sharing the directory is found, on first use (:mod:`memdir.releases`)."""
    hint = ReleaseHint(
        setting=release_setting(options.claude_code_version),
        reported=reported_version,
        transcript=transcript,
        transcripts_dir=transcripts_dir,
        claude_json=claude_json_path(environment),
        path=environment.path,
    )
    return ReleaseFinder(hint)


_warned: set[str] = set()


def _warn_once(problems: list[ConfigError]) -> None:
    """Log each settings mistake once per process (logger ``memdir.settings``; with no logging set
    up, Python writes the line to stderr): a command, ``memdir mcp`` or a Python program says it
    once, however many configurations it resolves."""
    for problem in problems:
        if problem.message not in _warned:
            _warned.add(problem.message)
            import logging  # only a mistake pays for it: a hook process never imports logging

            logging.getLogger("memdir.settings").warning("memdir: %s", problem.message)


def claude_json_path(environment: Environment) -> str:
    """Claude Code's global config file: ``.claude.json`` in ``CLAUDE_CONFIG_DIR``, else in the home directory."""
    folder = environment.claude_config_dir or environment.home
    return os.path.join(folder, ".claude.json")


def _now_iso() -> str:
    return iso_mtime(time.time() * 1000)


def team_secret_guard(rel: str, content: str) -> None:
    """Refuse a write into ``team/`` whose content the secret scanner flags (SPEC §9.9)."""
    if rel.split("/", 1)[0].casefold() != TEAM_DIRNAME:  # macOS file systems ignore case: Team/ is team/
        return
    from memdir.team.secrets import check_team_write

    check_team_write(content, path=rel)


def uses_derived_index(config: MemoryConfig) -> bool:
    """Whether scans come from the derived SQLite index: asked for, or implied by lifting the scan cap
    (a whole-store scan is only fast enough through the index)."""
    value = config.memdir.derived_index
    return config.memdir.scan_cap is None if value is None else value


def open_index(config: MemoryConfig) -> MemoryIndex:
    """The derived index of the configuration's memory directory, under its config home.

    It connects on first use. Open one per process and pass it on: :class:`MemorySession` gives the
    directory's own index to the selector, so one database never has two index objects.
    """
    from memdir.store.index_db import MemoryIndex, index_path

    return MemoryIndex(config.memory_dir, index_path(config.memory_dir, config.config_home))


def _index_overflow(text: str, *, skip_comments: bool) -> str | None:
    """:func:`memdir.model.index.index_overflow`, imported when a write checks an index: a hook
    opens the directory and never writes one."""
    from memdir.model.index import index_overflow

    return index_overflow(text, skip_comments=skip_comments)


def _open_history(root: str, home: str) -> WriteObserver:
    from memdir.store.history import History
    from memdir.store.history_records import history_path

    return History(root, history_path(root, home))


def watch_history(config: MemoryConfig, root: str | None = None) -> None:
    """Record every write memdir makes in the configuration's memory directory (or in ``root``,
    another memory directory such as a sub-agent's) in its history (``memdir.history``, on by
    default). Registering costs nothing: the history database is opened at the first write, so a
    process that only reads (the prompt hook) never opens or imports it."""
    root = root or config.memory_dir
    observe_writes(root, partial(_open_history, root, config.config_home) if config.memdir.history else None)


def watch_external_changes(config: MemoryConfig, *, wait: bool = True) -> ExternalWatch | None:
    """For a long-running process (the web view, the MCP server): record outside changes of the
    memory directory as they happen (:mod:`memdir.store.history_watch`); None when no history is
    kept or watchfiles is missing. The caller stops it when it ends."""
    from memdir.store.history_records import history_path
    from memdir.store.history_watch import watch_external

    root = config.memory_dir
    return watch_external(root, history_path(root, config.config_home) if config.memdir.history else None, wait=wait)


def agent_memory_dir(config: MemoryConfig, memory_dir: MemoryDir) -> MemoryDir:
    """The directory as extraction and the dream may change it: itself (``direct``), one where
    every change is a proposal for a person to accept (``review``), or one that refuses (``off``)."""
    mode = config.memdir.agent_writes
    if mode == "direct":
        return memory_dir
    from memdir.store.review import AGENT_WRITES_OFF, ProposalDir, open_review

    if mode == "off":
        return ProposalDir(memory_dir, None, refuse=AGENT_WRITES_OFF)
    return ProposalDir(memory_dir, open_review(memory_dir, config.config_home))


def write_guards(config: MemoryConfig) -> tuple[WriteGuard, ...]:
    """The checks every write into the configuration's memory directory passes, whoever opens it:
    the team secret scan, and the refusal of a read-only memory store (``CLAUDE_MEMORY_STORES``,
    from the Claude Code release that has stores)."""
    guards: tuple[WriteGuard, ...] = (team_secret_guard,)
    if config.memory_stores_env and config.claude_code.rules.memory_stores:  # unset: no import for a hook
        from memdir.memory_stores import parse_memory_stores, read_only_store_guard

        stores = parse_memory_stores(config.memory_stores_env)
        if any(store.read_only for store in stores):
            guards += (read_only_store_guard(stores),)
    return guards


def open_dream_dir(config: MemoryConfig) -> MemoryDir:
    """The directory as the dream consolidates it: the store's write guards, scan cap and history,
    on the files themselves. ``MEMORY.md`` stays writable in daily-log mode, where the dream is
    what writes it; the dream's file tools read and write whole files, so it needs neither the
    derived index nor the save rules of :func:`open_memory_dir`."""
    watch_history(config)
    return MemoryDir(config.memory_dir, scan_cap=config.memdir.scan_cap, write_guards=write_guards(config))


def open_memory_dir(config: MemoryConfig, *, lock_timeout: float = 10.0) -> MemoryDir:
    """The :class:`MemoryDir` for a configuration, with the team secret guard installed and its
    history watching its writes."""
    watch_history(config)
    read_only = DAILY_LOG_INDEX_REFUSAL if config.daily_log else None
    rules = config.claude_code.rules
    guards = write_guards(config)
    stamp = _now_iso if rules.stamps_modified else None
    index_check = None
    # A scan cap lifted on purpose is a store too large for any index in context: recall finds its
    # memories. The default (no cap, recall over the whole store) keeps Claude Code's refusal.
    lifted = config.memdir.scan_cap is None and config.settings.memdir_origin("scanCap") is not None
    if rules.index_overflow is IndexOverflow.REFUSE and not lifted:
        index_check = partial(_index_overflow, skip_comments=rules.index_limits_skip_comments)
    if uses_derived_index(config):
        from memdir.store.index_db import IndexedMemoryDir

        return IndexedMemoryDir(
            config.memory_dir,
            index=open_index(config),
            lock_timeout=lock_timeout,
            scan_cap=config.memdir.scan_cap,
            write_guards=guards,
            index_read_only=read_only,
            layout=rules.frontmatter,
            stamp=stamp,
            index_check=index_check,
            scan_cache_file=cache_file_path(config.memory_dir, config.config_home, "headers"),
        )
    return MemoryDir(
        config.memory_dir,
        lock_timeout=lock_timeout,
        scan_cap=config.memdir.scan_cap,
        write_guards=guards,
        index_read_only=read_only,
        layout=rules.frontmatter,
        stamp=stamp,
        index_check=index_check,
        scan_cache_file=cache_file_path(config.memory_dir, config.config_home, "headers"),
    )


DAILY_LOG_INDEX_REFUSAL = (
    "MEMORY.md is read-only in daily-log mode (memdir.dailyLog / MEMDIR_DAILY_LOG): append what you learned "
    "with `memdir log`; the dream distils the logs into topic files and the index"
)
