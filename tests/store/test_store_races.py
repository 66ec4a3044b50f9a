"""Check and write under one lock: a change made between a writer's look at a file and its write is
never lost. Each race is made to happen, not hoped for: a change arrives at the one moment that
used to be unguarded, through the store's own seams (a write guard, a write observer, doctor's
progress callback), and the test says what must survive.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memdir.config import resolve_config, watch_history
from memdir.doctor.checks import check_memory_dir
from memdir.errors import LockTimeout
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir
from memdir.store.files import observe_writes
from memdir.store.provenance import acting_as
from memdir.team.local import LocalOp, apply_local
from memdir.team.protocol import hash_content
from memdir.tools.toolbox import MemoryToolbox


def memory(name: str, body: str) -> Memory:
    return Memory(name=name, description=f"{name} in one line", type=MemoryType.PROJECT, body=body)


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "mem"
    path.mkdir()
    yield path
    observe_writes(str(path), None)


def test_undo_checks_for_a_later_edit_and_writes_under_one_lock(tmp_path: Path, root: Path) -> None:
    """A save that comes while an undo writes waits for it, and is then a later edit the undo
    kept: it is never overwritten with the text from before the run."""
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "home")}
    watch_history(resolve_config(str(tmp_path), memory_dir=str(root), env=env))
    attempts: list[str] = []

    def save_meanwhile(rel: str, content: str) -> None:
        """A write guard runs before a write takes the lock: the moment another writer could come."""
        if rel != "project_deploys.md" or attempts:
            return

        def writer() -> None:
            other = MemoryDir(root, lock_timeout=0)
            try:
                with acting_as("cli", label="edit"):
                    other.save(memory("Deploys", "Edited meanwhile."), file=rel, force=True)
                attempts.append("saved")
            except LockTimeout:
                attempts.append("waited")  # the undo holds the lock: the edit comes after it

        thread = threading.Thread(target=writer)
        thread.start()
        thread.join(timeout=30)

    with acting_as("cli", label="add"):
        MemoryDir(root).save(memory("Deploys", "Before the run."), file="project_deploys.md")
    with acting_as("extract:s1", label="extract") as run:
        MemoryDir(root).save(memory("Deploys", "Written by the run."), file="project_deploys.md", force=True)
    guarded = MemoryDir(root, write_guards=[save_meanwhile])
    view = guarded.history
    assert view is not None
    report = view.undo(run.run)

    text = (root / "project_deploys.md").read_text(encoding="utf-8")
    assert attempts, "the writer ran in the gap"
    if attempts == ["saved"]:  # it got in: then the undo must have seen it and kept it
        assert "Edited meanwhile." in text and [c.file for c in report.conflicts] == ["project_deploys.md"]
    else:
        assert attempts == ["waited"] and "Before the run." in text and report.restored == ("project_deploys.md",)


def test_doctor_fix_gives_no_line_back_to_a_memory_deleted_during_its_scan(root: Path) -> None:
    directory = MemoryDir(root)
    directory.save(memory("Deploys", "Tuesdays."), file="project_deploys.md")
    directory.save(memory("Owners", "Ana."), file="project_owners.md")
    forgotten: list[bool] = []

    def forget_at_the_end_of_the_scan(done: int, total: int) -> None:
        if done == total and not forgotten:
            forgotten.append(MemoryToolbox(directory).forget("project_deploys.md").ok)

    check_memory_dir(directory, fix=True, progress=forget_at_the_end_of_the_scan)
    assert forgotten == [True]
    assert not (root / "project_deploys.md").exists()
    index = directory.index_text()
    assert "project_owners.md" in index and "project_deploys.md" not in index


class EditsWhileTheSyncWrites:
    """What an editor (or Claude Code's own Write tool, which takes no lock) does at the worst
    moment: it saves the file just as the sync is about to replace it (a write observer is told
    just before a file changes)."""

    def __init__(self, path: Path, text: str) -> None:
        self.path, self.text, self.done = path, text, False

    def before(self, rel: str) -> None:
        if not self.done:
            self.done = True
            self.path.write_text(self.text, encoding="utf-8")

    def written(self, rel: str, data: bytes) -> None:
        pass

    def removed(self, rel: str) -> None:
        pass

    def moved(self, old: str, new: str | None) -> None:
        pass


@pytest.mark.parametrize("server", ["Server version.\n", None], ids=["replace", "delete"])
def test_a_team_pull_never_overwrites_an_edit_saved_while_it_writes(root: Path, server: str | None) -> None:
    team = root / "team"
    team.mkdir()
    path = team / "deploys.md"
    path.write_text("Agreed version.\n", encoding="utf-8")
    observe_writes(str(team), lambda: EditsWhileTheSyncWrites(path, "Edited during the sync.\n"))
    try:
        outcome = apply_local(str(team), [LocalOp("deploys.md", hash_content("Agreed version.\n"), server)])
    finally:
        observe_writes(str(team), None)
    assert path.read_text(encoding="utf-8") == "Edited during the sync.\n"
    assert [(s.file, s.rule) for s in outcome.skipped] == [("deploys.md", "changed-during-sync")]
    assert outcome.written == ()
