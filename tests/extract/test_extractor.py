import asyncio
import logging
import os

import pytest
from _extract_helpers import (
    DONE,
    WAIT,
    AsyncBlockingModel,
    BlockingModel,
    assistant,
    memory_text,
    turn,
    user,
    write,
)

from memdir.config import team_secret_guard
from memdir.extract import Extractor, load_cursor
from memdir.llm import ScriptedModel
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir


@pytest.fixture
def store(tmp_path):
    store = MemoryDir(tmp_path / "mem", write_guards=(team_secret_guard,))
    store.ensure()
    return store


def test_a_run_saves_memories_reports_them_without_the_index_and_moves_the_cursor(store):
    role = os.path.join(store.root, "user_role.md")
    model = ScriptedModel(
        [
            {
                "tool_calls": [
                    {"name": "Write", "input": {"file_path": role, "content": memory_text("Role", "Data scientist")}},
                    {
                        "name": "Write",
                        "input": {"file_path": store.entrypoint, "content": "- [Role](user_role.md) — data\n"},
                    },
                ]
            },
            DONE,
        ]
    )
    extractor = Extractor(model, store)
    conversation = [*turn(1, "I'm a data scientist, mostly pandas."), *turn(2)]
    result = extractor.run_once(conversation)
    assert result.ok and result.skipped is None
    assert result.written == (role,) and result.team_count == 0
    assert result.turns == 2 and result.stopped == "done" and result.message_count == 4
    assert extractor.cursor == "a2" and result.cursor == "a2"
    assert result.summary() == "Saved 1 memory"
    first = model.requests[0]
    assert [t.name for t in first.tools] == ["Read", "Write", "Edit", "Grep", "Glob", "LS", "Delete"]
    assert "~4 messages" in first.system and "~4 messages" in first.messages[0].text
    assert "I'm a data scientist, mostly pandas." in first.messages[0].text
    assert "## Existing memory files" not in first.system  # the store was empty


def test_the_prompt_lists_existing_memories_and_only_the_new_messages(store):
    store.save(Memory(name="Role", description="Backend lead", type=MemoryType.USER, body="Leads payments."))
    model = ScriptedModel([DONE, DONE])
    extractor = Extractor(model, store)
    extractor.run_once(turn(1, "first thing"))
    extractor.run_once([*turn(1, "first thing"), *turn(2, "second thing")])
    second = model.requests[1]
    assert "## Existing memory files\n\n- [user] user_role.md (" in second.system
    assert "second thing" in second.messages[0].text and "first thing" not in second.messages[0].text
    assert "~2 messages" in second.messages[0].text


@pytest.mark.parametrize("target", ["/etc/passwd", "../outside.md", "sub/../../outside.md", "/tmp/elsewhere.md"])
def test_writes_outside_the_directory_are_refused_with_a_tool_error_and_logged(store, target, caplog):
    model = ScriptedModel([write(target, "x"), DONE])
    with caplog.at_level(logging.WARNING, logger="memdir.background"):
        result = Extractor(model, store).run_once(turn(1))
    assert result.ok and result.written == ()
    assert [d.tool for d in result.denied] == ["Write"] and "memory directory" in result.denied[0].reason
    (tool_result,) = model.requests[1].messages[-1].tool_results
    assert tool_result.is_error and "outside the memory directory" in tool_result.content
    assert any("refused Write" in record.getMessage() for record in caplog.records)
    assert not os.path.exists(os.path.join(os.path.dirname(store.root), "outside.md"))


def test_a_symlink_out_of_the_directory_is_refused(store, tmp_path):
    precious = tmp_path / "precious.md"
    precious.write_text("keep", encoding="utf-8")
    os.symlink(precious, os.path.join(store.root, "link.md"))
    model = ScriptedModel([write("link.md", "overwritten"), DONE])
    result = Extractor(model, store).run_once(turn(1))
    assert result.denied and result.written == ()
    assert precious.read_text(encoding="utf-8") == "keep"


