"""memdir's Claude Code plugin, installed, used and uninstalled by the real CLI of each tested release.

The repository is a plugin marketplace (``.claude-plugin/marketplace.json``, the plugin in
``plugin/``): ``claude plugin marketplace add <checkout>`` then ``claude plugin install
memdir@memdir``. Installed, a prompt gets memdir's recall from the UserPromptSubmit hook, the
model is offered memdir's MCP tools and can call them, and the end of the session starts an
extraction; uninstalled, none of that is left. Without the ``memdir`` command the plugin's hooks
tell the person, once and in one line, how to install it, and the session goes on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_claude_code_interop import DEPLOY_BODY, QUERY, hook_system_messages, seed, texts, tool_results

from conftest import SYSTEM_PATH, Outcome, Sandbox

pytestmark = pytest.mark.timeout(300)

REPOSITORY = Path(__file__).resolve().parents[2]
PLUGIN = "memdir@memdir"
PREFIX = "mcp__plugin_memdir_memdir__"
TOOLS = ("recall", "remember", "update", "forget", "list", "read", "history", "restore")
HOOK_CONTEXT = "UserPromptSubmit hook additional context"
AGAIN = "Once more, when can we deploy the api?"  # holds no QUERY: the two sessions' requests stay apart
HINT = "memdir plugin: the memdir command was not found; install it with: pipx install"


def install_steps(sandbox: Sandbox) -> list[dict[str, Any]]:
    return [
        sandbox.claude_raw("plugin", "marketplace", "add", str(REPOSITORY)),
        sandbox.claude_raw("plugin", "install", PLUGIN),
    ]


def recall_tool_rules() -> list[dict[str, Any]]:
    """Call the plugin's recall tool once (found through ToolSearch where the release defers MCP tools)."""
    recall = {"tool_use": {"name": PREFIX + "recall", "input": {"query": QUERY}}}
    search = {"tool_use": {"name": "ToolSearch", "input": {"query": f"select:{PREFIX}recall", "max_results": 1}}}
    return [
        {"when": {"has_tool": PREFIX + "recall", "not_called": PREFIX + "recall"}, "reply": recall},
        {"when": {"has_tool": "ToolSearch", "not_called": "ToolSearch"}, "reply": search},
    ]


def offered_tools(body: dict[str, Any]) -> set[str]:
    """memdir's tools the model is offered: as tools, or named in the list of deferred ones (a
    system text or a text block of a user message; never the model's own calls or their results)."""
    told = [texts(body.get("system"))] + [
        texts(block)
        for message in body["messages"]
        if message.get("role") != "assistant"
        for block in (message["content"] if isinstance(message["content"], list) else [message["content"]])
        if not (isinstance(block, dict) and block.get("type") == "tool_result")
    ]
    offered = {tool["name"] for tool in body.get("tools") or []}
    return {tool for tool in TOOLS if PREFIX + tool in offered or any(PREFIX + tool in text for text in told)}


def extract_log(sandbox: Sandbox) -> Path:
    return sandbox.home / ".claude" / "memdir" / "logs" / "extract.log"


@pytest.fixture(scope="module")
def installed_then_removed(release: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Sandbox, Outcome]:
    """Install the plugin, ask a question (with a model set, so the session's end extracts), then
    uninstall it and ask again. Run once per release; each check reads its part."""
    sandbox = Sandbox(release, tmp_path_factory.mktemp("plugin"))
    asked = sandbox.claude(QUERY, "--allowedTools", f"{PREFIX}recall,ToolSearch")
    asked["env"] = {"MEMDIR_MODEL": "anthropic:claude-sonnet-4-6"}
    extracted = {"path": str(extract_log(sandbox)), "contains": " extract [pid ", "count": 1}
    steps = [
        *seed(sandbox),
        *install_steps(sandbox),
        sandbox.claude_raw("plugin", "list"),
        asked,
        {"argv": [], "await_lines": extracted, "timeout": 60},
        sandbox.claude_raw("plugin", "uninstall", PLUGIN),
        sandbox.claude_raw("plugin", "list"),
        {"argv": ["cat", str(extract_log(sandbox))], "timeout": 10},
        sandbox.claude(AGAIN, "--allowedTools", f"{PREFIX}recall,ToolSearch"),
    ]
    return sandbox, sandbox.run(steps, recall_tool_rules())


