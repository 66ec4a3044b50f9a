"""The duplicate-code check of ``make lint`` (scripts/check_duplicates.py) finds a run written twice
and passes over what repeats for no fault of the code."""

import importlib.util
import pathlib

SCRIPT = pathlib.Path(__file__).parent.parent / "scripts" / "check_duplicates.py"
_spec = importlib.util.spec_from_file_location("check_duplicates", SCRIPT)
assert _spec is not None and _spec.loader is not None
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

BODY = "".join(f"    total_{n} = compute({n}, total_{n - 1})\n" for n in range(1, 11))


def test_a_run_written_in_two_files_is_reported_with_its_lines():
    first = f"import os\n\n\ndef one(a: int) -> int:\n{BODY}    return a\n"
    second = f'"""Another module."""\n\nimport sys\n\n\ndef two(b: str, c: int) -> int:\n    """Docs."""\n{BODY}'
    [duplicate] = check.find_duplicates({"a.py": first, "b.py": second}, min_lines=10)
    assert str(duplicate) == "a.py:5-14 ~ b.py:8-17 (10 lines)"


def test_a_shorter_run_passes():
    shorter = "".join(BODY.splitlines(True)[1:])
    assert check.find_duplicates({"a.py": f"def a():\n{BODY}", "b.py": f"def b():\n{shorter}"}, min_lines=10) == []


def test_imports_docstrings_signatures_and_lists_of_names_do_not_count():
    names = "".join(f'    "name_{n}",\n' for n in range(20))
    imports = "".join(f"from package.module_{n} import thing_{n}\n" for n in range(20))
    signature = "def f(\n" + "".join(f"    argument_{n}: int,\n" for n in range(20)) + ") -> None:\n    pass\n"
    text = f'"""{BODY}"""\n{imports}__all__ = [\n{names}]\n{signature}'
    assert check.find_duplicates({"a.py": text, "b.py": text}, min_lines=10) == []


def test_the_command_fails_on_a_duplicate_and_passes_without(tmp_path, capsys):
    (tmp_path / "a.py").write_text(f"def one() -> None:\n{BODY}", encoding="utf-8")
    assert check.main([str(tmp_path), "--min-lines", "10"]) == 0
    (tmp_path / "b.py").write_text(f"def two() -> None:\n{BODY}", encoding="utf-8")
    assert check.main([str(tmp_path), "--min-lines", "10"]) == 1
    assert "1 duplicated run(s) of 10+ lines" in capsys.readouterr().out
