import os
import unicodedata

from memdir.config import resolve_config
from memdir.integrations.hooks.state import STATE_FILENAME, recall_state_path


def test_without_a_transcript_the_recall_state_sits_with_the_projects_transcripts_whichever_way_its_name_is_typed(
    tmp_path,
):
    composed = tmp_path / unicodedata.normalize("NFC", "café")
    composed.mkdir()
    decomposed = str(tmp_path / unicodedata.normalize("NFD", "café"))
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    config = resolve_config(str(composed), memory_dir=str(tmp_path / "mem"), env=env)
    expected = os.path.join(config.transcripts_dir, "s1", STATE_FILENAME)
    for cwd in (str(composed), decomposed):  # macOS finds the folder either way; Linux only by the first
        path = recall_state_path("s1", transcript_path=None, cwd=cwd, config_home=config.config_home)
        assert path == expected


def test_with_a_transcript_the_recall_state_sits_beside_it(tmp_path):
    transcript = tmp_path / "projects" / "-p" / "s1.jsonl"
    path = recall_state_path("s1", transcript_path=str(transcript), cwd="/elsewhere", config_home="/unused")
    assert path == str(tmp_path / "projects" / "-p" / "s1" / STATE_FILENAME)
