import asyncio
import json
import os
import stat
import threading
from pathlib import Path

import pytest
from _session_fixtures import assistant, user

from memdir.config import resolve_config
from memdir.errors import ModelError, ModelNotConfigured
from memdir.llm.base import ChatRequest, Completion
from memdir.llm.scripted import ScriptedModel
from memdir.memory_session import MemorySession
from memdir.session_notes import CompactionResult, SessionPaths, SessionState, UpdateThresholds
from memdir.session_notes.paths import load_session_template
from memdir.store.files import lock_directory


def read(path):
    return Path(path).read_text(encoding="utf-8")


SESSION = "3f2a9c1e-0000-4000-8000-000000000001"


@pytest.fixture
def env(tmp_path):
    return {"CLAUDE_CONFIG_DIR": str(tmp_path / "home"), "HOME": str(tmp_path)}


def paths_of(project, env, session=SESSION):
    config = resolve_config(project, env=env)
    return SessionPaths.for_session(session, transcripts_dir=config.transcripts_dir, config_home=config.config_home)


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "work" / "app"
    path.mkdir(parents=True)
    return str(path)


def conversation(tokens=12_000, *, last_tools=0):
    return [
        user("Please refactor the parser", uuid="u1"),
        assistant("Working on it", tokens=tokens, tools=last_tools, uuid="a1"),
    ]


def edit(path, old, new):
    return {"tool_calls": [{"name": "Edit", "input": {"file_path": path, "old_string": old, "new_string": new}}]}


def memory_for(project, env, model=None, **options):
    return MemorySession(resolve_config(project, env=env), model=model).session_notes(SESSION, **options)


def test_notes_live_beside_the_transcript_keyed_on_the_working_directory(project, env, tmp_path):
    paths = paths_of(project, env)
    key = project.replace("/", "-").replace("_", "-")
    assert paths.notes == str(tmp_path / "home" / "projects" / key / SESSION / "session-memory" / "summary.md")
    assert paths.state.endswith("/session-memory/state.json")


def test_an_update_below_the_threshold_does_nothing(project, env):
    model = ScriptedModel([])
    memory = memory_for(project, env, model)
    outcome = memory.update(conversation(tokens=9_999))
    assert outcome.reason == "not-due" and not outcome.updated and model.requests == []
    assert not os.path.exists(memory.paths.notes)


def test_the_first_update_creates_the_notes_from_the_template_and_edits_them(project, env):
    memory = memory_for(project, env)
    notes = memory.paths.notes
    model = ScriptedModel([_append_current_state(project, env), {"text": "done"}])
    memory.model = model
    outcome = memory.update(conversation())
    assert outcome.updated and outcome.created and outcome.edits == 1 and outcome.denials == ()
    text = read(notes)
    assert "Refactoring the parser in src/parse.py." in text
    assert not os.path.exists(memory.paths.draft)
    assert stat.S_IMODE(os.stat(notes).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(memory.paths.directory).st_mode) == 0o700
    request = model.requests[0]
    prompt = request.messages[0].text
    assert "Please refactor the parser" in prompt
    assert f"<current_notes_content>\n{load_session_template(memory.paths.config_home)}" in prompt
    assert [tool.name for tool in request.tools] == ["Edit"]
    state = json.loads(read(memory.paths.state))
    assert state == {
        "initialized": True,
        "tokensAtLastExtraction": 12_000,
        "lastSummarizedMessageId": "a1",
        "lastMemoryMessageUuid": "a1",
    }


def _append_current_state(project, env):
    notes = paths_of(project, env).notes
    marker = "_What is being worked on right now, what is still pending, and the very next step to take._\n"
    return edit(notes, marker, marker + "Refactoring the parser in src/parse.py.\n")


def test_an_existing_notes_file_is_never_replaced_by_the_template(project, env):
    memory = memory_for(project, env)
    os.makedirs(memory.paths.directory)
    Path(memory.paths.notes).write_text("# Mine\n_kept_\n", encoding="utf-8")
    memory.model = ScriptedModel([{"text": "nothing to add"}])
    outcome = memory.update(conversation())
    assert outcome.updated and not outcome.created and outcome.edits == 0
    assert read(memory.paths.notes) == "# Mine\n_kept_\n"


def test_the_agent_can_only_edit_the_notes_and_never_their_structure(project, env):
    memory = memory_for(project, env)
    notes = memory.paths.notes
    calls = [
        {"name": "Write", "input": {"file_path": notes, "content": "gone"}},
        {"name": "Read", "input": {"file_path": notes}},
        {"name": "Edit", "input": {"file_path": memory.paths.state, "old_string": "a", "new_string": "b"}},
        {"name": "Edit", "input": {"file_path": notes, "old_string": "# Worklog", "new_string": "# Log"}},
        {"name": "Edit", "input": {"file_path": "/etc/passwd", "old_string": "root", "new_string": "x"}},
    ]
    model = ScriptedModel([{"tool_calls": calls}, {"text": "stopping"}])
    memory.model = model
    outcome = memory.update(conversation(), force=True)
    results = model.requests[1].messages[-1].tool_results
    assert all(r.is_error for r in results)
    assert "not available" in results[0].content and "not available" in results[1].content
    assert "only" in results[2].content and "may be changed" in results[2].content
    assert "headers" in results[3].content
    assert "outside the memory directory" in results[4].content
    assert outcome.edits == 0 and len(outcome.denials) == 3
    assert not os.path.exists(notes) and not os.path.exists(memory.paths.notes)  # nothing was written


