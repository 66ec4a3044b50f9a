"""Paths are spelled in one module: memdir.containment (spell_lexical, spell_real, normalize_root, contain).

A second spelling rule anywhere (its own NFC call, its own ``_nfc`` helper) is how one directory
typed two ways ends up as two memories or two indexes, so this test reads the source and fails on it.
"""

import ast
import os
import pathlib
import re
import unicodedata

from memdir.config import read_environment
from memdir.containment import normalize_root, spell_lexical, spell_real
from memdir.paths import config_home, is_auto_mem_path, project_root
from source_modules import parsed_modules

HOME = "containment.py"

# Text, not paths: these normalise memory names (slugs, name comparison) or analyse prose.
TEXT_LEVEL = ("model/", "store/names.py", "store/directory.py", "recall/minilm.py")

PATH_SPELLER = re.compile(r"^_?(nfc\w*|\w*_nfc|spell_\w+|\w+_lexical|normali[sz]e_(path|root|dir)\w*)$")
CONTAINMENT_CHECKS = re.compile(r"^_?(contain|within|is_within|inside)$")


def _unicode_normalisations(tree):
    """Lines calling ``unicodedata.normalize`` (or a bare imported ``normalize``) with NFC or NFD."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        module_call = isinstance(func, ast.Attribute) and ast.unparse(func.value) == "unicodedata"
        named = (module_call and func.attr == "normalize") or (isinstance(func, ast.Name) and func.id == "normalize")
        form = node.args[0]
        if named and isinstance(form, ast.Constant) and form.value in ("NFC", "NFD"):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def _path_spellers(tree):
    return [
        f"line {node.lineno}: def {node.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and (PATH_SPELLER.match(node.name) or CONTAINMENT_CHECKS.match(node.name))
    ]


def _contain_imports(tree):
    return [
        f"line {node.lineno}: from {node.module} import contain"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module != "memdir.containment"
        and any(alias.name == "contain" for alias in node.names)
    ]


def test_only_containment_normalises_the_unicode_of_paths():
    offenders = {
        name: calls
        for name, tree in parsed_modules()
        if name != HOME and not name.startswith(TEXT_LEVEL) and (calls := _unicode_normalisations(tree))
    }
    assert not offenders, (
        "these modules NFC/NFD-normalise on their own; spell paths with memdir.containment.spell_lexical "
        f"(lexical, Claude Code's rules), spell_real (realpath) or normalize_root (the memory root): {offenders}"
    )


def test_no_module_but_containment_defines_a_path_normaliser_or_a_containment_check():
    offenders = {name: found for name, tree in parsed_modules() if name != HOME and (found := _path_spellers(tree))}
    assert not offenders, (
        "these modules define their own path spelling or containment helper; use the one in "
        f"memdir.containment (spell_lexical, spell_real, normalize_root, contain, within): {offenders}"
    )


def test_contain_is_imported_from_containment_only():
    source_trees = list(parsed_modules())
    tests = pathlib.Path(__file__).parent
    test_trees = [(p.name, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(tests.rglob("*.py"))]
    offenders = {name: found for name, tree in [*source_trees, *test_trees] if (found := _contain_imports(tree))}
    assert not offenders, f"import contain from memdir.containment, its one home: {offenders}"


def test_the_scan_finds_a_private_nfc_helper():
    tree = ast.parse('import unicodedata\ndef _nfc(text):\n    return unicodedata.normalize("NFC", text)\n')
    assert _unicode_normalisations(tree) == ["line 3: unicodedata.normalize('NFC', text)"]
    assert _path_spellers(tree) == ["line 2: def _nfc"]


def test_one_directory_typed_two_ways_is_spelled_one_way_by_every_rule(tmp_path):
    composed = unicodedata.normalize("NFC", "josé")
    decomposed = unicodedata.normalize("NFD", "josé")
    (tmp_path / composed).mkdir()
    real = os.path.realpath(tmp_path)
    assert spell_lexical(f"{real}//{decomposed}/./") == f"{real}/{composed}/"
    assert spell_real(f"{real}/{composed}") == f"{real}/{composed}" == project_root(f"{real}/{composed}")
    assert normalize_root(f"{real}/{decomposed}/") == f"{real}/{composed}"
    environment = read_environment({"HOME": "/h", "CLAUDE_CONFIG_DIR": f"/c/{decomposed}//"})
    assert config_home(environment) == f"/c/{composed}"
    assert is_auto_mem_path(f"/m//{decomposed}/a.md", f"/m/{composed}/")
