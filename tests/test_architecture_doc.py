"""docs/architecture.md names modules, files, the names defined in them and the members of classes;
each must exist, so a rename or a move that forgets the map fails here instead of misleading the
next reader.

Three spellings are checked: a path (`store/files.py`, `ui/app.WebView`, `ui/app.WebView.routes`),
a module by its dotted name under memdir (`config.resolve_config`, `llm.registry.load_model`), and
a class's member (`MemorySession.toolbox`, `MemoryConfig.environment`)."""

import ast
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "memdir"
DOC = ROOT / "docs" / "architecture.md"

# `path/to/module.Name`, `path/to/module.py`, `path/` or `path/module.Name.attr(…)`: a reference with a slash
REFERENCE = re.compile(r"((?:[a-z_]+/)+[a-z_]*?)(?:(\.py|\.md|\.toml)|\.([A-Za-z_]\w*))?(?:\.(\w+))?(?:\(.*\))?/?")
# `module.name(…)` under memdir, `Class.member(…)`
DOTTED = re.compile(r"([a-z_]+(?:\.[a-z_]\w*)*)\.([A-Za-z_]\w*)(?:\(.*\))?")
MEMBER = re.compile(r"([A-Z]\w*)\.([a-z_]\w*)(?:\(.*\))?")
# Dotted words of the doc that are not Python: Node's path module, a value's method.
NOT_MODULES = {"path.posix.normalize", "value._replace(…)"}


def target(path: str) -> Path | None:
    for base in (ROOT, PACKAGE, PACKAGE.parent):
        for candidate in (base / f"{path}.py", base / path / "__init__.py", base / path):
            if candidate.exists():
                return candidate
    return None


def quoted() -> list[str]:
    return sorted(set(re.findall(r"`([^`\n]+)`", DOC.read_text(encoding="utf-8"))))


def references() -> list[tuple[str, str, str | None, str | None, str | None]]:
    found = []
    for text in quoted():
        match = REFERENCE.fullmatch(text)
        if match:
            found.append((text, match.group(1).rstrip("/"), match.group(2), match.group(3), match.group(4)))
    return found


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _defines(body: list[ast.stmt], name: str) -> bool:
    """Whether ``body`` (a module's or a class's) binds ``name``: a def, a class, an assignment or an
    annotated field, under ``if``/``try`` too."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                return True
        if isinstance(node, (ast.If, ast.Try)):
            blocks = [node.body, node.orelse, getattr(node, "finalbody", [])]
            blocks += [handler.body for handler in getattr(node, "handlers", [])]
            if any(_defines(block, name) for block in blocks):
                return True
    return False


def _classes() -> dict[str, list[ast.ClassDef]]:
    found: dict[str, list[ast.ClassDef]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(node)
    return found


CLASSES = _classes()


def _has_member(cls: ast.ClassDef, member: str, seen: frozenset[str] = frozenset()) -> bool:
    """``member`` defined in the class, set on ``self`` in one of its methods, or had from a base
    class of memdir's."""
    if _defines(cls.body, member):
        return True
    for node in ast.walk(cls):
        stored = isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and node.attr == member
        if stored and isinstance(node.value, ast.Name) and node.value.id == "self":
            return True
    bases = [base.id for base in cls.bases if isinstance(base, ast.Name) and base.id not in seen]
    return any(_has_member(other, member, seen | {cls.name}) for base in bases for other in CLASSES.get(base, []))


def _module(dotted: str) -> Path | None:
    path = PACKAGE / dotted.replace(".", "/")
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _modules_named(dotted: str) -> list[str]:
    """memdir's modules a dotted name may mean: from the package's top (``llm.registry``), or by the
    last parts of their path, as the doc names one after giving its folder (``registry``)."""
    found = [dotted] if _module(dotted) is not None else []
    for path in PACKAGE.rglob("*"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts and path.name != "__pycache__" and parts[-1] == dotted.split(".")[0]:
            longer = ".".join([*parts, *dotted.split(".")[1:]])
            if _module(longer) is not None:
                found.append(longer)
    return found


def test_every_module_and_name_the_architecture_doc_gives_with_its_path_exists():
    missing = []
    for text, path, suffix, name, member in references():
        found = target(path + (suffix or ""))
        if found is None:
            missing.append(text)
        elif name and found.is_file():
            tree = _tree(found)
            if not _defines(tree.body, name) or (
                member
                and not any(
                    isinstance(node, ast.ClassDef) and node.name == name and _has_member(node, member)
                    for node in tree.body
                )
            ):
                missing.append(text)
    assert len(references()) > 60
    assert missing == []


def test_every_module_name_the_doc_gives_by_its_dotted_name_exists():
    missing = []
    checked = 0
    for text in quoted():
        match = DOTTED.fullmatch(text)
        if not match or text.startswith("memdir.") or match.group(2) in ("py", "md", "toml", "json"):
            continue
        module, name = match.group(1), match.group(2)
        homes = _modules_named(module)
        if not homes and (text in NOT_MODULES or importlib.util.find_spec(module.split(".")[0]) is not None):
            continue  # not memdir's (os.environ, sys.modules, urllib.parse)
        checked += 1
        if any(_module(f"{home}.{name}") is not None for home in homes):
            continue  # a module named by its package (model.keys, team.secrets)
        if not any(_defines(_tree(_module(home)).body, name) for home in homes):
            missing.append(text)
    assert checked > 10
    assert missing == []


def test_every_class_member_the_doc_names_exists():
    missing = []
    checked = 0
    for text in quoted():
        match = MEMBER.fullmatch(text)
        if not match or match.group(1) not in CLASSES:
            continue
        checked += 1
        cls, member = match.groups()
        if not any(_has_member(node, member) for node in CLASSES[cls]):
            missing.append(text)
    assert checked > 5
    assert missing == []
