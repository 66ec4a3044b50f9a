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
from memdir.recall.registry import SelectorInputs, SelectorKind, find_selector, selector_kinds
from memdir.settings_table import invalid_setting, setting_source

if TYPE_CHECKING:
    from memdir.llm.base import ChatModel
    from memdir.store.index_db import MemoryIndex

__all__ = [
    "analysis_cache",
    "selector_inputs",
    "selector_kind",
    "selector_record",
]


def selector_record(config: MemoryConfig, kind: str | None = None, *, hook: bool = False) -> SelectorKind:
    """The kind to build: ``kind`` (an option's or a caller's), else the settings key
    ``memdir.selector`` (``memdir.hookSelector`` for the prompt hook's, ``hook``). The settings table
    checked the setting's type; which kinds exist is the registry's to say
    (:func:`~memdir.recall.registry.find_selector`, which looks through the installed plugins for a
    kind it does not know), here, once per build; this only says where the name came from."""
    chosen = kind
    if chosen is None:
        chosen = config.memdir.hook_selector if hook else config.memdir.selector
    try:
        return find_selector(chosen)
    except ConfigError as exc:
        if exc.rule != "settings":
            raise  # a plugin that cannot be loaded says so itself
        kinds = selector_kinds()
        if kind is not None:
            raise ConfigError(
                f"selector {kind!r} is not one of {', '.join(kinds)} "
                "(the --selector option or a selector_kind argument)",
                rule="settings",
            ) from None
        expected = f"one of {', '.join(kinds[:-1])} or {kinds[-1]}"
        name = "hookSelector" if hook else "selector"
        raise invalid_setting(f"memdir.{name}", chosen, expected, setting_source(config.settings, name)) from None


def selector_kind(config: MemoryConfig, kind: str | None = None) -> str:
    """The name of :func:`selector_record`'s kind."""
    return selector_record(config, kind).name


def selector_inputs(
    config: MemoryConfig,
    kind: str | SelectorKind,
    model_spec: str | None = None,
    *,
    load_model: Callable[[str], ChatModel] | None = None,
    index: MemoryIndex | None = None,
    model_timeout: float | None = None,
) -> SelectorInputs:
    """The values a selector of ``kind`` is built from, all from ``config`` (its settings and its
    environment: ``MEMDIR_EMBED_MODEL``, the providers' keys) and only what the kind says it needs.
    ``model_spec`` is the spec already resolved (``--model``, ``MEMDIR_MODEL``, ``memdir.model``:
    :attr:`MemorySession.model_spec <memdir.memory_session.MemorySession.model_spec>`).
    ``index`` is the derived index the memory directory reads through, when it does: then it keeps
    the lexical analyses too, and no second index object is opened on the same database.
    ``load_model`` builds the model (the composition root passes its own, so the selector and the
    agents share one)."""
    record = find_selector(kind) if isinstance(kind, str) else kind
    vectors = index
    if vectors is None and record.vectors:
        vectors = open_index(config)  # a plain directory has no index yet: one for the vectors alone
    if record.model and load_model is None:
        from memdir.llm import registry

        load_model = partial(registry.load_model, environment=config.environment)
    return SelectorInputs(
        analyses=analysis_cache(config, index),
        vectors=vectors,
        model_spec=model_spec if record.model else None,
        load_model=load_model if record.model else None,
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
