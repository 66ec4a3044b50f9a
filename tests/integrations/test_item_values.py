"""A store item as a memory file and back: every JSON value and every key comes back as it went in."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.errors import UnsafePathError
from memdir.integrations.frameworks.item_keys import alias, file_for_key, is_uuid, key_for_file
from memdir.integrations.frameworks.item_values import memory_from_value, value_from_memory
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3), max_leaves=6
)
memory_values = st.fixed_dictionaries(
    {"content": st.text() | json_values},
    optional={
        "name": st.text(),
        "description": st.text(),
        "type": st.sampled_from(["user", "feedback", "project", "reference", "User", "opinion", ""]),
        "tags": json_values,
        "created": st.text(),
    },
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.dictionaries(st.text(), json_values, max_size=4), memory_values), st.text(min_size=1))
def test_a_value_put_reads_back_the_same_from_the_file_written(value, key):
    try:
        file = file_for_key(key)
    except UnsafePathError:
        return  # the index's own name
    memory = memory_from_value(key, value, default_type=MemoryType.USER, now="2026-01-01T00:00:00.000Z")
    written = Memory.parse(memory.render())
    assert value_from_memory(written) == value
    assert key_for_file(file, written.extra.get("key")) == key
    assert written.name and written.description and "\n" not in written.description


@given(st.text(min_size=1), st.text(min_size=1))
def test_two_keys_never_share_a_file_and_none_leaves_the_directory(one, other):
    try:
        first, second = file_for_key(one), file_for_key(other)
    except UnsafePathError:
        return
    assert "/" not in first and "\\" not in first and not first.startswith(".") and first.endswith(".md")
    if one != other:
        assert first != second


def test_the_index_is_no_keys_file():
    for key in ("MEMORY", "memory", "Memory"):
        with pytest.raises(UnsafePathError, match="index"):
            file_for_key(key)


def test_a_memory_shows_one_stable_uuid():
    assert alias("feedback_testing.md") == alias("feedback_testing.md") != alias("other.md")
    assert is_uuid(alias("feedback_testing.md"))
    assert alias("sub/3f2a9c1e-0b4d-4c57-9a0e-8d1f2b3c4d5e.md") == "3f2a9c1e-0b4d-4c57-9a0e-8d1f2b3c4d5e"
