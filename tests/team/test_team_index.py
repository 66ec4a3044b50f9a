"""``team/MEMORY.md`` in team sync: merged as a set and derived from the memories present, never a conflict copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from team_helpers import REPO, TeamServer, write

from memdir.cli import cli
from memdir.model.index import parse_entries
from memdir.team.derived_index import derive_index, merge_index


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, team_server: TeamServer):
    """``clone(name, *args)`` runs ``memdir`` on that clone's memory directory against the real server."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    monkeypatch.setenv("MEMDIR_TEAM_SERVER", team_server.url)
    monkeypatch.setenv("MEMDIR_TEAM_TOKEN", team_server.token)

    def run(name: str, *args: str) -> Result:
        return CliRunner().invoke(cli, ["--memory-dir", str(tmp_path / name), *args], catch_exceptions=False)

    return run


def _sync(clone, name: str) -> Result:
    result = clone(name, "team", "sync", "--repo", REPO, "--json")
    assert result.exit_code == 0, result.output
    return result


def _listed(memory: Path) -> list[str]:
    return sorted(entry.file for _, entry in parse_entries((memory / "team" / "MEMORY.md").read_text("utf-8")))


def _add(clone, name: str, file: str, title: str) -> None:
    result = clone(
        name,
        "add",
        "--type",
        "project",
        "--name",
        title,
        "--description",
        f"{title} in one line",
        "--file",
        f"team/{file}",
    )
    assert result.exit_code == 0, result.output


def test_two_clones_adding_one_memory_each_both_end_with_both_in_the_index_and_no_conflict_file(clone, tmp_path: Path):
    _add(clone, "alice", "project_release_train.md", "Release train")
    _sync(clone, "alice")
    _sync(clone, "bob")
    _add(clone, "alice", "feedback_flags_payouts.md", "Flags on payouts")
    _add(clone, "bob", "project_kafka_consumers.md", "Kafka consumers")
    _sync(clone, "alice")
    report = json.loads(_sync(clone, "bob").output)
    _sync(clone, "alice")

    expected = ["feedback_flags_payouts.md", "project_kafka_consumers.md", "project_release_train.md"]
    for name in ("alice", "bob"):
        memory = tmp_path / name
        assert _listed(memory) == expected
        assert not [p.name for p in (memory / "team").iterdir() if "conflict" in p.name]
    assert report["conflicts"] == [] and "MEMORY.md" in report["merged"]
    listing = json.loads(clone("bob", "list", "--json").output)
    assert all(item["description"] for item in listing)


def test_index_lines_merge_as_a_set_and_keep_both_sides_prose():
    base = "# Team\n\n- [A](a.md) — a\n- [B](b.md) — b\n"
    mine = "# Team\n\nOur notes first.\n\n- [A](a.md) — a\n- [C](c.md) — c\n"  # removed B, added C, prose
    theirs = "# Team\n\n- [A](a.md) — a\n- [B](b.md) — b\n- [D](d.md) — d\n\nAsk Dana before editing.\n"
    merged = merge_index(base, mine, theirs)
    assert sorted(entry.file for _, entry in parse_entries(merged)) == ["a.md", "c.md", "d.md"]
    assert "Our notes first." in merged and "Ask Dana before editing." in merged


def test_the_derived_index_lists_exactly_the_memories_present_and_conflicts_under_their_note():
    text = "# Team\n\n- [A](a.md) — a\n- [Gone](gone.md) — gone\n- [Docs](https://example.com/x.md)\n"
    files = {
        "a.md": "---\nname: A\ndescription: a\n---\n",
        "new.md": "---\nname: New one\ndescription: arrived without a line\n---\n",
        "a.conflict-20261126T005331Z.md": "---\nname: A (conflicting copy)\ndescription: Copy of a.md\n---\n",
    }
    derived = derive_index(text, files, files.__getitem__)
    body, _, conflicts = derived.partition("## Conflicts to resolve")
    assert sorted(e.file for _, e in parse_entries(body)) == ["a.md", "https://example.com/x.md", "new.md"]
    assert [e.file for _, e in parse_entries(conflicts)] == ["a.conflict-20261126T005331Z.md"]
    assert "memdir team resolve" in conflicts
    assert derive_index(derived, files, files.__getitem__) == derived


def test_a_memory_restored_by_delete_versus_edit_comes_back_with_its_index_line(clone, tmp_path: Path):
    _add(clone, "alice", "project_deploy_window.md", "Deploy window")
    _add(clone, "alice", "project_other.md", "Other")
    _sync(clone, "alice")
    _sync(clone, "bob")
    assert clone("bob", "rm", "team/project_deploy_window.md").exit_code == 0
    write(
        tmp_path / "alice" / "team",
        "project_deploy_window.md",
        "---\nname: Deploy window\ndescription: Deploys on Tuesdays only\ntype: project\n---\nTuesdays.\n",
    )
    _sync(clone, "alice")
    _sync(clone, "bob")
    assert (tmp_path / "bob" / "team" / "project_deploy_window.md").exists()
    assert _listed(tmp_path / "bob") == ["project_deploy_window.md", "project_other.md"]


def test_team_restore_brings_back_the_index_line_of_a_deleted_memory(clone, tmp_path: Path):
    _add(clone, "alice", "project_deploy_window.md", "Deploy window")
    _add(clone, "alice", "project_other.md", "Other")
    _sync(clone, "alice")
    assert clone("alice", "rm", "team/project_deploy_window.md").exit_code == 0
    _sync(clone, "alice")
    log = json.loads(clone("alice", "team", "log", "project_deploy_window.md", "--repo", REPO, "--json").output)
    version = next(row["version"] for row in log if not row["deleted"])
    restored = clone("alice", "team", "restore", "project_deploy_window.md", "--version", str(version), "--repo", REPO)
    assert restored.exit_code == 0, restored.output
    assert _listed(tmp_path / "alice") == ["project_deploy_window.md", "project_other.md"]
