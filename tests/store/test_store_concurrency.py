import signal
import subprocess
import sys
import textwrap

from memdir.model.memory import Memory
from memdir.store.directory import MemoryDir

SAVER = textwrap.dedent(
    """
    import sys
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType
    from memdir.store.directory import MemoryDir
    store = MemoryDir(sys.argv[1], lock_timeout=60)
    worker = int(sys.argv[2])
    for i in range(int(sys.argv[3])):
        store.save(Memory(name=f"W{worker} note {i}", description=f"worker {worker} memory {i}",
                          type=MemoryType.PROJECT, body="x" * 200), file=f"w{worker}_{i}.md")
    """
)

REWRITER = textwrap.dedent(
    """
    import sys
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType
    from memdir.store.directory import MemoryDir
    store = MemoryDir(sys.argv[1])
    versions = [("A" * 300_000), ("B" * 300_000)]
    i = 0
    while True:
        body = versions[i % 2]
        store.save(Memory(name="big", description=f"version {i % 2}", type=MemoryType.PROJECT, body=body),
                   file="big.md", force=True)
        print(i, flush=True)
        i += 1
    """
)


def test_twenty_processes_saving_at_once_lose_no_file_and_no_index_line(tmp_path):
    mem = tmp_path / "mem"
    per_worker = 5
    procs = [subprocess.Popen([sys.executable, "-c", SAVER, str(mem), str(w), str(per_worker)]) for w in range(20)]
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    store = MemoryDir(mem)
    files = {h.filename for h in store.headers()}
    expected = {f"w{w}_{i}.md" for w in range(20) for i in range(per_worker)}
    assert files == expected
    index = store.index_text()
    for name in expected:
        assert index.count(f"]({name})") == 1, name


def test_a_process_killed_during_saves_leaves_the_old_or_the_new_file_never_a_torn_one(tmp_path):
    mem = tmp_path / "mem"
    for round_number in range(6):
        proc = subprocess.Popen([sys.executable, "-c", REWRITER, str(mem)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        for _ in range(round_number + 1):
            assert proc.stdout.readline() != ""
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()
        memory = Memory.parse((mem / "big.md").read_text(encoding="utf-8"))
        body = memory.body.strip()
        assert body in ("A" * 300_000, "B" * 300_000)
        assert memory.description == ("version 0" if body[0] == "A" else "version 1")
        leftovers = [p.name for p in mem.iterdir() if ".tmp." in p.name]
        assert all(not name.endswith(".md") for name in leftovers)
        index = MemoryDir(mem).index_text()
        assert index.count("](big.md)") == 1
