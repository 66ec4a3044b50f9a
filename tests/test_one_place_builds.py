"""The composition root is the one place that builds: a memory directory, the derived index and the
selector are made by MemorySession (with the builders of ``config`` and ``recall.factory``), and
every adapter and feature gets them from a session, so a setting means the same thing everywhere.

Each builder below may be called only from the modules listed beside it (docs/architecture.md).
"""

import ast
import pathlib

import memdir

SRC = pathlib.Path(memdir.__file__).parent

CALLERS = {
    "open_memory_dir": {"memory_session.py"},
    # run_dream, the documented library entry, opens the dream directory when called without a session
    "open_dream_dir": {"memory_session.py", "journal/dream.py"},
    # memdir.agentWrites: every agent-facing write path gets its directory from MemorySession.agent_dir,
    # but the dream's, which wraps the dream directory rather than the store
    "agent_memory_dir": {"memory_session.py", "journal/dream.py"},
    "selector_record": {"memory_session.py", "recall/factory.py"},
    "build_selector": {"memory_session.py"},
    # reindex and the listing of every memory work on the index itself, whatever the store reads through
    "open_index": {"config.py", "recall/factory.py", "cli/index.py", "cli/listing.py"},
    "IndexedMemoryDir": {"config.py"},
    # a sub-agent's own directory and a session's notes folder are directories of their own, not the store
    "MemoryDir": {"config.py", "agents.py", "session_notes/updater.py"},
}


def calls(path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in CALLERS:
                yield name, node.lineno


def test_only_the_composition_root_builds_the_store_the_index_and_the_selector():
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        for name, line in calls(path):
            if rel not in CALLERS[name]:
                wrong.append(f"{rel}:{line} calls {name}: get it from a MemorySession")
    assert wrong == []