def test_a_forced_update_ignores_the_thresholds(project, env):
    memory = memory_for(project, env, ScriptedModel([{"text": "ok"}]))
    outcome = memory.update(conversation(tokens=10), force=True)
    assert outcome.updated and outcome.reason == "updated"


def test_the_async_update_behaves_like_the_sync_one(project, env):
    model = ScriptedModel([_append_current_state(project, env), {"text": "done"}])
    memory = memory_for(project, env, model)
    outcome = asyncio.run(memory.aupdate(conversation()))
    assert outcome.updated and outcome.edits == 1
    assert memory.state.last_summarized_message_id == "a1"


def test_updating_without_a_model_says_how_to_configure_one(project, env):
    memory = memory_for(project, env)
    assert memory.update(conversation(tokens=100)).reason == "not-due"  # no model needed for that
    with pytest.raises(ModelNotConfigured, match="MEMDIR_MODEL"):
        memory.update(conversation())
    assert not memory.guard.running and memory.state.initialized


def test_the_summary_cursor_waits_for_a_turn_without_tool_calls(project, env):
    memory = memory_for(project, env, ScriptedModel([{"text": "ok"}]))
    messages = [user("go", uuid="u1"), assistant("x", tools=3, tokens=20_000, uuid="a1")]
    assert memory.update(messages).updated
    assert memory.state.last_summarized_message_id is None
    assert memory.state.tokens_at_last_extraction == 20_000


def test_state_survives_between_instances_and_status_does_not_change_it(project, env):
    memory_for(project, env, ScriptedModel([{"text": "ok"}])).update(conversation())
    later = memory_for(project, env)
    messages = [*conversation(), user("more", uuid="u2"), assistant("y", tools=2, tokens=16_000, uuid="a2")]
    status = later.status(messages)
    assert status.to_json() == {
        "tokens": 16_000,
        "initialized": True,
        "tool_calls_since_update": 2,
        "update_due": False,
    }
    assert later.state == SessionState(True, 12_000, "a1", "a1")


def test_thresholds_come_from_the_settings(project, env, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(
        json.dumps({"memdir": {"sessionMemory": {"minimumMessageTokensToInit": 50_000, "compact": {"maxTokens": 9}}}}),
        encoding="utf-8",
    )
    config = resolve_config(project, env=env)
    memory = MemorySession(config).session_notes(SESSION)
    assert memory.thresholds == UpdateThresholds(minimum_message_tokens_to_init=50_000)
    assert memory.compaction.max_tokens == 9
    assert memory.paths == paths_of(project, env)
    assert memory.status(conversation(tokens=20_000)).update_due is False


class BlockingModel:
    """A model whose calls wait for a go signal, and which records how many calls overlapped."""

    spec = "blocking"

    def __init__(self):
        self.entered = threading.Event()
        self.go = threading.Event()
        self.active = 0
        self.most_active = 0
        self.calls = 0
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest) -> Completion:
        with self._lock:
            self.active += 1
            self.calls += 1
            self.most_active = max(self.most_active, self.active)
        self.entered.set()
        assert self.go.wait(10)
        with self._lock:
            self.active -= 1
        from memdir.llm.base import Usage

        return Completion(text="done", tool_calls=(), usage=Usage())

    async def acomplete(self, request: ChatRequest) -> Completion:
        return self.complete(request)


def test_updates_of_one_session_never_overlap(project, env):
    model = BlockingModel()
    memory = memory_for(project, env, model)
    outcomes = []
    threads = [
        threading.Thread(target=lambda: outcomes.append(memory.update(conversation(), force=True))) for _ in range(2)
    ]
    threads[0].start()
    assert model.entered.wait(10)
    threads[1].start()
    threads[1].join(0.2)
    assert threads[1].is_alive()
    model.go.set()
    for thread in threads:
        thread.join(10)
    assert model.most_active == 1 and model.calls == 2
    assert [o.reason for o in outcomes] == ["updated", "updated"]


def test_an_update_in_another_process_makes_this_one_skip(project, env):
    memory = memory_for(project, env, ScriptedModel([]), lock_timeout=0.0)
    held, release = threading.Event(), threading.Event()

    def hold():
        with lock_directory(memory.paths.directory):
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(10)
    try:
        assert memory.update(conversation()).reason == "busy"
        assert memory.wait_for_update(timeout=0.01) is False
    finally:
        release.set()
        holder.join(10)


class StepClock:
    def __init__(self, step):
        self.now = 0.0
        self.step = step

    def __call__(self):
        self.now += self.step
        return self.now


