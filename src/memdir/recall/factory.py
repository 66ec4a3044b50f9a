"""Choosing the selector a session or command uses, from options and the configuration.

``auto`` is the default: the model-backed selector when a model is configured (``--model``,
``MEMDIR_MODEL`` or the settings key ``memdir.model``), the lexical one otherwise, so a user
without a model still gets recall at no cost — in every process, including the short-lived
ones hooks start, since the lexical selector loads nothing. ``offline`` is the best offline
ranking installed (the hybrid when the ``embed`` extra is present); ``lexical``, ``embedding``
and ``hybrid`` name one ranking explicitly. The kinds and their constructors are the table in
:mod:`memdir.recall.registry`; this module only resolves the values they are built from.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from memdir.config import MemoryConfig, open_index
from memdir.errors import ConfigError
from memdir.model.memory_type import FrontmatterLayout
from memdir.recall.lexical import AnalysisCache
from memdir.recall.registry import (
    OFFLINE_SELECTORS,
    SelectorInputs,
    build_selector,
    selector_kinds,
)
from memdir.recall.selector import Selector
from memdir.settings_table import invalid_setting, setting_source

if TYPE_CHECKING:
    from memdir.llm.base import ChatModel
    from memdir.store.index_db import MemoryIndex

__all__ = ["SELECTOR_KINDS", "analysis_cache", "make_selector", "selector_inputs", "selector_kind"]

SELECTOR_KINDS = selector_kinds()
_VECTOR_KINDS = frozenset(OFFLINE_SELECTORS) - {"lexical"}


def selector_kind(config: MemoryConfig, kind: str | None = None, *, setting: str = "selector") -> str:
    """The kind to build: ``kind`` (an option's or a caller's), else the settings key
    ``memdir.<setting>`` (``selector``, or the prompt hook's ``hookSelector``). The settings table
    checked the setting's type; which kinds exist is the registry's to say, here, once, since a
    plugin may register a kind after the configuration was resolved."""
    kinds = selector_kinds()
    if kind is not None:
        if kind not in kinds:
            raise ConfigError(
                f"selector {kind!r} is not one of {', '.join(kinds)} (option --selector)", rule="settings"
            )
        return kind
    chosen = config.memdir.hook_selector if setting == "hookSelector" else config.memdir.selector
    if chosen not in kinds:
        expected = f"one of {', '.join(kinds[:-1])} or {kinds[-1]}"
        raise invalid_setting(f"memdir.{setting}", chosen, expected, setting_source(config.settings, setting))
    return chosen


def selector_inputs(
    config: MemoryConfig,
    kind: str,
    model_spec: str | None = None,
    *,
    load_model: Callable[[str], ChatModel] | None = None,
    index: MemoryIndex | None = None,
    model_timeout: float | None = None,
) -> SelectorInputs:
    """The values a selector of ``kind`` is built from, all from ``config`` (its settings and its
    environment: ``MEMDIR_MODEL``, ``MEMDIR_EMBED_MODEL``, the providers' keys). ``index`` is the
    derived index the memory directory reads through, when it does: then it keeps the lexical
    analyses too, and no second index object is opened on the same database. ``load_model`` builds
    the model (the composition root passes its own, so the selector and the agents share one)."""
    from memdir.llm import registry

    vectors = index
    if vectors is None and kind in _VECTOR_KINDS:
        vectors = open_index(config)  # a plain directory has no index yet: one for the vectors alone
    return SelectorInputs(
        analyses=analysis_cache(config, index),
        vectors=vectors,
        model_spec=registry.resolve_model_spec(
            model_spec, environment_value=config.environment.model, settings_value=config.memdir.model
        ),
        load_model=load_model or partial(registry.load_model, environment=config.environment),
        prefilter=config.memdir.selector_prefilter,
        embed_model=config.environment.embed_model or None,
        model_timeout=model_timeout,
        nested_types=config.claude_code.rules.frontmatter is FrontmatterLayout.NESTED,
    )


def analysis_cache(config: MemoryConfig, index: MemoryIndex | None) -> AnalysisCache:
    """Where the lexical ranking keeps its analyses: the derived index the memory directory reads
    through, else a file under the config home, so a cold process (every hook) does not redo them."""
    if index is not None:
        return index
    from memdir.recall.analysis_file import AnalysisFile

    return AnalysisFile.for_directory(config.memory_dir, config.config_home)


def make_selector(
    config: MemoryConfig,
    kind: str | None = None,
    model_spec: str | None = None,
    *,
    load_model: Callable[[str], ChatModel] | None = None,
    index: MemoryIndex | None = None,
    model_timeout: float | None = None,
) -> Selector:
    """The selector for ``kind`` (see :data:`SELECTOR_KINDS`; default: the settings key ``memdir.selector``).

    ``llm`` without a model is an error. ``auto`` with a model that cannot be built (no key, no
    SDK) degrades to the offline selector, and every selection says why. ``model_timeout`` caps
    the seconds a model may take before the offline ranking answers instead.
    """
    chosen = selector_kind(config, kind)
    inputs = selector_inputs(
        config, chosen, model_spec, load_model=load_model, index=index, model_timeout=model_timeout
    )
    return build_selector(chosen, inputs)
