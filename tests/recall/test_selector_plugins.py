"""Selectors and model providers from other packages, found through entry points.

The toy plugin (tests/plugins/toy_selector) is a package of its own: its pyproject.toml declares a
``toy`` selector kind (group ``memdir.selectors``) and a ``toy:`` model provider (``memdir.models``).
It is put on a real ``memdir`` process's path the way an installer leaves it, the module beside a
``.dist-info`` with its entry points, so the real lookup through ``importlib.metadata`` finds it.
"""

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from memdir.config import resolve_config
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType

PLUGIN = Path(__file__).parent.parent / "plugins" / "toy_selector"
MEMORIES = [
    ("deploy.md", "Deploying the api", "Deploy the api to staging with make deploy-staging, then smoke test"),
    ("db.md", "Test database", "Integration tests hit a real Postgres"),
    ("lunch.md", "Lunch", "Noodles on Fridays"),
]


def installed(target: Path) -> Path:
    """The plugin as an installer leaves it in ``target``: its module and a dist-info naming its entry points."""
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = target / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", encoding="utf-8"
    )
    groups = project["entry-points"]
    lines = [
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items())
        for group, points in groups.items()
    ]
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
    shutil.copy(PLUGIN / "memdir_toy.py", target / "memdir_toy.py")
    return target


@pytest.fixture
def project(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    store = MemorySession(resolve_config(str(tmp_path), memory_dir=str(tmp_path / "mem"), env=env)).memory_dir
    for file, name, description in MEMORIES:
        store.save(Memory(name=name, description=description, type=MemoryType.PROJECT, body=description), file=file)
    return tmp_path, env


def memdir(tmp_path, env, *args, plugin=True):
    if plugin:
        env = {**env, "PYTHONPATH": str(installed(tmp_path / "site"))}
    command = [sys.executable, "-m", "memdir", "--project", str(tmp_path), "--memory-dir", str(tmp_path / "mem"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)


def test_an_installed_plugin_selector_is_a_choice_of_memdir_recall(project):
    tmp_path, env = project
    done = memdir(tmp_path, env, "recall", "how do we deploy the api to staging?", "--selector", "toy", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["selector"] == "toy"
    assert [memory["file"] for memory in answer["memories"]] == ["lunch.md"]  # the shortest description


def test_the_settings_may_name_a_plugin_selector(project):
    tmp_path, env = project
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"memdir": {"selector": "toy"}}), encoding="utf-8")
    done = memdir(tmp_path, env, "recall", "how do we deploy the api to staging?", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["selector"] == "toy"


def test_an_installed_model_provider_answers_a_model_spec(project):
    tmp_path, env = project
    done = memdir(
        tmp_path, env, "recall", "which database do tests use?", "--selector", "llm", "--model", "toy:db.md", "--json"
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert [memory["file"] for memory in answer["memories"]] == ["db.md"]


def test_without_the_plugin_the_kind_is_refused_with_the_known_ones(project):
    tmp_path, env = project
    done = memdir(tmp_path, env, "recall", "how do we deploy?", "--selector", "toy", plugin=False)
    assert done.returncode == 2
    assert "'toy' is not one of 'auto', 'llm', 'offline', 'lexical', 'embedding', 'hybrid'" in done.stderr


def test_a_plugin_that_cannot_load_is_named_and_hides_nothing_else(project):
    tmp_path, env = project
    site = installed(tmp_path / "site")
    (site / "memdir_toy.py").write_text("raise ImportError('the toy lost its parts')\n", encoding="utf-8")
    env = {**env, "PYTHONPATH": str(site)}
    done = memdir(tmp_path, env, "recall", "how do we deploy?", "--selector", "toy", plugin=False)
    assert done.returncode == 2
    assert "the plugin 'memdir_toy:TOY' cannot be loaded (ImportError: the toy lost its parts)" in done.stderr
    done = memdir(
        tmp_path, env, "recall", "how do we deploy the api to staging?", "--selector", "lexical", plugin=False
    )
    assert done.returncode == 0, done.stderr
    assert "deploy.md" in done.stdout


def test_help_lists_the_plugin_kinds(project):
    tmp_path, env = project
    done = memdir(tmp_path, env, "recall", "--help")
    assert "[auto|llm|offline|lexical|embedding|hybrid|toy]" in done.stdout


def test_the_architecture_doc_shows_the_plugins_own_entry_points():
    doc = (Path(__file__).parents[2] / "docs" / "architecture.md").read_text(encoding="utf-8")
    shown = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    declared = (PLUGIN / "pyproject.toml").read_text(encoding="utf-8")
    for line in shown.strip().splitlines():
        assert line in declared.splitlines(), line
