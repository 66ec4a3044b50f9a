import importlib
import json
import pkgutil
import subprocess
import sys

import pytest

import memdir.cli
from memdir.cli.hook_entry import HookCall, hook_call
from memdir.cli.main import COMMAND_MODULES, cli


def test_every_command_is_listed_with_the_module_that_defines_it():
    for info in pkgutil.iter_modules(memdir.cli.__path__):
        if info.name == "__main__":
            continue
        importlib.import_module(f"memdir.cli.{info.name}")
    defined = {name: command.callback.__module__ for name, command in cli.commands.items()}
    assert defined == {name: f"memdir.cli.{module}" for name, module in COMMAND_MODULES.items()}


def imported(stderr):
    """The modules a ``python -X importtime`` process imported, from the lines it printed (a hook
    process ends without tearing down, so nothing can look at ``sys.modules`` as it exits)."""
    lines = [line for line in stderr.splitlines() if line.startswith("import time:") and "|" in line]
    return {line.rsplit("|", 1)[1].strip() for line in lines} - {"imported package"}


# Each agent's prompt-hook input: Claude Code's, Codex's (turn id, model) and Gemini's (the context
# hooks added at session start, in the prompt itself).
AGENT_INPUTS = {
    "claude-code": {"prompt": "how do we deploy the api?"},
    "codex": {"prompt": "how do we deploy the api?", "turn_id": "t1", "model": "gpt-5", "hook_event_name": "x"},
    "gemini": {"prompt": "<hook_context># auto memory</hook_context>\n\nhow do we deploy the api?", "timestamp": "t"},
}


@pytest.mark.parametrize("agent", list(AGENT_INPUTS))
def test_a_hook_process_imports_neither_click_nor_other_commands_nor_the_sdks_nor_the_server(tmp_path, agent):
    code = "from memdir.cli import main; main()"
    hook = {"session_id": "s1", "cwd": str(tmp_path), **AGENT_INPUTS[agent]}
    argv = [sys.executable, "-X", "importtime", "-c", code, "--memory-dir", str(tmp_path / "mem")]
    done = subprocess.run(
        [*argv, "hook", *([] if agent == "claude-code" else ["--agent", agent]), "user-prompt-submit"],
        input=json.dumps(hook),
        capture_output=True,
        text=True,
        check=True,
        env={"CLAUDE_CONFIG_DIR": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
    )
    loaded = imported(done.stderr)
    assert "json" in loaded and "memdir.cli.hook_entry" in loaded  # the lines were read
    unwanted = {
        "click",
        "dataclasses",  # with the inspect, ast and dis it imports, a tenth of a hook process
        "memdir.model.memory",
        "importlib.metadata",  # the selector and model plugins: read only for a kind or a provider not built in
        "memdir.cli.main",
        "memdir.cli.hooks",
        "memdir.cli.team",
        "memdir.cli.mcp",
        "memdir.cli.session",
        "memdir.llm.anthropic",
        "memdir.llm.openai",
        "memdir.server",
        "memdir.team.client",
        "memdir.journal.dream",
        "memdir.extract.extractor",
        "memdir.session_notes.session",
        # the prompt hook only reads: it never opens or imports the history (it does read the derived
        # index, which is SQLite too, so sqlite3 itself is expected)
        "memdir.store.history",
        "memdir.store.provenance",
        # the derived index's path is one SHA-256, taken without the OpenSSL that hashlib loads, and
        # its lock is the C one: neither hashlib nor the threading module is needed for either
        "hashlib",
        "threading",
        "encodings.utf_16_le",  # the project directory's hash counts UTF-16 units without the codec
        "string",  # compiles a regular expression on import; the past-question check spells its marks out
    }
    assert loaded & unwanted == set()
    assert "memdir.integrations.hooks.events" in loaded


def test_hook_command_lines_that_the_fast_entry_does_not_follow_go_to_click(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x", encoding="utf-8")
    assert hook_call(["hook", "stop"]) == HookCall("stop", None, None)
    assert hook_call(["--memory-dir", "/m", "--project=/p", "hook", "user-prompt-submit"]) == HookCall(
        "user-prompt-submit", "/p", "/m"
    )
    for argv in (
        ["hook", "--help"],
        ["hook", "bogus"],
        ["hook"],
        ["hook", "stop", "extra"],
        ["--project", "/a", "--project", "/b", "hook", "stop"],
        ["--project", str(a_file), "hook", "stop"],
        ["--memory-dir=", "hook", "stop"],
        ["--verbose", "hook", "stop"],
        ["hooks", "install"],
    ):
        assert hook_call(argv) is None, argv


def test_the_hook_command_fails_open_the_same_way_through_click(tmp_path):
    from click.testing import CliRunner

    done = CliRunner().invoke(cli, ["--memory-dir", str(tmp_path), "hook", "user-prompt-submit"], input="{not json")
    assert done.exit_code == 0
    assert done.output.startswith("memdir hook user-prompt-submit: JSONDecodeError: ")
