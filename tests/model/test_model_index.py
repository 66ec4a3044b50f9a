from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from memdir.errors import MemoryFormatError
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.index import (
    MAX_ENTRY_CHARS,
    MAX_ENTRYPOINT_BYTES,
    MAX_ENTRYPOINT_LINES,
    IndexEntry,
    format_file_size,
    parse_entries,
    remove_entries,
    remove_entry,
    rename_entry,
    truncate_entrypoint_content,
    upsert_entries,
    upsert_entry,
)
from memdir.model.text import utf16_len

TAIL = " Only part of it was loaded. Keep index entries to one line under ~200 chars; move detail into topic files."


def _warning(reason: str) -> str:
    return f"\n\n> WARNING: MEMORY.md is {reason}.{TAIL}"


def test_constants_match_claude_code() -> None:
    assert (ENTRYPOINT_NAME, MAX_ENTRYPOINT_LINES, MAX_ENTRYPOINT_BYTES, MAX_ENTRY_CHARS) == (
        "MEMORY.md",
        200,
        25_000,
        150,
    )


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 bytes"),
        (1023, "1023 bytes"),
        (1024, "1KB"),
        (1536, "1.5KB"),
        (25000, "24.4KB"),
        (30000, "29.3KB"),
        (1048576, "1MB"),
        (31879, "31.1KB"),
        (51079, "49.9KB"),
        (1024 * 1024 * 1024, "1GB"),
        (1126, "1.1KB"),
        (1075, "1KB"),
    ],
)
def test_format_file_size(size: int, text: str) -> None:
    assert format_file_size(size) == text


def test_to_fixed_rounds_the_binary_value_half_up() -> None:
    assert format_file_size(1280) == "1.3KB"  # 1.25 is an exact tie: JS rounds up, Python's round() does not
    assert format_file_size(1126) == "1.1KB"


def test_short_index_is_only_trimmed() -> None:
    result = truncate_entrypoint_content("\n\n- [A](a.md) — hook\n\n")
    assert result.content == "- [A](a.md) — hook"
    assert (result.line_count, result.byte_count, result.was_truncated) == (1, 18, False)


def test_250_lines_are_cut_to_200_with_the_line_warning() -> None:
    raw = "\n".join(f"- [T{i}](t{i}.md) — hook {i}" for i in range(250))
    result = truncate_entrypoint_content(raw)
    assert (result.line_count, result.byte_count) == (250, 6919)
    assert result.was_line_truncated and not result.was_byte_truncated
    lines = result.content.split("\n")
    assert len(lines) == 202
    assert lines[:200] == raw.split("\n")[:200]
    assert lines[200] == ""
    assert lines[201] == (
        "> WARNING: MEMORY.md is 250 lines (limit: 200). Only part of it was loaded. Keep index entries"
        " to one line under ~200 chars; move detail into topic files."
    )


def test_100_long_lines_hit_only_the_byte_limit() -> None:
    raw = "\n".join(f"- [T{i}](t{i}.md) — " + "x" * 300 for i in range(100))
    assert utf16_len(raw) == 31879
    result = truncate_entrypoint_content(raw)
    assert result.was_byte_truncated and not result.was_line_truncated
    assert result.content.endswith(_warning("31.1KB (limit: 24.4KB) — index entries are too long"))
    assert len(result.content) == 25046
    kept = result.content.removesuffix(_warning("31.1KB (limit: 24.4KB) — index entries are too long"))
    assert raw.startswith(kept) and raw[len(kept)] == "\n"


def test_300_lines_hit_both_limits() -> None:
    raw = "\n".join(f"- [T{i}](t{i}.md) — " + "x" * 150 for i in range(300))
    result = truncate_entrypoint_content(raw)
    assert (result.line_count, result.byte_count) == (300, 51079)
    assert result.was_line_truncated and result.was_byte_truncated
    warning = _warning("300 lines and 49.9KB")
    assert result.content.endswith(warning)
    kept = result.content.removesuffix(warning)
    first_200 = "\n".join(raw.split("\n")[:200])
    assert kept == first_200[: first_200.rfind("\n", 0, 25001)]


def test_single_long_line_is_cut_hard() -> None:
    raw = "y" * 30000
    result = truncate_entrypoint_content(raw)
    assert result.content == "y" * 25000 + _warning("29.3KB (limit: 24.4KB) — index entries are too long")
    assert (result.line_count, result.byte_count) == (1, 30000)


def test_byte_limit_counts_utf16_units() -> None:
    raw = "😀" * 12_600  # 25,200 UTF-16 units but only 12,600 code points
    result = truncate_entrypoint_content(raw)
    assert result.byte_count == 25_200 and result.was_byte_truncated
    assert result.content.startswith("😀" * 12_500 + "\n\n> WARNING")


def test_entry_renders_with_em_dash() -> None:
    assert IndexEntry("Testing policy", "feedback_testing.md", "real DB only").render() == (
        "- [Testing policy](feedback_testing.md) — real DB only"
    )
    assert IndexEntry("T", "t.md", "").render() == "- [T](t.md)"


