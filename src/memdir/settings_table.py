"""memdir's settings keys: each declared once, with its type, default, check and one-line doc.

memdir's own keys live in a ``"memdir"`` object inside Claude Code's settings files. This table
is the one place they are declared: :func:`resolve_memdir_settings` checks every key once, when a
configuration is resolved, into a :class:`MemdirSettings` record that the rest of memdir reads by
attribute (``config.memdir.extract_every_turns``) without checking again. Every mistake is reported
the same way (rule ``settings``): the key, what it must be, the value found and the file it was
read from; a key the table does not know names the nearest one it does. A mistake never stops
memdir: settings files are shared (a project's ``.claude/settings.json`` is in git), and a key or
value a newer memdir writes must not stop a teammate's older one, so the key is warned about and
keeps its default (:func:`resolve_memdir_settings`). The README's settings table is tested against
this one.

The records are NamedTuples, not dataclasses: every hook process resolves a configuration, and a
dataclass costs that process the ``dataclasses`` import (docs/architecture.md, "Start-up cost").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from memdir.errors import ConfigError
from memdir.releases import NEWEST, Version
from memdir.settings import MEMDIR_KEY, Settings, Source

__all__ = [
    "AGENT_WRITES",
    "AUTO_DREAM_ENABLED",
    "AUTO_MEMORY_DIRECTORY",
    "AUTO_MEMORY_ENABLED",
    "CALLER",
    "CLAUDE_KEYS",
    "CLAUDE_MD_EXCLUDES",
    "DEFAULT_SETTINGS",
    "KEYS",
    "MODEL_SPEC",
    "SESSION_MEMORY_KEYS",
    "SETTINGS_DEFAULTS",
    "Check",
    "ClaudeKey",
    "Key",
    "MemdirSettings",
    "Problems",
    "SessionMemorySettings",
    "Where",
    "claude_setting",
    "invalid_setting",
    "release_setting",
    "resolve_memdir_settings",
    "session_memory_settings",
    "setting_source",
]

AGENT_WRITES = ("direct", "review", "off")


class Check:
    """One validating shape: what a value must be, in the words every message uses, and the test a
    value passes. A ``lenient`` check keeps the default for a value it refuses instead of raising."""

    __slots__ = ("accepts", "expected", "lenient")

    def __init__(self, expected: str, accepts: Callable[[object], bool], *, lenient: bool = False) -> None:
        self.expected = expected
        self.accepts = accepts
        self.lenient = lenient


class Key:
    """One settings key: its name inside ``"memdir"``, the record attribute it becomes, its default,
    its check and the README's line about it (``shown`` replaces the JSON default there).
    ``fallback`` is what a value the check refuses becomes, when that is not the default (a
    setting that restricts agents falls back to a restriction, not to none).

    Plain classes with slots, not NamedTuples: every hook process imports this table, and each
    NamedTuple class costs it about 0.15 ms to create."""

    __slots__ = ("attr", "check", "default", "doc", "fallback", "name", "shown")

    def __init__(
        self,
        name: str,
        attr: str,
        default: object,
        check: Check,
        doc: str,
        shown: str = "",
        *,
        fallback: object = None,
    ) -> None:
        self.name = name
        self.attr = attr
        self.default = default
        self.check = check
        self.doc = doc
        self.shown = shown
        self.fallback = default if fallback is None else fallback

    def __repr__(self) -> str:
        return f"Key({self.name!r})"


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _non_negative(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _version(value: object) -> bool:
    return value is None or value == "newest" or (isinstance(value, str) and Version.parse(value) is not None)


FLAG = Check("true or false", lambda value: isinstance(value, bool))
OPTIONAL_FLAG = Check("true, false or null", lambda value: value is None or isinstance(value, bool))
COUNT = Check("a positive integer", _count)
OPTIONAL_COUNT = Check("a positive integer or null", lambda value: value is None or _count(value))
NON_NEGATIVE = Check("a non-negative number", _non_negative)
OPTIONAL_TEXT = Check("a string or null", lambda value: value is None or isinstance(value, str))
MODEL_SPEC = Check(
    'a model spec such as "anthropic:claude-sonnet-4-6" or null',
    lambda value: value is None or isinstance(value, str),
)
# Which kinds exist is the selector registry's to say (a plugin may register one after the
# configuration is resolved); it checks the name when it builds the selector.
SELECTOR_KIND = Check('a selector kind such as "lexical"', lambda value: isinstance(value, str) and value != "")
VERSION = Check('a version such as "2.1.88", "newest" or null', _version)
AGENT_WRITES_MODE = Check("direct, review or off", lambda value: value in AGENT_WRITES)
OBJECT = Check(
    'an object such as {"minimumTokensBetweenUpdate": 5000} or null',
    lambda value: value is None or isinstance(value, Mapping),
)
# Claude Code reads these thresholds from server-side flags, where a value overrides its default
# only when it is a positive number, so a typo or a zero never switches a degenerate mode on.
POSITIVE_OR_DEFAULT = Check("a positive number", _positive, lenient=True)


class SessionMemorySettings(NamedTuple):
    """``memdir.sessionMemory``: when session notes are updated and what compaction keeps."""

    minimum_message_tokens_to_init: float
    minimum_tokens_between_update: float
    tool_calls_between_updates: float
    use_for_compaction: bool
    compact_min_tokens: float
    compact_min_text_block_messages: float
    compact_max_tokens: float


# The fields of memdir.sessionMemory; "compact.x" is x inside its "compact" object.
SESSION_MEMORY_KEYS: tuple[Key, ...] = (
    Key("minimumMessageTokensToInit", "minimum_message_tokens_to_init", 10000, POSITIVE_OR_DEFAULT,
        "Context size before the first notes are written."),
    Key("minimumTokensBetweenUpdate", "minimum_tokens_between_update", 5000, POSITIVE_OR_DEFAULT,
        "Context growth between two updates."),
    Key("toolCallsBetweenUpdates", "tool_calls_between_updates", 3, POSITIVE_OR_DEFAULT,
        "Tool calls between updates, unless the last turn had none."),
    Key("useForCompaction", "use_for_compaction", True, OPTIONAL_FLAG,
        "Compact from the notes (ENABLE_/DISABLE_CLAUDE_CODE_SM_COMPACT win)."),
    Key("compact.minTokens", "compact_min_tokens", 10000, POSITIVE_OR_DEFAULT,
        "Compaction keeps at least this many tokens."),
    Key("compact.minTextBlockMessages", "compact_min_text_block_messages", 5, POSITIVE_OR_DEFAULT,
        "Compaction keeps at least this many messages with text."),
    Key("compact.maxTokens", "compact_max_tokens", 40000, POSITIVE_OR_DEFAULT,
        "Compaction keeps at most this many tokens."),
)  # fmt: skip


def _defaults(keys: tuple[Key, ...]) -> dict[str, Any]:
    """Each key's default by its record attribute: what a record is built from, by keyword."""
    return {key.attr: key.default for key in keys}


