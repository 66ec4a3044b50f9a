"""memdir and the real Claude Code CLI share one memory, in both directions, for each tested release.

Each test runs the CLI in print mode against a scripted Messages API inside a loopback-only network
namespace (see conftest), then checks what reached the model or what landed on disk. The model is
scripted by rules on the request (first match wins): e.g. "offers the Write tool and no tool has
run yet: write this file".
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from _install import Release
from _llm_wire import WireServer, anthropic_message
from _sandbox import system_text

from conftest import Outcome, Sandbox
from memdir.session_notes.paths import load_session_template

pytestmark = pytest.mark.timeout(300)

# Checks memdir does not pass yet for a release, with the reason. Such a check is expected to fail
# (strict): once the fix lands it passes, the strict xfail fails, and the entry must go.
PENDING: dict[tuple[str, str], str] = {}

QUERY = "When can we deploy the api?"
DEPLOY_BODY = "Deploys happen on Tuesdays between 10:00 and 12:00 UTC."
ROLE_BODY = "The user has written Go for ten years."


def expect_pending(request: pytest.FixtureRequest, check: str) -> None:
    reason = PENDING.get((request.node.callspec.params["release"], check))
    if reason is not None:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))


def seed(sandbox: Sandbox) -> list[dict[str, Any]]:
    """Steps that save two memories with memdir, as a user of memdir would."""
    return [
        sandbox.memdir(
            "add", "--type", "project", "--name", "Deploy window", "--description",
            "Deploys only on Tuesday mornings", "--body", "-", stdin=DEPLOY_BODY + "\n",
        ),
        sandbox.memdir(
            "add", "--type", "user", "--name", "Role", "--description", "Senior Go engineer",
            "--body", "-", stdin=ROLE_BODY + "\n",
        ),
    ]  # fmt: skip


def strings(value: Any) -> list[str]:
    """Every string inside a request part, one by one."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    return []


def texts(value: Any) -> str:
    """Every string inside a request part, joined: what the model reads, wherever it sits."""
    return "\n".join(strings(value))


