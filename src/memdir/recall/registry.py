"""Selector kinds to selectors, through one table of constructors.

Like :mod:`memdir.llm.registry` for models, kinds are looked up, never branched on: adding a
selector is one new module and one line in :data:`_selectors` (or a :func:`register_selector`
call, or an entry point in the ``memdir.selectors`` group of another package), and every adapter
(CLI, MCP server, hooks, memory tool, Python API) offers it, because they all build their
selector here through the composition root.

A constructor receives :class:`SelectorInputs`: the values it may need, resolved once by the
caller. Caches are passed in, never discovered: the lexical ranking reads and keeps its analyses
in ``analyses`` and the embedding ranking its vectors in ``vectors`` (both the derived index of
the memory directory, when one is open), so one database has one index object.

The kinds:

- ``lexical``: BM25F over the headers; no model, no network, nothing to load.
- ``embedding``: cosine similarity of a local sentence encoder (the ``embed`` extra).
- ``hybrid``: the two fused (see :mod:`memdir.recall.hybrid`); an error without the extra.
- ``offline``: the best offline ranking installed: ``hybrid`` with the extra, else ``lexical``.
- ``llm``: a model picks from a manifest, falling back to ``lexical``; an error without a model.
- ``auto``: ``llm`` when a model is configured and can be built, else ``lexical``; every answer
  says why the model is not in use when one was configured but failed to load.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from memdir.errors import ConfigError, ModelError
from memdir.recall.lexical import AnalysisCache
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.selector_protocol import (
    Selection,
    SelectionRequest,
    Selector,
    StoreRequest,
    StoreSelection,
    StoreSelector,
)
from memdir.settings_table import DEFAULT_SETTINGS

if TYPE_CHECKING:
    from memdir.llm.base import ChatModel
    from memdir.recall.embedding import VectorCache

__all__ = [
    "ENTRY_POINT_GROUP",
    "OFFLINE_SELECTORS",
    "SelectorFactory",
    "SelectorInputs",
    "SelectorKind",
    "build_selector",
    "find_selector",
    "is_selector",
    "register_selector",
    "selector_kinds",
]


OFFLINE_SELECTORS = ("offline", "lexical", "embedding", "hybrid")


class SelectorInputs(NamedTuple):
    """The values a selector may be built from; the composition root resolves them once.

    ``model_spec`` is the spec chosen by ``--model``, ``MEMDIR_MODEL`` or ``memdir.model``;
    ``load_model`` turns it into a model (it is called only by the kinds that use one, so a
    process that ranks offline never imports an SDK). ``embed_model`` is a model directory for
    the embedding kinds (``MEMDIR_EMBED_MODEL``), None for the shipped one.
    """

    analyses: AnalysisCache | None = None
    vectors: VectorCache | None = None
    model_spec: str | None = None
    load_model: Callable[[str], ChatModel] | None = None
    prefilter: int | None = DEFAULT_SETTINGS.selector_prefilter
    embed_model: str | None = None
    model_timeout: float | None = None  # seconds; None: the model-backed selector's own default
    nested_types: bool = True  # the manifest tags types read from metadata: (Claude Code 2.1.330)


SelectorFactory = Callable[[SelectorInputs], Selector]


class _Explained:
    """An offline selector whose answers carry the reason the model-backed one is not in use."""

    def __init__(self, inner: Selector, note: str) -> None:
        self.inner = inner
        self.name = inner.name
        self.note = note

    def select(self, request: SelectionRequest) -> Selection:
        answer = self.inner.select(request)
        return Selection(files=answer.files, selector=answer.selector, notes=(*answer.notes, self.note))

    def select_store(self, request: StoreRequest) -> StoreSelection | None:
        if not isinstance(self.inner, StoreSelector):
            return None
        answer = self.inner.select_store(request)
        if answer is None:
            return None
        notes = (*answer.selection.notes, self.note)
        return StoreSelection(answer.selection._replace(notes=notes), answer.headers)


def _lexical(inputs: SelectorInputs) -> Selector:
    return LexicalSelector(cache=inputs.analyses)


def _embedding(inputs: SelectorInputs) -> Selector:
    from memdir.recall.embedding import EmbeddingRanker, load_encoder

    return EmbeddingRanker(load_encoder(inputs.embed_model), cache=inputs.vectors)


def _hybrid(inputs: SelectorInputs) -> Selector:
    from memdir.recall.embedding import EmbeddingRanker, load_encoder
    from memdir.recall.hybrid import HybridSelector

    ranker = EmbeddingRanker(load_encoder(inputs.embed_model), cache=inputs.vectors)
    return HybridSelector(lexical=LexicalSelector(cache=inputs.analyses), embedding=ranker)


def _offline(inputs: SelectorInputs) -> Selector:
    from memdir.recall.embedding import embedding_available

    if inputs.embed_model or embedding_available():
        return _hybrid(inputs)
    return _lexical(inputs)


def _model(inputs: SelectorInputs) -> ChatModel:
    from memdir.llm.registry import model_not_configured

    if inputs.model_spec is None or inputs.load_model is None:
        raise model_not_configured("the llm selector")
    return inputs.load_model(inputs.model_spec)


def _with_model(inputs: SelectorInputs, model: ChatModel) -> Selector:
    from memdir.recall.llm_selector import SELECTOR_TIMEOUT, LLMSelector

    timeout = SELECTOR_TIMEOUT if inputs.model_timeout is None else min(SELECTOR_TIMEOUT, inputs.model_timeout)
    fallback = LexicalSelector(cache=inputs.analyses)
    return LLMSelector(
        model, fallback, prefilter_threshold=inputs.prefilter, timeout=timeout, nested_types=inputs.nested_types
    )


def _llm(inputs: SelectorInputs) -> Selector:
    return _with_model(inputs, _model(inputs))


def _auto(inputs: SelectorInputs) -> Selector:
    if inputs.model_spec is None:
        return _lexical(inputs)
    try:
        model = _model(inputs)
    except ModelError as exc:
        spec = inputs.model_spec
        import logging  # only on this path: a hook that ranks offline never configures logging

        logging.getLogger("memdir.recall").warning(
            "model %s cannot be used for recall, using the offline selector: %s", spec, exc.message
        )
        note = f"model {spec!r} cannot be used ({exc.message}); the offline selector answered"
        return _Explained(_lexical(inputs), note)
    return _with_model(inputs, model)


class SelectorKind(NamedTuple):
    """One kind of selector: its constructor and what building it needs, so the composition root
    opens only that (a vector cache for the embedding kinds, the model for the model-backed ones)."""

    name: str
    build: SelectorFactory
    vectors: bool = False  # ranks by sentence vectors: gets a vector cache (a derived index) to keep them in
    model: bool = False  # may use the model (``llm`` needs one; ``auto`` uses one when it is configured)


_selectors: dict[str, SelectorKind] = {
    "auto": SelectorKind("auto", _auto, model=True),
    "llm": SelectorKind("llm", _llm, model=True),
    "offline": SelectorKind("offline", _offline, vectors=True),
    "lexical": SelectorKind("lexical", _lexical),
    "embedding": SelectorKind("embedding", _embedding, vectors=True),
    "hybrid": SelectorKind("hybrid", _hybrid, vectors=True),
}

ENTRY_POINT_GROUP = "memdir.selectors"
_plugins: dict[str, str] | None = None  # None until the entry points are read: kind -> why it cannot load


def register_selector(kind: str, factory: SelectorFactory, *, vectors: bool = False, model: bool = False) -> None:
    """Add or replace the constructor for a selector kind; ``vectors`` and ``model`` say what it needs."""
    if not kind or not kind.isidentifier():
        raise ConfigError(f"selector kind {kind!r} must be a non-empty identifier", rule="selector")
    _selectors[kind] = SelectorKind(kind, factory, vectors=vectors, model=model)


def _load_plugins() -> dict[str, str]:
    """Register the selectors other packages declare in the ``memdir.selectors`` entry-point group,
    once: the name is the kind, the object a :class:`SelectorKind` or a constructor. Read only when
    a kind is not known or the kinds are listed, so a hook that uses a built-in kind never scans
    the installed packages. A plugin that fails to load is kept with its reason, for the error of
    whoever asks for it."""
    global _plugins
    if _plugins is None:
        from importlib.metadata import entry_points

        _plugins = {}
        for point in entry_points(group=ENTRY_POINT_GROUP):
            if point.name in _selectors:
                continue  # registered in process already (or built in): that one wins
            try:
                found = point.load()
                if isinstance(found, SelectorKind):
                    register_selector(point.name, found.build, vectors=found.vectors, model=found.model)
                elif callable(found):
                    register_selector(point.name, found)
                else:
                    raise TypeError(f"{point.value} is neither a SelectorKind nor a constructor")
            except Exception as exc:  # noqa: BLE001 - a broken plugin must not take the other kinds down with it
                _plugins[point.name] = f"the plugin {point.value!r} cannot be loaded ({type(exc).__name__}: {exc})"
    return _plugins


def find_selector(kind: str) -> SelectorKind:
    """The record of ``kind``, looking through the installed plugins when it is not registered;
    the one check of a kind name, whoever gives it (an option, a setting, a caller)."""
    record = _selectors.get(kind)
    if record is None:
        broken = _load_plugins().get(kind)
        record = _selectors.get(kind)
        if record is None:
            if broken is not None:
                raise ConfigError(f"selector {kind!r}: {broken}", rule="selector")
            raise ConfigError(f"selector {kind!r} is not one of {', '.join(_selectors)}", rule="settings")
    return record


def is_selector(kind: str) -> bool:
    """Whether ``kind`` names a selector (built in, registered or installed as a plugin)."""
    if kind not in _selectors:
        _load_plugins()
    return kind in _selectors


def selector_kinds() -> tuple[str, ...]:
    """Every kind, in table order (``auto`` first, then plugins): what ``--selector`` and
    ``memdir.selector`` accept."""
    _load_plugins()
    return tuple(_selectors)


def build_selector(kind: str | SelectorKind, inputs: SelectorInputs | None = None) -> Selector:
    """The selector of ``kind`` (a name, or a record already found) built from ``inputs``
    (nothing by default: no caches, no model)."""
    record = find_selector(kind) if isinstance(kind, str) else kind
    return record.build(inputs or SelectorInputs())
