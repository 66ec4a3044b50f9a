"""kill -9 in the middle of a recorded write loses neither the memory nor its history.

The child process saves through the real store and the real history; a second observer, composed
with the history through the store's public observer hook, kills the process with SIGKILL at an
exact moment: after the history kept the old content but before the file is replaced, or after the
file is replaced but before the history recorded the new content.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
from history_place import Place, digest

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from memdir.config import resolve_config, open_memory_dir
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType
    from memdir.store.files import observe_writes
    from memdir.store.history import History
    from memdir.store.history_records import history_path

    memory, home, moment, body = sys.argv[1:5]
    config = resolve_config(memory_dir=memory)
    directory = open_memory_dir(config)
    history = History(memory, history_path(memory, home))

    class KillAt:
        def before(self, rel):
            history.before(rel)
            if moment == "before" and rel == "user_role.md":
                os.kill(os.getpid(), signal.SIGKILL)
        def written(self, rel, data):
            if moment == "written" and rel == "user_role.md":
                os.kill(os.getpid(), signal.SIGKILL)
            history.written(rel, data)
        def removed(self, rel):
            if moment == "removed":
                os.kill(os.getpid(), signal.SIGKILL)
            history.removed(rel)
        def moved(self, old, new):
            history.moved(old, new)

    observe_writes(memory, lambda: KillAt())
    if moment == "removed":
        directory.delete("user_role.md")
    else:
        memory_value = Memory(name="Role", description="Leads payments", type=MemoryType.USER, body=body)
        directory.save(memory_value, file="user_role.md", force=True)
    """
)


def crash(place: Place, moment: str, body: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(place.memory), str(place.home), moment, body],
        env={**os.environ, **place.env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode


@pytest.mark.parametrize("moment", ["before", "written", "removed"])
def test_a_kill_9_mid_write_loses_neither_the_memory_nor_its_history(place: Place, moment: str) -> None:
    place.run("add", "--type", "user", "--name", "Role", "--description", "Leads payments", "--body", "Old.")
    old = place.file("user_role.md")
    assert crash(place, moment, "New.") == -signal.SIGKILL
    rows = place.json("history", "user_role.md")  # the next memdir command looks again
    assert isinstance(rows, list)
    assert digest(old) in place.contents()
    if moment == "before":
        assert place.file("user_role.md") == old, "killed before the rename: the file is untouched"
        assert len(rows) == 1
    elif moment == "written":
        new = place.file("user_role.md")
        assert "New." in new and digest(new) in place.contents()
        assert (rows[0]["change"], rows[0]["by"]) == ("edit", "external")
    else:
        assert not (place.memory / "user_role.md").exists()
        assert rows[0]["change"] == "delete"
    place.run("restore", "user_role.md", "--version", "1")
    assert place.file("user_role.md") == old
    leftovers = [name for name in os.listdir(place.memory) if ".tmp." in name]
    place.run("add", "--type", "user", "--name", "Other", "--description", "d", "--body", "b")
    assert [name for name in os.listdir(place.memory) if ".tmp." in name] == [] or leftovers == []
