"""A BERT-style sentence encoder in plain NumPy, for the ``embed`` extra.

Sentence-transformers models such as all-MiniLM-L6-v2 are small (6 layers, 384 wide), so a
forward pass in NumPy costs a millisecond or two per short text. Doing it here, rather than
through torch, keeps the ``embed`` extra to NumPy plus a package that ships the weights, and
means nothing is ever fetched from a model hub at run time.

A model directory holds ``config.json``, ``vocab.txt`` and ``model.safetensors`` (the layout
sentence-transformers saves); pooling is the mean over tokens, then L2 normalisation, which is
what all-MiniLM-L6-v2 and its relatives use.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import struct
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from memdir.errors import ConfigError

__all__ = ["BertEncoder", "WordPieceTokenizer", "load_safetensors"]

_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4"}


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ConfigError(
            "the embedding ranker needs NumPy: pip install 'memdir[embed]'", rule="missing-extra"
        ) from exc
    return numpy


def load_safetensors(path: str) -> dict[str, Any]:
    """Every tensor of a ``.safetensors`` file as a float32 (or integer) NumPy array, memory-mapped."""
    np = _numpy()
    with open(path, "rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(length))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + length)
    tensors: dict[str, Any] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info["dtype"])
        if dtype is None:
            raise ConfigError(f"{path}: tensor {name} has unsupported dtype {info['dtype']}", rule="model-format")
        start, end = info["data_offsets"]
        array = data[start:end].view(dtype).reshape(info["shape"])
        tensors[name.removeprefix("bert.")] = array.astype(np.float32) if dtype == "<f2" else array
    return tensors


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


class WordPieceTokenizer:
    """BERT's uncased tokenizer: clean, lowercase, strip accents, split punctuation, then WordPiece."""

    def __init__(self, vocab: Mapping[str, int], *, max_word_chars: int = 100) -> None:
        self.vocab = dict(vocab)
        self.max_word_chars = max_word_chars
        self.unk = self.vocab["[UNK]"]
        self.cls = self.vocab["[CLS]"]
        self.sep = self.vocab["[SEP]"]
        self._cache: dict[str, list[int]] = {}

    @classmethod
    def from_file(cls, path: str) -> WordPieceTokenizer:
        with open(path, encoding="utf-8") as handle:
            return cls({line.rstrip("\n"): i for i, line in enumerate(handle)})

    def _words(self, text: str) -> list[str]:
        out: list[str] = []
        for char in text:
            code = ord(char)
            if code == 0 or code == 0xFFFD or (unicodedata.category(char) in ("Cc", "Cf") and char not in "\t\n\r"):
                continue
            out.append(f" {char} " if _is_cjk(code) else (" " if char.isspace() else char))
        words: list[str] = []
        for chunk in "".join(out).lower().split():
            chunk = "".join(c for c in unicodedata.normalize("NFD", chunk) if unicodedata.category(c) != "Mn")
            start = 0
            for i, char in enumerate(chunk):
                if _is_punctuation(char):
                    if i > start:
                        words.append(chunk[start:i])
                    words.append(char)
                    start = i + 1
            if start < len(chunk):
                words.append(chunk[start:])
        return words

    def _pieces(self, word: str) -> list[int]:
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        if len(word) > self.max_word_chars:
            return [self.unk]
        ids: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                ids = [self.unk]
                break
            ids.append(found)
            start = end
        if len(self._cache) < 200_000:
            self._cache[word] = ids
        return ids

    def encode(self, text: str, *, max_length: int) -> list[int]:
        """Token ids with ``[CLS]`` and ``[SEP]``, cut to ``max_length``."""
        ids = [self.cls]
        for word in self._words(text):
            ids.extend(self._pieces(word))
            if len(ids) >= max_length - 1:
                break
        return [*ids[: max_length - 1], self.sep]


_INV_SQRT2 = 1.0 / math.sqrt(2.0)