def test_an_over_budget_run_stops_after_five_turns(store):
    looping = [{"tool_calls": [{"name": "LS", "input": {}}]}] * 8
    model = ScriptedModel(looping)
    result = Extractor(model, store).run_once(turn(1))
    assert len(model.requests) == 5 and model.remaining == 3
    assert result.turns == 5 and result.stopped == "max_turns" and result.ok
    assert "at most 5 turns" in model.requests[0].system


def test_a_model_that_answers_garbage_fails_the_run_and_keeps_the_cursor(store):
    model = ScriptedModel([{"error": "garbage"}])
    extractor = Extractor(model, store, cursor="u0")
    result = extractor.run_once(turn(1))
    assert not result.ok and "not what was asked for" in result.error
    assert extractor.cursor == "u0" and result.summary().startswith("extraction failed")


def test_garbage_tool_calls_get_tool_errors_and_are_listed_as_denied(store):
    model = ScriptedModel(
        [
            {
                "tool_calls": [
                    {"name": "Write", "input": {"file_path": 42, "content": None}},
                    {"name": "Bash", "input": {"command": "rm -rf /"}},
                    {"name": "Edit", "input": {"file_path": "nope.md", "old_string": "a", "new_string": "b"}},
                ]
            },
            DONE,
        ]
    )
    result = Extractor(model, store).run_once(turn(1))
    assert result.ok and [d.tool for d in result.denied] == ["Write", "Edit", "Bash"]
    results = model.requests[1].messages[-1].tool_results
    assert all(r.is_error for r in results)
    assert "not available here" in results[1].content


def test_a_crash_mid_run_keeps_the_cursor_and_the_same_messages_are_tried_again(store):
    note = os.path.join(store.root, "project_freeze.md")
    crashing = ScriptedModel([write(note, memory_text("Freeze", "Release freeze", "project")), {"error": "http"}])
    extractor = Extractor(crashing, store, cursor=None)
    result = extractor.run_once(turn(1, "we freeze releases on 2026-03-05"))
    assert not result.ok and "HTTP 500" in result.error
    assert result.written == (note,) and result.turns == 2
    assert extractor.cursor is None
    extractor.model = ScriptedModel([DONE])
    again = extractor.run_once(turn(1, "we freeze releases on 2026-03-05"))
    assert again.ok and again.message_count == 2 and extractor.cursor == "a1"
    assert "we freeze releases" in extractor.model.requests[0].messages[0].text


def test_when_the_main_agent_wrote_memory_no_model_is_asked_and_the_cursor_moves_on(store):
    model = ScriptedModel([])
    extractor = Extractor(model, store)
    target = os.path.join(store.root, "user_role.md")
    wrote = assistant("a1", "Saved.", ("Write", {"file_path": target}))
    conversation = [user("u1", "remember I'm a data scientist"), wrote]
    result = extractor.run_once(conversation)
    assert model.requests == []
    assert result.skipped is not None and "already wrote memory" in result.skipped
    assert extractor.cursor == "a1"


def test_a_write_next_to_the_memory_directory_does_not_count_as_a_memory_write(store):
    model = ScriptedModel([DONE])
    escaped = store.path + "../other.md"
    conversation = [user("u1", "hi there"), assistant("a1", "", ("Write", {"file_path": escaped}))]
    result = Extractor(model, store).run_once(conversation)
    assert result.skipped is None and len(model.requests) == 1


def test_a_throttle_lets_every_nth_turn_through(store):
    model = ScriptedModel([DONE, DONE])
    extractor = Extractor(model, store, every_turns=2)
    conversation = turn(1)
    first = extractor.run_once(conversation, throttle=True)
    assert first.skipped is not None and first.skipped.startswith("throttled") and extractor.cursor is None
    conversation += turn(2)
    second = extractor.run_once(conversation, throttle=True)
    assert second.skipped is None and second.message_count == 4 and len(model.requests) == 1


def test_nothing_new_since_the_cursor_means_no_run(store):
    model = ScriptedModel([])
    result = Extractor(model, store, cursor="a1").run_once(turn(1))
    assert result.skipped == "no new messages since the last extraction" and model.requests == []


def test_an_unknown_cursor_counts_every_message(store):
    model = ScriptedModel([DONE])
    result = Extractor(model, store, cursor="compacted-away").run_once([*turn(1), *turn(2)])
    assert result.message_count == 4


