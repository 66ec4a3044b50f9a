"""Writes at any size: what a save costs as the store grows, against a plain atomic write of the file.

Parts (``--parts``, all by default):

- ``save``: in one warm process, for each size (``--sizes``, default 100, 1,000, 10,000 and
  100,000 memories, each with a ``MEMORY.md`` of one line per memory up to 150 lines), the CPU
  time of ``MemoryDir.save`` through the Python API (``open_memory_dir(resolve_config(...))``,
  history on, the default settings) replacing a memory that has its index line, and saving a new
  one; each save is paired with a plain ``atomic_write`` of the same bytes to a file of the same
  directory (write, fsync, rename, fsync of the directory: the least a durable write costs; a new
  file for a new memory, the same file again for a replacement), so the ratio is taken on a shared
  machine at the same moment. Median of ``--saves`` pairs.
- ``first``: the first save of a new process on a store its history has never seen (a fresh
  config home), as a subprocess: the CPU of that one save, at each size of ``--first-sizes``.
- ``puts``: ``--puts`` LangGraph puts (``MemdirStore.put``, LangMem's ``{"content": ...}``
  value, one new key each) into an empty store, the CPU per put of each tenth of them: a
  linear cost keeps the tenths level; a cost that grows with the store makes the last tenth the
  dearest.
- ``search``: a search with a filter and no query (``MemdirStore.search(ns, filter=...)``) over
  the store the puts wrote, in a new store object (a fresh process's first search) and again
  (warm), median of ``--runs``.

Figures go in docs/frameworks.md ("Writes at any size"). Run from a checkout:
``python bench/store_writes.py [--sizes 100 1000 10000 100000] [--label after]``; with
``PYTHONPATH=<other checkout>/src`` it measures that code (the "before" figures).
Prints a table and writes bench/results/store_writes-<label>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
TYPES = ("user", "feedback", "project", "reference")
INDEX_LINES = 150


def build_store(root: Path, count: int) -> None:
    """``count`` memory files and a ``MEMORY.md`` listing the first 150 of them."""
    root.mkdir(parents=True)
    lines = []
    for i in range(count):
        kind = TYPES[i % len(TYPES)]
        name = f"{kind}_note_{i}.md"
        text = (
            f"---\nname: Note {i}\ndescription: How the service handles case {i} of the release checklist\n"
            f"type: {kind}\n---\n\nWhen case {i} comes up, run the checklist step {i % 37} first.\n"
        )
        (root / name).write_text(text, encoding="utf-8")
        if i < INDEX_LINES:
            lines.append(f"- [Note {i}]({name}) — How the service handles case {i} of the release checklist")
    (root / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def environment(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / "claude")}


def cpu_ms(step: Any) -> float:
    started = time.process_time_ns()
    step()
    return (time.process_time_ns() - started) / 1e6


def measure_saves(root: Path, home: Path, saves: int) -> dict[str, Any]:
    from memdir.config import open_memory_dir, resolve_config
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType
    from memdir.store.files import atomic_write

    directory = open_memory_dir(resolve_config(memory_dir=str(root), env=environment(home)))
    plain = str(root / "plain_write.md")

    def memory(i: int) -> Memory:
        return Memory(
            name="Note 1",
            description="How the service handles case 1 of the release checklist",
            type=MemoryType.FEEDBACK,
            body=f"Revision {i}: when case 1 comes up, run the checklist step 1 first.",
        )

    for i in range(5):  # warm: the history's first look at the directory, imports, caches
        directory.save(memory(i), file="feedback_note_1.md", force=True)
    out: dict[str, Any] = {}
    for kind in ("replace", "create"):
        pairs = []
        for i in range(saves):
            file = "feedback_note_1.md" if kind == "replace" else f"feedback_new_{i}.md"
            item = memory(i) if kind == "replace" else _named(memory(i), i)
            text = directory.as_written(item).render()
            save = cpu_ms(partial(directory.save, item, file=file, force=True))
            # The same kind of write: a new file for a new memory, a replaced one for a replacement.
            target = plain if kind == "replace" else str(root / f"plain_new_{i}.md")
            write = cpu_ms(partial(atomic_write, target, text))
            pairs.append((save, write))
        out[kind] = {
            "save_ms": statistics.median(p[0] for p in pairs),
            "plain_ms": statistics.median(p[1] for p in pairs),
            "ratio": statistics.median(p[0] / p[1] for p in pairs),
        }
    return out


def _named(memory: Any, i: int) -> Any:
    from dataclasses import replace

    return replace(memory, name=f"New note {i}", description=f"A new note number {i} about the checklist")


FIRST_SAVE = """
import sys, time
from memdir.config import open_memory_dir, resolve_config
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
root, home = sys.argv[1], sys.argv[2]
directory = open_memory_dir(resolve_config(memory_dir=root, env={"HOME": home, "CLAUDE_CONFIG_DIR": home + "/claude"}))
memory = Memory(name="First", description="The first save of this process", type=MemoryType.USER, body="x")
cpu, wall = time.process_time(), time.perf_counter()
directory.save(memory, file="user_first_save.md", force=True)
print(time.process_time() - cpu, time.perf_counter() - wall)
"""


def measure_first(root: Path, tmp: Path, runs: int) -> dict[str, Any]:
    samples = []
    for run in range(runs):
        home = tmp / f"first-home-{root.name}-{run}"
        done = subprocess.run(
            [sys.executable, "-c", FIRST_SAVE, str(root), str(home)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **environment(home)},
        )
        cpu, wall = map(float, done.stdout.split())
        samples.append((cpu * 1000, wall * 1000))
        (root / "user_first_save.md").unlink()
    return {"cpu_ms": statistics.median(s[0] for s in samples), "wall_ms": statistics.median(s[1] for s in samples)}


def measure_puts(root: Path, home: Path, puts: int) -> dict[str, Any]:
    os.environ.update(environment(home))
    from memdir.integrations.frameworks.langgraph import MemdirStore

    store = MemdirStore(memory_dir=str(root))
    tenth = max(puts // 10, 1)
    blocks = []
    for block in range(puts // tenth):

        def run(block: int = block) -> None:
            for i in range(block * tenth, (block + 1) * tenth):
                value = {"content": f"Memory number {i}: the checklist step {i % 37}", "n": i % 10}
                store.put(("memories",), f"k{i}", value)

        blocks.append(cpu_ms(run) / tenth)
    return {"puts": puts, "cpu_ms_per_put_by_tenth": blocks, "last_over_first": blocks[-1] / blocks[0]}


def measure_search(root: Path, home: Path, runs: int) -> dict[str, Any]:
    os.environ.update(environment(home))
    from memdir.integrations.frameworks.langgraph import MemdirStore

    def first() -> float:
        store = MemdirStore(memory_dir=str(root))
        started = time.perf_counter()
        found = store.search(("memories",), filter={"n": 3}, limit=1000)
        assert found, "the filter matches a tenth of the memories"
        return (time.perf_counter() - started) * 1000

    cold = [first() for _ in range(runs)]
    store = MemdirStore(memory_dir=str(root))
    store.search(("memories",), filter={"n": 3}, limit=1000)
    warm = []
    for _ in range(runs):
        started = time.perf_counter()
        store.search(("memories",), filter={"n": 3}, limit=1000)
        warm.append((time.perf_counter() - started) * 1000)
    return {"first_ms": statistics.median(cold), "warm_ms": statistics.median(warm)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="save,first,puts,search")
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 1_000, 10_000, 100_000])
    parser.add_argument("--first-sizes", type=int, nargs="*", default=[10_000])
    parser.add_argument("--saves", type=int, default=41)
    parser.add_argument("--puts", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--label", default="current")
    options = parser.parse_args()
    parts = set(options.parts.split(","))
    result: dict[str, Any] = {"label": options.label}
    with tempfile.TemporaryDirectory(prefix="memdir-writes-") as name:
        tmp = Path(name)
        if "save" in parts:
            result["save"] = {}
            for size in options.sizes:
                root = tmp / f"save-{size}"
                build_store(root, size)
                figures = measure_saves(root, tmp / f"home-{size}", options.saves)
                result["save"][size] = figures
                for kind, row in figures.items():
                    print(
                        f"save {kind:7} {size:>7} memories: {row['save_ms']:.2f} ms CPU, plain write "
                        f"{row['plain_ms']:.2f} ms, ratio {row['ratio']:.2f}",
                        flush=True,
                    )
        if "first" in parts:
            result["first"] = {}
            for size in options.first_sizes:
                root = tmp / f"first-{size}"
                build_store(root, size)
                figures = measure_first(root, tmp, options.runs)
                result["first"][size] = figures
                cpu, wall = figures["cpu_ms"], figures["wall_ms"]
                print(f"first save {size:>7} memories: {cpu:.0f} ms CPU, {wall:.0f} ms wall")
        if "puts" in parts or "search" in parts:
            root = tmp / "puts"
            home = tmp / "puts-home"
            figures = measure_puts(root, home, options.puts)
            result["puts"] = figures
            tenths = ", ".join(f"{ms:.2f}" for ms in figures["cpu_ms_per_put_by_tenth"])
            growth = figures["last_over_first"]
            print(f"{options.puts} puts: CPU ms per put by tenth: {tenths}; last/first {growth:.2f}")
            if "search" in parts:
                found = measure_search(root, home, options.runs)
                result["search"] = found
                first, warm = found["first_ms"], found["warm_ms"]
                print(f"filter-only search over {options.puts}: first {first:.0f} ms, warm {warm:.0f} ms")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"store_writes-{options.label}.json"
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
