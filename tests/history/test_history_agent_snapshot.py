"""Applying a project's agent-memory snapshot (``memdir agent snapshot initialize|replace``) is
recorded in the sub-agent directory's own history as ``agent-snapshot``, and the files a replace
drops stay restorable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from history_place import Place


def _snapshot(project: Path, updated_at: str, files: dict[str, str]) -> None:
    folder = project / ".claude" / "agent-memory-snapshots" / "reviewer"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.md"):
        old.unlink()
    (folder / "snapshot.json").write_text(json.dumps({"updatedAt": updated_at}), encoding="utf-8")
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")


def test_snapshot_copies_and_the_files_a_replace_drops_are_recorded_as_agent_snapshot(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(place.project)
    (place.project / ".git").mkdir()
    agent = ["--agent-type", "reviewer", "--scope", "project"]
    _snapshot(place.project, "2026-01-01T00:00:00Z", {"style.md": "Prefer small diffs.\n"})
    place.run("agent", "snapshot", "initialize", *agent)
    folder = place.project / ".claude" / "agent-memory" / "reviewer"
    (folder / "own.md").write_text("The agent's own note.\n", encoding="utf-8")
    _snapshot(place.project, "2026-02-01T00:00:00Z", {"tests.md": "Every fix has a test.\n"})
    place.run("agent", "snapshot", "replace", *agent)
    assert sorted(p.name for p in folder.glob("*.md")) == ["tests.md"]

    def history(*args: str) -> list[dict[str, object]]:
        result = place.run("--memory-dir", str(folder), "history", *args, "--json")
        return json.loads(result.stdout)  # type: ignore[attr-defined,no-any-return]

    changes = {(row["file"], row["change"], row["by"]) for row in history()}
    assert changes == {
        ("style.md", "create", "agent-snapshot"),
        ("style.md", "delete", "agent-snapshot"),
        ("own.md", "create", "external"),  # found before the replace dropped it
        ("own.md", "delete", "agent-snapshot"),
        ("tests.md", "create", "agent-snapshot"),
    }
    place.run("--memory-dir", str(folder), "undo", "--last")
    assert sorted(p.name for p in folder.glob("*.md")) == ["own.md", "style.md"]
    assert (folder / "own.md").read_text(encoding="utf-8") == "The agent's own note.\n"
