import json
import os
import sys

import anyio
import pytest
from mcp import Client, StdioServerParameters

from memdir.config import resolve_config
from memdir.integrations.mcp.server import create_server
from memdir.llm import FORBID_ENV_VAR

TIMEOUT = 30


@pytest.fixture
def server(tmp_path, env):
    config = resolve_config(str(tmp_path), memory_dir=str(tmp_path / "mem"), env=env)
    return create_server(config)


def run(server, body):
    async def main():
        with anyio.fail_after(TIMEOUT):
            async with Client(server) as client:
                return await body(client)

    return anyio.run(main)


REMEMBER = {
    "type": "feedback",
    "name": "Real DB in tests",
    "description": "Integration tests hit a real database, never mocks",
    "body": "A mocked database hid a broken migration.",
}


def test_tools_carry_read_only_and_destructive_hints(server):
    async def body(client):
        return {t.name: t for t in (await client.list_tools()).tools}

    tools = run(server, body)
    assert set(tools) == {"recall", "remember", "update", "forget", "list", "read", "history", "restore"}
    for name in ("recall", "list", "read", "history"):
        assert tools[name].annotations.read_only_hint is True
    assert tools["remember"].annotations.read_only_hint is False
    assert tools["remember"].annotations.destructive_hint is False
    assert tools["forget"].annotations.destructive_hint is True
    assert tools["update"].annotations.destructive_hint is True
    assert tools["restore"].annotations.destructive_hint is True
    assert list(tools["remember"].input_schema["properties"])[:4] == ["type", "name", "description", "body"]


def test_tool_schemas_say_which_arguments_are_required_and_which_types_exist(server):
    async def body(client):
        return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    schemas = run(server, body)
    assert schemas["remember"]["required"] == ["type", "name", "description"]
    assert schemas["remember"]["properties"]["type"]["enum"] == ["user", "feedback", "project", "reference"]
    assert schemas["update"]["required"] == ["file"] and schemas["read"]["required"] == ["file"]
    assert schemas["recall"]["required"] == ["query"] and "required" not in schemas["list"]


def test_remember_reports_the_file_and_index_line_it_wrote(server, tmp_path):
    async def body(client):
        return await client.call_tool("remember", REMEMBER)

    result = run(server, body)
    assert result.is_error is False
    payload = json.loads(result.content[0].text)
    assert payload == result.structured_content
    assert payload["status"] == "created"
    assert payload["file"] == "feedback_real_db_in_tests.md"
    assert payload["index_changed"] is True
    line = "- [Real DB in tests](feedback_real_db_in_tests.md) — Integration tests hit a real database, never mocks"
    assert payload["index_line"] == line
    assert (tmp_path / "mem" / "MEMORY.md").read_text(encoding="utf-8") == line + "\n"
    text = (tmp_path / "mem" / "feedback_real_db_in_tests.md").read_text(encoding="utf-8")
    assert "type: feedback" in text and text.endswith("A mocked database hid a broken migration.\n")


def test_argument_names_models_commonly_use_are_accepted(server, tmp_path):
    async def body(client):
        saved = await client.call_tool(
            "remember",
            {"memory_type": "User", "title": "Role", "summary": "Leads the payments team", "content": "Prefers terse"},
        )
        read = await client.call_tool("read", {"path": "user_role.md"})
        by_title = await client.call_tool("read", {"filename": "Role"})
        recalled = await client.call_tool("recall", {"q": "who leads the payments team"})
        return saved, read, by_title, recalled

    saved, read, by_title, recalled = run(server, body)
    assert saved.is_error is False and saved.structured_content["file"] == "user_role.md"
    assert "Prefers terse" in read.content[0].text
    assert by_title.content[0].text == read.content[0].text
    assert "<system-reminder>" in recalled.content[0].text
    assert recalled.structured_content["files"] == ["user_role.md"]


def test_a_refused_write_names_the_rule_and_sets_is_error(server):
    async def body(client):
        await client.call_tool("remember", REMEMBER)
        again = await client.call_tool("remember", REMEMBER)
        no_desc = await client.call_tool("remember", {"type": "user", "name": "x", "description": " "})
        bad_type = await client.call_tool("remember", {**REMEMBER, "type": "opinion", "name": "Other"})
        escape = await client.call_tool("remember", {**REMEMBER, "file": "../outside.md"})
        return again, no_desc, bad_type, escape

    again, no_desc, bad_type, escape = run(server, body)
    assert again.is_error is True
    assert again.structured_content["rule"] == "exists"  # the same memory again: its file is there
    assert "force" in again.structured_content["message"]
    assert no_desc.is_error and no_desc.structured_content["rule"] in ("missing-description", "missing-argument")
    assert bad_type.is_error and bad_type.structured_content["rule"] == "invalid-type"
    assert escape.is_error and escape.structured_content["rule"] == "outside-root"


