"""A package's lazy exports are listed once: the ``lazy_exports`` call gives ``__getattr__`` and
``__all__``, and the imports under ``TYPE_CHECKING`` (for the type checker) name the same things."""

import ast
import importlib

from source_modules import parsed_modules


def _lazy_packages() -> dict[str, ast.Module]:
    return {
        name: tree
        for name, tree in parsed_modules()
        if name.endswith("__init__.py")
        and any(isinstance(node, ast.ImportFrom) and node.module == "memdir.lazy" for node in tree.body)
    }


def _module_name(path: str) -> str:
    return ".".join(["memdir", *path.split("/")[:-1]])


def _listed(tree: ast.Module) -> set[tuple[str, str]]:
    """(module, name) of the mapping handed to ``lazy_exports``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports":
            table = node.args[1]
            assert isinstance(table, ast.Dict)
            return {
                (ast.literal_eval(key), name)
                for key, value in zip(table.keys, table.values, strict=True)
                if key is not None
                for name in ast.literal_eval(value)
            }
    raise AssertionError("no lazy_exports call")


def _typed(tree: ast.Module) -> set[tuple[str, str]]:
    """(module, name) imported under ``if TYPE_CHECKING:``, each as an explicit re-export."""
    found = set()
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module is not None
                for alias in statement.names:
                    assert alias.asname == alias.name, f"import {alias.name} as {alias.name}, to re-export it"
                    found.add((statement.module, alias.name))
    return found


def test_the_packages_with_lazy_exports_are_found():
    assert {"__init__.py", "extract/__init__.py", "llm/__init__.py", "cli/__init__.py"} <= set(_lazy_packages())


def test_the_type_checkers_imports_name_what_each_package_exports_lazily():
    for path, tree in _lazy_packages().items():
        assert _typed(tree) == _listed(tree), path


def test_every_lazy_export_is_in_all_and_resolves_to_its_home():
    for path, tree in _lazy_packages().items():
        package = importlib.import_module(_module_name(path))
        for home, name in _listed(tree):
            assert name in package.__all__, (path, name)
            assert getattr(package, name) is getattr(importlib.import_module(home), name)
