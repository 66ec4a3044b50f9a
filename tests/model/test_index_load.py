"""What Claude Code loads of a MEMORY.md, the memories a cut hides, and the compaction that undoes it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memdir.model.index import MAX_ENTRY_CHARS, IndexEntry, index_overflow, parse_entries, truncate_entrypoint_content
from memdir.model.index_load import compact_index, index_load, truncation_message
from memdir.model.text import utf16_len


def entry(n: int, hook: str = "") -> str:
    return IndexEntry(f"Memory {n}", f"project_m{n}.md", hook or f"a short hook for memory {n}").render()


def index(count: int, *, hook: str = "", head: str = "") -> str:
    return head + "\n".join(entry(n, hook) for n in range(count)) + "\n"


def test_an_index_under_both_limits_loads_whole() -> None:
    load = index_load(index(120), skip_comments=False)
    assert not load.truncated and load.last_line is None and load.dropped == () and load.cause == ""
    assert load.line_count == 120


def test_an_index_of_too_many_lines_is_cut_after_line_200_and_names_the_entries_past_it() -> None:
    load = index_load(index(230), skip_comments=False)
    assert (load.by_lines, load.by_bytes, load.last_line) == (True, False, 200)
    assert [line for line, _ in load.dropped] == list(range(201, 231))
    assert [e.file for _, e in load.dropped][:2] == ["project_m200.md", "project_m201.md"]
    assert load.cause == "the 200-line limit"


def test_the_cut_is_counted_in_the_files_own_lines_after_claude_codes_trim() -> None:
    load = index_load(index(205, head="\n\n\n# Index\n\n"), skip_comments=False)
    assert load.last_line == 3 + 200  # the three leading blank lines are trimmed before counting
    assert load.dropped[0][0] == 204


def test_an_index_of_long_lines_is_cut_by_bytes_at_a_whole_line() -> None:
    text = index(190, hook="x" * 140)
    load = index_load(text, skip_comments=False)
    assert load.by_bytes and not load.by_lines and load.cause == "the 25,000-byte limit"
    lines = text.split("\n")
    assert utf16_len("\n".join(lines[: load.last_line])) <= 25_000 < utf16_len("\n".join(lines[: load.last_line + 1]))
    assert [line for line, _ in load.dropped] == list(range(load.last_line + 1, 191))


def test_from_2_1_211_frontmatter_and_comments_do_not_count_but_lines_keep_the_files_numbers() -> None:
    head = "---\ntitle: index\n---\n<!--\nkept for the team\n-->\n"
    text = index(205, head=head)
    assert index_load(text, skip_comments=False).last_line == 200
    load = index_load(text, skip_comments=True)
    assert load.last_line == 6 + 200 and [line for line, _ in load.dropped] == list(range(207, 212))


def test_one_huge_line_loads_no_whole_entry() -> None:
    load = index_load(f"- [Memory 1](project_m1.md) — {'y' * 30_000}", skip_comments=False)
    assert load.by_bytes and load.last_line == 0 and [e.file for _, e in load.dropped] == ["project_m1.md"]


LINES = st.one_of(
    st.integers(0, 999).map(entry),
    st.integers(0, 999).map(lambda n: entry(n, "z" * 150)),
    st.sampled_from(["", "# Notes", "Some prose about the project.", "  ", "<!-- a comment -->"]),
)


@given(st.lists(LINES, min_size=1, max_size=320), st.booleans())
def test_every_entry_is_either_loaded_whole_or_named_as_past_the_cut(lines: list[str], skip: bool) -> None:
    text = "\n".join(lines)
    load = index_load(text, skip_comments=skip)
    entries = parse_entries(text)
    if not load.truncated:
        assert load.dropped == ()
        return
    assert load.last_line is not None
    loaded = truncate_entrypoint_content(text).content
    dropped = {line for line, _ in load.dropped}
    assert dropped == {line for line, _ in entries if line > load.last_line}
    if not skip:
        for line, _ in entries:
            if line not in dropped:
                assert text.split("\n")[line - 1].strip() in loaded


def test_compaction_shortens_long_entry_lines_until_the_index_loads_whole() -> None:
    text = "# Index\n\nSome prose the user wrote.\n" + index(180, hook="why it matters " * 12)
    compacted = compact_index(text, skip_comments=False)
    assert not index_load(compacted, skip_comments=False).truncated
    assert [e.file for _, e in parse_entries(compacted)] == [e.file for _, e in parse_entries(text)]
    assert compacted.startswith("# Index\n\nSome prose the user wrote.\n")
    assert all(utf16_len(line) <= MAX_ENTRY_CHARS for line in compacted.split("\n"))


def test_compaction_drops_blank_lines_between_entries_and_keeps_every_other_line() -> None:
    spaced = "# Index\n\n" + "\n\n".join(entry(n) for n in range(150)) + "\n\n## Later\n\nA note.\n"
    compacted = compact_index(spaced, skip_comments=False)
    assert not index_load(compacted, skip_comments=False).truncated
    assert compacted == "# Index\n\n" + "\n".join(entry(n) for n in range(150)) + "\n\n## Later\n\nA note.\n"


def test_compaction_leaves_an_index_alone_when_nothing_is_cut_or_only_fewer_entries_would_help() -> None:
    whole = index(50, hook="w" * 140)
    assert compact_index(whole, skip_comments=False) == whole
    many = index(260)
    assert compact_index(many, skip_comments=False) == many


def test_the_truncation_message_names_the_limit_the_line_the_hidden_memories_and_the_fix() -> None:
    by_lines = truncation_message("MEMORY.md", index_load(index(207), skip_comments=False))
    assert "207 lines, over the 200-line limit" in by_lines and "only up to line 200" in by_lines
    assert "the 7 memories listed after it (project_m200.md, " in by_lines and "and 2 more" in by_lines
    assert "merge" in by_lines and "--fix" not in by_lines
    by_bytes = truncation_message("MEMORY.md", index_load(index(190, hook="x" * 140), skip_comments=False))
    assert "bytes, over the 25,000-byte limit" in by_bytes and "'memdir doctor --fix' compacts" in by_bytes


def test_a_refused_index_line_names_the_limit_it_would_pass() -> None:
    lines = index_overflow(index(201), skip_comments=False)
    assert lines is not None and "would be 201 lines, over the 200 lines Claude Code loads" in lines
    assert "bytes" not in lines and "each memory takes a line" in lines
    size = index_overflow(index(180, hook="x" * 140), skip_comments=False)
    assert size is not None and "bytes, over the 25,000 bytes Claude Code loads" in size
    assert "lines" not in size.split(";")[0]
    assert "'memdir doctor --fix' compacts" in size
