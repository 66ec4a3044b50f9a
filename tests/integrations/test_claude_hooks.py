import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hook_helpers import PROMPT, Recorder

from memdir.config import open_index, open_memory_dir, read_environment, resolve_config
from memdir.integrations.hooks.events import run_hook
from memdir.integrations.hooks.launch import RECORD_ENV_VAR, spawn_detached
from memdir.integrations.hooks.turn_wait import reply_digest
from memdir.llm import FORBID_ENV_VAR
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.paths import sanitize_path


def transcript(tmp_path, project, session="s1"):
    folder = tmp_path / "claude" / "projects" / sanitize_path(project)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    path.write_text('{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}\n')
    return str(path)


def hook_input(tmp_path, project, **extra):
    return {"session_id": "s1", "transcript_path": transcript(tmp_path, project), "cwd": project, **extra}


def written_by(data, version):
    """The hook input of a session whose transcript Claude Code ``version`` is writing."""
    line = {"type": "user", "version": version, "uuid": "u2", "parentUuid": "u1", "message": {"role": "user"}}
    with open(data["transcript_path"], "a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    return data


def test_user_prompt_submit_returns_the_recalled_memories_as_additional_context(tmp_path, project, env, memories):
    data = written_by(hook_input(tmp_path, project, prompt=PROMPT), "2.1.88")
    result = run_hook("user-prompt-submit", data, environment=read_environment(env))
    specific = result.output["hookSpecificOutput"]
    assert specific["hookEventName"] == "UserPromptSubmit"
    assert specific["additionalContext"].startswith("<system-reminder>\nMemory (saved today): ")
    assert "A mocked database hid a broken migration." in specific["additionalContext"]
    state = tmp_path / "claude" / "projects" / sanitize_path(project) / "s1" / "memdir-recall.json"
    saved = json.loads(state.read_text(encoding="utf-8"))
    assert [item["file"] for item in saved["surfaced"]] == ["feedback_real_db_in_tests.md"]
    assert saved["surfaced_bytes"] > 0


def test_a_memory_is_surfaced_once_per_session_until_compaction_resets_it(tmp_path, project, env, memories):
    first = run_hook(
        "user-prompt-submit", hook_input(tmp_path, project, prompt=PROMPT), environment=read_environment(env)
    )
    again = run_hook(
        "user-prompt-submit", hook_input(tmp_path, project, prompt=PROMPT), environment=read_environment(env)
    )
    other = run_hook(
        "user-prompt-submit",
        {**hook_input(tmp_path, project, prompt=PROMPT), "session_id": "s2"},
        environment=read_environment(env),
    )
    assert first.output is not None and again.output is None and other.output is not None
    start = run_hook(
        "session-start", hook_input(tmp_path, project, source="compact"), environment=read_environment(env)
    )
    assert start.output is None and start.note == "recall state reset"
    after = run_hook(
        "user-prompt-submit", hook_input(tmp_path, project, prompt=PROMPT), environment=read_environment(env)
    )
    assert after.output is not None


def test_session_start_adds_the_index_only_for_a_directory_claude_code_does_not_load(tmp_path, project, env):
    own = run_hook("session-start", hook_input(tmp_path, project, source="startup"), environment=read_environment(env))
    assert own.output is None
    other = tmp_path / "shared-memory"
    directory = open_memory_dir(resolve_config(project, memory_dir=str(other), env=env))
    directory.save(Memory(name="Role", description="Leads the payments team", type=MemoryType.USER, body="x"))
    result = run_hook(
        "session-start",
        hook_input(tmp_path, project, source="startup"),
        memory_dir=str(other),
        environment=read_environment(env),
    )
    context = result.output["hookSpecificOutput"]["additionalContext"]
    assert result.output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "- [Role](user_role.md) — Leads the payments team" in context


def test_stop_starts_extraction_detached_with_the_exact_command_line(tmp_path, project, env):
    data = hook_input(tmp_path, project, stop_hook_active=False, last_assistant_message="Noted.", prompt_id="p-7")
    launcher = Recorder()
    result = run_hook(
        "stop", data, environment=read_environment({**env, "MEMDIR_MODEL": "scripted:/x.json"}), launcher=launcher
    )
    log = str(tmp_path / "claude" / "memdir" / "logs" / "extract.log")
    assert result.output is None and result.launched == "handle"
    assert launcher.calls == [
        (
            [
                sys.executable,
                "-m",
                "memdir.cli",
                "--project",
                project,
                "extract",
                "--transcript",
                data["transcript_path"],
                "--json",
                "--wait",
                "10",
                "--log",
                log,
                "--reply",
                reply_digest("Noted."),
                "--prompt-id",
                "p-7",
            ],
            log,
        )
    ]
    [line] = Path(log).read_text(encoding="utf-8").splitlines()
    expected = f"session s1: started extract, waiting for reply {reply_digest('Noted.')} to prompt p-7"
    assert line.endswith(f" hook stop [pid {os.getpid()}]: {expected}")


def test_stop_starts_extraction_before_claude_code_has_written_the_transcript(tmp_path, project, env):
    data = hook_input(tmp_path, project, stop_hook_active=False)
    os.remove(data["transcript_path"])
    launcher = Recorder()
    result = run_hook(
        "stop", data, environment=read_environment({**env, "MEMDIR_MODEL": "scripted:/x.json"}), launcher=launcher
    )
    assert result.note == "started extract" and len(launcher.calls) == 1
    assert launcher.calls[0][0][-2:] == ["--reply", "new"]


def test_a_launch_that_fails_is_logged_and_reported(tmp_path, project, env):
    def broken(argv, log):
        raise OSError("no room for another process")

    data = hook_input(tmp_path, project, stop_hook_active=False)
    with pytest.raises(OSError, match="no room"):
        run_hook("stop", data, environment=read_environment({**env, "MEMDIR_MODEL": "x:y"}), launcher=broken)
    log = tmp_path / "claude" / "memdir" / "logs" / "extract.log"
    [line] = log.read_text(encoding="utf-8").splitlines()
    expected = "session s1: could not start extract: no room for another process"
    assert line.endswith(f"hook stop [pid {os.getpid()}]: {expected}")


def test_stop_does_nothing_without_a_model_or_when_already_inside_a_stop_hook(tmp_path, project, env):
    launcher = Recorder()
    no_model = run_hook("stop", hook_input(tmp_path, project), environment=read_environment(env), launcher=launcher)
    looping = run_hook(
        "stop",
        hook_input(tmp_path, project, stop_hook_active=True),
        environment=read_environment({**env, "MEMDIR_MODEL": "scripted:/x.json"}),
        launcher=launcher,
    )
    subagent = run_hook(
        "stop",
        hook_input(tmp_path, project, agent_id="a1"),
        environment=read_environment({**env, "MEMDIR_MODEL": "scripted:/x.json"}),
        launcher=launcher,
    )
    assert launcher.calls == []
    assert "no model configured" in no_model.note
    assert looping.note == "stop_hook_active"
    assert subagent.note == "inside a subagent"


def test_the_model_can_come_from_the_settings_file(tmp_path, project, env):
    settings = tmp_path / "claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"memdir": {"model": "scripted:/x.json"}}), encoding="utf-8")
    launcher = Recorder()
    run_hook(
        "session-end",
        hook_input(tmp_path, project, reason="prompt_input_exit"),
        environment=read_environment(env),
        launcher=launcher,
    )
    assert launcher.calls[0][0][-8:] == [
        "extract",
        "--transcript",
        hook_input(tmp_path, project)["transcript_path"],
        "--json",
        "--wait",
        "10",
        "--log",
        launcher.calls[0][1],
    ]


def test_pre_compact_starts_a_session_notes_update(tmp_path, project, env):
    data = hook_input(tmp_path, project, trigger="auto", custom_instructions=None)
    launcher = Recorder()
    other = str(tmp_path / "elsewhere")
    run_hook(
        "pre-compact",
        data,
        memory_dir=other,
        environment=read_environment({**env, "MEMDIR_MODEL": "x:y"}),
        launcher=launcher,
    )
    argv, log = launcher.calls[0]
    assert argv == [
        sys.executable,
        "-m",
        "memdir.cli",
        "--project",
        project,
        "--memory-dir",
        other + "/",
        "session",
        "update",
        "--transcript",
        data["transcript_path"],
        "--session-id",
        "s1",
        "--wait",
        "10",
        "--log",
        log,
    ]
    assert log.endswith(os.path.join("memdir", "logs", "session.log"))


def test_hooks_do_nothing_when_auto_memory_is_disabled(tmp_path, project, env, memories):
    off = {**env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1", "MEMDIR_MODEL": "x:y"}
    launcher = Recorder()
    recall = run_hook(
        "user-prompt-submit", hook_input(tmp_path, project, prompt=PROMPT), environment=read_environment(off)
    )
    stop = run_hook("stop", hook_input(tmp_path, project), environment=read_environment(off), launcher=launcher)
    assert recall.output is None and stop.launched is None and launcher.calls == []
    assert "disabled" in recall.note


def wait_for_text(path, timeout=30.0):
    """The file's text once it has some (a detached command writes it at its own pace)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.is_file() and path.read_text(encoding="utf-8").endswith("\n"):
            return path.read_text(encoding="utf-8")
        time.sleep(0.05)
    raise AssertionError(f"{path} got no complete line within {timeout} s")


def test_the_detached_launcher_starts_a_command_outside_the_callers_session_and_logs_its_stderr(tmp_path):
    log = tmp_path / "logs" / "extract.log"
    code = "import os, sys; sys.stderr.write(f'{os.getpid()} {os.getsid(0)} {os.getpgid(0)} {os.getppid()}\\n')"
    pid = spawn_detached([sys.executable, "-c", code], str(log))
    printed, session, group, parent = map(int, wait_for_text(log).split())
    assert printed == pid
    assert session != os.getsid(0) and group != os.getpgid(0) and parent != os.getpid()


def descendants(pid):
    """Every process below ``pid`` by parent PID: what tree-kill finds and kills."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                    parents[int(entry)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads parent PIDs from /proc")
def test_a_launched_command_outlives_a_kill_of_the_hooks_process_tree_and_group(tmp_path):
    marker = tmp_path / "survived.txt"
    log = tmp_path / "logs" / "extract.log"
    command = f"import pathlib, time; time.sleep(1.0); pathlib.Path({str(marker)!r}).write_text('survived\\n')"
    hook = (
        "import sys, time\n"
        "from memdir.integrations.hooks.launch import spawn_detached\n"
        f"print(spawn_detached([sys.executable, '-c', {command!r}], {str(log)!r}), flush=True)\n"
        "time.sleep(60)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    parent = subprocess.Popen(
        [sys.executable, "-c", hook], stdout=subprocess.PIPE, text=True, start_new_session=True, env=env
    )
    try:
        launched = int(parent.stdout.readline())
        below = descendants(parent.pid)
        assert launched not in below
        # What Claude Code does to a hook it gives up on: SIGKILL to the hook's tree and group.
        for pid in below:
            os.kill(pid, signal.SIGKILL)
        os.killpg(parent.pid, signal.SIGKILL)
    finally:
        parent.kill()
        parent.wait(timeout=30)
        parent.stdout.close()
    assert wait_for_text(marker) == "survived\n"


def cli_hook(tmp_path, event, stdin, env, *extra):
    full = {
        "PATH": os.environ.get("PATH", ""),
        FORBID_ENV_VAR: "1",
        "PYTHONPATH": os.pathsep.join(sys.path),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "memdir.cli", *extra, "hook", event],
        input=stdin,
        capture_output=True,
        text=True,
        env=full,
        cwd=str(tmp_path),
        timeout=60,
    )


