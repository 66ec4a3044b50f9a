"""Stores stranded by worktrees and gone projects: found, traced to their repository, moved home.

Real git repositories and real ``git worktree add/remove``; the stores are laid out as a release
that keyed memory to the worktree's own folder left them (a memory directory and a transcript
under ``<config home>/projects/<sanitized folder>/``), and ``memdir doctor --stores`` runs as a
user would run it, in the main checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.paths import clear_git_root_cache, sanitize_path

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t"}
GIT_ENV |= {"GIT_COMMITTER_EMAIL": "t@example.com"}


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def memory(name: str, description: str, body: str = "Some detail.") -> str:
    return f"---\nname: {name}\ndescription: {description}\ntype: project\n---\n\n{body}\n"


class Place:
    """A home with Claude Code's config, a repository and what its sessions left behind."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root
        self.config = root / "claude"
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(self.config))
        monkeypatch.setenv("HOME", str(root / "home"))
        monkeypatch.delenv("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", raising=False)
        monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
        self.repo = root / "repo"
        self.repo.mkdir()
        git("init", "-q", cwd=self.repo)
        git("commit", "-q", "--allow-empty", "-m", "start", cwd=self.repo)
        clear_git_root_cache()

    def store_of(self, folder: Path, files: dict[str, str], *, index: list[str], branch: str = "main") -> Path:
        """The store a session in ``folder`` left: its memories, an index listing ``index``, a transcript."""
        home = self.config / "projects" / sanitize_path(str(folder))
        store = home / "memory"
        store.mkdir(parents=True)
        for name, text in files.items():
            (store / name).write_text(text, encoding="utf-8")
        lines = [f"- [{name}]({name}) — listed" for name in index]
        (store / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        line = {"type": "user", "cwd": str(folder), "gitBranch": branch, "sessionId": "s1"}
        (home / "s1.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
        return store

    def run(self, *args: str, code: int = 0) -> str:
        clear_git_root_cache()
        done = CliRunner().invoke(cli, ["--project", str(self.repo), *args], catch_exceptions=False)
        assert done.exit_code == code, done.output
        return done.stdout

    def json(self, *args: str, code: int = 0) -> dict:
        return json.loads(self.run(*args, "--json", code=code))

    def own_store(self) -> Path:
        return Path(self.run("path").strip())


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    return Place(tmp_path, monkeypatch)


def by_store(data: dict) -> dict[str, dict]:
    return {Path(s["store"]).parent.name: s for s in data["stranded"]}


def test_a_worktrees_store_is_found_traced_after_the_worktree_is_removed_and_moved_home(place: Place) -> None:
    worktree = place.root / "repo-feature"
    git("worktree", "add", "-q", str(worktree), "-b", "feature", cwd=place.repo)
    own = place.own_store()
    own.mkdir(parents=True)
    (own / "project_deploy.md").write_text(memory("Deploy window", "Deploys happen on Tuesdays"), encoding="utf-8")
    (own / "MEMORY.md").write_text("- [Deploy window](project_deploy.md) — Deploys happen on Tuesdays\n", "utf-8")
    files = {
        "project_flaky.md": memory("Flaky checkout test", "The checkout test fails on Mondays"),
        "project_deploy.md": memory("Release freeze", "No releases in the last week of the quarter"),
        "project_deploy_window.md": memory("Deploy window", "Deploys happen on Tuesdays", "Tuesday mornings."),
    }
    stranded = place.store_of(worktree, files, index=["project_flaky.md", "project_deploy.md"], branch="feature")

    listed = place.json("doctor", "--stores", code=1)
    [found] = listed["stranded"]
    assert (found["store"], found["memories"], found["unindexed"]) == (str(stranded), 3, 1)
    assert found["why"] == f"{worktree} is a worktree of {place.repo}" and found["target"] == str(place.repo)
    assert os.path.normpath(found["target_store"]) == str(own)

    git("worktree", "remove", str(worktree), cwd=place.repo)
    text = place.run("doctor", "--stores", code=1)
    assert "1 stranded memory store: no session loads its memories" in text
    assert f"{worktree} is gone (its sessions ran on branch feature, which {place.repo} has)" in text
    assert "memdir doctor --stores --fix" in text

    moved = place.json("doctor", "--stores", "--fix")
    assert moved["stranded"] == []
    [result] = moved["moved"]
    assert sorted(result["moved"]) == ["project_deploy_window.md", "project_flaky.md"]
    assert result["kept_both"] == ["project_deploy.md -> project_deploy.from-repo-feature.md"]
    assert result["near"] == ["project_deploy_window.md may say what project_deploy.md says"]
    assert (own / "project_deploy.md").read_text(encoding="utf-8") == memory(
        "Deploy window", "Deploys happen on Tuesdays"
    )
    assert (own / "project_deploy.from-repo-feature.md").read_text(encoding="utf-8") == files["project_deploy.md"]
    index = (own / "MEMORY.md").read_text(encoding="utf-8")
    for name in ("project_flaky.md", "project_deploy_window.md", "project_deploy.from-repo-feature.md"):
        assert f"]({name})" in index
    assert not list(stranded.glob("*.md"))
    history = json.loads(place.run("history", "project_flaky.md", "--json"))
    assert history[0]["change"] == "create" and history[0]["by"] == "doctor"
    assert place.run("doctor", "--stores") == "no stranded memory stores\n"


def test_stores_of_folders_inside_a_repository_and_of_gone_projects_are_listed_and_moved_when_asked(
    place: Place,
) -> None:
    inside = place.repo / "services" / "api"
    inside.mkdir(parents=True)
    place.store_of(inside, {"project_api.md": memory("API port", "The API listens on 8080")}, index=[])
    gone = place.root / "old-checkout"
    lost = place.store_of(gone, {"project_old.md": memory("Old note", "Something from the old checkout")}, index=[])
    data = by_store(place.json("doctor", "--stores", code=1))
    api = data[sanitize_path(str(inside))]
    assert api["why"] == f"{inside} is a folder inside {place.repo}" and api["target"] == str(place.repo)
    old = data[sanitize_path(str(gone))]
    assert old["why"] == f"{gone} is gone" and old["target"] is None
    assert f"doctor --stores --fix --from {lost}" in place.run("doctor", "--stores", code=1)

    after = place.json("doctor", "--stores", "--fix", code=1)
    assert [s["store"] for s in after["stranded"]] == [str(lost)]  # no project known: it stays where it is
    assert place.json("doctor", "--stores", "--fix", "--from", str(lost))["stranded"] == []
    own = place.own_store()
    assert {p.name for p in own.glob("project_*.md")} == {"project_api.md", "project_old.md"}


@pytest.mark.parametrize("how", ["claude-code-worktree", "removed-by-hand"])
def test_a_gone_worktree_is_traced_by_where_it_lived_or_by_what_git_still_lists(place: Place, how: str) -> None:
    if how == "claude-code-worktree":
        folder = place.repo / ".claude" / "worktrees" / "swift-fox"
        expected = f"a Claude Code worktree of {place.repo}"
    else:
        folder = place.root / "hand-made"
        git("worktree", "add", "-q", str(folder), cwd=place.repo)
        subprocess.run(["rm", "-rf", str(folder)], check=True)
        expected = f"git in {place.repo} still lists it as a worktree"
    place.store_of(folder, {"project_x.md": memory("X", "A fact from the worktree")}, index=[], branch="HEAD")
    [found] = place.json("doctor", "--stores", code=1)["stranded"]
    assert found["why"] == f"{folder} is gone ({expected})" and found["target"] == str(place.repo)


def test_a_store_that_is_where_its_project_keeps_memory_is_never_listed(place: Place) -> None:
    place.store_of(place.repo, {"project_a.md": memory("A", "Fine where it is")}, index=["project_a.md"])
    assert place.run("doctor", "--stores") == "no stranded memory stores\n"
    assert "--from moves a store: add --fix" in CliRunner().invoke(cli, ["doctor", "--from", "x"]).output


def test_doctor_in_the_main_checkout_notes_the_memories_that_belong_there(place: Place) -> None:
    worktree = place.root / "repo-fix"
    git("worktree", "add", "-q", str(worktree), "-b", "fix", cwd=place.repo)
    store = place.store_of(worktree, {"project_a.md": memory("A", "A fact from the worktree")}, index=["project_a.md"])
    text = place.run("doctor")
    assert f"note: {store}: [stranded] 1 memory of this project ({worktree} is a worktree of" in text
    assert [s["store"] for s in place.json("doctor")["stranded"]] == [str(store)]


def test_a_store_holding_only_a_symlinked_or_hidden_memory_is_not_stranded(place: Place) -> None:
    worktree = place.root / "repo-links"
    git("worktree", "add", "-q", str(worktree), "-b", "links", cwd=place.repo)
    elsewhere = place.root / "elsewhere.md"
    elsewhere.write_text(memory("Elsewhere", "A memory kept outside the store"), encoding="utf-8")
    store = place.store_of(worktree, {}, index=[])
    (store / "project_link.md").symlink_to(elsewhere)
    (store / "notes" / ".drafts").mkdir(parents=True)
    (store / "notes" / ".drafts" / "draft.md").write_text(memory("Draft", "Not a memory yet"), encoding="utf-8")
    assert place.run("doctor", "--stores") == "no stranded memory stores\n"


def test_moving_from_the_projects_own_store_is_refused_before_any_store_moves(place: Place) -> None:
    gone = place.root / "old-checkout"
    lost = place.store_of(gone, {"project_old.md": memory("Old note", "From the old checkout")}, index=[])
    own = place.own_store()
    own.mkdir(parents=True)
    (own / "project_here.md").write_text(memory("Here", "Already at home"), encoding="utf-8")
    clear_git_root_cache()
    done = CliRunner().invoke(
        cli, ["--project", str(place.repo), "doctor", "--stores", "--fix", "--from", str(lost), "--from", str(own)]
    )
    assert done.exit_code != 0 and "is this project's own memory directory; nothing to move" in done.stderr
    assert (lost / "project_old.md").is_file() and not (own / "project_old.md").exists()


def test_in_daily_log_mode_every_memory_is_copied_home_and_each_one_the_store_keeps_is_named(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_DAILY_LOG", "1")
    worktree = place.root / "repo-daily"
    git("worktree", "add", "-q", str(worktree), "-b", "daily", cwd=place.repo)
    files = {"project_a.md": memory("A", "First fact"), "project_b.md": memory("B", "Second fact")}
    stranded = place.store_of(worktree, files, index=[])
    own = place.own_store()

    [result] = place.json("doctor", "--stores", "--fix", code=1)["moved"]
    assert result["moved"] == ["project_a.md", "project_b.md"]
    assert [line.partition(" (")[0] for line in result["left"]] == [
        f"project_{x}.md: copied into {own}; MEMORY.md is read-only in daily-log mode" for x in "ab"
    ]
    assert {p.name for p in own.glob("project_*.md")} == {p.name for p in stranded.glob("project_*.md")} == set(files)