def _erf(np: Any, x: Any) -> Any:
    """Abramowitz-Stegun 7.1.26 (error below 1.5e-7): NumPy has no erf, and exact GELU needs one."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


class BertEncoder:
    """Mean-pooled, normalised sentence embeddings from a BERT checkpoint in a directory."""

    def __init__(self, model_dir: str, *, max_length: int = 256) -> None:
        self.np = _numpy()
        self.model_dir = model_dir
        try:
            with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as handle:
                config = json.load(handle)
            self.tokenizer = WordPieceTokenizer.from_file(os.path.join(model_dir, "vocab.txt"))
            self.weights = load_safetensors(os.path.join(model_dir, "model.safetensors"))
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigError(
                f"{model_dir} is not a usable sentence-embedding model directory ({exc}); it needs config.json, "
                "vocab.txt and model.safetensors",
                rule="model-format",
                path=model_dir,
            ) from exc
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.hidden = int(config["hidden_size"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.max_length = min(max_length, int(config.get("max_position_embeddings", 512)))
        self.dimension = self.hidden
        w = self.weights
        # Weights transposed once into contiguous memory: a matmul against a strided memmap view
        # is several times slower than against a plain array.
        # Vectors (biases, norms) copied out of the memory map: NumPy carries the memmap subclass
        # through every operation on it, and its bookkeeping costs more than the arithmetic here.
        self._vectors = {name: self.np.array(array) for name, array in w.items() if array.ndim == 1}
        self._matrices = {
            name.removesuffix(".weight"): self.np.ascontiguousarray(array.T, dtype=self.np.float32)
            for name, array in w.items()
            if name.startswith("encoder.layer.") and name.endswith(".dense.weight")
        }
        # Fused Q/K/V weights: one matmul per layer instead of three.
        self._qkv = [
            (
                _concat(
                    self.np, [w[f"encoder.layer.{i}.attention.self.{p}.weight"].T for p in ("query", "key", "value")]
                ),
                _concat(self.np, [w[f"encoder.layer.{i}.attention.self.{p}.bias"] for p in ("query", "key", "value")]),
            )
            for i in range(self.layers)
        ]

    def _norm(self, x: Any, name: str) -> Any:
        np = self.np
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self._vectors[f"{name}.weight"] + self._vectors[f"{name}.bias"]

    def _dense(self, x: Any, name: str) -> Any:
        return x @ self._matrices[name] + self._vectors[f"{name}.bias"]

    def _forward(self, ids: Any, mask: Any) -> Any:
        np = self.np
        w = self.weights
        batch, length = ids.shape
        tokens = np.asarray(w["embeddings.word_embeddings.weight"][ids])
        x = tokens + w["embeddings.position_embeddings.weight"][:length]
        x = self._norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        size = self.hidden // self.heads
        # Python floats, not NumPy float64 scalars: those would promote every activation (and, through
        # it, every weight matrix in each matmul) to float64, doubling the memory traffic of a query.
        scale = 1.0 / math.sqrt(size)
        bias = (1.0 - mask[:, None, None, :]) * -1e9
        for i in range(self.layers):
            prefix = f"encoder.layer.{i}"
            weight, offset = self._qkv[i]
            qkv = (x @ weight + offset).reshape(batch, length, 3, self.heads, size).transpose(2, 0, 3, 1, 4)
            scores = qkv[0] @ qkv[1].transpose(0, 1, 3, 2) * scale + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ qkv[2]).transpose(0, 2, 1, 3).reshape(batch, length, self.hidden)
            x = self._norm(
                x + self._dense(context, f"{prefix}.attention.output.dense"), f"{prefix}.attention.output.LayerNorm"
            )
            inner = self._dense(x, f"{prefix}.intermediate.dense")
            inner = 0.5 * inner * (1.0 + _erf(np, inner * _INV_SQRT2))
            x = self._norm(x + self._dense(inner, f"{prefix}.output.dense"), f"{prefix}.output.LayerNorm")
        return x

    def encode(self, texts: Sequence[str], *, batch_size: int = 32) -> Any:
        """An (n, dimension) float32 array of unit vectors, one per text."""
        if len(texts) > 8:
            return self._encode(texts, batch_size)
        # A query is a few matrices of a dozen rows: BLAS threads cost more to wake than they save
        # (measured here: 35 ms with two threads, 16 ms with one).
        with _single_blas_thread():
            return self._encode(texts, batch_size)

    def _encode(self, texts: Sequence[str], batch_size: int) -> Any:
        np = self.np
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        encoded = [self.tokenizer.encode(text, max_length=self.max_length) for text in texts]
        # Similar lengths batched together waste little on padding.
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            length = max(len(encoded[i]) for i in chunk)
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.float32)
            for row, i in enumerate(chunk):
                ids[row, : len(encoded[i])] = encoded[i]
                mask[row, : len(encoded[i])] = 1.0
            hidden = self._forward(ids, mask)
            pooled = (hidden * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[chunk] = pooled.astype(np.float32)
        return out


def _single_blas_thread() -> contextlib.AbstractContextManager[object]:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")  # type: ignore[no-any-return]


def _concat(np: Any, arrays: Sequence[Any]) -> Any:
    return np.concatenate(arrays, axis=-1).astype(np.float32)
