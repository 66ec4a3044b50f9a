import re
from pathlib import Path

from memdir.settings_table import SETTINGS_DEFAULTS

DOC = Path(__file__).resolve().parents[2] / "docs" / "extraction.md"


def test_the_python_example_in_the_extraction_doc_runs():
    (example,) = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    exec(compile(example, str(DOC), "exec"), {})


def test_the_documented_settings_keys_and_defaults_match_the_code():
    text = DOC.read_text(encoding="utf-8")
    for key in ("model", "selector", "selectorPrefilter", "extractEveryTurns", "extractPrefilter"):
        default = SETTINGS_DEFAULTS[key]
        shown = "null" if default is None else (f'"{default}"' if isinstance(default, str) else str(default))
        assert f"| `{key}` | `{shown}` |" in text
