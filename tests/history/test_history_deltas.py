"""A version stored as a delta against the file's previous whole version reads back byte for byte,
also when that base is larger than the 32 KB window zlib keeps of a dictionary.

zlib finds a match at most 32 KB back, dictionary included, so against a larger base a version
compresses well when it repeats the base's tail: a long memory whose head was cut away."""

from __future__ import annotations

import random

from history_place import Place, digest


def test_a_delta_against_a_base_over_32_kb_reads_back_exactly(place: Place) -> None:
    rng = random.Random(7)
    words = [f"{rng.choice(['ana', 'bo', 'cy'])}{rng.randrange(10**6)}" for _ in range(5000)]
    lines = [" ".join(words[i : i + 10]) for i in range(0, len(words), 10)]
    body = "\n".join(lines)
    assert len(body.encode("utf-8")) > 40 * 1024
    add = ["add", "--type", "project", "--name", "Log", "--description", "a long log", "--force"]
    place.run(*add, "--body", body)
    first = place.file("project_log.md")
    edited = "\n".join(lines[len(lines) // 3 :]).replace(words[-3], "edited")  # the head cut, a word changed
    place.run(*add, "--body", edited)
    second = place.file("project_log.md")

    db = place.history()
    try:
        row = db._connect().execute("SELECT base FROM blobs WHERE hash=?", (digest(second),)).fetchone()
        assert row is not None and row[0] == digest(first), "stored as a delta against the first version"
    finally:
        db.close()
    fresh = place.history()  # a new process: no base kept in memory
    try:
        assert fresh.content(digest(second)).decode("utf-8") == second
        assert fresh.content(digest(first)).decode("utf-8") == first
    finally:
        fresh.close()
    shown = place.run("show", "project_log.md", "--version", "2")
    assert shown.stdout == second  # type: ignore[attr-defined]
