import ast
import pathlib

import memdir

SRC = pathlib.Path(memdir.__file__).parent


def test_the_public_surface_is_pinned():
    assert sorted(memdir.__all__) == [
        "ConfigError",
        "DeleteResult",
        "LexicalSelector",
        "LockTimeout",
        "MemdirError",
        "Memory",
        "MemoryConfig",
        "MemoryDir",
        "MemoryDisabled",
        "MemoryExists",
        "MemoryFormatError",
        "MemoryHeader",
        "MemoryNotFound",
        "MemoryRecord",
        "MemorySession",
        "MemoryType",
        "ModelError",
        "RecallResult",
        "RecallState",
        "Recaller",
        "SaveResult",
        "SecretDetected",
        "Selection",
        "SelectionRequest",
        "Selector",
        "SurfacedMemory",
        "UnsafePathError",
        "open_memory_dir",
        "resolve_config",
    ]
    for name in memdir.__all__:
        assert hasattr(memdir, name)


def imports_of(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


LAYERS = {"model": 0, "store": 1}


def test_dependency_direction_model_then_store_then_features():
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).parts
        for module in imports_of(path):
            if not module.startswith("memdir."):
                continue
            target = module.split(".")[1]
            assert target != "cli" or rel[0] in ("cli", "__main__.py"), f"{path} imports the CLI"
            if rel[0] == "model":
                assert target in ("model", "errors"), f"{path} (model) imports {module}"
            if rel[0] == "store":
                assert target in ("model", "store", "errors", "paths", "containment"), f"{path} imports {module}"
            if rel[0] == "server":
                assert module.startswith(
                    (
                        "memdir.server",
                        "memdir.team.protocol",
                        "memdir.team.secrets",
                        "memdir.model.keys",
                        "memdir.errors",
                        "memdir.ui.web",
                    )
                ), f"{path} imports {module}"


def test_every_module_declares_all():
    for path in SRC.rglob("*.py"):
        if path.name in ("__main__.py",) or path.parent.name == "prompts":
            continue
        text = path.read_text(encoding="utf-8")
        if path.name == "__init__.py" and not text.strip():
            continue
        assert "__all__" in text, path
