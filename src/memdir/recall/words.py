"""The words of a memory's description, tokenised once per file state (the learned ordering reads them)."""

from __future__ import annotations

from memdir.model.analysis import tokenize
from memdir.store.scan import MemoryHeader

__all__ = ["subject_terms"]

_CACHE_LIMIT = 4096
_terms: dict[tuple[str, str, float, int], frozenset[str]] = {}


def subject_terms(header: MemoryHeader) -> frozenset[str]:
    """The words of a memory's description (its name when it has none): the line written to say
    what a memory is about (the learned ordering's "described" feature)."""
    return _cached_words("subject", header, header.description or header.name or "")


def _cached_words(kind: str, header: MemoryHeader, text: str) -> frozenset[str]:
    """Tokenised once per file state: a long-lived process ranks the same memories again and again."""
    key = (kind, header.path, header.mtime_ms, header.size)
    found = _terms.get(key)
    if found is None:
        found = frozenset(tokenize(text))
        if len(_terms) >= _CACHE_LIMIT:
            _terms.clear()
        _terms[key] = found
    return found
