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
from memdir.recall.registry import (
    OFFLINE_SELECTORS,
    SelectorInputs,
    build_selector,
    selector_kinds,
)
from memdir.recall.selector import Selector

if TYPE_CHECKING:
    from memdir.llm.base import ChatModel
    from memdir.store.index_db import MemoryIndex

__all__ = ["SELECTOR_KINDS", "make_selector", "selector_inputs"]

SELECTOR_KINDS = selector_kinds()
_VECTOR_KINDS = frozenset(OFFLINE_SELECTORS) - {"lexical"}


def _prefilter(config: MemoryConfig) -> int | None:
    value = config.setting("selectorPrefilter")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"settings key memdir.selectorPrefilter must be a positive integer or null, not {value!r}",
            rule="settings",
        )
    return value


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
    from memdir.recall.analysis_file import AnalysisFile

    vectors = index
    if vectors is None and kind in _VECTOR_KINDS:
        vectors = open_index(config)  # a plain directory has no index yet: one for the vectors alone
    return SelectorInputs(
        # Without the derived index, the analyses live in a file, so a cold process (every hook) does not redo them.
        analyses=index if index is not None else AnalysisFile.for_directory(config.memory_dir, config.config_home),
        vectors=vectors,
        model_spec=registry.resolve_model_spec(
            model_spec, environment_value=config.environment.model, settings_value=config.setting("model")
        ),
        load_model=load_model or partial(registry.load_model, environment=config.environment),
        prefilter=_prefilter(config),
        embed_model=config.environment.embed_model or None,
        model_timeout=model_timeout,
        nested_types=config.claude_code.rules.frontmatter is FrontmatterLayout.NESTED,
    )


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
    chosen = kind if kind is not None else config.setting("selector")
    if not isinstance(chosen, str) or chosen not in selector_kinds():
        raise ConfigError(
            f"selector {chosen!r} is not one of {', '.join(selector_kinds())} "
            "(option --selector or settings key memdir.selector)",
            rule="settings",
        )
    inputs = selector_inputs(
        config, chosen, model_spec, load_model=load_model, index=index, model_timeout=model_timeout
    )
    return build_selector(chosen, inputs)
