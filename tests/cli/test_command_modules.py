import importlib
import json
import pkgutil
import subprocess
import sys

import memdir.cli
from memdir.cli.main import COMMAND_MODULES, cli


def test_every_command_is_listed_with_the_module_that_defines_it():
    for info in pkgutil.iter_modules(memdir.cli.__path__):
        if info.name == "__main__":
            continue
        importlib.import_module(f"memdir.cli.{info.name}")
    defined = {name: command.callback.__module__ for name, command in cli.commands.items()}
    assert defined == {name: f"memdir.cli.{module}" for name, module in COMMAND_MODULES.items()}


def test_a_hook_process_imports_neither_other_commands_nor_the_sdks_nor_the_server(tmp_path):
    code = (
        "import sys, json\n"
        "from memdir.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('memdir'))), file=sys.stderr)\n"
    )
    hook = {"session_id": "s1", "cwd": str(tmp_path), "prompt": "how do we deploy the api?"}
    done = subprocess.run(
        [sys.executable, "-c", code, "--memory-dir", str(tmp_path / "mem"), "hook", "user-prompt-submit"],
        input=json.dumps(hook),
        capture_output=True,
        text=True,
        check=True,
        env={"CLAUDE_CONFIG_DIR": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
    )
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    unwanted = {
        "memdir.cli.team",
        "memdir.cli.mcp",
        "memdir.cli.session",
        "memdir.llm.anthropic",
        "memdir.llm.openai",
        "memdir.server",
        "memdir.team.client",
        "memdir.journal.dream",
        "memdir.extract.extractor",
        "memdir.session.memory",
    }
    assert loaded & unwanted == set()
    assert "memdir.cli.hooks" in loaded