def _start_blocked_update(memory, model):
    thread = threading.Thread(target=memory.update, args=(conversation(),), kwargs={"force": True})
    thread.start()
    assert model.entered.wait(10)
    return thread


def test_waiting_for_an_update_gives_up_after_fifteen_seconds(project, env):
    model = BlockingModel()
    clock = StepClock(10.0)
    memory = memory_for(project, env, model, clock=clock)
    thread = _start_blocked_update(memory, model)
    try:
        assert memory.wait_for_update() is False  # begin at +10 s, checked at +30 s: over 15 s
    finally:
        model.go.set()
        thread.join(10)


def test_an_update_running_for_over_a_minute_is_not_waited_for(project, env):
    model = BlockingModel()
    clock = StepClock(0.0)
    memory = memory_for(project, env, model, clock=clock)
    thread = _start_blocked_update(memory, model)
    clock.now = 61.0
    try:
        assert memory.wait_for_update() is False
    finally:
        model.go.set()
        thread.join(10)


def test_compaction_waits_for_a_running_update_and_uses_its_notes(project, env):
    model = BlockingModel()
    memory = memory_for(project, env, model)
    thread = _start_blocked_update(memory, model)
    waited = []
    waiter = threading.Thread(target=lambda: waited.append(memory.wait_for_update()))
    waiter.start()
    model.go.set()
    waiter.join(10)
    thread.join(10)
    assert waited == [True] and not memory.guard.running


def test_compaction_after_an_update_keeps_the_recent_messages(project, env):
    memory = memory_for(project, env, ScriptedModel([_append_current_state(project, env), {"text": "done"}]))
    messages = conversation()
    memory.update(messages)
    messages += [user("next step", uuid="u2"), assistant("on it", uuid="a2")]
    result = memory_for(project, env).compact(messages, transcript_path="/t.jsonl")
    assert isinstance(result, CompactionResult)
    assert "Refactoring the parser in src/parse.py." in result.summary
    assert [m.uuid for m in result.kept] == ["u1", "a1", "u2", "a2"]  # the minimums pull in everything


def test_compaction_falls_back_without_notes_or_when_switched_off(project, env):
    assert memory_for(project, env).compact(conversation()) is None
    off = {**env, "DISABLE_CLAUDE_CODE_SM_COMPACT": "1"}
    assert memory_for(project, off).plan_compaction(conversation()).reason == "disabled"


class AsyncGateModel:
    spec = "async-gate"

    def __init__(self):
        self.entered = asyncio.Event()
        self.go = asyncio.Event()
        self.active = 0
        self.most_active = 0

    def complete(self, request):
        raise AssertionError("the async update must use acomplete")

    async def acomplete(self, request):
        from memdir.llm.base import Usage

        self.active += 1
        self.most_active = max(self.most_active, self.active)
        self.entered.set()
        await self.go.wait()
        self.active -= 1
        return Completion(text="done", tool_calls=(), usage=Usage())


def test_async_updates_of_one_session_never_overlap(project, env):
    model = AsyncGateModel()
    memory = memory_for(project, env, model)

    async def scenario():
        first = asyncio.create_task(memory.aupdate(conversation(), force=True))
        await asyncio.wait_for(model.entered.wait(), 10)
        second = asyncio.create_task(memory.aupdate(conversation(), force=True))
        await asyncio.sleep(0)  # let the second task reach the guard
        assert not second.done() and model.active == 1
        model.go.set()
        return await asyncio.wait_for(asyncio.gather(first, second), 10)

    outcomes = asyncio.run(scenario())
    assert [o.reason for o in outcomes] == ["updated", "updated"] and model.most_active == 1


def test_unreadable_notes_are_a_memory_format_error_not_a_crash(env, project):
    from memdir.errors import MemoryFormatError

    paths = paths_of(project, env)
    os.makedirs(paths.directory)
    with open(paths.notes, "wb") as handle:
        handle.write(b"# Notes\n\xff\xfe broken\n")
    with pytest.raises(MemoryFormatError) as info:
        paths.read_notes()
    assert info.value.rule == "encoding"
    assert info.value.path == paths.notes


def test_a_session_id_that_climbs_out_is_refused(env, project):
    from memdir.errors import ConfigError

    for bad in ("../../x", "a/b", "..", ""):
        with pytest.raises(ConfigError) as info:
            paths_of(project, env, bad)
        assert info.value.rule == "session-id"


def test_an_update_that_writes_no_notes_leaves_no_template_where_claude_code_reads_notes(project, env):
    memory = memory_for(project, env, ScriptedModel([{"text": "nothing worth noting yet"}]))
    outcome = memory.update(conversation())
    assert outcome.updated and not outcome.created and outcome.edits == 0
    assert not os.path.exists(memory.paths.notes)
    assert not os.path.exists(memory.paths.draft)


def test_a_failed_first_update_leaves_no_template_where_claude_code_reads_notes(project, env):
    memory = memory_for(project, env, ScriptedModel([{"error": "timeout"}]))
    with pytest.raises(ModelError):
        memory.update(conversation())
    assert not os.path.exists(memory.paths.notes)
    assert not os.path.exists(memory.paths.draft)