def test_the_cli_hook_prints_valid_json_for_claude_code(tmp_path, project, env, memories):
    done = cli_hook(tmp_path, "user-prompt-submit", json.dumps(hook_input(tmp_path, project, prompt=PROMPT)), env)
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert "A mocked database" in output["hookSpecificOutput"]["additionalContext"]


STAGING = "which staging cluster do the canary deploys use?"


def edit_in_place(path, line):
    """Append to a memory the way an editor saving in place does: its directory's mtime stays."""
    st = os.stat(path)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # a new mtime even on a coarse clock


def staging_prompt(tmp_path, project, session):
    return {**hook_input(tmp_path, project, prompt=STAGING), "session_id": session}


def test_an_in_place_edit_reaches_recall_through_the_check_the_prompt_hook_leaves_for_after_its_answer(
    tmp_path, project, env, memories
):
    launcher = Recorder()

    def prompt(session):
        data = staging_prompt(tmp_path, project, session)
        return run_hook("user-prompt-submit", data, environment=read_environment(env), launcher=launcher)

    assert prompt("s1").output is None  # builds the index; nothing about staging yet
    launcher.calls.clear()
    edit_in_place(memories.resolve("feedback_real_db_in_tests.md"), "Canary deploys use the staging cluster kestrel.\n")
    answered = prompt("s2")
    assert answered.output is None and answered.after is not None  # answered from the index as it was
    assert launcher.calls == []
    assert answered.after() == "; started history sync"
    assert [argv[-2:] for argv, _ in launcher.calls] == [["history", "sync"]]
    shown = prompt("s3")
    assert "staging cluster kestrel" in shown.output["hookSpecificOutput"]["additionalContext"]
    assert shown.after is not None and shown.after() == ""  # nothing changed since


