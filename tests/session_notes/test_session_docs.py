import json
import re
from pathlib import Path

from memdir.session_notes.thresholds import CompactThresholds, UpdateThresholds, compact_thresholds, update_thresholds
from memdir.settings_table import SETTINGS_DEFAULTS

DOC = Path(__file__).resolve().parents[2] / "docs" / "session-memory.md"


def blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_python_example_in_the_session_memory_doc_runs():
    (code,) = blocks("python")
    exec(compile(code, str(DOC), "exec"), {})


def test_the_documented_settings_are_the_defaults():
    (example,) = blocks("json")
    documented = json.loads(example)["memdir"]["sessionMemory"]
    assert documented == SETTINGS_DEFAULTS["sessionMemory"]
    assert update_thresholds(documented) == UpdateThresholds()
    assert compact_thresholds(documented) == CompactThresholds()
