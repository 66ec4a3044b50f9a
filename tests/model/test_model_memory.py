from __future__ import annotations

import math
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.errors import MemoryFormatError
from memdir.model.frontmatter import decode_memory_bytes, normalize_newlines, parse_frontmatter
from memdir.model.memory import Memory
from memdir.model.memory_type import MEMORY_TYPES, FrontmatterLayout, MemoryType, parse_memory_type
from memdir.model.yaml12 import load_yaml12

TRICKY = [
    "---",
    "a---b",
    "x: y",
    "a # b",
    "#c",
    '"quoted"',
    "'single'",
    "back\\slash",
    "line\nbreak",
    "-dash",
    "?q",
    "*star",
    "&amp",
    "!bang",
    "yes",
    "no",
    "on",
    "null",
    "~",
    "true",
    "1.0",
    "0x1F",
    "0o17",
    "2026-01-01",
    "{x}",
    "[a, b]",
    " lead",
    "trail ",
    "tab\there",
    "é ünïcode 日本 🙂",
    "\u2028sep",
    "\x00nul",
    "...",
    "key:",
    "%percent",
    "@at",
    "`tick`",
    "|pipe",
    ">fold",
    "<<",
    "=",
    ".inf",
    "",
]

text_values = st.one_of(st.sampled_from(TRICKY), st.text(), st.text(alphabet="-:# \n'\"\\{}ab", max_size=30))


@pytest.mark.parametrize(
    ("text", "frontmatter", "content"),
    [
        (
            "---\nname: Testing policy\ndescription: Integration tests must hit a real DB\ntype: feedback\n---\n\nbody",
            {
                "name": "Testing policy",
                "description": "Integration tests must hit a real DB",
                "type": "feedback",
            },
            "body",
        ),
        (
            "---\ndescription: uses foo: bar and {x}\ntype: project\n---\nbody",
            {"description": "uses foo: bar and {x}", "type": "project"},
            "body",
        ),
        ("---\ndescription: yes\ntype: Feedback\n---\n", {"description": "yes", "type": "Feedback"}, ""),
        ("no frontmatter\n", {}, "no frontmatter\n"),
        ("---\ndescription: a---b\n---\nrest", {"description": "a"}, "b\n---\nrest"),
    ],
)
def test_parse_frontmatter_matches_the_reference_table(text: str, frontmatter: dict[str, object], content: str) -> None:
    assert parse_frontmatter(text) == (frontmatter, content)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("feedback", MemoryType.FEEDBACK), ("Feedback", None), ("note", None), (5, None), (None, None)],
)
def test_parse_memory_type_is_exact_and_case_sensitive(raw: object, expected: MemoryType | None) -> None:
    assert parse_memory_type(raw) == expected


def test_memory_types_are_the_closed_taxonomy_in_order() -> None:
    assert [t.value for t in MEMORY_TYPES] == ["user", "feedback", "project", "reference"]


def test_yaml_12_core_schema_keeps_yaml_11_booleans_and_dates_as_strings() -> None:
    data = load_yaml12(
        "a: yes\nb: off\nc: 2026-01-01\nd: true\ne: TRUE\nf: ~\ng: 0x1F\nh: 0o17\ni: 1.0\nj: 010\nk: 1_000"
    )
    assert data == {
        "a": "yes",
        "b": "off",
        "c": "2026-01-01",
        "d": True,
        "e": True,
        "f": None,
        "g": 31,
        "h": 15,
        "i": 1.0,
        "j": 10,
        "k": "1_000",
    }


def test_yaml_12_reads_special_floats() -> None:
    data = load_yaml12("a: .inf\nb: -.Inf\nc: .NaN\nd: 1e3")
    assert isinstance(data, dict)
    assert data["a"] == math.inf and data["b"] == -math.inf and math.isnan(data["c"]) and data["d"] == 1000.0


def test_quote_and_retry_rescues_a_value_with_braces() -> None:
    frontmatter, _ = parse_frontmatter("---\ndescription: see {x} and [y]\n---\n")
    assert frontmatter == {"description": "see {x} and [y]"}


