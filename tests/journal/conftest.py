import pytest
from _journal_helpers import Clock

from memdir.config import resolve_config


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def env(tmp_path):
    return {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}


@pytest.fixture
def config(tmp_path, env):
    project = tmp_path / "proj"
    project.mkdir()
    return resolve_config(str(project), env=env)
