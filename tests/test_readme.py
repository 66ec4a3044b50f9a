import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def test_the_readme_python_example_runs_and_recalls_the_memory_it_saved(tmp_path):
    (block,) = python_blocks(ROOT / "README.md")
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "home"), "HOME": str(tmp_path)}
    env.pop("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", None)
    result = subprocess.run(
        [sys.executable, "-c", block], cwd=project, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "<system-reminder>" in result.stdout
    assert "Never mock the database." in result.stdout
    assert list((tmp_path / "home" / "projects").glob("*/memory/feedback_real_db_in_tests.md"))


@pytest.mark.parametrize("command", ["path", "list", "prompt", "doctor"])
def test_the_readme_cli_tour_commands_exist(command):
    assert f"memdir {command}" in (ROOT / "README.md").read_text(encoding="utf-8")
