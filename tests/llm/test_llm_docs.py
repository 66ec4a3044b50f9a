from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memdir.llm import ScriptedModel, registry

DOC = Path(__file__).resolve().parents[2] / "docs" / "models.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_python_examples_in_the_models_doc_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_providers", dict(registry._providers))
    examples = blocks("python")
    assert len(examples) == 2
    for code in examples:
        exec(compile(code, str(DOC), "exec"), {})


def test_the_script_example_in_the_models_doc_loads(tmp_path: Path) -> None:
    (example,) = blocks("json")
    script = tmp_path / "script.json"
    script.write_text(example, encoding="utf-8")
    assert len(ScriptedModel.from_file(script).responses) == len(json.loads(example)["responses"])