# step indexes in installed_then_removed
LISTED, UNINSTALLED, LISTED_AFTER, LOG_AFTER, ASKED_AGAIN = 4, 7, 8, 9, 10


def requests_holding(outcome: Outcome, prompt: str) -> list[dict[str, Any]]:
    """The agent-loop requests of the session asked ``prompt``."""
    return [b for b in outcome.main_requests() if prompt in texts(b["messages"])]


def test_the_installed_plugin_is_listed_enabled(installed_then_removed: tuple[Sandbox, Outcome]) -> None:
    _sandbox, outcome = installed_then_removed
    listed = outcome.step(LISTED)["stdout"]
    assert PLUGIN in listed and "enabled" in listed.split(PLUGIN, 1)[1].split("❯", 1)[0], listed


def test_a_prompt_gets_memdirs_recall_from_the_plugins_hook(installed_then_removed: tuple[Sandbox, Outcome]) -> None:
    _sandbox, outcome = installed_then_removed
    first = requests_holding(outcome, QUERY)[0]
    everything = texts(first["messages"])
    assert HOOK_CONTEXT in everything and DEPLOY_BODY in everything, everything[-3000:]


def test_the_model_is_offered_memdirs_tools_and_its_recall_tool_answers(
    installed_then_removed: tuple[Sandbox, Outcome],
) -> None:
    _sandbox, outcome = installed_then_removed
    requests = requests_holding(outcome, QUERY)
    assert offered_tools(requests[0]) == set(TOOLS), offered_tools(requests[0])
    results = tool_results(requests[-1])
    assert any(DEPLOY_BODY in result for result in results), results


def test_the_end_of_a_session_starts_memdirs_extraction(installed_then_removed: tuple[Sandbox, Outcome]) -> None:
    sandbox, _outcome = installed_then_removed
    logged = extract_log(sandbox).read_text(encoding="utf-8")
    assert " hook session-end [pid " in logged and " extract [pid " in logged, logged


def test_uninstalling_the_plugin_leaves_no_recall_no_tools_and_no_hook(
    installed_then_removed: tuple[Sandbox, Outcome],
) -> None:
    sandbox, outcome = installed_then_removed
    assert "Successfully uninstalled" in outcome.step(UNINSTALLED)["stdout"], outcome.describe(UNINSTALLED)
    assert PLUGIN not in outcome.step(LISTED_AFTER)["stdout"], outcome.describe(LISTED_AFTER)
    settings = json.loads((sandbox.home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert PLUGIN not in settings.get("enabledPlugins", {}), settings
    later = requests_holding(outcome, AGAIN)
    assert later, outcome.describe(ASKED_AGAIN)
    for body in later:
        assert HOOK_CONTEXT not in texts(body["messages"])
        assert not offered_tools(body), offered_tools(body)
    before, after = outcome.step(LOG_AFTER)["stdout"], extract_log(sandbox).read_text(encoding="utf-8")
    assert after.count(" hook ") == before.count(" hook ") > 0, after


def test_without_memdir_the_plugin_says_once_how_to_install_it_and_the_session_goes_on(sandbox: Sandbox) -> None:
    argv = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
    turn = {"stdin": json.dumps({"type": "user", "message": {"role": "user", "content": QUERY}})}
    session = {**sandbox.claude_raw(*argv), "turns": [turn], "env": {"PATH": f"{sandbox.bin}:{SYSTEM_PATH}"}}
    outcome = sandbox.run([*install_steps(sandbox), session], rules=[])

    ran = outcome.step(2)
    assert ran["rc"] == 0 and ran["turns"][0]["ended"], outcome.describe(2)
    said = hook_system_messages(ran["stdout"])
    assert len(said) == 1 and said[0].startswith(HINT) and "\n" not in said[0], said
    last = json.loads(ran["stdout"].splitlines()[-1])
    assert last["type"] == "result" and last["result"] == "OK.", last
    assert outcome.main_requests() and all(HINT not in json.dumps(b) for b in outcome.messages_requests())
