"""docs/frameworks.md embeds the framework examples verbatim, and each example runs as written (offline)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _framework_helpers import index_lines, read_memory

from memdir.llm import FORBID_ENV_VAR

ROOT = Path(__file__).resolve().parents[2]
EMBED = re.compile(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", re.DOTALL)

# example -> (the package it needs, a line of its output that shows recall reached the model, the file it saves)
EXAMPLES = {
    "langgraph_store.py": ("langgraph", "- the staging database listens on port 5433", "staging_db.md"),
    "pydantic_ai_agent.py": ("pydantic_ai", "Three points at most, as you like.", "feedback_review_style.md"),
    "openai_agents_memory.py": ("agents", "Tuesday, as usual.", "project_deploy_day.md"),
    "adk_memory_service.py": ("google.adk", "An oat flat white, as every morning.", "user_coffee.md"),
}


def test_the_frameworks_page_embeds_every_example_as_it_is():
    embedded = dict(EMBED.findall((ROOT / "docs" / "frameworks.md").read_text(encoding="utf-8")))
    assert sorted(embedded) == sorted(f"examples/{name}" for name in EXAMPLES)
    for path, body in embedded.items():
        assert body == (ROOT / path).read_text(encoding="utf-8"), path


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_framework_example_runs_offline_and_saves_a_claude_code_memory(tmp_path, name):
    package, recalled, saved = EXAMPLES[name]
    pytest.importorskip(package)
    memory_dir = tmp_path / "memory"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "PYTHONPATH": os.pathsep.join(sys.path),
        FORBID_ENV_VAR: "1",
    }
    done = subprocess.run(
        [sys.executable, "-W", "error", str(ROOT / "examples" / name), "--memory-dir", str(memory_dir)],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(tmp_path),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert recalled in done.stdout.splitlines()
    memory = read_memory(memory_dir / saved)
    assert memory.name and memory.description and memory.type is not None
    assert any(f"]({saved})" in line for line in index_lines(str(memory_dir)))
