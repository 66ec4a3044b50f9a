from datetime import UTC, datetime

import pytest

from memdir.recall.surfacing import (
    memory_age,
    memory_age_days,
    memory_freshness_note,
    memory_header,
    read_file_in_range,
    read_memory_for_surfacing,
    render_reminder,
)

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC).timestamp() * 1000
HOUR = 3_600_000
STALE = (
    "This memory is {d} days old. Memories are point-in-time observations, not live state — claims about "
    "code behavior or file:line citations may be outdated. Verify against current code before asserting as fact."
)


@pytest.mark.parametrize("offset_hours", [0, 23 + 59 / 60, -1])
def test_memories_from_the_last_24_hours_and_the_future_are_saved_today(offset_hours):
    mtime = NOW - offset_hours * HOUR
    assert memory_age_days(mtime, NOW) == 0
    assert memory_header("/m/x.md", mtime, NOW) == "Memory (saved today): /m/x.md:"


@pytest.mark.parametrize("offset_hours", [24, 47])
def test_memories_one_day_old_are_saved_yesterday(offset_hours):
    mtime = NOW - offset_hours * HOUR
    assert memory_age_days(mtime, NOW) == 1
    assert memory_header("/m/x.md", mtime, NOW) == "Memory (saved yesterday): /m/x.md:"


def test_memories_two_days_old_carry_the_freshness_warning():
    mtime = NOW - 48 * HOUR
    assert memory_header("/m/x.md", mtime, NOW) == STALE.format(d=2) + "\n\nMemory: /m/x.md:"


def test_a_47_day_old_memory():
    mtime = NOW - 47 * 24 * HOUR
    assert memory_age(mtime, NOW) == "47 days ago"
    assert memory_header("/m/x.md", mtime, NOW) == STALE.format(d=47) + "\n\nMemory: /m/x.md:"
    assert memory_freshness_note(mtime, NOW) == f"<system-reminder>{STALE.format(d=47)}</system-reminder>\n"
    assert memory_freshness_note(NOW, NOW) == ""


def test_a_200_line_file_ending_in_a_newline_counts_as_truncated(tmp_path):
    path = tmp_path / "m.md"
    path.write_text("".join(f"l{i}\n" for i in range(200)), encoding="utf-8")
    piece = read_file_in_range(str(path))
    assert piece.line_count == 200 and piece.truncated and not piece.truncated_by_bytes
    surfaced = read_memory_for_surfacing(str(path), file="m.md", mtime_ms=NOW, now_ms=NOW)
    assert surfaced is not None
    assert surfaced.content.endswith(
        "\n\n> This memory file was truncated (first 200 lines). "
        f"Use the Read tool to view the complete file at: {path}"
    )
    assert surfaced.limit == 200


def test_a_200_line_file_without_final_newline_is_whole(tmp_path):
    path = tmp_path / "m.md"
    path.write_text("\n".join(f"l{i}" for i in range(200)), encoding="utf-8")
    piece = read_file_in_range(str(path))
    assert not piece.truncated
    surfaced = read_memory_for_surfacing(str(path), file="m.md", mtime_ms=NOW, now_ms=NOW)
    assert surfaced is not None and surfaced.limit is None and "truncated" not in surfaced.content


def test_fifty_lines_of_99_characters_stop_at_the_byte_limit(tmp_path):
    path = tmp_path / "m.md"
    path.write_text("\n".join("x" * 99 for _ in range(50)), encoding="utf-8")
    piece = read_file_in_range(str(path))
    assert piece.line_count == 40
    assert len(piece.content.encode()) == 3999
    assert piece.truncated_by_bytes
    surfaced = read_memory_for_surfacing(str(path), file="m.md", mtime_ms=NOW, now_ms=NOW)
    assert surfaced is not None and "(4096 byte limit)" in surfaced.content


def test_a_first_line_over_the_byte_limit_gives_only_the_note(tmp_path):
    path = tmp_path / "m.md"
    path.write_text("y" * 5000 + "\nmore", encoding="utf-8")
    piece = read_file_in_range(str(path))
    assert piece.content == "" and piece.line_count == 0 and piece.truncated
    surfaced = read_memory_for_surfacing(str(path), file="m.md", mtime_ms=NOW, now_ms=NOW)
    assert surfaced is not None and surfaced.content.startswith("\n\n> This memory file was truncated (4096 byte")


def test_multibyte_text_is_measured_in_utf8_bytes(tmp_path):
    path = tmp_path / "m.md"
    path.write_text("\n".join("é" * 100 for _ in range(30)), encoding="utf-8")
    piece = read_file_in_range(str(path))
    assert piece.line_count == 20  # 200 bytes per line + joins


def test_a_huge_file_is_not_read_whole(tmp_path):
    path = tmp_path / "m.md"
    with open(path, "wb") as handle:
        handle.write(b"short line\n" * 10)
        handle.truncate(50 * 1024 * 1024)
    piece = read_file_in_range(str(path))
    assert piece.truncated_by_bytes


def test_render_wraps_header_and_content_in_a_system_reminder(tmp_path):
    path = tmp_path / "m.md"
    path.write_text("hello", encoding="utf-8")
    surfaced = read_memory_for_surfacing(str(path), file="m.md", mtime_ms=NOW, now_ms=NOW)
    assert surfaced is not None
    assert render_reminder(surfaced) == f"<system-reminder>\nMemory (saved today): {path}:\n\nhello\n</system-reminder>"


def test_the_memory_header_follows_the_release_dated_or_not():
    from memdir.recall.surfacing import DAY_MS, memory_header

    now = 100 * DAY_MS
    assert memory_header("/m/a.md", now, now) == "Memory (saved today): /m/a.md:"
    assert memory_header("/m/a.md", now, now, dated=False) == "Memory: /m/a.md:"
    old = memory_header("/m/a.md", now - 5 * DAY_MS, now, dated=False)
    assert old.startswith("This memory is 5 days old.") and old.endswith(".\nMemory: /m/a.md:")
    assert memory_header("/m/a.md", now - 5 * DAY_MS, now).endswith(".\n\nMemory: /m/a.md:")
