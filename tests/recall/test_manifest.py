from datetime import UTC, datetime

from memdir.model.memory import MemoryType
from memdir.recall.manifest import format_manifest, iso_mtime
from memdir.store.scan import MemoryHeader


def ms(*args):
    return datetime(*args, tzinfo=UTC).timestamp() * 1000


def test_manifest_matches_the_reference_vector():
    headers = [
        MemoryHeader(
            "feedback_testing.md",
            "/m/feedback_testing.md",
            ms(2026, 3, 9, 8, 30),
            10,
            "Integration tests must hit a real DB",
            MemoryType.FEEDBACK,
        ),
        MemoryHeader("sub/notes.md", "/m/sub/notes.md", ms(2026, 3, 1), 10, None, None),
    ]
    assert format_manifest(headers) == (
        "- [feedback] feedback_testing.md (2026-03-09T08:30:00.000Z): Integration tests must hit a real DB\n"
        "- sub/notes.md (2026-03-01T00:00:00.000Z)"
    )


def test_iso_mtime_keeps_milliseconds():
    assert iso_mtime(ms(2026, 1, 2, 3, 4, 5) + 678.9) == "2026-01-02T03:04:05.678Z"