def test_long_hook_is_shortened_with_ellipsis() -> None:
    line = IndexEntry("Title", "file.md", "word " * 60).render()
    assert utf16_len(line) <= MAX_ENTRY_CHARS
    assert line.endswith("…")
    assert parse_entries(line)[0][1].file == "file.md"


def test_long_title_is_shortened_when_the_link_alone_is_too_long() -> None:
    line = IndexEntry("T" * 300, "file.md", "hook").render()
    assert utf16_len(line) <= MAX_ENTRY_CHARS
    assert parse_entries(line)[0][1].file == "file.md"


def test_brackets_parens_and_spaces_stay_parseable() -> None:
    entry = IndexEntry("a [b] \\ c]", "dir (1)/my file).md", "h")
    assert parse_entries(entry.render()) == [(1, entry)]
    entry = IndexEntry("t", "odd(name).md", "h")
    assert parse_entries(entry.render()) == [(1, entry)]


def test_file_with_control_characters_is_refused() -> None:
    with pytest.raises(MemoryFormatError):
        IndexEntry("t", "a\nb.md", "h")


def test_parse_entries_accepts_hand_edited_variants() -> None:
    text = (
        "# Memory\n"
        "\n"
        "- [A](a.md) — hook a\n"
        "* [B](b.md) - hook b\n"
        "- [C](c.md)\n"
        "+ [D](./d.md): hook d\n"
        "- [E](<e file.md>) – hook e\n"
        "Some prose with [a link](x.md).\n"
        "```\n"
        "- [Code](code.md) — inside a fence\n"
        "```\n"
    )
    assert parse_entries(text) == [
        (3, IndexEntry("A", "a.md", "hook a")),
        (4, IndexEntry("B", "b.md", "hook b")),
        (5, IndexEntry("C", "c.md", "")),
        (6, IndexEntry("D", "./d.md", "hook d")),
        (7, IndexEntry("E", "e file.md", "hook e")),
    ]


def test_upsert_replaces_the_first_link_and_drops_duplicates() -> None:
    text = "# Memory\n- [Old](a.md) — old\n- [B](b.md) — b\n- [Dup](./a.md) — dup\n"
    result = upsert_entry(text, IndexEntry("New", "a.md", "new"))
    assert result == "# Memory\n- [New](a.md) — new\n- [B](b.md) — b\n"


def test_upsert_appends_after_the_last_entry() -> None:
    text = "# Memory\n- [A](a.md) — a\n\n## Notes\nprose\n\n\n"
    result = upsert_entry(text, IndexEntry("C", "c.md", "c"))
    assert result == "# Memory\n- [A](a.md) — a\n- [C](c.md) — c\n\n## Notes\nprose\n"


def test_upsert_keeps_new_entries_out_of_an_unclosed_fence() -> None:
    assert upsert_entry("# M\n```\ncode\n", IndexEntry("A", "a.md", "")) == "# M\n- [A](a.md)\n```\ncode\n"


def test_upsert_into_empty_index() -> None:
    assert upsert_entry("", IndexEntry("A", "a.md", "a")) == "- [A](a.md) — a\n"


def test_upsert_keeps_crlf_lines() -> None:
    text = "# Memory\r\n- [A](a.md) — a\r\n"
    expected = "# Memory\r\n- [A](a.md) — a\r\n- [B](b.md) — b\r\n"
    assert upsert_entry(text, IndexEntry("B", "b.md", "b")) == expected


def test_remove_entry_drops_every_link_to_the_file() -> None:
    text = "# Memory\n- [A](a.md) — a\n- [B](b.md)\n* [A again](a.md)\n"
    assert remove_entry(text, "a.md") == "# Memory\n- [B](b.md)\n"


def test_remove_entry_without_a_match_changes_nothing() -> None:
    text = "# Memory\n\n- [B](b.md)\n\n\n"
    assert remove_entry(text, "a.md") == text


def test_rename_entry_keeps_title_hook_and_spacing() -> None:
    text = "# M\n*  [A](a.md)  -  keep this\n- [B](b.md)\n"
    expected = "# M\n*  [A](<new name.md>)  -  keep this\n- [B](b.md)\n"
    assert rename_entry(text, "a.md", "new name.md") == expected
    assert rename_entry(text, "zzz.md", "y.md") == text


line_text = st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=40)
other_lines = st.lists(
    st.one_of(
        line_text,
        st.sampled_from(["# Memory", "", "- [X](x.md) — x", "* [Y](y.md)", "```", "- [Z](z.md"]),
    ),
    max_size=12,
)
single_line = st.text(alphabet=st.characters(blacklist_characters="\n\r"), max_size=60)
file_chars = st.characters(min_codepoint=0x20, blacklist_characters="\x7f")
file_names = st.text(alphabet=file_chars, min_size=1).filter(lambda f: not f.startswith("./"))
entries = st.builds(IndexEntry, title=single_line, file=file_names, hook=single_line)


