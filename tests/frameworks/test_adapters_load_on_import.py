"""The framework adapters cost nothing until imported: memdir and the prompt hook load no framework."""

from __future__ import annotations

import json
import subprocess
import sys

FRAMEWORKS = ("langgraph", "langchain_core", "langmem", "pydantic_ai", "agents", "google.adk", "google.genai")
ADAPTERS = ("agent_memory", "item_values", "langgraph", "pydantic_ai", "openai_agents", "adk")

PROBE = """
import atexit, io, json, sys
import memdir, memdir.cli
sys.argv = ["memdir", "hook", "user-prompt-submit"]
sys.stdin = io.StringIO(json.dumps({"session_id": "s1", "cwd": sys.argv[0], "prompt": "any news on the deploy?"}))
wanted = ("memdir.integrations.",) + FRAMEWORKS
atexit.register(lambda: print(json.dumps(sorted(m for m in sys.modules if m.startswith(wanted))), file=sys.stderr))
memdir.cli.main()
"""


def test_importing_memdir_and_running_the_prompt_hook_load_no_framework(tmp_path):
    code = f"FRAMEWORKS = {FRAMEWORKS!r}\n{PROBE}"
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    assert "memdir.integrations.hooks" in loaded  # the probe did run the hook
    assert [m for m in loaded if not m.startswith("memdir.")] == []
    assert [m for m in loaded if m.removeprefix("memdir.integrations.") in ADAPTERS] == []