def test_quote_and_retry_rescues_a_value_with_colon_space_and_escapes_quotes() -> None:
    frontmatter, content = parse_frontmatter('---\nname: a "b": c \\ d\ntype: user\n---\nbody')
    assert frontmatter == {"name": 'a "b": c \\ d', "type": "user"}
    assert content == "body"


def test_frontmatter_that_stays_malformed_after_retry_is_empty() -> None:
    assert parse_frontmatter("---\n  - : [\n---\nbody") == ({}, "body")


def test_frontmatter_that_is_not_a_mapping_is_empty() -> None:
    assert parse_frontmatter("---\n- a\n- b\n---\nbody") == ({}, "body")
    assert parse_frontmatter("---\njust text\n---\nbody") == ({}, "body")


def test_frontmatter_block_that_never_closes_is_no_frontmatter() -> None:
    text = "---\nname: x\ndescription: never closed\n"
    assert parse_frontmatter(text) == ({}, text)
    memory = Memory.parse(text)
    assert memory.name is None and memory.description is None


def test_duplicate_keys_keep_the_last_value() -> None:
    assert parse_frontmatter("---\ntype: user\ntype: project\n---\n")[0] == {"type": "project"}


def test_non_string_keys_become_their_js_string() -> None:
    assert parse_frontmatter("---\n2: a\ntrue: b\nnull: c\n---\n")[0] == {"2": "a", "true": "b", "null": "c"}


def test_memory_parse_reads_fields_and_empty_description_is_none() -> None:
    memory = Memory.parse("---\nname: n\ndescription: ''\ntype: user\ntags: [a]\n---\n\nbody\n")
    expected = Memory(name="n", description=None, type=MemoryType.USER, body="body", extra={"tags": ["a"]})
    assert memory == expected


def test_memory_parse_normalises_crlf_and_bom() -> None:
    memory = Memory.parse("\ufeff---\r\nname: n\r\ndescription: d\r\ntype: project\r\n---\r\n\r\nline1\r\nline2\r\n")
    assert (memory.name, memory.description, memory.type, memory.body) == (
        "n",
        "d",
        MemoryType.PROJECT,
        "line1\nline2",
    )


def test_unknown_type_is_kept_on_render() -> None:
    memory = Memory.parse("---\nname: n\ndescription: d\ntype: Feedback\n---\nbody")
    assert memory.type is None and memory.raw_type == "Feedback"
    assert "type: Feedback\n" in memory.render()
    assert "unknown-type" in {rule for rule, _ in memory.problems()}


def test_non_string_description_keeps_its_original_spelling_on_render() -> None:
    memory = Memory.parse("---\nname: n\ndescription: 42\ntype: user\n---\n")
    assert memory.description == "42"
    assert "description: 42\n" in memory.render()


def test_render_writes_the_canonical_layout() -> None:
    memory = Memory(
        name="Testing policy",
        description="Integration tests must hit a real DB",
        type=MemoryType.FEEDBACK,
        body="Use the real DB.\n**Why:** mocks hid a bug.\n\n\n",
    )
    assert memory.render() == (
        "---\nname: Testing policy\ndescription: Integration tests must hit a real DB\ntype: feedback\n"
        "---\n\nUse the real DB.\n**Why:** mocks hid a bug.\n"
    )


def test_render_without_body_ends_after_the_fence() -> None:
    assert Memory(name="n", description="d", type=MemoryType.USER, body="").render() == (
        "---\nname: n\ndescription: d\ntype: user\n---\n"
    )


def test_render_quotes_a_description_with_three_dashes_without_writing_them() -> None:
    rendered = Memory(name="n", description="a---b", type=None, body="x").render()
    frontmatter_block = rendered.split("\n---\n")[0]
    assert "---" not in frontmatter_block[3:]
    assert Memory.parse(rendered).description == "a---b"


