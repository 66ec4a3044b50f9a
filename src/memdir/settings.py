"""Settings sources and the rules for which of them may decide what.

memdir reads the same settings files as Claude Code, so one ``autoMemoryDirectory`` or
``autoMemoryEnabled`` switch governs both. The sources differ in trust: the checked-in project file
(``.claude/settings.json``) travels with a repository, so it must never be able to choose where
memory is written (``first_trusted`` skips it), while it may still opt a project out of memory
(``merged`` includes it). memdir's own keys live in a ``"memdir"`` object inside the same files.

A file that exists but cannot be used raises :class:`ConfigError` instead of being skipped: a
silently ignored policy file is worse than a loud failure.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Collection, Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import NamedTuple, TypeVar

from memdir.environment import VARIABLES
from memdir.errors import ConfigError

__all__ = [
    "MANAGED_DIR_ENV",
    "MEMDIR_KEY",
    "Settings",
    "Source",
    "default_managed_dir",
    "load_settings",
]

T = TypeVar("T")

MEMDIR_KEY = "memdir"

# Tests and containers cannot write /etc or /Library, and an image may ship its policy elsewhere;
# this variable points memdir (only memdir) at another managed-settings directory.
MANAGED_DIR_ENV = VARIABLES["managed_dir"]


class Source(StrEnum):
    POLICY = "policySettings"
    FLAG = "flagSettings"
    LOCAL = "localSettings"
    USER = "userSettings"
    PROJECT = "projectSettings"


_TRUSTED_ORDER = (Source.POLICY, Source.FLAG, Source.LOCAL, Source.USER)
_MERGED_ORDER = (Source.POLICY, Source.FLAG, Source.LOCAL, Source.PROJECT, Source.USER)
_DISABLEABLE = frozenset({Source.PROJECT, Source.LOCAL, Source.USER})


class Settings(NamedTuple):
    """Parsed settings, one JSON object per source whose file exists.

    JSON ``null`` counts as "not defined", like a missing key. (A NamedTuple: every hook process
    builds this class, and a frozen dataclass costs it the ``dataclasses`` import.)
    """

    values: Mapping[Source, Mapping[str, object]] = MappingProxyType({})
    paths: Mapping[Source, str] = MappingProxyType({})  # the file each source was read from

    def where(self, source: Source) -> str:
        """Where a source's values came from, for messages: its file and its name, or its name alone."""
        path = self.paths.get(source)
        return f"{path}, {source}" if path else str(source)

    @classmethod
    def empty(cls) -> Settings:
        return cls(values={})

    def _defined(self, order: tuple[Source, ...], key: str) -> list[tuple[Source, object]]:
        found = []
        for source in order:
            value = self.values.get(source, {}).get(key)
            if value is not None:
                found.append((source, value))
        return found

    def first_trusted(self, key: str) -> object | None:
        """The first defined value in policy → flag → local → user; project settings never count.

        Used for keys that choose where files are written: a cloned repository must not pick them.
        """
        found = self._defined(_TRUSTED_ORDER, key)
        return found[0][1] if found else None

    def merged(self, key: str) -> object | None:
        """The value after merging every source, policy > flag > local > project > user.

        Objects merge key by key and lists are concatenated without duplicates (lowest precedence
        first), as Claude Code merges its settings; any other value is taken from the highest source.
        """
        found = self._defined(_MERGED_ORDER, key)
        if not found:
            return None
        result: object = None
        for _source, value in reversed(found):
            result = _merge(result, value)
        return result

    def origin(self, key: str, *, trusted_only: bool = False) -> Source | None:
        """Which source supplies ``key`` (the one ``first_trusted``/``merged`` takes it from)."""
        found = self._defined(_TRUSTED_ORDER if trusted_only else _MERGED_ORDER, key)
        return found[0][0] if found else None

    def memdir(self, key: str, default: T) -> T | object:
        """memdir's own setting ``key`` from the ``"memdir"`` objects, merged precedence.

        An explicit JSON ``null`` is a value here (``"scanCap": null`` lifts the cap), unlike
        Claude Code's own keys where ``null`` means unset.
        """
        for _source, section in self.memdir_sections():
            if key in section:
                value: object = section[key]
                return value
        return default

    def memdir_origin(self, key: str) -> Source | None:
        """The source whose ``"memdir"`` object supplies ``key`` (the one :meth:`memdir` reads)."""
        for source, section in self.memdir_sections():
            if key in section:
                return source
        return None

    def memdir_sections(self) -> list[tuple[Source, Mapping[str, object]]]:
        """Every source's ``"memdir"`` object, highest precedence first."""
        found = []
        for source in _MERGED_ORDER:
            section = self.values.get(source, {}).get(MEMDIR_KEY)
            if isinstance(section, Mapping):
                found.append((source, section))
        return found


