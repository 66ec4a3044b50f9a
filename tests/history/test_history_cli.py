"""The history commands' edges: clear refusals, retention, and the setting that turns history off."""

from __future__ import annotations

import json

from history_place import Place


def add(place: Place, body: str, *, force: bool = True) -> None:
    args = ["add", "--type", "user", "--name", "Role", "--description", "Leads payments", "--body", body]
    place.run(*args, *(["--force"] if force else []))


def test_a_missing_version_a_deletion_and_a_half_given_command_are_refused_with_the_reason(place: Place) -> None:
    add(place, "One.", force=False)
    place.run("rm", "user_role.md")
    missing = place.run("restore", "user_role.md", "--version", "9", ok=False)
    assert missing.exit_code == 1  # type: ignore[attr-defined]
    assert "user_role.md has no version 9; its versions are 1 to 2" in missing.stderr  # type: ignore[attr-defined]
    deletion = place.run("show", "user_role.md", "--version", "2", ok=False)
    assert "version 2 of user_role.md is its delete" in deletion.stderr  # type: ignore[attr-defined]
    assert place.run("undo", ok=False).exit_code == 2  # type: ignore[attr-defined]
    assert place.run("history", "prune", ok=False).exit_code == 2  # type: ignore[attr-defined]
    unknown = place.run("undo", "--run", "nope", ok=False)
    assert "no run 'nope' in the history" in unknown.stderr  # type: ignore[attr-defined]
    for result in (missing, deletion, unknown):
        assert "Traceback" not in result.output  # type: ignore[attr-defined]


def test_diff_shows_the_last_change_and_prune_keeps_what_a_deleted_memory_needs(place: Place) -> None:
    for body in ("One.", "Two.", "Three."):
        add(place, body)
    diff = place.run("diff", "user_role.md").stdout  # type: ignore[attr-defined]
    assert "-Two.\n+Three.\n" in diff and "user_role.md@v2" in diff
    last_text = place.file("user_role.md")
    place.run("rm", "user_role.md")
    pruned = place.run("history", "prune", "--keep-versions", "1").stdout  # type: ignore[attr-defined]
    assert pruned.startswith("pruned ")
    rows = place.json("history", "user_role.md")
    assert [(r["version"], r["change"]) for r in rows] == [(4, "delete"), (3, "edit")]  # type: ignore[index]
    place.run("restore", "user_role.md", "--version", "3")
    assert place.file("user_role.md") == last_text


def test_with_history_false_nothing_is_recorded_and_the_commands_say_why(place: Place) -> None:
    place.home.mkdir(exist_ok=True)
    (place.home / "settings.json").write_text(json.dumps({"memdir": {"history": False}}), encoding="utf-8")
    add(place, "One.", force=False)
    refused = place.run("history", ok=False)
    assert refused.exit_code == 1  # type: ignore[attr-defined]
    assert "no history is kept" in refused.stderr and "memdir.history is false" in refused.stderr  # type: ignore[attr-defined]
    assert not (place.home / "memdir" / "history").exists()