def test_problems_lists_every_missing_field() -> None:
    rules = [rule for rule, _ in Memory(name=None, description=None, type=None, body="x").problems()]
    assert rules == ["missing-name", "missing-description", "missing-type"]


def test_problems_flags_multiline_and_long_descriptions() -> None:
    memory = Memory(name="n", description="a\n" + "b" * 250, type=MemoryType.USER, body="")
    assert [rule for rule, _ in memory.problems()] == ["multiline-description", "long-description"]


def test_a_complete_memory_has_no_problems() -> None:
    assert Memory(name="n", description="d", type=MemoryType.REFERENCE, body="").problems() == []


def test_normalize_newlines_strips_bom_and_converts_line_endings() -> None:
    assert normalize_newlines("\ufeffa\r\nb\rc\n") == "a\nb\nc\n"


def test_decode_memory_bytes_names_the_offset_of_a_bad_byte() -> None:
    with pytest.raises(MemoryFormatError) as info:
        decode_memory_bytes(b"abc\xffdef", path="m/x.md")
    assert info.value.rule == "encoding"
    assert "offset 3" in info.value.message and "m/x.md" in info.value.message


def test_decode_memory_bytes_refuses_binary() -> None:
    with pytest.raises(MemoryFormatError) as info:
        decode_memory_bytes(b"PK\x03\x04\x00\x00", path="m/x.md")
    assert info.value.rule == "binary"


def test_decode_memory_bytes_returns_utf8_text() -> None:
    assert decode_memory_bytes("héllo".encode(), path="x.md") == "héllo"


def _frontmatter_block(rendered: str) -> str:
    match = re.match(r"---\n([\s\S]*?)---\n", rendered)
    assert match is not None
    return match.group(1)


@settings(max_examples=300)
@given(
    name=text_values,
    description=text_values,
    memory_type=st.sampled_from([None, *MEMORY_TYPES]),
    body=st.one_of(st.text(), st.sampled_from(["---\nname: x\n---\nbody", "\n\n  indented", "a\r\nb"])),
)
def test_memory_round_trips_through_render_and_parse(
    name: str, description: str, memory_type: MemoryType | None, body: str
) -> None:
    memory = Memory(name=name, description=description, type=memory_type, body=body)
    rendered = memory.render()
    assert Memory.parse(rendered) == memory
    assert "---" not in _frontmatter_block(rendered)


scalars = st.one_of(
    text_values,
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
)
extra_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=10,
)


@settings(max_examples=300)
@given(extra=st.dictionaries(text_values, extra_values, max_size=5))
def test_extra_keys_round_trip(extra: dict[str, object]) -> None:
    extra = {k: v for k, v in extra.items() if k not in ("name", "description", "type")}
    memory = Memory(name="n", description="d", type=MemoryType.USER, body="b", extra=extra)
    rendered = memory.render()
    assert Memory.parse(rendered) == memory
    assert "---" not in _frontmatter_block(rendered)


@given(st.text())
def test_parse_never_raises(text: str) -> None:
    Memory.parse(text)
    Memory.parse("---\n" + text + "\n---\nbody")


def test_long_keys_are_written_as_explicit_keys() -> None:
    key = "k" * 1500
    memory = Memory(name="n", description="d", type=None, body="", extra={key: "v"})
    assert Memory.parse(memory.render()).extra == {key: "v"}


# A memory file as Claude Code 2.1.330 writes it: the type nested in a metadata block.
NESTED_FILE = """---
name: deploy-window
description: Deploys happen only in the Tuesday window
metadata:
  type: project
  node_type: memory
  originSessionId: 0b6c1e9e-5f1a-4c1e-9a52-3f2a9d1c7e11   # kept as written
  modified: 2026-11-20T10:00:00.000Z
  reviewers:
    - 'ana'
    - "bo"
---

Deploy only Tuesday 10:00-12:00 UTC.
"""