def test_the_hook_process_answers_and_exits_while_a_detached_copy_indexes_an_in_place_edit(
    tmp_path, project, env, memories
):
    record = tmp_path / "launches.jsonl"
    env = {**env, RECORD_ENV_VAR: str(record)}
    open_index(resolve_config(project, env=env)).refresh()
    edit_in_place(memories.resolve("feedback_real_db_in_tests.md"), "Canary deploys use the staging cluster kestrel.\n")
    answered = cli_hook(tmp_path, "user-prompt-submit", json.dumps(staging_prompt(tmp_path, project, "s2")), env)
    assert answered.returncode == 0 and answered.stdout == "" and answered.stderr == ""
    # The copy that outlived the hook found the edit, indexed it and started the history sync.
    assert json.loads(wait_for_text(record))["argv"][-2:] == ["history", "sync"]
    shown = cli_hook(tmp_path, "user-prompt-submit", json.dumps(staging_prompt(tmp_path, project, "s3")), env)
    assert "staging cluster kestrel" in json.loads(shown.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_cli_stop_hook_records_its_launch_and_returns(tmp_path, project, env):
    record = tmp_path / "launches.jsonl"
    data = hook_input(tmp_path, project, stop_hook_active=False)
    done = cli_hook(tmp_path, "stop", json.dumps(data), {**env, "MEMDIR_MODEL": "x:y", RECORD_ENV_VAR: str(record)})
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    launch = json.loads(record.read_text(encoding="utf-8"))
    assert launch["argv"][3:9] == ["--project", project, "extract", "--transcript", data["transcript_path"], "--json"]
    assert launch["argv"][9:] == ["--wait", "10", "--log", launch["log"], "--reply", "new"]


@pytest.mark.parametrize("stdin", ["{not json", "[1, 2]", '{"session_id": "../../etc", "prompt": "a b"}'])
def test_hooks_fail_open_with_one_line_on_stderr(tmp_path, env, stdin):
    done = cli_hook(tmp_path, "user-prompt-submit", stdin, env)
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.startswith("memdir hook user-prompt-submit: ")
    assert done.stderr.count("\n") == 1


def test_stop_also_starts_a_dream_when_the_auto_dream_gate_is_open(tmp_path, project, env):
    data = hook_input(tmp_path, project, stop_hook_active=False)
    folder = os.path.dirname(data["transcript_path"])
    for index in range(5):
        path = os.path.join(folder, f"00000000-0000-4000-8000-00000000000{index}.jsonl")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("{}\n")
    launcher = Recorder()
    result = run_hook(
        "stop", data, environment=read_environment({**env, "MEMDIR_MODEL": "scripted:/x.json"}), launcher=launcher
    )
    assert "started dream" in result.note
    dream_argv, dream_log = launcher.calls[1]
    assert dream_argv[-4:] == ["dream", "--session", data["session_id"], "--json"]
    assert dream_log.endswith("dream.log")
    disabled = {**env, "MEMDIR_MODEL": "scripted:/x.json"}
    settings = tmp_path / "claude" / "settings.json"
    settings.write_text('{"autoDreamEnabled": false}', encoding="utf-8")
    again = Recorder()
    run_hook("stop", data, environment=read_environment(disabled), launcher=again)
    assert len(again.calls) == 1


def test_the_prompt_hook_calls_no_model_unless_the_hook_selector_setting_allows_it(tmp_path, project, env, memories):
    # The scripted model picks nothing, so a model call would surface nothing.
    script = tmp_path / "picks-nothing.json"
    script.write_text(json.dumps({"responses": [{"json": {"selected_memories": []}}]}), encoding="utf-8")
    with_model = {**env, "MEMDIR_MODEL": f"scripted:{script}"}
    stdin = json.dumps(hook_input(tmp_path, project, prompt=PROMPT))
    offline = cli_hook(tmp_path, "user-prompt-submit", stdin, with_model)
    assert offline.returncode == 0 and offline.stderr == ""
    assert "A mocked database" in json.loads(offline.stdout)["hookSpecificOutput"]["additionalContext"]

    settings = tmp_path / "claude" / "settings.json"
    settings.write_text(json.dumps({"memdir": {"hookSelector": "auto"}}), encoding="utf-8")
    fresh = json.dumps({**hook_input(tmp_path, project, prompt=PROMPT), "session_id": "s2"})
    allowed = cli_hook(tmp_path, "user-prompt-submit", fresh, with_model)
    assert allowed.returncode == 0 and allowed.stdout == ""

    settings.write_text(json.dumps({"memdir": {"hookSelector": "psychic"}}), encoding="utf-8")
    refused = cli_hook(tmp_path, "user-prompt-submit", fresh, with_model)
    assert refused.returncode == 0 and refused.stdout == ""
    assert "memdir.hookSelector must be one of" in refused.stderr


def test_claude_code_2_1_330_gets_recalled_memories_without_tags_it_would_escape(tmp_path, project, env, memories):
    data = written_by(hook_input(tmp_path, project, prompt=PROMPT), "2.1.330")
    done = cli_hook(tmp_path, "user-prompt-submit", json.dumps(data), env)
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "<system-reminder>" not in context and "</system-reminder>" not in context
    lead, header, _ = context.split("\n\n", 2)
    assert lead.startswith("Memories saved in earlier conversations that may bear on this request")
    assert header.startswith("Memory: /") and header.endswith("/feedback_real_db_in_tests.md:")
    assert "A mocked database hid a broken migration." in context


def test_the_version_in_the_hook_input_decides_the_rendering_when_the_transcript_has_none(
    tmp_path, project, env, memories
):
    data = {**hook_input(tmp_path, project, prompt=PROMPT), "version": "2.1.88"}
    context = run_hook("user-prompt-submit", data, environment=read_environment(env)).output["hookSpecificOutput"][
        "additionalContext"
    ]
    assert context.startswith("<system-reminder>\n")


def stamp(path, modified):
    """Give a saved memory the ``modified:`` time it was written at (the directory stamps "now")."""
    text = Path(path).read_text(encoding="utf-8")
    start = text.index("modified: ")
    end = text.index("\n", start)
    Path(path).write_text(f'{text[:start]}modified: "{modified}"{text[end:]}', encoding="utf-8")


def test_the_prompt_hook_names_the_newer_memory_beside_a_stale_one_and_skips_expired_ones(tmp_path, project, env):
    directory = open_memory_dir(resolve_config(project, env=env))
    old = directory.save(
        Memory(
            name="Checkout latency",
            description="Measured the checkout API p95 response time: 950 ms under load",
            type=MemoryType.PROJECT,
            body="Load test in March.",
            extra={"modified": "2026-01-10T09:00:00.000Z"},
        ),
        index=False,
    )
    stamp(old.path, "2026-01-10T09:00:00.000Z")
    new = directory.save(
        Memory(
            name="Checkout latency after the cache",
            description="After the cache the checkout API p95 response time is 140 ms",
            type=MemoryType.PROJECT,
            body="Redis in front of the catalogue.",
            extra={"modified": "2026-03-02T09:00:00.000Z"},
        ),
        index=False,
    )
    stamp(new.path, "2026-03-02T09:00:00.000Z")
    directory.save(
        Memory(
            name="Checkout freeze",
            description="No checkout API deploys during the load test week",
            type=MemoryType.PROJECT,
            body="Ask before deploying.",
            extra={"expires": "2020-01-31"},
        ),
        index=False,
    )
    prompt = "What is the checkout API p95 response time under load?"
    data = written_by(hook_input(tmp_path, project, prompt=prompt), "2.1.330")
    context = run_hook("user-prompt-submit", data, environment=read_environment(env)).output["hookSpecificOutput"][
        "additionalContext"
    ]
    assert context.index(f"Memory: {new.path}:") < context.index(f"Memory: {old.path}:")
    assert "A newer memory on the same subject (saved " in context
    assert f"): {new.path}\nMemory: {old.path}:" in context
    assert "No checkout API deploys" not in context


def test_the_prompt_hook_surfaces_a_recorded_replacement_first_and_labels_what_it_replaced(tmp_path, project, env):
    """The real hook process: "Kenji has the atlas pager" shares only "atlas" with the question; the
    writer recorded that it replaces the on-call memory, so it comes first and the old one says so."""
    directory = open_memory_dir(resolve_config(project, env=env))
    facts = [
        ("On call", "Dana is on call for atlas this week, ping them if prod breaks", "2026-01-05"),
        ("Bundle", "the atlas web bundle is 880 KB gzipped, which is too much", "2026-01-06"),
        ("Staging", "staging for atlas lives at staging-1.internal", "2026-01-09"),
    ]
    saved = {}
    for name, text, day in facts:
        stamp = {"modified": f"{day}T09:00:00Z"}
        memory = Memory(name=name, description=text, type=MemoryType.PROJECT, body=text, extra=stamp)
        saved[name] = directory.save(memory, index=False)
    swap = Memory(
        name="Shift swap",
        description="Dana swapped shifts, Kenji has the atlas pager",
        type=MemoryType.PROJECT,
        body="Until the end of the month.",
        extra={"modified": "2026-02-02T09:00:00Z", "replaces": saved["On call"].file},
    )
    saved["Shift swap"] = directory.save(swap, index=False)
    data = written_by(
        hook_input(tmp_path, project, prompt="who is on call for atlas? ping them if prod breaks"), "2.1.330"
    )
    done = cli_hook(tmp_path, "user-prompt-submit", json.dumps(data), env)
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    new, old = saved["Shift swap"].path, saved["On call"].path
    assert context.index(f"Memory: {new}:") < context.index(f"Memory: {old}:")
    assert "Replaced by a newer memory (recorded; saved " in context
    assert f"): {new}\nMemory: {old}:" in context


def test_session_start_tells_the_person_how_many_memories_a_truncated_index_hides(tmp_path, project, env, memories):
    data = written_by(hook_input(tmp_path, project, source="startup"), "2.1.88")
    quiet = run_hook("session-start", data, environment=read_environment(env))
    assert quiet.output is None
    lines = [f"- [Note {n}](user_note_{n}.md) — note number {n}" for n in range(212)]
    with open(memories.entrypoint, "a", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    told = run_hook("session-start", data, environment=read_environment(env))
    assert told.output is not None and list(told.output) == ["systemMessage"]  # for the person, not the model
    [message] = told.output["systemMessage"].splitlines()
    assert "MEMORY.md is cut at line 200 (the 200-line limit)" in message
    assert "Claude Code will not see 13 memories" in message and "'memdir doctor' names them" in message
