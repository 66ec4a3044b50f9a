"""Tables and progress bars appear on a terminal only; completion offers memory file names."""

import os
import subprocess
import sys

import pytest

from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir
from terminal_helpers import on_terminal


@pytest.fixture
def env(tmp_path):
    environment = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "home"), "HOME": str(tmp_path), "COLUMNS": "100"}
    environment.pop("CLAUDE_CODE_DISABLE_AUTO_MEMORY", None)
    return environment


@pytest.fixture
def store(tmp_path):
    directory = MemoryDir(tmp_path / "mem")
    directory.save(Memory(name="Role", description="Backend lead on payments", type=MemoryType.USER, body=""))
    directory.save(Memory(name="Real DB", description="Tests hit a real database", type=MemoryType.FEEDBACK, body=""))
    return directory


def test_list_draws_a_table_on_a_terminal(store, env):
    shown, _ = on_terminal(["--memory-dir", store.root, "list"], env, "stdout")
    assert "2 memories in" in shown and "description" in shown and "━" in shown
    assert "Backend lead on payments" in shown


def test_doctor_draws_its_problems_as_a_table_on_a_terminal(store, env):
    (store.as_path() / "nofront.md").write_text("just text\n", encoding="utf-8")
    shown, _ = on_terminal(["--memory-dir", store.root, "doctor"], env, "stdout")
    assert "2 problems in" in shown and "no-frontmatter" in shown and "━" in shown


def test_reindex_shows_a_progress_bar_on_a_terminal_and_none_when_piped(tmp_path, env):
    mem = tmp_path / "big"
    mem.mkdir()
    for n in range(600):
        (mem / f"user_n{n}.md").write_text(f"---\nname: N{n}\ndescription: note {n}\ntype: user\n---\n")
    bar, out = on_terminal(["--memory-dir", str(mem), "reindex", "--rebuild"], env, "stderr")
    assert "reading memories" in bar and "600 memories" in out
    piped = subprocess.run(
        [sys.executable, "-m", "memdir", "--memory-dir", str(mem), "reindex", "--rebuild"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert piped.returncode == 0 and piped.stderr == ""


def test_shell_completion_offers_memory_file_names(store, env):
    completion = {
        **env,
        "_MEMDIR_COMPLETE": "bash_complete",
        "COMP_WORDS": f"memdir --memory-dir {store.root} show us",
        "COMP_CWORD": "4",
    }
    result = subprocess.run(
        [sys.executable, "-m", "memdir"], env=completion, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.splitlines() == ["plain,user_role.md"]


def test_add_at_a_terminal_prints_its_success_line_on_stdout_and_nothing_on_stderr(tmp_path, env):
    args = ["--memory-dir", str(tmp_path / "m"), "add", "--type", "user", "--name", "Role", "--description", "Lead"]
    shown, errors = on_terminal(args, env, "stdout")
    assert shown.strip() == f"created {tmp_path / 'm' / 'user_role.md'}; MEMORY.md updated"
    assert errors == ""
