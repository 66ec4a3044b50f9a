import os
import unicodedata

from memdir.config import open_index, open_memory_dir, resolve_config
from memdir.containment import normalize_root
from memdir.store.directory import MemoryDir
from memdir.store.index_db import MemoryIndex, index_path


def test_a_decomposed_and_a_precomposed_name_reach_one_memory_and_one_index(tmp_path):
    composed = str(tmp_path / unicodedata.normalize("NFC", "café-notes"))
    decomposed = str(tmp_path / unicodedata.normalize("NFD", "café-notes"))
    assert composed != decomposed
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "HOME": str(tmp_path)}
    config = resolve_config(str(tmp_path), memory_dir=decomposed + os.sep + os.sep, env=env)
    assert config.memory_dir == composed + os.sep
    assert MemoryDir(decomposed).root == open_memory_dir(config).root == composed
    database = str(tmp_path / "index.sqlite3")
    assert MemoryIndex(decomposed, database).root == MemoryIndex(composed, database).root == composed
    assert open_index(config).path == index_path(decomposed, config.config_home)
    assert index_path(decomposed, config.config_home) == index_path(composed + os.sep, config.config_home)


def test_the_root_spelling_expands_home_keeps_the_filesystem_root_and_resolves_no_symlinks(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert normalize_root(str(link) + "/") == str(link)
    assert normalize_root("/") == "/"
    assert normalize_root("~/x") == os.path.join(os.path.expanduser("~"), "x")