_SESSION_MEMORY_DEFAULTS = SessionMemorySettings(**_defaults(SESSION_MEMORY_KEYS))


class MemdirSettings(NamedTuple):
    """Every ``memdir.*`` setting of one configuration, checked: the attribute of a key is its
    name in snake case (``memdir.scanCap`` is ``scan_cap``). Built by keyword from :data:`KEYS`,
    so a key without its attribute, or an attribute without its key, fails at import."""

    scan_cap: int | None
    derived_index: bool | None
    skip_index: bool
    search_past_context: bool
    team_memory: bool | None
    team_server: str | None
    model: str | None
    selector: str
    hook_selector: str
    claude_code_version: str | None
    selector_prefilter: int | None
    extract_every_turns: int
    extract_prefilter: int | None
    session_memory: SessionMemorySettings
    daily_log: bool
    dream_min_hours: float
    dream_min_sessions: float
    dream_max_turns: int
    history: bool
    agent_writes: str


KEYS: tuple[Key, ...] = (
    Key("scanCap", "scan_cap", None, OPTIONAL_COUNT,
        "How many memories (newest first) recall and extraction consider; `null` (the default) for all, "
        "ranked inside the derived index; `200` for exactly what Claude Code considers. "
        "See [docs/recall.md](docs/recall.md)."),
    Key("derivedIndex", "derived_index", None, OPTIONAL_FLAG,
        "`true`: scans come from the derived SQLite index (`memdir reindex`); `null`: on when `scanCap` is `null`."),
    Key("skipIndex", "skip_index", False, FLAG,
        "Do not load `MEMORY.md` into context; the prompt drops the index step."),
    Key("searchPastContext", "search_past_context", True, FLAG,
        'Include the "Searching past context" prompt section.'),
    Key("teamMemory", "team_memory", None, OPTIONAL_FLAG,
        "Force team memory on or off; `null` means on when a team server is configured."),
    Key("teamServer", "team_server", None, OPTIONAL_TEXT,
        "Team-sync server URL."),
    Key("model", "model", None, MODEL_SPEC,
        "Model spec for the LLM selector and background agents."),
    Key("selector", "selector", "auto", SELECTOR_KIND,
        "`auto` (the LLM when a model is configured, else lexical), `llm`, `offline` (hybrid when the `embed` "
        "extra is installed, else lexical), `lexical`, `embedding` or `hybrid`. See [docs/recall.md](docs/recall.md)."),
    Key("hookSelector", "hook_selector", "lexical", SELECTOR_KIND,
        "The selector of the Claude Code `UserPromptSubmit` hook, which the prompt waits for: any kind "
        "`memdir.selector` takes. The default never calls a model; `auto` or `llm` let the hook ask the model "
        "(8 s at most, then the offline ranking answers). See [docs/claude-code-hooks.md](docs/claude-code-hooks.md)."),
    Key("claudeCodeVersion", "claude_code_version", None, VERSION,
        'The Claude Code release whose rules memdir follows (`"2.1.88"`, `"newest"`); `null` detects it. '
        "See [docs/claude-code.md](docs/claude-code.md)."),
    Key("selectorPrefilter", "selector_prefilter", 40, OPTIONAL_COUNT,
        "Above this many candidates the offline ranking picks the ones the LLM selector sees."),
    Key("extractEveryTurns", "extract_every_turns", 1, COUNT,
        "Run background extraction every N eligible turns."),
    Key("extractPrefilter", "extract_prefilter", 40, OPTIONAL_COUNT,
        "Above this many memories the extraction prompt lists the ones nearest the conversation."),
    Key("sessionMemory", "session_memory", _SESSION_MEMORY_DEFAULTS, OBJECT,
        "Session-notes thresholds (10,000 / 5,000 tokens, 3 tool calls) and compaction window.",
        shown="see [docs/session-memory.md](docs/session-memory.md)"),
    Key("dailyLog", "daily_log", False, FLAG,
        "Daily-log mode: append to `logs/YYYY/MM/YYYY-MM-DD.md`; MEMORY.md becomes read-only."),
    Key("dreamMinHours", "dream_min_hours", 24, NON_NEGATIVE,
        "Auto-dream: hours since the last consolidation."),
    Key("dreamMinSessions", "dream_min_sessions", 5, NON_NEGATIVE,
        "Auto-dream: sessions since the last consolidation."),
    Key("dreamMaxTurns", "dream_max_turns", 30, COUNT,
        "Model turns one dream may take."),
    Key("history", "history", True, FLAG,
        "Keep every version of every memory, with who changed it, under the config home; `false` keeps none. "
        "See [docs/history.md](docs/history.md)."),
    Key("agentWrites", "agent_writes", "direct", AGENT_WRITES_MODE,
        "What agents may do to memory (extraction, the dream, MCP tools, the memory tool, the framework adapters' "
        "tools, the LangGraph store): `direct` (write memory), `review` (propose changes a person accepts with "
        "`memdir review`), `off` (nothing). A person's CLI and web view always write. An unknown value "
        "counts as `review`. See [docs/history.md](docs/history.md).", fallback="review"),
)  # fmt: skip

