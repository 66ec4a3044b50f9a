"""Model specs ("PROVIDER:REST") to ChatModel instances, through one table of provider factories.

Providers are looked up, never branched on, so a plugin or a test can add one with
:func:`register_provider` and every entry point (CLI, library, agents) picks it up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from memdir.environment import VARIABLES
from memdir.errors import ConfigError, ModelNotConfigured

if TYPE_CHECKING:  # the protocol only: resolving a spec must not import the model layer (hooks do it)
    from memdir.environment import Environment
    from memdir.llm.base import ChatModel

__all__ = [
    "ENTRY_POINT_GROUP",
    "MODEL_ENV_VAR",
    "SETTINGS_KEY",
    "ProviderFactory",
    "known_providers",
    "load_model",
    "model_not_configured",
    "register_provider",
    "resolve_model_spec",
]

MODEL_ENV_VAR = VARIABLES["model"]
SETTINGS_KEY = "memdir.model"

ProviderFactory = Callable[[str, "Environment"], "ChatModel"]
"""Called with the part of the spec after "PROVIDER:" and the environment (API keys, base URLs)."""


def _load_from(module: str) -> ProviderFactory:
    """The ``load`` function of one of memdir's provider modules, imported when a spec names it
    (a process that never builds a model never imports the adapters)."""

    def load(rest: str, environment: Environment) -> ChatModel:
        factory: ProviderFactory = importlib.import_module(module).load
        return factory(rest, environment)

    return load


_providers: dict[str, ProviderFactory] = {
    "anthropic": _load_from("memdir.llm.anthropic"),
    "openai": _load_from("memdir.llm.openai"),
    "scripted": _load_from("memdir.llm.scripted"),
}


def register_provider(prefix: str, factory: ProviderFactory) -> None:
    """Add or replace the factory used for specs starting with ``prefix:``."""
    if not prefix or ":" in prefix:
        raise ConfigError(f"provider prefix {prefix!r} must be a non-empty name without ':'", rule="model-spec")
    _providers[prefix] = factory


ENTRY_POINT_GROUP = "memdir.models"
_plugins: dict[str, str] | None = None  # None until the entry points are read: prefix -> why it cannot load


def _load_plugins() -> dict[str, str]:
    """Register the providers other packages declare in the ``memdir.models`` entry-point group,
    once: the name is the prefix, the object a :data:`ProviderFactory`. Read only when a spec names
    a prefix that is not known, or the prefixes are listed. A plugin that fails to load is kept
    with its reason, for the error of a spec that names it."""
    global _plugins
    if _plugins is None:
        from importlib.metadata import entry_points

        _plugins = {}
        for point in entry_points(group=ENTRY_POINT_GROUP):
            if point.name in _providers:
                continue  # registered in process already (or built in): that one wins
            try:
                factory = point.load()
                if not callable(factory):
                    raise TypeError(f"{point.value} is not a provider factory")
                register_provider(point.name, factory)
            except Exception as exc:  # noqa: BLE001 - a broken plugin must not take the other providers down with it
                _plugins[point.name] = f"the plugin {point.value!r} cannot be loaded ({type(exc).__name__}: {exc})"
    return _plugins


def known_providers() -> tuple[str, ...]:
    """Every provider prefix, the installed plugins' included."""
    _load_plugins()
    return tuple(sorted(_providers))


def load_model(spec: str, environment: Environment) -> ChatModel:
    """Build the model a spec names, e.g. "anthropic:claude-sonnet-4-6" or "scripted:/tmp/s.json",
    with the API keys and base URLs of ``environment`` (``MemoryConfig.environment``)."""
    prefix, sep, rest = spec.strip().partition(":")
    if not sep or not rest:
        raise ConfigError(
            f"model spec {spec!r} must look like PROVIDER:MODEL (known: {_known()}), "
            "e.g. anthropic:claude-sonnet-4-6 or openai:gpt-4o-mini",
            rule="model-spec",
        )
    factory = _providers.get(prefix)
    if factory is None:
        broken = _load_plugins().get(prefix)
        factory = _providers.get(prefix)
        if broken is not None:
            raise ConfigError(f"model spec {spec!r}: {broken}", rule="model-spec")
        if factory is None:
            raise ConfigError(
                f"model spec {spec!r}: unknown provider {prefix!r}; use one of {_known()}",
                rule="model-spec",
            )
    return factory(rest, environment)


def _known() -> str:
    return ", ".join(f"{p}:..." for p in known_providers())


def resolve_model_spec(
    cli_value: str | None,
    *,
    environment_value: str | None = None,
    settings_value: object = None,
) -> str | None:
    """Pick the spec to use: --model, then MEMDIR_MODEL (``environment_value``), then the settings
    key "memdir.model"; blank values count as unset."""
    if cli_value and cli_value.strip():
        return cli_value.strip()
    if environment_value and environment_value.strip():
        return environment_value.strip()
    if settings_value is None or settings_value == "":
        return None
    if not isinstance(settings_value, str):  # a configuration's is checked already: this is a caller's
        from memdir.settings_table import CALLER, MODEL_SPEC, invalid_setting

        raise invalid_setting(SETTINGS_KEY, settings_value, MODEL_SPEC.expected, CALLER)
    return settings_value.strip() or None


def model_not_configured(purpose: str) -> ModelNotConfigured:
    """The error for a feature that needs a model when none is configured, naming the three ways."""
    return ModelNotConfigured(
        f"{purpose} needs a model and none is configured; pass --model PROVIDER:MODEL, set "
        f"{MODEL_ENV_VAR}, or set the settings key {SETTINGS_KEY!r} "
        "(e.g. anthropic:claude-sonnet-4-6; see docs/models.md)",
        rule="model-not-configured",
    )