def test_team_files_with_a_secret_are_refused_and_team_files_are_counted(store):
    token = "ghp_" + "A1b2C3d4" * 4 + "E5f6"
    leaky = os.path.join(store.root, "team", "reference_ci.md")
    clean = os.path.join(store.root, "team", "project_ci.md")
    private = os.path.join(store.root, "user_role.md")
    model = ScriptedModel(
        [
            {
                "tool_calls": [
                    {"name": "Write", "input": {"file_path": leaky, "content": f"CI token: {token}\n"}},
                    {"name": "Write", "input": {"file_path": clean, "content": memory_text("CI", "CI", "project")}},
                    {"name": "Write", "input": {"file_path": private, "content": memory_text("Role", "Lead")}},
                ]
            },
            DONE,
        ]
    )
    extractor = Extractor(model, store, team_enabled=True)
    result = extractor.run_once(turn(1))
    assert not os.path.exists(leaky)
    assert [d.tool for d in result.denied] == ["Write"] and "secret" in result.denied[0].reason
    assert token not in result.denied[0].reason
    assert result.written == (clean, private) and result.team_count == 1
    assert result.summary() == "Saved 2 memories · 1 team memory"
    system = model.requests[0].system
    assert "## Memory scope" in system and "team memory above all" in system


def test_the_cursor_is_persisted_when_a_state_file_is_given(store, tmp_path):
    state = tmp_path / "state" / "memdir-extract.json"
    extractor = Extractor(ScriptedModel([DONE]), store, cursor_file=str(state))
    extractor.run_once(turn(1))
    assert load_cursor(str(state)) == "a1"


def test_the_library_accepts_messages_in_memdirs_json_shape(store):
    model = ScriptedModel([DONE])
    messages = [
        {"role": "user", "content": "I prefer tabs over spaces"},
        {"role": "assistant", "content": [{"type": "text", "text": "Got it."}]},
    ]
    result = Extractor(model, store).run_once(messages)
    assert result.ok and result.message_count == 2
    assert "I prefer tabs over spaces" in model.requests[0].messages[0].text


def test_concurrent_submissions_coalesce_into_one_trailing_run_with_the_latest_conversation(store):
    model = BlockingModel([DONE, DONE, DONE])
    extractor = Extractor(model, store)
    first = turn(1, "first turn")
    second = first + turn(2, "second turn")
    third = second + turn(3, "third turn")
    assert extractor.submit(first) is True
    assert model.entered.wait(WAIT)
    assert extractor.submit(second) is False
    assert extractor.submit(third) is False
    assert extractor.busy and not extractor.drain(timeout=0.01)
    model.release.set()
    assert extractor.drain(timeout=WAIT)
    assert len(model.requests) == 2
    leading, trailing = extractor.results
    assert not leading.trailing and leading.message_count == 2
    assert trailing.trailing and trailing.message_count == 4
    text = model.requests[1].messages[0].text
    assert "third turn" in text and "second turn" in text and "first turn" not in text
    assert extractor.cursor == "a3"


def test_a_crash_in_the_background_is_recorded_not_raised(store):
    class Exploding(ScriptedModel):
        def complete(self, request):
            raise RuntimeError("provider SDK bug")

    seen = []
    extractor = Extractor(Exploding([]), store, on_result=seen.append)
    extractor.submit(turn(1))
    assert extractor.drain(timeout=WAIT)
    assert seen and "RuntimeError: provider SDK bug" in seen[0].error and extractor.cursor is None


def test_the_async_api_coalesces_and_drains_too(store):
    async def scenario():
        model = AsyncBlockingModel([DONE, DONE])
        extractor = Extractor(model, store)
        assert extractor.asubmit(turn(1)) is True
        await asyncio.wait_for(model.entered.wait(), WAIT)
        assert extractor.asubmit([*turn(1), *turn(2, "later")]) is False
        model.release.set()
        assert await extractor.adrain(timeout=WAIT)
        return model, extractor

    model, extractor = asyncio.run(scenario())
    assert [r.trailing for r in extractor.results] == [False, True]
    assert "later" in model.requests[1].messages[0].text and extractor.cursor == "a2"