_BY_NAME = {key.name: key for key in KEYS}
# Every default, read by attribute (also by the features' own defaults: the prefilters' 40).
DEFAULT_SETTINGS = MemdirSettings(**_defaults(KEYS))


def _json_default(key: Key) -> object:
    if isinstance(key.default, SessionMemorySettings):
        nested: dict[str, object] = {}
        for field in SESSION_MEMORY_KEYS:
            outer, _, inner = field.name.rpartition(".")
            (nested.setdefault(outer, {}) if outer else nested)[inner] = field.default  # type: ignore[index]
        return nested
    return key.default


# Each key's default as it is written in a settings file (sessionMemory as its nested object).
SETTINGS_DEFAULTS: Mapping[str, object] = MappingProxyType({key.name: _json_default(key) for key in KEYS})


def _shown(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


class Where:
    """Where a value was read from, for a message: in words, and the file when there is one."""

    __slots__ = ("path", "text")

    def __init__(self, text: str, path: str | None = None) -> None:
        self.text = text
        self.path = path


def _where(settings: Settings, source: Source) -> Where:
    return Where(settings.where(source), settings.paths.get(source))


def invalid_setting(key: str, value: object, expected: str, where: Where) -> ConfigError:
    """The one error for a settings value that cannot be used: the key, what it must be, the
    value found (as JSON) and where it was read from."""
    return ConfigError(
        f"settings key {key} must be {expected}, not {_shown(value)} (read from {where.text})",
        rule="settings",
        path=where.path,
    )


def _unknown(key: str, known: tuple[str, ...], prefix: str, where: Where) -> ConfigError:
    import difflib  # only a mistake pays for it

    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"did you mean {prefix}{close[0]}?" if close else "the README lists the keys memdir knows"
    return ConfigError(
        f"settings key {prefix}{key} is not a memdir setting; {hint} (read from {where.text})",
        rule="settings",
        path=where.path,
    )


Problems = list[ConfigError]
"""Where :func:`resolve_memdir_settings` puts the mistakes it kept the default for."""


def _report(problem: ConfigError, problems: Problems | None, instead: str) -> None:
    """Raise ``problem``, or (given a list) add it there with what memdir does ``instead``."""
    if problems is None:
        raise problem
    problems.append(ConfigError(f"{problem.message}; {instead}", rule="settings", path=problem.path))


def _claude_where(settings: Settings, key: str, *, trusted_only: bool = False) -> Where:
    """Where one of Claude Code's own keys (``autoMemoryEnabled``, ...) was read from: the source
    :meth:`Settings.merged` (or, ``trusted_only``, :meth:`Settings.first_trusted`) takes it from."""
    source = settings.origin(key, trusted_only=trusted_only)
    return Where("the defaults") if source is None else _where(settings, source)


def setting_source(settings: Settings, name: str) -> Where:
    """Where ``memdir.<name>`` was read from, for a message (the defaults when no file sets it)."""
    source = settings.memdir_origin(name)
    return Where("the defaults") if source is None else _where(settings, source)


# A value a program passed in rather than a settings file.
CALLER = Where("the caller's argument")


def session_memory_settings(
    value: object, where: Where = CALLER, problems: Problems | None = None
) -> SessionMemorySettings:
    """``memdir.sessionMemory`` as a record: a field overrides its default only when it is a
    positive number; ``useForCompaction`` must be true, false or null; an unknown field is an error
    (with ``problems``, a problem noted there, the field keeping its default)."""
    if value is None:
        return _SESSION_MEMORY_DEFAULTS
    if not isinstance(value, Mapping):
        _report(
            invalid_setting("memdir.sessionMemory", value, OBJECT.expected, where), problems, "memdir uses the defaults"
        )
        return _SESSION_MEMORY_DEFAULTS
    compact = value.get("compact")
    if compact is None:
        compact = {}
    elif not isinstance(compact, Mapping):
        _report(
            invalid_setting("memdir.sessionMemory.compact", compact, OBJECT.expected, where), problems, "the defaults"
        )
        compact = {}
    outer_names = (*(key.name for key in SESSION_MEMORY_KEYS if "." not in key.name), "compact")
    compact_names = tuple(key.name.removeprefix("compact.") for key in SESSION_MEMORY_KEYS if "." in key.name)
    for section, known, prefix in ((value, outer_names, ""), (compact, compact_names, "compact.")):
        for name in section:
            if name not in known:
                _report(_unknown(name, known, f"memdir.sessionMemory.{prefix}", where), problems, "memdir ignores it")
    fields: dict[str, Any] = {}
    for key in SESSION_MEMORY_KEYS:
        outer, _, inner = key.name.rpartition(".")
        found = (compact if outer else value).get(inner)
        checked = key.default if found is None else _checked(key, found, f"sessionMemory.{key.name}", where, problems)
        fields[key.attr] = checked
    return SessionMemorySettings(**fields)


def _checked(key: Key, value: object, name: str, where: Where, problems: Problems | None = None) -> object:
    """``value`` when the key's check accepts it; else the default (a lenient check), or the error
    (with ``problems``, noted there, and the key's fallback)."""
    if key.check.accepts(value):
        return value
    if key.check.lenient:
        return key.default
    _report(
        invalid_setting(f"{MEMDIR_KEY}.{name}", value, key.check.expected, where),
        problems,
        f"memdir uses {_shown(key.fallback)} instead",
    )
    return key.fallback


def resolve_memdir_settings(settings: Settings, *, problems: Problems | None = None) -> MemdirSettings:
    """Every ``memdir.*`` key of ``settings`` checked once (the highest source that sets a key
    decides it, an explicit ``null`` included), with the table's defaults for the rest.

    A key the table does not know, or a value its check refuses, raises; with ``problems`` it is
    added there instead (saying what memdir does instead) and the key keeps its default (an
    unknown key is ignored), so a setting a newer memdir writes never stops an older one:
    :func:`memdir.config.resolve_config` warns about each once."""
    sections = settings.memdir_sections()
    if not sections:
        return DEFAULT_SETTINGS
    for source, section in sections:
        for name in section:
            if name not in _BY_NAME:
                _report(
                    _unknown(name, tuple(_BY_NAME), "memdir.", _where(settings, source)), problems, "memdir ignores it"
                )
    values = _defaults(KEYS)
    for key in KEYS:
        for source, section in sections:
            if key.name in section:
                value = section[key.name]
                where = _where(settings, source)
                if key.default is _SESSION_MEMORY_DEFAULTS:
                    values[key.attr] = session_memory_settings(value, where, problems)
                else:
                    values[key.attr] = _checked(key, value, key.name, where, problems)
                break
    return MemdirSettings(**values)


def release_setting(value: object, where: Where = CALLER) -> Version | None:
    """``memdir.claudeCodeVersion`` as the release it names: None (detect it), ``"newest"`` (the
    newest rules) or a version; anything else is the one settings error."""
    if value is None or value == "newest":
        return NEWEST if value == "newest" else None
    parsed = Version.parse(value) if isinstance(value, str) else None
    if parsed is None:
        raise invalid_setting(f"{MEMDIR_KEY}.claudeCodeVersion", value, VERSION.expected, where)
    return parsed


class ClaudeKey:
    """One of Claude Code's own keys that memdir reads (outside ``"memdir"``): its name, its check,
    and whether Claude Code takes it from trusted sources only (never a checked-in project file)."""

    __slots__ = ("check", "name", "trusted_only")

    def __init__(self, name: str, check: Check, *, trusted_only: bool = False) -> None:
        self.name = name
        self.check = check
        self.trusted_only = trusted_only


AUTO_MEMORY_ENABLED = ClaudeKey("autoMemoryEnabled", FLAG)
AUTO_MEMORY_DIRECTORY = ClaudeKey(
    "autoMemoryDirectory", Check("a directory path", lambda value: isinstance(value, str)), trusted_only=True
)
AUTO_DREAM_ENABLED = ClaudeKey("autoDreamEnabled", FLAG)
CLAUDE_MD_EXCLUDES = ClaudeKey(
    "claudeMdExcludes",
    Check(
        "a list of glob patterns or absolute paths",
        lambda value: isinstance(value, list) and all(isinstance(pattern, str) for pattern in value),
    ),
)
# Claude Code's keys memdir honours as Claude Code does, each checked here in the same words as memdir's.
CLAUDE_KEYS: tuple[ClaudeKey, ...] = (
    AUTO_MEMORY_ENABLED,
    AUTO_MEMORY_DIRECTORY,
    AUTO_DREAM_ENABLED,
    CLAUDE_MD_EXCLUDES,
)


def claude_setting(settings: Settings, key: ClaudeKey) -> object:
    """The value of one of Claude Code's own keys, as Claude Code takes it (the merged value, or
    the first trusted one), or None when no file sets it; a value the key's check refuses is the
    one settings error, naming the file it was read from."""
    value = settings.first_trusted(key.name) if key.trusted_only else settings.merged(key.name)
    if value is None or key.check.accepts(value):
        return value
    where = _claude_where(settings, key.name, trusted_only=key.trusted_only)
    raise invalid_setting(key.name, value, key.check.expected, where)