def test_remember_saves_and_names_what_may_already_say_it_and_refuses_only_a_copy(server, tmp_path):
    reworded = {
        **REMEMBER,
        "name": "Real database in tests",
        "description": "Integration tests must use a real database and never mock it",
        "file": "feedback_db.md",
    }
    copy = {**REMEMBER, "name": "DB rule", "file": "feedback_copy.md"}

    async def body(client):
        await client.call_tool("remember", REMEMBER)
        saved = await client.call_tool("remember", reworded)
        refused = await client.call_tool("remember", copy)
        forced = await client.call_tool("remember", {**copy, "force": True})
        return saved, refused, forced

    saved, refused, forced = run(server, body)
    payload = saved.structured_content
    assert saved.is_error is False and payload["status"] == "created" and payload["file"] == "feedback_db.md"
    assert [near["file"] for near in payload["near"]] == ["feedback_real_db_in_tests.md"]
    assert payload["near"][0]["description"] == REMEMBER["description"] and "modified" in payload["near"][0]
    assert "call update on that file (e.g. 'feedback_real_db_in_tests.md')" in payload["next"]
    assert "call update on 'feedback_db.md' with replaces: 'feedback_real_db_in_tests.md'" in payload["next"]
    assert refused.is_error is True and refused.structured_content["rule"] == "identical"
    assert not (tmp_path / "mem" / "feedback_copy.md").exists() or forced.structured_content["status"] == "created"
    assert forced.is_error is False and (tmp_path / "mem" / "feedback_copy.md").exists()


def test_remember_and_update_record_that_a_memory_replaces_another(server, tmp_path):
    older = {"type": "project", "name": "On call", "description": "Dana is on call for atlas this week"}
    newer = {"type": "project", "name": "Pager handover", "description": "Kenji has the atlas pager"}

    async def body(client):
        await client.call_tool("remember", older)
        saved = await client.call_tool("remember", {**newer, "replaces": "On call"})
        await client.call_tool("remember", {**newer, "name": "Pager again", "description": "Ravi has it"})
        updated = await client.call_tool(
            "update", {"file": "project_pager_again.md", "supersedes": "project_pager_handover.md"}
        )
        itself = await client.call_tool(
            "update", {"file": "project_pager_again.md", "replaces": "project_pager_again.md"}
        )
        return saved, updated, itself

    saved, updated, itself = run(server, body)
    assert saved.is_error is False and "near" not in saved.structured_content
    text = (tmp_path / "mem" / "project_pager_handover.md").read_text(encoding="utf-8")
    assert "\nreplaces: [project_on_call.md]\n" in text
    assert updated.structured_content["changed"] == ["replaces"]
    assert "replaces: [project_pager_handover.md]" in (tmp_path / "mem" / "project_pager_again.md").read_text(
        encoding="utf-8"
    )
    assert itself.is_error and itself.structured_content["rule"] == "relation"


def test_update_changes_only_the_given_fields_and_keeps_the_index_in_step(server, tmp_path):
    async def body(client):
        await client.call_tool("remember", REMEMBER)
        changed = await client.call_tool(
            "update", {"file": "feedback_real_db_in_tests", "description": "Tests use the real Postgres"}
        )
        appended = await client.call_tool("update", {"file": "feedback_real_db_in_tests.md", "append": "Also CI."})
        same = await client.call_tool("update", {"file": "feedback_real_db_in_tests.md", "name": "Real DB in tests"})
        return changed, appended, same

    changed, appended, same = run(server, body)
    assert changed.structured_content["changed"] == ["description"]
    assert changed.structured_content["index_line"].endswith("— Tests use the real Postgres")
    assert appended.structured_content["changed"] == ["body"]
    assert same.structured_content == {"status": "unchanged", "file": "feedback_real_db_in_tests.md", "changed": []}
    index = (tmp_path / "mem" / "MEMORY.md").read_text(encoding="utf-8")
    assert index.count("\n") == 1 and "Tests use the real Postgres" in index
    text = (tmp_path / "mem" / "feedback_real_db_in_tests.md").read_text(encoding="utf-8")
    assert text.endswith("A mocked database hid a broken migration.\nAlso CI.\n")


def test_forget_deletes_the_file_and_its_index_line(server, tmp_path):
    async def body(client):
        await client.call_tool("remember", REMEMBER)
        gone = await client.call_tool("forget", {"file": "feedback_real_db_in_tests.md"})
        again = await client.call_tool("forget", {"file": "feedback_real_db_in_tests.md"})
        listed = await client.call_tool("list", {})
        return gone, again, listed

    gone, again, listed = run(server, body)
    assert gone.structured_content["deleted"] is True and gone.structured_content["index_changed"] is True
    assert again.is_error and again.structured_content["rule"] == "not-found"
    assert listed.structured_content["memories"] == []
    assert not (tmp_path / "mem" / "feedback_real_db_in_tests.md").exists()


