"""Model specs ("PROVIDER:REST") to ChatModel instances, through one table of provider factories.

Providers are looked up, never branched on, so a plugin or a test can add one with
:func:`register_provider` and every entry point (CLI, library, agents) picks it up.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from memdir.errors import ConfigError

if TYPE_CHECKING:  # the protocol only: resolving a spec must not import the model layer (hooks do it)
    from memdir.llm.base import ChatModel

__all__ = [
    "MODEL_ENV_VAR",
    "SETTINGS_KEY",
    "ProviderFactory",
    "known_providers",
    "load_model",
    "register_provider",
    "resolve_model_spec",
]

MODEL_ENV_VAR = "MEMDIR_MODEL"
SETTINGS_KEY = "memdir.model"

ProviderFactory = Callable[[str, Mapping[str, str]], "ChatModel"]
"""Called with the part of the spec after "PROVIDER:" and the environment to read keys from."""


def _load_from(module: str) -> ProviderFactory:
    """The ``load`` function of one of memdir's provider modules, imported when a spec names it
    (a process that never builds a model never imports the adapters)."""

    def load(rest: str, env: Mapping[str, str]) -> ChatModel:
        factory: ProviderFactory = importlib.import_module(module).load
        return factory(rest, env)

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


def known_providers() -> tuple[str, ...]:
    return tuple(sorted(_providers))


def load_model(spec: str, *, env: Mapping[str, str] | None = None) -> ChatModel:
    """Build the model a spec names, e.g. "anthropic:claude-sonnet-4-6" or "scripted:/tmp/s.json"."""
    prefix, sep, rest = spec.strip().partition(":")
    known = ", ".join(f"{p}:..." for p in known_providers())
    if not sep or not rest:
        raise ConfigError(
            f"model spec {spec!r} must look like PROVIDER:MODEL (known: {known}), "
            "e.g. anthropic:claude-sonnet-4-6 or openai:gpt-4o-mini",
            rule="model-spec",
        )
    factory = _providers.get(prefix)
    if factory is None:
        raise ConfigError(
            f"model spec {spec!r}: unknown provider {prefix!r}; use one of {known}",
            rule="model-spec",
        )
    return factory(rest, os.environ if env is None else env)


def resolve_model_spec(
    cli_value: str | None,
    *,
    env: Mapping[str, str] | None = None,
    settings_value: object = None,
) -> str | None:
    """Pick the spec to use: --model, then MEMDIR_MODEL, then the settings key "memdir.model"."""
    if cli_value and cli_value.strip():
        return cli_value.strip()
    from_env = (os.environ if env is None else env).get(MODEL_ENV_VAR, "").strip()
    if from_env:
        return from_env
    if settings_value is None or settings_value == "":
        return None
    if not isinstance(settings_value, str):
        raise ConfigError(
            f"settings key {SETTINGS_KEY!r} must be a model spec string such as "
            f'"anthropic:claude-sonnet-4-6", not {type(settings_value).__name__}',
            rule="model-spec",
        )
    return settings_value.strip() or None