def tool_results(body: dict[str, Any]) -> list[str]:
    return [
        texts(block.get("content"))
        for message in body["messages"]
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


# -- memdir -> Claude Code -------------------------------------------------------------------------


def test_memdirs_memory_path_and_index_reach_claude_codes_prompt(sandbox: Sandbox) -> None:
    outcome = sandbox.run([*seed(sandbox), sandbox.claude("hello there")], rules=[])
    memory = sandbox.memory_dir()
    index = (memory / "MEMORY.md").read_text(encoding="utf-8")
    [main] = outcome.main_requests()
    assert f"`{memory}/`" in system_text(main)
    everything = texts(main["messages"])
    assert f"Contents of {memory}/MEMORY.md" in everything
    assert index.strip() in everything


# -- Claude Code -> memdir -------------------------------------------------------------------------


def write_memory_rules(memory: Path, filename: str, name: str, description: str, body: str) -> list[dict[str, Any]]:
    """The model saves one memory the way the release's own prompt tells it to, then the index line."""
    nested = f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: reference\n---\n\n{body}\n"
    flat = f"---\nname: {name}\ndescription: {description}\ntype: reference\n---\n\n{body}\n"
    index = f"- [{name}]({filename}) — {description}\n"

    def write(path: Path, content: str) -> dict[str, Any]:
        return {"tool_use": {"name": "Write", "input": {"file_path": str(path), "content": content}}}

    nested_layout = {"has_tool": "Write", "tool_results": 0, "system_has": "metadata:\n  type:"}
    return [
        {"when": nested_layout, "reply": write(memory / filename, nested)},
        {"when": {"has_tool": "Write", "tool_results": 0}, "reply": write(memory / filename, flat)},
        {"when": {"has_tool": "Write", "tool_results": 1}, "reply": write(memory / "MEMORY.md", index)},
        {"when": {"has_tool": "Write", "tool_results": 2}, "reply": {"text": "Saved."}},
    ]


STAGING = ("reference_staging_db.md", "staging-database", "Staging runs on db-stage-2 since the migration")
STAGING_BODY = "The staging environment uses the database host db-stage-2."


def test_a_memory_claude_code_writes_is_read_right_by_memdir(sandbox: Sandbox, request: pytest.FixtureRequest) -> None:
    memory = sandbox.memory_dir()
    rules = write_memory_rules(memory, *STAGING, STAGING_BODY)
    outcome = sandbox.run([sandbox.claude("Remember that staging uses db-stage-2")], rules)
    assert outcome.result(0)["result"] == "Saved."
    written = (memory / STAGING[0]).read_text(encoding="utf-8")
    assert STAGING_BODY in written
    expect_pending(request, "written-file")

    listed = json.loads(sandbox.memdir_here("list", "--json").stdout)
    [entry] = [e for e in listed if e["file"] == STAGING[0]]
    assert (entry["name"], entry["description"], entry["type"]) == (STAGING[1], STAGING[2], "reference")
    shown = sandbox.memdir_here("show", STAGING[0])
    assert shown.returncode == 0 and STAGING_BODY in shown.stdout
    doctor = sandbox.memdir_here("doctor", "--json")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    recalled = json.loads(sandbox.memdir_here("recall", "which database host does staging use", "--json").stdout)
    assert STAGING[0] in json.dumps(recalled)


# -- the relevance side query ----------------------------------------------------------------------

SELECT_SYSTEM = "You are selecting memories"


def manifest_of(body: dict[str, Any]) -> str:
    """The manifest block of a selection request: the lines after "Available memories:"."""
    for text in strings(body["messages"]):
        match = re.search(r"Available memories:\n(.*?)(?:\n\n|\Z)", text, re.S)
        if match:
            return match.group(1)
    raise AssertionError(f"no manifest in {body['messages']}")


def recall_rules(readme: Path) -> list[dict[str, Any]]:
    """Answer the side query, and keep the turn going with two reads so its result gets delivered."""
    read = {"tool_use": {"name": "Read", "input": {"file_path": str(readme)}}}
    selection = {"json": {"selected_memories": ["project_deploy_window.md"]}}
    return [
        {"name": "select", "when": {"has_tools": False, "system_has": SELECT_SYSTEM}, "reply": selection},
        {"when": {"has_tool": "Read", "tool_results": 0}, "wait_for": "select", "reply": read},
        {"when": {"has_tool": "Read", "tool_results": 1}, "reply": read},
        {"when": {"has_tool": "Read", "tool_results": 2}, "reply": {"text": "On Tuesdays."}},
    ]


@pytest.fixture(scope="module")
def recalled(release: Release, tmp_path_factory: pytest.TempPathFactory) -> tuple[Sandbox, Path, Outcome]:
    """memdir saves two memories, Claude Code writes a third, then answers a question with recall on.

    Run once per release and shared by the checks that read its side query and its delivery.
    """
    sandbox = Sandbox(release, tmp_path_factory.mktemp("recall"))
    memory = sandbox.memory_dir()
    readme = sandbox.project / "README.md"
    readme.write_text("# Demo service\n", encoding="utf-8")
    sandbox.enable_switches(tengu_moth_copse=True)
    first = sandbox.run([*seed(sandbox)], rules=[])
    assert not first.requests
    sandbox.run(
        [sandbox.claude("Remember that staging uses db-stage-2")],
        write_memory_rules(memory, *STAGING, STAGING_BODY),
        growthbook=True,
    )
    asked = sandbox.run([sandbox.claude(QUERY)], recall_rules(readme), growthbook=True)
    return sandbox, memory, asked


def test_the_relevance_side_query_manifest_equals_memdirs(
    recalled: tuple[Sandbox, Path, Outcome], request: pytest.FixtureRequest
) -> None:
    sandbox, _memory, asked = recalled
    [side] = asked.side_queries(SELECT_SYSTEM)
    theirs = manifest_of(side)
    assert STAGING[0] in theirs and "project_deploy_window.md" in theirs
    expect_pending(request, "manifest")

    with WireServer() as wire:
        wire.queue(200, anthropic_message([{"type": "text", "text": '{"selected_memories": []}'}]))
        done = sandbox.memdir_here(
            "recall", QUERY, "--selector", "llm", "--model", "anthropic:claude-sonnet-4-6", "--json",
            extra_env={"ANTHROPIC_BASE_URL": wire.url},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        [ours] = [manifest_of(b) for b in wire.bodies()]
    assert ours == theirs


def test_memdir_recall_shows_a_memory_with_the_path_and_content_this_release_delivers(
    recalled: tuple[Sandbox, Path, Outcome],
) -> None:
    """The memory as the release's own recall hands it to the model, and as memdir recall shows it.

    The lead-in words differ by release (and memdir uses its own); the path line and the file
    content that follow must be the same bytes, so that either side's recall reads the same.
    """
    sandbox, memory, asked = recalled
    last = texts(asked.main_requests()[-1]["messages"])
    path = memory / "project_deploy_window.md"
    ours = sandbox.memdir_here("recall", QUERY, "--selector", "lexical", "--limit", "1").stdout
    block = ours[ours.index(f"{path}:") :]
    assert block.startswith(f"{path}:\n\n---\n") and DEPLOY_BODY in block
    assert block[: block.index(DEPLOY_BODY) + len(DEPLOY_BODY)] in last


def frontmatter_keys(text: str) -> list[str]:
    """The frontmatter's keys, nested ones as ``parent.child``, in file order."""
    head = text.split("\n---\n", 1)[0].removeprefix("---\n")
    keys, parent = [], ""
    for line in head.splitlines():
        name = line.strip().split(":", 1)[0]
        if not line.startswith(" "):
            parent = name
            keys.append(name)
        else:
            keys.append(f"{parent}.{name}")
    return keys


def test_memdir_writes_a_memory_in_the_layout_this_release_writes(recalled: tuple[Sandbox, Path, Outcome]) -> None:
    """memdir finds the release it shares the directory with (here: ``claude --version`` on PATH)."""
    _sandbox, memory, _asked = recalled
    theirs = frontmatter_keys((memory / STAGING[0]).read_text(encoding="utf-8"))
    ours = frontmatter_keys((memory / "project_deploy_window.md").read_text(encoding="utf-8"))
    assert ("metadata" in ours) == ("metadata" in theirs), (ours, theirs)
    assert ("type" in ours) == ("type" in theirs), (ours, theirs)
    assert set(ours) - {"metadata.originSessionId"} <= set(theirs), (ours, theirs)


# -- hooks and MCP ---------------------------------------------------------------------------------


def test_hook_context_from_memdir_hooks_install_reaches_the_model_unescaped(
    sandbox: Sandbox, request: pytest.FixtureRequest
) -> None:
    steps = [*seed(sandbox), sandbox.memdir("hooks", "install", "--scope", "project"), sandbox.claude(QUERY)]
    outcome = sandbox.run(steps, rules=[])
    [main] = outcome.main_requests()
    everything = texts(main["messages"])
    assert "UserPromptSubmit hook additional context" in everything
    assert DEPLOY_BODY in everything
    expect_pending(request, "hook")
    assert "&lt;" not in everything and "&gt;" not in everything


def hook_system_messages(stdout: str) -> list[str]:
    """The ``systemMessage`` of every hook answer a stream-json session printed (what the person sees)."""
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    answers = [e.get("stdout", "") for e in events if e.get("subtype") == "hook_response"]
    return [json.loads(a)["systemMessage"] for a in answers if a.startswith("{") and "systemMessage" in a]


def test_session_start_tells_the_person_not_the_model_how_many_memories_the_cut_index_hides(
    sandbox: Sandbox,
) -> None:
    memory = sandbox.memory_dir()
    memory.mkdir(parents=True, exist_ok=True)
    lines = "".join(f"- [Note {n}](user_note_{n}.md) — note {n}\n" for n in range(206))
    (memory / "MEMORY.md").write_text(lines, encoding="utf-8")
    argv = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
    turn = {"stdin": json.dumps({"type": "user", "message": {"role": "user", "content": QUERY}})}
    session = {**sandbox.claude_raw(*argv), "turns": [turn]}
    outcome = sandbox.run([sandbox.memdir("hooks", "install", "--scope", "project"), session], rules=[])
    [said] = hook_system_messages(outcome.step(1)["stdout"])
    assert "MEMORY.md is cut at line 200" in said and "Claude Code will not see 6 memories" in said, said
    assert outcome.main_requests() and all("memdir doctor" not in json.dumps(b) for b in outcome.messages_requests())


def test_the_prompt_hook_calls_no_model_even_with_memdir_model_set(sandbox: Sandbox) -> None:
    steps = [*seed(sandbox), sandbox.memdir("hooks", "install", "--scope", "project"), sandbox.claude(QUERY)]
    steps[-1]["env"] = {"MEMDIR_MODEL": "anthropic:claude-haiku-4-5"}
    outcome = sandbox.run(steps, rules=[])
    agents = [r["headers"].get("user-agent", "") for r in outcome.requests]
    first_turn = next(i for i, r in enumerate(outcome.requests) if (r["body"] or {}).get("tools"))
    assert all(agent.startswith("claude-cli/") for agent in agents[:first_turn]), agents
    assert DEPLOY_BODY in texts(outcome.requests[first_turn]["body"]["messages"])


def test_mcp_recall_text_reaches_the_model(sandbox: Sandbox) -> None:
    recall = {"tool_use": {"name": "mcp__memdir__recall", "input": {"query": QUERY}}}
    search = {"tool_use": {"name": "ToolSearch", "input": {"query": "select:mcp__memdir__recall", "max_results": 1}}}
    rules = [
        {"when": {"has_tool": "mcp__memdir__recall", "not_called": "mcp__memdir__recall"}, "reply": recall},
        {"when": {"has_tool": "ToolSearch", "not_called": "ToolSearch"}, "reply": search},
    ]
    steps = [
        *seed(sandbox),
        sandbox.claude_raw("mcp", "add", "memdir", "--", str(Path(sandbox.memdir()["argv"][0])), "mcp"),
        sandbox.claude(QUERY, "--allowedTools", "mcp__memdir__recall,ToolSearch"),
    ]
    outcome = sandbox.run(steps, rules)
    last = outcome.main_requests()[-1]
    results = tool_results(last)
    assert any(DEPLOY_BODY in result for result in results), results


# -- memdir's background agents on the transcript Claude Code wrote --------------------------------


def transcript_of(sandbox: Sandbox, session_id: str) -> Path:
    [path] = (sandbox.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl")
    return path


def chat_turn(sandbox: Sandbox) -> Path:
    prompt = "For later: the payments service must never be deployed on Fridays."
    outcome = sandbox.run(
        [sandbox.claude(prompt)],
        [{"when": {"has_tools": True}, "reply": {"text": "Noted: no Friday deploys for payments."}}],
    )
    return transcript_of(sandbox, outcome.result(0)["session_id"])


def tool_use(name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "tool_use", "id": "toolu_01", "name": name, "input": tool_input}
    return anthropic_message([block], stop_reason="tool_use")


def test_memdir_extract_works_on_the_transcript_claude_code_wrote(sandbox: Sandbox) -> None:
    transcript = chat_turn(sandbox)
    memory = sandbox.memory_dir()
    content = (
        "---\nname: No Friday deploys\ndescription: Payments is never deployed on Fridays\ntype: project\n"
        "---\n\nNever deploy payments on a Friday.\n"
    )
    with WireServer() as wire:
        wire.queue(200, tool_use("Write", {"file_path": str(memory / "project_no_friday.md"), "content": content}))
        wire.queue(200, anthropic_message([{"type": "text", "text": "done"}]))
        done = sandbox.memdir_here(
            "extract", "--transcript", str(transcript), "--model", "anthropic:claude-sonnet-4-6", "--json",
            extra_env={"ANTHROPIC_BASE_URL": wire.url},
        )  # fmt: skip
        sent = texts(wire.bodies()[0]["messages"]) if wire.bodies() else ""
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert data["skipped"] is None and data["turns"] >= 2, data
    assert data["written"] == [str(memory / "project_no_friday.md")]
    assert "never be deployed on Fridays" in sent and "Noted: no Friday deploys for payments." in sent


def test_memdir_session_update_works_on_the_transcript_claude_code_wrote(sandbox: Sandbox) -> None:
    transcript = chat_turn(sandbox)
    notes = transcript.parent / transcript.stem / "session-memory" / "summary.md"
    template = load_session_template(str(sandbox.home / ".claude"))
    placeholder = next(line for line in template.splitlines() if line.startswith("_"))
    added = "Payments: no deploys on Fridays (user rule, this session)."
    edit = {"file_path": str(notes), "old_string": placeholder, "new_string": f"{placeholder}\n{added}"}
    with WireServer() as wire:
        wire.queue(200, tool_use("Edit", edit))
        wire.queue(200, anthropic_message([{"type": "text", "text": "done"}]))
        done = sandbox.memdir_here(
            "session", "update", "--transcript", str(transcript), "--force",
            "--model", "anthropic:claude-sonnet-4-6", "--json",
            extra_env={"ANTHROPIC_BASE_URL": wire.url},
        )  # fmt: skip
        sent = texts(wire.bodies()[0]["messages"]) if wire.bodies() else ""
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["edits"] == 1, done.stdout
    assert "never be deployed on Fridays" in sent and "Noted: no Friday deploys for payments." in sent
    shown = sandbox.memdir_here("session", "show", "--transcript", str(transcript))
    assert added in shown.stdout


def compact_summary(transcript: Path) -> str:
    for line in transcript.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry.get("isCompactSummary"):
            return texts(entry["message"]["content"])
    raise AssertionError(f"no compact summary in {transcript}")


def test_claude_code_compact_does_not_take_notes_memdir_never_filled_for_a_summary(
    sandbox: Sandbox, request: pytest.FixtureRequest
) -> None:
    transcript = chat_turn(sandbox)
    with WireServer() as wire:
        wire.queue(200, anthropic_message([{"type": "text", "text": "Nothing worth noting yet."}]))
        done = sandbox.memdir_here(
            "session", "update", "--transcript", str(transcript), "--force",
            "--model", "anthropic:claude-sonnet-4-6", "--json",
            extra_env={"ANTHROPIC_BASE_URL": wire.url},
        )  # fmt: skip
    assert done.returncode == 0 and json.loads(done.stdout)["edits"] == 0, done.stdout + done.stderr
    # 2.1.88 compacts from session notes only when asked to by this variable; later releases ignore it.
    compact = sandbox.claude("/compact", "--resume", transcript.stem)
    compact["env"] = {"ENABLE_CLAUDE_CODE_SM_COMPACT": "1"}
    summary = {"text": "<analysis>Short chat.</analysis>\n<summary>Payments: never deploy on Fridays.</summary>"}
    sandbox.run([compact], [{"when": {}, "reply": summary}])
    expect_pending(request, "blank-notes")
    stored = compact_summary(transcript)
    assert "Payments: never deploy on Fridays." in stored
    placeholder = next(
        line for line in load_session_template(str(sandbox.home / ".claude")).splitlines() if line[:1] == "_"
    )
    assert placeholder not in stored