def test_arun_once_runs_with_the_async_model_api(store):
    model = ScriptedModel([write("feedback_tabs.md", memory_text("Tabs", "Use tabs", "feedback")), DONE])
    result = asyncio.run(Extractor(model, store).arun_once(turn(1, "always use tabs")))
    assert result.written == (os.path.join(store.root, "feedback_tabs.md"),)


def test_a_large_store_shows_the_agent_the_memories_nearest_the_conversation(store):
    for index in range(60):
        topic = "payments deploy checklist" if index == 5 else f"gardening tip {index}"
        store.write_text(f"project_{index:02d}.md", memory_text(f"N{index}", topic, "project"))
    model = ScriptedModel([DONE])
    Extractor(model, store, manifest_limit=10).run_once(turn(1, "the payments deploy failed again"))
    system = model.requests[0].system
    listed = [line for line in system.splitlines() if line.startswith("- [project]")]
    assert len(listed) == 10 and "project_05.md" in listed[0]
    assert "10 of 60 memory files are listed" in system


def test_the_session_extractor_reads_the_throttle_and_respects_disabled_memory(tmp_path):
    import json

    from memdir.config import resolve_config
    from memdir.memory_session import MemorySession

    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"memdir": {"extractEveryTurns": 3}}), encoding="utf-8")
    project = tmp_path / "proj"
    project.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(home), "HOME": str(tmp_path)}
    extractor = MemorySession(resolve_config(str(project), env=env), model=ScriptedModel([])).extractor()
    assert extractor.every_turns == 3 and extractor.manifest_limit == 40
    disabled = resolve_config(str(project), env={**env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"})
    model = ScriptedModel([])
    result = MemorySession(disabled, model=model).extractor().run_once(turn(1))
    assert result.skipped is not None and "disabled" in result.skipped and model.requests == []


def test_a_failing_result_callback_does_not_wedge_the_extractor(store):
    def broken(result):
        raise ValueError("callback bug")

    extractor = Extractor(ScriptedModel([DONE, DONE]), store, on_result=broken)
    extractor.submit(turn(1))
    assert extractor.drain(timeout=WAIT)
    assert extractor.submit([*turn(1), *turn(2)]) is True
    assert extractor.drain(timeout=WAIT) and extractor.cursor == "a2"


def write_beside_checkout_latency(store, description, body):
    """A store holding "Checkout latency", and the tool answer to the agent's Write of a new memory
    with ``description`` and ``body``: (the kept memory's path, the new file's path, the answer)."""
    existing = Memory(
        name="Checkout latency",
        description="Checkout API p95 response time is 950 ms",
        type=MemoryType.PROJECT,
        body="Load test.",
    )
    kept = store.save(existing).path
    again = os.path.join(store.root, "project_checkout_speed.md")
    write_call = {
        "name": "Write",
        "input": {"file_path": again, "content": memory_text("Checkout speed", description, "project", body)},
    }
    model = ScriptedModel([{"tool_calls": [write_call]}, DONE])
    result = Extractor(model, store).run_once([*turn(1, "checkout p95"), *turn(2)])
    assert result.ok
    (answer,) = model.requests[1].messages[-1].tool_results
    return kept, again, answer


def test_a_new_memory_is_saved_and_named_with_what_may_already_say_it(store):
    kept, again, answer = write_beside_checkout_latency(store, "After the cache, checkout API p95 is 140 ms", "")
    assert not answer.is_error and os.path.exists(again)
    assert answer.content.startswith(f"Created {again}\nThese memories may already say what this file says:\n")
    assert f"- {kept} (saved today): Checkout API p95 response time is 950 ms" in answer.content
    assert "add `replaces: <that file's name>` to this file's frontmatter" in answer.content


def test_a_new_memory_nearly_identical_to_one_is_refused(store):
    kept, again, answer = write_beside_checkout_latency(store, "Checkout API p95 response time is 950 ms", "Load test.")
    assert answer.is_error and f"Not written: {kept} already says this nearly word for word" in answer.content
    assert not os.path.exists(again)