def test_resources_list_the_index_and_every_memory(server):
    async def body(client):
        await client.call_tool("remember", REMEMBER)
        await client.call_tool("remember", {**REMEMBER, "name": "Nested", "file": "topics/nested.md", "force": True})
        listed = await client.list_resources()
        templates = await client.list_resource_templates()
        index = await client.read_resource("memdir://index")
        nested = await client.read_resource("memdir://memory/topics/nested.md")
        return listed, templates, index, nested

    listed, templates, index, nested = run(server, body)
    uris = {r.uri for r in listed.resources}
    assert uris == {
        "memdir://index",
        "memdir://memory/feedback_real_db_in_tests.md",
        "memdir://memory/topics/nested.md",
    }
    assert templates.resource_templates[0].uri_template == "memdir://memory/{+file}"
    assert "(topics/nested.md)" in index.contents[0].text
    assert "name: Nested" in nested.contents[0].text


def test_the_memory_instructions_prompt_names_the_directory(server, tmp_path):
    async def body(client):
        prompts = await client.list_prompts()
        got = await client.get_prompt("memory_instructions")
        return prompts, got

    prompts, got = run(server, body)
    assert [p.name for p in prompts.prompts] == ["memory_instructions"]
    text = got.messages[0].content.text
    assert text.startswith("# auto memory")
    assert str(tmp_path / "mem") in text


def test_recall_without_a_query_is_refused_with_a_rule(server):
    async def body(client):
        return await client.call_tool("recall", {})

    result = run(server, body)
    assert result.is_error and result.structured_content["rule"] == "missing-argument"


def test_memdir_mcp_serves_over_a_real_stdio_subprocess(tmp_path, env):
    mem = tmp_path / "mem"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memdir.cli", "--memory-dir", str(mem), "mcp"],
        env={**env, FORBID_ENV_VAR: "1", "PYTHONPATH": os.pathsep.join(sys.path)},
        cwd=str(tmp_path),
    )

    async def main():
        with anyio.fail_after(TIMEOUT):
            async with Client(params) as client:
                saved = await client.call_tool("remember", REMEMBER)
                recalled = await client.call_tool("recall", {"query": "should the integration tests mock the database"})
                tools = await client.list_tools()
                return saved, recalled, tools

    saved, recalled, tools = anyio.run(main)
    assert saved.structured_content["status"] == "created"
    assert "A mocked database hid a broken migration." in recalled.content[0].text
    assert "A mocked database hid a broken migration." in recalled.structured_content["text"]
    assert len(tools.tools) == 8
    assert (mem / "MEMORY.md").read_text(encoding="utf-8").startswith("- [Real DB in tests]")


def _visible_to_a_model(result):
    """What Claude Code shows the model: the structured result as JSON when there is one, else the text."""
    if result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return "".join(block.text for block in result.content)


def test_every_tool_result_shows_claude_code_what_its_text_says(tmp_path, env):
    mem = tmp_path / "mem"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memdir.cli", "--memory-dir", str(mem), "mcp"],
        env={**env, FORBID_ENV_VAR: "1", "PYTHONPATH": os.pathsep.join(sys.path)},
        cwd=str(tmp_path),
    )

    async def main():
        with anyio.fail_after(TIMEOUT):
            async with Client(params) as client:
                tools = (await client.list_tools()).tools
                results = [
                    await client.call_tool("remember", REMEMBER),
                    await client.call_tool("recall", {"query": "should the integration tests mock the database"}),
                    await client.call_tool("recall", {"query": "what is the weather on mars today"}),
                    await client.call_tool("read", {"file": "feedback_real_db_in_tests.md"}),
                    await client.call_tool("list", {}),
                    await client.call_tool("update", {"file": "feedback_real_db_in_tests.md", "append": "Still true."}),
                    await client.call_tool("remember", {**REMEMBER, "type": "opinion"}),
                    await client.call_tool("forget", {"file": "feedback_real_db_in_tests.md"}),
                ]
                return tools, results

    tools, results = anyio.run(main)
    for result in results:
        text = "".join(block.text for block in result.content)
        structured = result.structured_content
        assert text == json.dumps(structured, indent=2, ensure_ascii=False) or text in structured.values()
    recalled = _visible_to_a_model(results[1])
    assert "A mocked database hid a broken migration." in recalled
    assert "feedback_real_db_in_tests.md:" in recalled
    assert "A mocked database hid a broken migration." in _visible_to_a_model(results[3])
    for tool in tools:
        # A declared output schema would make clients insist on structured results matching it.
        assert tool.output_schema is None


