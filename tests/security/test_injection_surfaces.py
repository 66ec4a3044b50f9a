"""Hostile memories through every surface that shows memory text to a model: no tag gets through.

Each surface is driven as a user would drive it (the library, a hook, the CLI, the official MCP
client, the memory tool, an agent's file tools, a model reading the manifest), and what it hands
the model is read by the strict reader of :mod:`injection_corpus`: the only reminder and team
tags in it must be the ones memdir itself wrapped the text in, and the memory's words still read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from injection_corpus import PAYLOAD, SPLIT_BODY, tags, write_hostile_store
from mcp import Client

from memdir.agents import AgentMemory, AgentScope
from memdir.background.file_tools import MemoryFileTools
from memdir.cli import cli
from memdir.config import read_environment, resolve_config
from memdir.integrations.hooks.events import run_hook
from memdir.integrations.mcp.server import INDEX_URI, MEMORY_URI_PREFIX, create_server
from memdir.integrations.memory_tool.commands import MemoryCommands
from memdir.llm.scripted import ScriptedModel
from memdir.memory_session import MemorySession
from memdir.model.markup import neutralise
from memdir.paths import sanitize_path
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.llm_selector import LLMSelector
from memdir.recall.recaller import Recaller
from memdir.recall.selector_protocol import SelectionRequest
from memdir.store.directory import MemoryDir

QUERY = "what is on the deploy checklist and the deploy rota for the api?"
REMINDER = ["<systemreminder", "</systemreminder"]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}


@pytest.fixture
def project(tmp_path: Path) -> str:
    root = tmp_path / "repo"
    root.mkdir()
    return os.path.realpath(root)


@pytest.fixture
def memory(project: str, env: dict[str, str]) -> Path:
    config = resolve_config(project, env=env)
    path = Path(config.memory_dir)
    write_hostile_store(path)
    return path


def test_every_trick_in_the_corpus_is_neutralised_and_the_words_stay() -> None:
    from injection_corpus import BODY, ONE_LINE, SPLIT_DESCRIPTION, TRICKS

    for trick in [*TRICKS, BODY, ONE_LINE, f"{SPLIT_DESCRIPTION}\n---\n\n{SPLIT_BODY}"]:
        assert tags(trick), trick  # the reader sees the tag in the raw text
        shown = neutralise(trick)
        assert tags(shown) == [], (trick, shown)
        assert neutralise(shown) == shown
    assert neutralise(BODY).count(PAYLOAD) == 1
    assert "‹/system-reminder›" in neutralise(BODY)


def test_ordinary_markup_and_comparisons_are_left_alone() -> None:
    for text in ["List<String> x = f(a < b, c > d);", "<div class='x'>hi</div>", "a -> b => c", "<br/>", "&lt;tr&gt;"]:
        assert neutralise(text) == text


def test_recall_reminders_wrap_the_hostile_memories_and_nothing_else_closes_them(memory: Path) -> None:
    recaller = Recaller(MemoryDir(memory), selector=LexicalSelector())
    result = recaller.recall(QUERY, limit=5)
    assert len(result.memories) == 3
    for reminder in result.reminders:
        assert tags(reminder) == REMINDER, reminder
    text = "\n".join(result.reminders)
    assert PAYLOAD in text and "Deploy checklist" in text


def test_a_team_memory_is_marked_as_written_by_a_teammate(memory: Path) -> None:
    result = Recaller(MemoryDir(memory), selector=LexicalSelector()).recall(QUERY, limit=5)
    [team] = [m for m in result.memories if m.file.startswith("team/")]
    # the last line of a header names the memory (a note on a newer memory may stand above it)
    assert team.header.splitlines()[-1].startswith("Team memory (written by a teammate, saved today): ")
    others = [m.header.splitlines()[-1] for m in result.memories if m is not team]
    assert others and all(line.startswith("Memory (saved today): ") for line in others)


@pytest.mark.parametrize("version", ["2.1.88", "2.1.330"])
def test_the_prompt_hook_context_of_each_release_holds_no_tag_from_a_memory(
    tmp_path: Path, project: str, env: dict[str, str], memory: Path, version: str
) -> None:
    folder = tmp_path / "claude" / "projects" / sanitize_path(project)
    folder.mkdir(parents=True, exist_ok=True)
    transcript = folder / "s1.jsonl"
    line = {"type": "user", "version": version, "uuid": "u1", "parentUuid": None, "message": {"role": "user"}}
    transcript.write_text(json.dumps(line) + "\n", encoding="utf-8")
    data = {"session_id": "s1", "transcript_path": str(transcript), "cwd": project, "prompt": QUERY}
    result = run_hook("user-prompt-submit", data, environment=read_environment(env))
    assert result.output is not None
    context = result.output["hookSpecificOutput"]["additionalContext"]
    wrapped = version == "2.1.88"  # the later release wraps hook context itself and gets plain text
    assert tags(context) == (REMINDER * 3 if wrapped else [])
    assert PAYLOAD in context and "written by a teammate" in context


def test_memdir_recall_on_the_command_line_prints_no_tag_from_a_memory(memory: Path, env: dict[str, str]) -> None:
    runner = CliRunner(env={**env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": None})
    done = runner.invoke(cli, ["--memory-dir", str(memory), "recall", QUERY, "--selector", "lexical"])
    assert done.exit_code == 0, done.output
    assert "‹/system-reminder›" in done.stdout and PAYLOAD in done.stdout
    assert tags(done.stdout) in ([], REMINDER * 3)


def test_the_index_and_team_index_in_the_user_context_hold_only_their_own_wrappers(
    project: str, env: dict[str, str], memory: Path
) -> None:
    config = resolve_config(project, env={**env, "MEMDIR_TEAM_SERVER": "http://127.0.0.1:9"})
    session = MemorySession(config)
    own, team = session.index_blocks()
    assert "Deploy checklist" in own and PAYLOAD in team
    assert tags(own) == [] and tags(team) == ["<teammemorycontent", "</teammemorycontent"]
    context = session.user_context()
    assert context is not None
    assert tags(context) == ["<systemreminder", "<teammemorycontent", "</teammemorycontent", "</systemreminder"]


def test_mcp_recall_read_list_and_resources_hand_the_client_no_tag(
    project: str, env: dict[str, str], memory: Path
) -> None:
    server = create_server(resolve_config(project, memory_dir=str(memory), env=env), selector=LexicalSelector())

    async def body(client: Client) -> list[str]:
        seen = []
        recalled = await client.call_tool("recall", {"query": QUERY})
        seen.append(recalled.content[0].text)
        seen.append(json.dumps(recalled.structured_content, ensure_ascii=False))
        for file in ("project_deploy_checklist.md", "project_deploy_rota.md", "team/deploy_freeze.md"):
            read = await client.call_tool("read", {"file": file})
            seen.append(read.content[0].text)
            resource = await client.read_resource(MEMORY_URI_PREFIX + file)
            seen.append(resource.contents[0].text)
        listed = await client.call_tool("list", {})
        seen.append(json.dumps(listed.structured_content, ensure_ascii=False))
        seen.append((await client.read_resource(INDEX_URI)).contents[0].text)
        resources = await client.list_resources()
        seen.append(" ".join(f"{r.title} {r.description}" for r in resources.resources))
        return seen

    async def main() -> list[str]:
        with anyio.fail_after(30):
            async with Client(server) as client:
                return await body(client)

    seen = anyio.run(main)
    assert tags(seen[0]) == REMINDER * 3
    assert tags(seen[1].replace("\\n", "\n")) == REMINDER * 3
    for text in seen[2:]:
        assert tags(text.replace("\\n", "\n")) == [], text
    assert PAYLOAD in seen[0] and PAYLOAD in seen[2]


def test_the_manifest_a_selecting_model_reads_holds_no_tag(memory: Path) -> None:
    model = ScriptedModel([{"json": {"selected_memories": ["project_deploy_rota.md"]}}])
    selection = LLMSelector(model).select(SelectionRequest(query=QUERY, candidates=MemoryDir(memory).scan()))
    assert selection.files == ("project_deploy_rota.md",)
    [sent] = model.requests
    text = sent.messages[0].text
    assert "Deploy checklist" in text and tags(text) == []


def test_the_memory_tool_and_the_agents_file_tools_show_files_without_tags(memory: Path) -> None:
    view = MemoryCommands(MemoryDir(memory)).view("/memories/project_deploy_checklist.md")
    assert PAYLOAD in view and tags(view) == []
    tools = {tool.spec.name: tool for tool in MemoryFileTools(MemoryDir(memory)).tools()}
    read = tools["Read"]({"file_path": "project_deploy_rota.md"})
    assert not read.is_error and PAYLOAD in read.content
    assert tags(read.content) == []
    grep = tools["Grep"]({"pattern": "reminder", "output_mode": "content"})
    assert not grep.is_error and "system" in grep.content and tags(grep.content) == []


def test_an_agents_memory_prompt_shows_its_index_without_tags(tmp_path: Path, env: dict[str, str]) -> None:
    agent = AgentMemory.resolve("reviewer", AgentScope.PROJECT, environment=read_environment(env), cwd=str(tmp_path))
    write_hostile_store(Path(agent.dir), team=False)
    prompt = agent.prompt()
    assert "Deploy checklist" in prompt and tags(prompt) == []
