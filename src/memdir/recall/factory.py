"""Choosing the selector a session or command uses, from options, the environment and settings.

``auto`` is the default: the model-backed selector when a model is configured (``--model``,
``MEMDIR_MODEL`` or the settings key ``memdir.model``), the lexical one otherwise, so a user
without a model still gets recall at no cost — in every process, including the short-lived
ones hooks start, since the lexical selector loads nothing. ``offline`` is the best offline
ranking installed (the hybrid when the ``embed`` extra is present); ``lexical``, ``embedding``
and ``hybrid`` name one ranking explicitly.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from memdir.config import MemoryConfig
from memdir.errors import ConfigError, ModelError, ModelNotConfigured
from memdir.llm.registry import MODEL_ENV_VAR, SETTINGS_KEY, load_model, resolve_model_spec
from memdir.recall.hybrid import OFFLINE_SELECTORS, offline_selector
from memdir.recall.lexical import AnalysisCache
from memdir.recall.llm_selector import LLMSelector
from memdir.recall.selectors import LexicalSelector, Selection, SelectionRequest, Selector

__all__ = ["SELECTOR_KINDS", "make_selector", "model_not_configured"]

SELECTOR_KINDS = ("auto", "llm", *OFFLINE_SELECTORS)
log = logging.getLogger("memdir.recall")


def model_not_configured(purpose: str) -> ModelNotConfigured:
    """The error for a feature that needs a model when none is configured, naming the three ways."""
    return ModelNotConfigured(
        f"{purpose} needs a model and none is configured; pass --model PROVIDER:MODEL, set "
        f"{MODEL_ENV_VAR}, or set the settings key {SETTINGS_KEY!r} "
        "(e.g. anthropic:claude-sonnet-4-6; see docs/models.md)",
        rule="model-not-configured",
    )


class _Explained:
    """An offline selector whose answers carry the reason the model-backed one is not in use."""

    def __init__(self, inner: Selector, note: str) -> None:
        self.inner = inner
        self.name = inner.name
        self.note = note

    def use_analysis_cache(self, cache: AnalysisCache) -> None:
        attach = getattr(self.inner, "use_analysis_cache", None)
        if attach is not None:
            attach(cache)

    def select(self, request: SelectionRequest) -> Selection:
        answer = self.inner.select(request)
        return Selection(files=answer.files, selector=answer.selector, notes=(*answer.notes, self.note))


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


def make_selector(
    config: MemoryConfig,
    kind: str | None = None,
    model_spec: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
) -> Selector:
    """The selector for ``kind`` (see :data:`SELECTOR_KINDS`; default: the settings key ``memdir.selector``).

    ``llm`` without a model is an error. ``auto`` with a model that cannot be built (no key, no
    SDK) degrades to the offline selector, and every selection says why.
    """
    environ = os.environ if env is None else env
    chosen = kind if kind is not None else config.setting("selector")
    if chosen not in SELECTOR_KINDS:
        raise ConfigError(
            f"selector {chosen!r} is not one of {', '.join(SELECTOR_KINDS)} "
            "(option --selector or settings key memdir.selector)",
            rule="settings",
        )
    if chosen in OFFLINE_SELECTORS:
        from memdir.store.index_db import MemoryIndex

        cache = MemoryIndex(config.memory_dir, env={"CLAUDE_CONFIG_DIR": config.config_home})
        return offline_selector(chosen, cache=cache, env=environ)
    offline = LexicalSelector()
    spec = resolve_model_spec(model_spec, env=environ, settings_value=config.setting("model"))
    if spec is None:
        if chosen == "llm":
            raise model_not_configured("the llm selector")
        return offline
    try:
        model = load_model(spec, env=environ)
    except ModelError as exc:
        if chosen == "llm":
            raise
        log.warning("model %s cannot be used for recall, using the offline selector: %s", spec, exc.message)
        return _Explained(offline, f"model {spec!r} cannot be used ({exc.message}); the offline selector answered")
    return LLMSelector(model, offline, prefilter_threshold=_prefilter(config))
