"""Which parts of a memory the lexical ranker reads, and how much each counts.

A memory's name and description are what its author wrote to be found by; the body only counts
within its first lines. These tests pin the order description > name > body > nothing, which a
ranker that dropped a field (or weighted them all alike) would break.
"""

from __future__ import annotations

from memdir.model.memory_type import MemoryType
from memdir.recall.bm25 import FIELD_WEIGHTS, Params
from memdir.recall.lexical import LexicalIndex
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.selector_protocol import Query, SelectionRequest
from memdir.store.scan import MemoryHeader


def memory(file: str, *, name: str | None, description: str, body: str = "") -> MemoryHeader:
    return MemoryHeader(f"{file}.md", f"/m/{file}.md", 1.0, len(body), description, MemoryType.PROJECT, name, body)


# Filler memories so that the query's word is rare, as it is in a real store.
FILLER = [
    memory(f"other_{i}", name=f"Other topic {i}", description=f"Unrelated note number {i} about lunch", body="Tea.")
    for i in range(8)
]


def test_a_memory_found_only_by_its_name_is_recalled() -> None:
    target = memory("infra", name="Kubernetes upgrade plan", description="Steps agreed with the platform team")
    result = LexicalSelector().select(SelectionRequest("kubernetes", [*FILLER, target]))
    assert result.files == ("infra.md",)


def test_a_memory_without_a_name_is_found_by_its_file_name() -> None:
    target = memory("kubernetes_upgrade", name=None, description="Steps agreed with the platform team")
    result = LexicalSelector().select(SelectionRequest("kubernetes", [*FILLER, target]))
    assert result.files == ("kubernetes_upgrade.md",)


def test_a_word_counts_most_in_the_description_then_the_name_then_the_body() -> None:
    # Each memory holds the same three words, so their lengths are equal; only the field holding
    # "kubernetes" differs.
    in_description = memory("d", name="zebra", description="kubernetes", body="walrus")
    in_name = memory("n", name="kubernetes", description="zebra", body="walrus")
    in_body = memory("b", name="zebra", description="walrus", body="kubernetes")
    index = LexicalIndex()
    index.sync([*FILLER, in_description, in_name, in_body])
    scores = index.score(Query("kubernetes"))
    assert set(scores) == {"/m/d.md", "/m/n.md", "/m/b.md"}
    assert scores["/m/d.md"] > scores["/m/n.md"] > scores["/m/b.md"] > 0
    assert FIELD_WEIGHTS["description"] > FIELD_WEIGHTS["name"] > FIELD_WEIGHTS["body"]


def test_a_word_in_a_field_weighted_zero_does_not_match() -> None:
    index = LexicalIndex(params=Params(field_weights={**FIELD_WEIGHTS, "name": 0.0}))
    index.sync([*FILLER, memory("n", name="kubernetes", description="zebra")])
    assert index.score(Query("kubernetes")) == {}
    index = LexicalIndex(params=Params(field_weights={**FIELD_WEIGHTS, "body": 0.0}))
    index.sync([*FILLER, memory("b", name="zebra", description="walrus", body="kubernetes")])
    assert index.score(Query("kubernetes")) == {}
