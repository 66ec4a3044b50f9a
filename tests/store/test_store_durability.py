"""What a write promises when the process or the machine stops halfway.

``atomic_write`` must leave the old bytes or the new ones, never a mix: the new bytes go to a temp
file, are flushed to disk, renamed over the target, and the directory entry is flushed too. A
killed process is hard to stop at an exact byte, so the tests observe the promise where it can be
seen deterministically: a write that fails halfway (a file-size limit stops it after some bytes,
like a full disk), a reader that already holds the old file open, and the order of the system calls
as the kernel sees them (strace).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir
from memdir.store.files import atomic_write

# The child lowers its own file-size limit, so that any write past LIMIT bytes fails with EFBIG
# (the signal that would kill it is ignored), then tries to replace the file with something larger.
LIMITED_WRITER = textwrap.dedent(
    """
    import resource, signal, sys
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType
    from memdir.store.files import atomic_write
    from memdir.store.directory import MemoryDir
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    limit = int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    try:
        if sys.argv[1] == "file":
            atomic_write(sys.argv[2], "B" * (4 * limit))
        else:
            MemoryDir(sys.argv[2]).save(
                Memory(name="big", description="version B", type=MemoryType.PROJECT, body="B" * (4 * limit)),
                file="big.md", force=True,
            )
    except OSError as exc:
        print(exc.errno)
        sys.exit(3)
    """
)
LIMIT = 65_536


def run_limited(kind: str, target: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LIMITED_WRITER, kind, str(target), str(LIMIT)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_write_that_fails_halfway_leaves_the_old_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "note.md"
    old = "A" * (LIMIT // 2)
    atomic_write(target, old)
    done = run_limited("file", target)
    assert done.returncode == 3, done.stderr  # the write really did fail halfway
    assert target.read_text(encoding="utf-8") == old
    assert [p.name for p in tmp_path.iterdir()] == ["note.md"]  # the partial temp file is gone


def test_a_save_that_fails_halfway_leaves_the_old_memory_and_index_intact(tmp_path: Path) -> None:
    mem = tmp_path / "mem"
    store = MemoryDir(mem)
    store.save(Memory(name="big", description="version A", type=MemoryType.PROJECT, body="A" * 1000), file="big.md")
    index_before = store.index_text()
    done = run_limited("store", mem)
    assert done.returncode == 3, done.stderr
    memory = Memory.parse((mem / "big.md").read_text(encoding="utf-8"))
    assert (memory.description, memory.body.strip()) == ("version A", "A" * 1000)
    assert MemoryDir(mem).index_text() == index_before


def test_a_reader_that_opened_the_old_file_reads_the_old_version_whole(tmp_path: Path) -> None:
    target = tmp_path / "note.md"
    old, new = "old line\n" * 20_000, "new\n" * 5
    atomic_write(target, old)
    with target.open(encoding="utf-8") as reader:
        start = reader.read(100)
        atomic_write(target, new)
        assert start + reader.read() == old
    assert target.read_text(encoding="utf-8") == new


def _strace_usable() -> str | None:
    """Why the kernel's view of the calls cannot be taken here, or None when it can."""
    if shutil.which("strace") is None:
        return "strace is not installed (apt-get install strace)"
    probe = subprocess.run(["strace", "-qq", "-e", "trace=none", "true"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return f"strace cannot trace here: {probe.stderr.strip()[:200]}"
    return None


CALL = re.compile(r"^\d+\s+(?P<call>\w+)\((?P<args>.*)\)\s+=\s+(?P<result>-?\d+)")
FD_PATH = re.compile(r"^\d+<(?P<path>[^>]*)>")


def traced_calls(tmp_path: Path, target: Path, size: int) -> list[tuple[str, str, str]]:
    """(call, path or paths, result) of the writes, syncs and renames one atomic_write makes."""
    log = tmp_path / "strace.log"
    script = "import sys\nfrom memdir.store.files import atomic_write as w\nw(sys.argv[1], 'x' * int(sys.argv[2]))"
    traced = "trace=%file,write,fsync,fdatasync,close"  # %file: whichever rename call the platform has
    command = [sys.executable, "-c", script, str(target), str(size)]
    subprocess.run(
        ["strace", "-f", "-y", "-qq", "-e", traced, "-o", str(log), *command],
        check=True,
        timeout=60,
    )
    calls = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        match = CALL.match(line)
        if match is None or str(target.parent) not in line:
            continue
        args = match["args"]
        fd = FD_PATH.match(args)
        where = fd["path"] if fd else args
        calls.append((match["call"], where, match["result"]))
    return calls


def test_the_new_bytes_reach_the_disk_before_the_rename_and_the_rename_before_the_call_returns(tmp_path: Path) -> None:
    reason = _strace_usable()
    if reason is not None:
        pytest.skip(reason)
    directory = Path(os.path.realpath(tmp_path)) / "d"
    directory.mkdir()
    target = directory / "note.md"
    calls = traced_calls(tmp_path, target, 50_000)
    renames = [i for i, (call, _, result) in enumerate(calls) if call.startswith("rename") and result == "0"]
    assert len(renames) == 1, calls
    rename = renames[0]
    temp = re.findall(r'"([^"]*)"', calls[rename][1])[0]
    assert temp != str(target) and temp.startswith(str(directory) + "/") and not temp.endswith(".md")
    written = sum(int(result) for call, where, result in calls[:rename] if call == "write" and where == temp)
    assert written == 50_000
    last_write = max(i for i, (call, where, _) in enumerate(calls) if call == "write" and where == temp)
    file_syncs = [i for i, (call, where, _) in enumerate(calls) if call in ("fsync", "fdatasync") and where == temp]
    assert any(last_write < i < rename for i in file_syncs), f"temp file not synced before the rename: {calls}"
    dir_syncs = [i for i, (call, where, _) in enumerate(calls) if call == "fsync" and where == str(directory)]
    assert any(i > rename for i in dir_syncs), f"no sync of the directory after the rename: {calls}"
    assert not any(call == "write" and where == str(target) for call, where, _ in calls), "target written in place"
