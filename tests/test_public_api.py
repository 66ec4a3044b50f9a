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


def test_every_module_declares_all():
    for path in SRC.rglob("*.py"):
        if path.name in ("__main__.py",) or path.parent.name == "prompts":
            continue
        text = path.read_text(encoding="utf-8")
        if path.name == "__init__.py" and not text.strip():
            continue
        assert "__all__" in text, path
