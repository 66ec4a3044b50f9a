"""The model-backed selector (SPEC §6.4): a model reads the manifest and names the relevant files.

It is only ever a refinement of the offline ranking, never a dependency: when the call fails,
times out or answers nonsense, the fallback selector answers instead and the selection says so.
Large stores are pre-filtered by the offline ranking first (SPEC Part A 3), so the manifest sent
to the model stays a few dozen lines however many memories there are.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from memdir.errors import ModelError, ModelOutputError
from memdir.llm.base import ChatModel, ChatRequest, Message
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.manifest import format_manifest
from memdir.recall.selector_protocol import (
    Selection,
    SelectionRequest,
    Selector,
    StoreRequest,
    StoreSelection,
    unexpired,
)
from memdir.settings_table import DEFAULT_SETTINGS
from memdir.store.scan import MemoryHeader
from memdir.templates import render_template

__all__ = [
    "MANIFEST_LIMIT",
    "SELECTOR_MAX_TOKENS",
    "SELECTOR_SCHEMA",
    "SELECTOR_TIMEOUT",
    "LLMSelector",
    "build_selector_request",
    "prefilter_candidates",
]

log = logging.getLogger("memdir.recall")

SELECTOR_MAX_TOKENS = 256
SELECTOR_TIMEOUT = 15.0
# Claude Code's manifest: the most memories a model is ever shown (it shows the newest 200).
MANIFEST_LIMIT = 200
SELECTOR_SCHEMA: Mapping[str, object] = {
    "type": "object",
    "properties": {"selected_memories": {"type": "array", "items": {"type": "string"}}},
    "required": ["selected_memories"],
    "additionalProperties": False,
}


def prefilter_candidates(
    query: str, candidates: Sequence[MemoryHeader], *, keep: int, ranker: LexicalSelector
) -> list[MemoryHeader]:
    """The ``keep`` candidates the offline ranking likes best, topped up with the newest others.

    Topping up matters for queries that share no word with any memory: the model may still see a
    connection the lexical ranking cannot, and recent memories are the likeliest to matter.
    """
    if len(candidates) <= keep:
        return list(candidates)
    chosen = [header for header, _score in ranker.rank(query, candidates)[:keep]]
    if len(chosen) < keep:
        taken = {header.path for header in chosen}
        newest = sorted(candidates, key=lambda h: (-h.mtime_ms, h.filename))
        chosen.extend([h for h in newest if h.path not in taken][: keep - len(chosen)])
    return chosen


def build_selector_request(
    query: str,
    manifest_headers: Sequence[MemoryHeader],
    *,
    recent_tools: Sequence[str] = (),
    limit: int = 5,
    timeout: float = SELECTOR_TIMEOUT,
    nested_types: bool = True,
) -> ChatRequest:
    """The one model call of a selection: the prompt, the manifest and the JSON schema of the answer."""
    manifest = format_manifest(manifest_headers, nested_types=nested_types)
    text = f"Query: {query}\n\nAvailable memories:\n{manifest}"
    if recent_tools:
        text += f"\n\nRecently used tools: {', '.join(recent_tools)}"
    return ChatRequest(
        system=render_template("select_memories", limit=str(limit)),
        messages=(Message(role="user", text=text),),
        json_schema=SELECTOR_SCHEMA,
        schema_name="select_memories",
        max_tokens=SELECTOR_MAX_TOKENS,
        timeout=timeout,
    )


def _chosen_files(answer: object) -> list[str]:
    if not isinstance(answer, Mapping) or not isinstance(answer.get("selected_memories"), list):
        raise ModelOutputError(
            'the selector answer must be {"selected_memories": [file names]}', rule="model-output-schema"
        )
    return [name for name in answer["selected_memories"] if isinstance(name, str)]


class LLMSelector:
    """Ask ``model`` which candidates matter; ``fallback`` answers whenever the model cannot."""

    name = "llm"

    def __init__(
        self,
        model: ChatModel,
        fallback: Selector | None = None,
        *,
        prefilter_threshold: int | None = DEFAULT_SETTINGS.selector_prefilter,
        timeout: float = SELECTOR_TIMEOUT,
        nested_types: bool = True,
    ) -> None:
        self.model = model
        self.nested_types = nested_types
        self.fallback: Selector = fallback if fallback is not None else LexicalSelector()
        self.prefilter_threshold = prefilter_threshold
        self.timeout = timeout
        self._ranker = self.fallback if isinstance(self.fallback, LexicalSelector) else LexicalSelector()

    @property
    def manifest_size(self) -> int:
        """How many memories the model sees at most: the pre-filter's size, never more than Claude
        Code's manifest of :data:`MANIFEST_LIMIT`."""
        threshold = self.prefilter_threshold
        return MANIFEST_LIMIT if threshold is None else min(threshold, MANIFEST_LIMIT)

    def manifest_headers(self, request: SelectionRequest) -> list[MemoryHeader]:
        """The candidates the model will see: all of them, or the pre-filtered few for a large store."""
        keep = self.manifest_size
        if len(request.candidates) <= keep:
            return list(request.candidates)
        return prefilter_candidates(request.query, request.candidates, keep=keep, ranker=self._ranker)

    def select(self, request: SelectionRequest) -> Selection:
        if not request.candidates:
            return Selection(files=(), selector=self.name)
        shown = self.manifest_headers(request)
        return self._ask(request.query, shown, request.recent_tools, request.limit, len(request.candidates), request)

    def select_store(self, request: StoreRequest) -> StoreSelection | None:
        """Over the whole store kept in the derived index: the manifest is the offline ranking's best
        :attr:`manifest_size` memories of the whole store (topped up with the newest when fewer match),
        where Claude Code shows the newest 200."""
        keep = self.manifest_size
        ranked = self._ranker.rank_store(
            request.query, request.store, limit=keep, exclude=request.exclude, budget=request.budget
        )
        if ranked is None:
            return None
        shown = [header for header, _ in unexpired(ranked, request.now_s)]
        if len(shown) < keep:
            taken = {header.path for header in shown} | request.exclude
            newest = request.store.newest(keep + len(taken))
            fresh = unexpired([(header, 0.0) for header in newest if header.path not in taken], request.now_s)
            shown.extend([header for header, _ in fresh][: keep - len(shown)])
        # Shown newest first, as Claude Code orders its manifest: a store of 200 or fewer memories
        # then gives the model the very manifest Claude Code would.
        shown.sort(key=lambda h: (-h.mtime_ms, h.filename))
        total = int(request.store.count()) - len(request.exclude)
        if not shown:
            return StoreSelection(Selection(files=(), selector=self.name), {})
        headers = {header.filename: header for header in shown}
        fallback = SelectionRequest(request.query, shown, request.recent_tools, request.limit)
        answer = self._ask(request.query, shown, request.recent_tools, request.limit, total, fallback)
        return StoreSelection(answer, headers)

    def _ask(
        self,
        query: str,
        shown: Sequence[MemoryHeader],
        recent_tools: Sequence[str],
        limit: int,
        total: int,
        fallback: SelectionRequest,
    ) -> Selection:
        """One model call over the manifest ``shown`` (of ``total`` candidates); the fallback selector
        answers ``fallback`` when the model cannot."""
        chat = build_selector_request(
            query,
            shown,
            recent_tools=recent_tools,
            limit=limit,
            timeout=self.timeout,
            nested_types=self.nested_types,
        )
        try:
            completion = self.model.complete(chat)
            wanted = _chosen_files(completion.json)
        except ModelError as exc:
            log.warning("llm selector (%s) failed, using %s: %s", self.model.spec, self.fallback.name, exc.message)
            answer = self.fallback.select(fallback)
            note = (
                f"the llm selector ({self.model.spec}) failed [{exc.rule}]: {exc.message}; "
                f"the {answer.selector} selector answered instead"
            )
            return Selection(files=answer.files, selector=answer.selector, notes=(*answer.notes, note))
        allowed = {header.filename for header in shown}
        files = [name for name in dict.fromkeys(wanted) if name in allowed]
        notes: tuple[str, ...] = ()
        dropped = [name for name in dict.fromkeys(wanted) if name not in allowed]
        if dropped:
            notes = (f"ignored {len(dropped)} file name(s) the model invented: {', '.join(dropped[:5])}",)
        if len(shown) < total:
            notes = (*notes, f"pre-filtered {total} candidates to {len(shown)}")
        return Selection(files=tuple(files[:limit]), selector=self.name, notes=notes)
