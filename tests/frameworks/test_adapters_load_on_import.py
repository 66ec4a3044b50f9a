"""The framework adapters cost nothing until imported: memdir and the prompt hook load no framework."""

from __future__ import annotations

import subprocess
import sys

FRAMEWORKS = ("langgraph", "langchain_core", "langmem", "pydantic_ai", "agents", "google.adk", "google.genai")
# The adapters' package, and the public import paths that re-export them.
ADAPTERS = ("frameworks", "user_dirs", "langgraph", "pydantic_ai", "openai_agents", "adk")

# The hook process ends without tearing down (no exit handlers run), so the modules it loaded are
# read from what ``python -X importtime`` prints as each is imported.
PROBE = """
import io, json, sys
import memdir, memdir.cli
sys.argv = ["memdir", "hook", "user-prompt-submit"]
sys.stdin = io.StringIO(json.dumps({"session_id": "s1", "cwd": sys.argv[0], "prompt": "any news on the deploy?"}))
memdir.cli.main()
"""


def test_importing_memdir_and_running_the_prompt_hook_load_no_framework(tmp_path):
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", PROBE],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:") and "|" in line]
    wanted = ("memdir.integrations.", *FRAMEWORKS)
    loaded = sorted(name for line in lines if (name := line.rsplit("|", 1)[1].strip()).startswith(wanted))
    assert "memdir.integrations.hooks.events" in loaded  # the probe did run the hook
    assert [m for m in loaded if not m.startswith("memdir.")] == []
    assert [m for m in loaded if m.removeprefix("memdir.integrations.").split(".")[0] in ADAPTERS] == []