def free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_memdir_mcp_serves_streamable_http(tmp_path, env):
    import queue
    import subprocess
    import threading

    port = free_port()
    mem = tmp_path / "mem"
    process = subprocess.Popen(
        [sys.executable, "-m", "memdir.cli", "--memory-dir", str(mem), "mcp", "--http", "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "PATH": os.environ.get("PATH", ""), FORBID_ENV_VAR: "1", "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stderr], daemon=True).start()
    try:
        line = ""
        while "claude mcp add" not in line:
            line = lines.get(timeout=TIMEOUT)
        token = line.rsplit("Bearer ", 1)[1].strip().rstrip('"')

        async def main():
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            with anyio.fail_after(TIMEOUT):
                async with (
                    create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
                    Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client,
                ):
                    saved = await client.call_tool("remember", REMEMBER)
                    listed = await client.call_tool("list", {})
                    return saved, listed

        saved, listed = anyio.run(main)
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)
        process.stderr.close()
    assert saved.structured_content["status"] == "created"
    assert [m["file"] for m in listed.structured_content["memories"]] == ["feedback_real_db_in_tests.md"]


@pytest.mark.parametrize(
    ("version", "header"),
    [("2.1.88", "Memory (saved today): "), ("2.1.330", "Memory: ")],
)
def test_recall_over_stdio_writes_the_header_of_the_claude_code_release_in_use(tmp_path, env, version, header):
    claude = tmp_path / "claude"
    claude.mkdir()
    (claude / "settings.json").write_text(json.dumps({"memdir": {"claudeCodeVersion": version}}), encoding="utf-8")
    mem = tmp_path / "mem"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memdir.cli", "--memory-dir", str(mem), "mcp"],
        env={**env, FORBID_ENV_VAR: "1", "PYTHONPATH": os.pathsep.join(sys.path)},
        cwd=str(tmp_path),
    )

    async def main():
        with anyio.fail_after(TIMEOUT):
            async with Client(params) as client:
                await client.call_tool("remember", REMEMBER)
                return await client.call_tool("recall", {"query": "should the integration tests mock the database"})

    text = anyio.run(main).structured_content["text"]
    path = str(mem / "feedback_real_db_in_tests.md")
    assert f"{header}{path}:" in text
    if version == "2.1.330":
        assert "saved today" not in text


def test_history_names_the_mcp_client_and_restore_brings_a_forgotten_memory_back(server, tmp_path):
    async def body(client):
        await client.call_tool("remember", REMEMBER)
        await client.call_tool("update", {"file": "feedback_real_db_in_tests.md", "append": "Second line."})
        await client.call_tool("forget", {"file": "feedback_real_db_in_tests.md"})
        history = await client.call_tool("history", {"file": REMEMBER["name"]})  # a deleted memory, by its title
        restored = await client.call_tool("restore", {"file": "feedback_real_db_in_tests", "version": 2})
        read = await client.call_tool("read", {"file": "feedback_real_db_in_tests.md"})
        return history, restored, read

    history, restored, read = run(server, body)
    versions = json.loads(history.content[0].text)["versions"]
    assert [(v["version"], v["change"]) for v in versions] == [(3, "delete"), (2, "edit"), (1, "create")]
    assert {v["by"] for v in versions} == {versions[0]["by"]} and versions[0]["by"].startswith("mcp:")
    assert json.loads(restored.content[0].text)["version"] == 4
    assert (tmp_path / "mem" / "feedback_real_db_in_tests.md").read_text(encoding="utf-8").endswith("Second line.\n")
    assert "feedback_real_db_in_tests.md" in (tmp_path / "mem" / "MEMORY.md").read_text(encoding="utf-8")
    payload = read.structured_content
    assert payload["origin"]["by"].startswith("mcp:") and payload["lastChange"]["version"] == 4


def test_remember_warns_when_the_description_is_longer_than_doctor_accepts(server):
    async def body(client):
        long = await client.call_tool(
            "remember", {"type": "project", "name": "Long", "description": "word " * 250, "body": "x"}
        )
        short = await client.call_tool("remember", {"type": "project", "name": "Short", "description": "short one"})
        return long, short

    long, short = run(server, body)
    assert long.is_error is False and "long-description" in long.structured_content["warning"]
    assert "warning" not in short.structured_content


def test_update_warns_when_the_new_description_is_longer_than_doctor_accepts(server):
    async def body(client):
        saved = await client.call_tool(
            "remember", {"type": "project", "name": "Freeze", "description": "short", "body": "x"}
        )
        file = saved.structured_content["file"]
        long = await client.call_tool("update", {"file": file, "description": "word " * 250})
        short = await client.call_tool("update", {"file": file, "description": "short again"})
        return long, short

    long, short = run(server, body)
    assert long.is_error is False and "long-description" in long.structured_content["warning"]
    assert "update" in long.structured_content["warning"] and "warning" not in short.structured_content