def test_the_nested_metadata_layout_is_read_with_its_type() -> None:
    memory = Memory.parse(NESTED_FILE)
    assert memory.type is MemoryType.PROJECT
    assert memory.layout is FrontmatterLayout.NESTED
    assert memory.modified == "2026-11-20T10:00:00.000Z"
    assert memory.problems() == []
    assert "type" not in memory.extra["metadata"]  # type: ignore[operator]


def test_an_untouched_nested_file_renders_back_byte_for_byte() -> None:
    assert Memory.parse(NESTED_FILE).render() == NESTED_FILE


def test_changing_the_type_rewrites_only_the_type_line_and_keeps_unknown_metadata_bytes() -> None:
    changed = replace(Memory.parse(NESTED_FILE), type=MemoryType.FEEDBACK).render()
    assert changed == NESTED_FILE.replace("  type: project", "  type: feedback")


def test_a_metadata_entry_that_changed_is_rewritten_and_the_others_kept() -> None:
    memory = Memory.parse(NESTED_FILE).written_for(FrontmatterLayout.NESTED, modified="2026-11-24T08:00:00.000Z")
    text = memory.render()
    assert "  originSessionId: 0b6c1e9e-5f1a-4c1e-9a52-3f2a9d1c7e11   # kept as written\n" in text
    assert "    - 'ana'\n    - \"bo\"\n" in text
    assert Memory.parse(text).modified == "2026-11-24T08:00:00.000Z"


def test_a_flat_memory_written_for_the_nested_layout_moves_its_type_into_metadata() -> None:
    flat = Memory(name="Role", description="Backend lead", type=MemoryType.USER, body="Leads payments.")
    nested = flat.written_for(FrontmatterLayout.NESTED, modified="2026-11-24T08:00:00.000Z")
    text = nested.render()
    assert text == (
        "---\nname: Role\ndescription: Backend lead\nmetadata:\n  node_type: memory\n  type: user\n"
        '  modified: "2026-11-24T08:00:00.000Z"\n---\n\nLeads payments.\n'
    )
    assert Memory.parse(text).type is MemoryType.USER


def test_a_nested_memory_written_for_the_flat_layout_keeps_its_metadata_and_types_at_the_top() -> None:
    text = Memory.parse(NESTED_FILE).written_for(FrontmatterLayout.FLAT).render()
    parsed = Memory.parse(text)
    assert parsed.layout is FrontmatterLayout.FLAT and parsed.type is MemoryType.PROJECT
    assert "\ntype: project\n" in text and "  type:" not in text
    assert "  originSessionId: 0b6c1e9e-5f1a-4c1e-9a52-3f2a9d1c7e11   # kept as written\n" in text


def test_a_top_level_type_wins_over_a_nested_one() -> None:
    memory = Memory.parse("---\nname: a\ndescription: b\ntype: user\nmetadata:\n  type: project\n---\nx\n")
    assert memory.type is MemoryType.USER and memory.layout is FrontmatterLayout.FLAT


def test_an_unknown_nested_type_is_reported_and_kept() -> None:
    text = "---\nname: a\ndescription: b\nmetadata:\n  type: opinion\n  node_type: memory\n---\n\nx\n"
    memory = Memory.parse(text)
    assert memory.type is None and memory.raw_type == "opinion"
    assert [rule for rule, _ in memory.problems()] == ["unknown-type"]
    assert memory.render() == text


@settings(max_examples=200)
@given(
    memory_type=st.sampled_from([None, *MEMORY_TYPES]),
    metadata=st.dictionaries(text_values.filter(lambda key: key != "type"), extra_values, max_size=4),
    modified=st.one_of(st.none(), text_values),
)
def test_nested_memories_round_trip(
    memory_type: MemoryType | None, metadata: dict[str, object], modified: str | None
) -> None:
    memory = Memory(name="n", description="d", type=memory_type, body="b", extra={"metadata": metadata})
    nested = memory.written_for(FrontmatterLayout.NESTED, modified=modified)
    parsed = Memory.parse(nested.render())
    assert parsed.type == memory_type
    assert parsed.extra == nested.extra
    assert Memory.parse(parsed.render()).extra == nested.extra