def _merge(base: object, override: object) -> object:
    if isinstance(base, Mapping) and isinstance(override, Mapping):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = _merge(merged.get(key), value)
        return merged
    if isinstance(base, list) and isinstance(override, list):
        combined = list(base)
        combined.extend(item for item in override if item not in combined)
        return combined
    if isinstance(override, Mapping):
        return _merge({}, override)
    return override


def default_managed_dir(configured: str | None = None) -> str:
    """Directory of ``managed-settings.json``: ``configured`` (``$MEMDIR_MANAGED_DIR``, empty counts as
    unset) or the platform's."""
    if configured:
        return configured
    if sys.platform == "darwin":
        return "/Library/Application Support/ClaudeCode"
    if sys.platform == "win32":
        return "C:\\Program Files\\ClaudeCode"
    return "/etc/claude-code"


def _read_source(path: str, source: Source) -> dict[str, object] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path} ({source}) is not UTF-8 text (byte {exc.start}); save it as UTF-8 JSON",
            rule="settings-encoding",
            path=str(path),
        ) from exc
    except OSError as exc:
        raise ConfigError(
            f"{path} ({source}) cannot be read: {exc.strerror}; fix its permissions or remove it",
            rule="settings-unreadable",
            path=str(path),
        ) from exc
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path} ({source}) is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}; "
            "fix the syntax there (or delete the file to use no settings from it)",
            rule="settings-json",
            path=str(path),
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path} ({source}) must hold a JSON object ({{...}}) at the top level, "
            f"not a {type(data).__name__}; wrap the settings in braces",
            rule="settings-json",
            path=str(path),
        )
    section = data.get(MEMDIR_KEY)
    if section is not None and not isinstance(section, dict):
        raise ConfigError(
            f'{path} ({source}): "{MEMDIR_KEY}" must be a JSON object of memdir settings, '
            f"not a {type(section).__name__}",
            rule="settings-json",
            path=str(path),
        )
    return data


def load_settings(
    project_root: str | None,
    *,
    config_home: str,
    flag_settings: str | None = None,
    managed_dir: str | None = None,
    disabled_sources: Collection[Source] = (),
) -> Settings:
    """Read every settings source that exists.

    ``flag_settings`` is a path given explicitly (``--settings``), so unlike the other sources its
    absence is an error. Policy and flag settings cannot be disabled: an administrator's policy must
    not be switchable off by the user it constrains. ``config_home`` holds the user's settings;
    ``managed_dir`` the policy (default: the platform's directory).
    """
    refused = set(disabled_sources) - _DISABLEABLE
    if refused:
        names = ", ".join(sorted(refused))
        raise ConfigError(
            f"settings source(s) {names} cannot be disabled; only projectSettings, localSettings and userSettings can",
            rule="settings-source",
        )

    # Plain strings, not pathlib: every hook process loads the settings, and pathlib's imports cost it 3 ms.
    candidates: list[tuple[Source, str]] = [
        (Source.POLICY, os.path.join(managed_dir or default_managed_dir(), "managed-settings.json")),
        (Source.USER, os.path.join(config_home, "settings.json")),
    ]
    if project_root is not None:
        candidates.append((Source.PROJECT, os.path.join(project_root, ".claude", "settings.json")))
        candidates.append((Source.LOCAL, os.path.join(project_root, ".claude", "settings.local.json")))

    values: dict[Source, Mapping[str, object]] = {}
    paths: dict[Source, str] = {}
    for source, path in candidates:
        if source in disabled_sources:
            continue
        data = _read_source(path, source)
        if data is not None:
            values[source] = data
            paths[source] = path
    if flag_settings is not None:
        data = _read_source(flag_settings, Source.FLAG)
        if data is None:
            raise ConfigError(
                f"settings file {flag_settings} given on the command line does not exist; check the path",
                rule="settings-missing",
                path=flag_settings,
            )
        values[Source.FLAG] = data
        paths[Source.FLAG] = flag_settings
    return Settings(values=values, paths=paths)