def _links_to(line: str, file: str) -> bool:
    return any(entry.file.removeprefix("./") == file for _, entry in parse_entries(line))


@given(entries)
def test_rendered_entry_parses_back_to_its_file(entry: IndexEntry) -> None:
    line = entry.render()
    assert "\n" not in line
    ((_, parsed),) = parse_entries(line)
    assert parsed.file == entry.file


@given(
    st.text(alphabet=st.characters(blacklist_characters="\n\r"), max_size=20),
    st.text(alphabet=file_chars, min_size=1, max_size=20).filter(lambda f: not f.startswith("./")),
    st.text(alphabet=st.characters(blacklist_characters="\n\r"), max_size=20),
)
def test_short_entry_round_trips_exactly(title: str, file: str, hook: str) -> None:
    entry = IndexEntry(title, file, hook.strip())
    assert parse_entries(entry.render()) == [(1, entry)]


@given(other_lines, entries)
def test_upsert_is_idempotent(lines: list[str], entry: IndexEntry) -> None:
    text = "\n".join(lines)
    once = upsert_entry(text, entry)
    assert upsert_entry(once, entry) == once
    assert once.endswith("\n") and not once.endswith("\n\n")
    assert sum(1 for _, e in parse_entries(once) if e.file == entry.file) == 1


@given(other_lines, entries)
def test_upsert_then_remove_leaves_the_other_lines(lines: list[str], entry: IndexEntry) -> None:
    assume(not any(_links_to(line, entry.file) for line in lines))
    text = "\n".join(lines) + "\n"
    after = remove_entry(upsert_entry(text, entry), entry.file)
    expected = list(lines)
    while expected and not expected[-1].strip("\r"):
        expected.pop()
    assert after == ("\n".join(expected) + "\n" if expected else "")


@given(other_lines, entries)
def test_upsert_keeps_every_other_line_in_order(lines: list[str], entry: IndexEntry) -> None:
    text = "\n".join(lines)
    result = upsert_entry(text, entry).split("\n")[:-1]
    assert [line for line in result if not _links_to(line, entry.file)] == [
        line for line in _trimmed(lines) if not _links_to(line, entry.file)
    ]


def _trimmed(lines: list[str]) -> list[str]:
    out = list(lines)
    while out and not out[-1].strip("\r"):
        out.pop()
    return out


linking_lines = st.lists(
    st.one_of(
        line_text,
        entries.map(IndexEntry.render),
        st.builds(lambda e: f"* [{e.title}](./{e.file}) - {e.hook}", entries),
        st.sampled_from(["# Memory", "", "```", "~~~", "   ```", "- [a\\]b](a\\(b.md)", "- [T](<a b.md>)"]),
    ),
    max_size=14,
)


@given(linking_lines, st.lists(entries, min_size=1, max_size=3), st.booleans())
def test_editing_a_few_entries_parses_only_the_lines_that_name_them_and_gets_the_same_text(
    lines: list[str], edited: list[IndexEntry], crlf: bool
) -> None:
    """The edit of a few entries skips lines that cannot link to them; every line is parsed when
    the files are many. Both give the same text."""
    from memdir.model import index

    text = ("\r\n" if crlf else "\n").join(lines)
    files = [entry.file for entry in edited]
    fast = (upsert_entries(text, edited), remove_entries(text, files))
    saved = index._FILTERED_FILES
    index._FILTERED_FILES = 0
    try:
        slow = (upsert_entries(text, edited), remove_entries(text, files))
    finally:
        index._FILTERED_FILES = saved
    assert fast == slow


@given(st.text())
def test_utf16_length_is_what_a_utf16_encoder_counts(text: str) -> None:
    assert utf16_len(text) == len(text.encode("utf-16-le", "surrogatepass")) // 2


def _scan_line_by_line(lines: list[str]) -> tuple[list[int], int | None]:
    """The plain reading of an index, line after line: entry lines outside code fences, and where a
    fence left open starts."""
    import re

    from memdir.model.index import _parse_line

    found: list[int] = []
    fence: str | None = None
    opened: int | None = None
    for number, line in enumerate(lines):
        match = re.match(r" {0,3}(```|~~~)", line)
        if match:
            if fence is None:
                fence, opened = match.group(1), number
            elif match.group(1) == fence:
                fence, opened = None, None
            continue
        if fence is None and _parse_line(line) is not None:
            found.append(number)
    return found, opened


@given(linking_lines)
def test_the_entries_and_the_place_of_a_new_one_are_those_of_a_line_by_line_reading(lines: list[str]) -> None:
    from memdir.model.index import _entry_position, _scan_lines

    found, opened = _scan_line_by_line(lines)
    scanned, open_fence = _scan_lines(lines)
    assert ([number for number, _ in scanned], open_fence) == (found, opened)
    expected = found[-1] + 1 if found else (len(lines) if opened is None else opened)
    assert _entry_position(lines) == expected
