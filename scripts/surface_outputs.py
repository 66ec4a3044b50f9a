"""What memdir shows the outside world on one fixed store: the CLI's output, the MCP server's tools
and answers, and the hooks' JSON, to compare before and after a change that must not alter them.

    .venv/bin/python scripts/surface_outputs.py > before.json     # on the old code
    .venv/bin/python scripts/surface_outputs.py > after.json      # on the new code
    diff before.json after.json

The store, the project, the settings and every file time are fixed; the temporary directory's path
and the run ids the history gives are replaced by placeholders, so two runs on the same day print
the same bytes. Nothing here asserts: a refactor reads the diff.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOW = time.time()
DAY = 86_400
MEMORIES = (
    ("user_role.md", "user", "Role", "Leads the payments team; prefers short reviews", "Works on payments.", 40),
    ("feedback_real_db.md", "feedback", "Real DB in tests", "Integration tests hit a real database", "Never mock.", 30),
    ("project_deploys.md", "project", "Deploy day", "Payments deploys go out on Tuesdays", "After the freeze.", 20),
    ("project_latency.md", "project", "Dashboard API latency", "Dashboard API p95 is 800 ms", "Load test.", 15),
    (
        "project_latency_cached.md",
        "project",
        "Dashboard API latency after caching",
        "With the cache, dashboard API p95 is 250 ms",
        "See [[deploy-day]].",
        2,
    ),
    ("reference_board.md", "reference", "Grafana board", "Latency dashboards live on the payments board", "", 5),
)
PROMPT = "what is the dashboard API p95 latency?"


def _write_store(memory: Path) -> None:
    memory.mkdir(parents=True)
    lines = []
    for file, kind, name, description, body, days in MEMORIES:
        path = memory / file
        path.write_text(f"---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n", "utf-8")
        stamp = NOW - days * DAY
        os.utime(path, (stamp, stamp))
        lines.append(f"- [{name}]({file}) — {description}")
    (memory / "MEMORY.md").write_text("\n".join(lines) + "\n", "utf-8")


def _run(args: list[str], env: dict[str, str], stdin: str | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "memdir", *args], input=stdin, capture_output=True, text=True, env=env, timeout=120
    )
    return {"code": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


async def _mcp(memory: Path, env: dict[str, str]) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memdir", "--memory-dir", str(memory), "mcp"], env=env
    )
    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        out["tools"] = [tool.model_dump(mode="json", exclude_none=True) for tool in tools.tools]
        calls = (
            ("recall", {"query": PROMPT}),
            ("list", {}),
            ("read", {"file": "project_deploys.md"}),
            ("remember", {"type": "project", "name": "Release train", "description": "Releases leave on Fridays"}),
            ("update", {"file": "project_release_train.md", "append": "Hotfixes any day."}),
            ("forget", {"file": "project_release_train.md"}),
            ("read", {"file": "nope.md"}),
        )
        for number, (name, arguments) in enumerate(calls):
            answer = await session.call_tool(name, arguments)
            out[f"call {number} {name}"] = answer.model_dump(mode="json", exclude_none=True)
    return out


def main() -> int:
    place = Path(tempfile.gettempdir()) / "memdir-surface"
    shutil.rmtree(place, ignore_errors=True)
    memory, project, home = place / "memory", place / "project", place / "home"
    project.mkdir(parents=True)
    _write_store(memory)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "MEMDIR_FORBID_MODEL_CALLS": "1",
        "PYTHONPATH": str(ROOT / "src"),
    }
    out: dict[str, Any] = {}
    at = ["--memory-dir", str(memory)]
    for number, args in enumerate(
        (
            ["list"],
            ["list", "--json"],
            ["show", "project_deploys.md"],
            ["recall", PROMPT],
            ["doctor", "--json"],
            ["doctor"],
            ["prompt"],
            ["history", "--json"],
            ["relate", "project_latency_cached.md", "--replaces", "project_latency.md"],
            ["recall", PROMPT],
            ["--help"],
            ["add", "--help"],
        )
    ):
        out[f"{number:02d} " + " ".join(["memdir", *args])] = _run([*at, *args], env)
    hook = {"session_id": "s1", "cwd": str(project), "prompt": PROMPT}
    for agent in ("claude-code", "codex", "gemini"):
        for event in ("session-start", "user-prompt-submit"):
            data = json.dumps({**hook, "session_id": f"s-{agent}-{event}"})
            out[f"hook {agent} {event}"] = _run(
                ["--memory-dir", str(memory), "hook", "--agent", agent, event], env, data
            )
    out["mcp"] = asyncio.run(_mcp(memory, env))
    text = json.dumps(out, indent=1, ensure_ascii=False, sort_keys=True)
    text = text.replace(str(place), "<place>")
    text = re.sub(r"\b[0-9a-z]{6}-[0-9a-f]{4}\b", "<run>", text)  # history run ids
    text = re.sub(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z?", "<time>", text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
