"""One home per name: a name is imported from the module that defines it.

A name imported through a module that only passes it on has two homes, and the next reader (or
the next move) has to find out which is real. So inside memdir every ``from memdir.x import name``
names the module where ``name`` is defined; a module's ``__all__`` lists only what it defines; and
only a package's ``__init__`` re-exports, through one :func:`memdir.lazy.lazy_exports` table whose
every line names the defining module. Tests, benchmarks and examples may also use a package's
exports (they are what a user imports), but never a module that merely imported the name.
"""

import ast
import pathlib
import textwrap

import memdir

SRC = pathlib.Path(memdir.__file__).parent
ROOT = SRC.parent.parent
OUTSIDE = [ROOT / "tests", ROOT / "bench", ROOT / "examples"]


def module_name(path):
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in SRC.rglob("*.py") if "__pycache__" not in path.parts}
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def defined_names(tree):
    """The names a module binds itself at its top level (under ``if``/``try`` too), not by importing."""
    names = set()

    def visit(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(node, field, []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)

    visit(tree.body)
    return names


DEFINED = {name: defined_names(tree) for name, tree in TREES.items()}


def lazy_tables(tree):
    """The ``{module: [names]}`` tables a package ``__init__`` hands to ``lazy_exports``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports":
            table = node.args[1]
            assert isinstance(table, ast.Dict), "lazy_exports takes a literal table"
            yield {ast.literal_eval(k): ast.literal_eval(v) for k, v in zip(table.keys, table.values, strict=True)}


def names_listed(value):
    """The literal names of an ``__all__`` list (``*_lazy`` spreads a lazy table, checked apart)."""
    return [element.value for element in value.elts if isinstance(element, ast.Constant)]


def package_exports(package):
    """What a package ``__init__`` exports lazily, each name by its home."""
    return {
        name
        for table in lazy_tables(TREES.get(package, ast.Module(body=[])))
        for names in table.values()
        for name in names
    }


def embedded_code(tree):
    """The import statements of the Python programs a test or benchmark holds in strings (child processes)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "from memdir" in node.value:
            try:
                program = ast.parse(textwrap.dedent(node.value))
            except SyntaxError:
                continue
            for inner in ast.walk(program):
                if isinstance(inner, ast.ImportFrom):
                    inner.lineno = node.lineno
                    yield inner


def imported_names(path, package):
    """(line, source module, name) for each ``from … import`` of memdir in a file, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in [*ast.walk(tree), *embedded_code(tree)]:
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            source = ".".join([*base, node.module] if node.module else base)
        else:
            source = node.module
        if source in MODULES:
            for alias in node.names:
                if f"{source}.{alias.name}" not in MODULES:  # a submodule is its own home
                    yield node.lineno, source, alias.name


def test_memdir_imports_every_name_from_the_module_that_defines_it():
    wrong = []
    for name, path in MODULES.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for line, source, imported in imported_names(path, package):
            if imported not in DEFINED[source]:
                wrong.append(f"{path.relative_to(SRC)}:{line} imports {imported} from {source}")
    assert wrong == [], "import each name from the module that defines it:\n" + "\n".join(wrong)


def test_only_package_inits_re_export_and_their_tables_name_each_home():
    wrong = []
    for name, tree in TREES.items():
        path = MODULES[name]
        for table in lazy_tables(tree):
            for home, names in table.items():
                wrong += [
                    f"{name} exports {n} from {home}, which does not define it" for n in names if n not in DEFINED[home]
                ]
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            # a package's __all__ comes from lazy_exports (a call, checked above); a module's is a list
            if any(getattr(target, "id", None) == "__all__" for target in targets) and isinstance(node.value, ast.List):
                wrong += [
                    f"{path.relative_to(SRC)} lists {n} in __all__ but does not define it"
                    for n in names_listed(node.value)
                    if n not in DEFINED[name]
                ]
    assert wrong == []


def test_tests_benchmarks_and_examples_import_from_a_home_or_a_package_export():
    wrong = []
    for folder in OUTSIDE:
        for path in folder.rglob("*.py"):
            for line, source, imported in imported_names(path, ""):
                if imported not in DEFINED[source] and imported not in package_exports(source):
                    wrong.append(f"{path.relative_to(ROOT)}:{line} imports {imported} from {source}")
    assert wrong == [], "import each name from the module that defines it:\n" + "\n".join(wrong)
