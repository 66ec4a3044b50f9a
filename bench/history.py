"""What the local history costs: a save with it against one without, its size, its reads, the hook.

- **save**: ``MemoryDir.save(force=True)`` of a 1 KB memory in a directory of 200 memories, with the
  history on and off, in turn (A B A B ...), each pair's ratio; then ``memdir add --force`` as a
  whole process, the same way; then, for comparison, what one ``git add && git commit`` of the
  directory costs (the other way to keep versions: a git process per save).
- **size**: the history database after 10,000 changes of 1 KB memories (100 memories, 100 saves
  each; each save changes one line of the body, and one in ten its description, so ``MEMORY.md``
  changes too), in bytes per change; and the same with every save a wholly new random text (the
  worst case for compression).
- **reads at 10,000 versions**: ``memdir history --json``, ``memdir history FILE``, ``memdir show
  FILE --version 1`` and ``memdir restore FILE --version 1`` as whole processes, medians.
- **hook**: the UserPromptSubmit hook (which only reads) with the 10,000-version history present,
  against a bare ``python -c pass`` run paired with it, and against the hook with the history off;
  then right after an outside edit, when it starts ``memdir history sync`` in the background.

Prints a table, writes bench/results/history.json. Run: ``python bench/history.py [--runs 20]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
WORDS = ["deploy", "payments", "review", "tests", "database", "api", "release", "freeze", "team", "service", "queue"]


def memdir_argv() -> list[str]:
    script = Path(sys.executable).with_name("memdir")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "memdir.cli"]


def body(rng: random.Random, size: int = 1000) -> str:
    lines = []
    while sum(len(line) + 1 for line in lines) < size:
        lines.append(" ".join(rng.choice(WORDS) for _ in range(10)))
    return "\n".join(lines)[:size]


def environment(home: Path, *, history: bool) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"memdir": {"history": history}}), encoding="utf-8")
    skip = ("MEMDIR_", "CLAUDE_", "ANTHROPIC_", "OPENAI_", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    env["CLAUDE_CONFIG_DIR"] = str(home)
    env["PYTHONPYCACHEPREFIX"] = str(home.parent / "pycache")
    return env


def open_dir(root: Path, home: Path, *, history: bool) -> Any:
    from memdir.config import open_memory_dir, resolve_config

    env = environment(home, history=history)
    return open_memory_dir(resolve_config(str(root.parent), memory_dir=str(root), env=env))


def fill(directory: Any, count: int, rng: random.Random) -> None:
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType

    for n in range(count):
        description = f"about {rng.choice(WORDS)} {n}"
        directory.save(Memory(name=f"Topic {n}", description=description, type=MemoryType.PROJECT, body=body(rng)))


def save_pairs(tmp: Path, runs: int) -> dict[str, float]:
    """In-process saves, with and without history, paired."""
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType

    rng = random.Random(1)
    with_dir = open_dir(tmp / "with" / "mem", tmp / "with" / "home", history=True)
    without_dir = open_dir(tmp / "without" / "mem", tmp / "without" / "home", history=False)
    for directory in (with_dir, without_dir):
        fill(directory, 200, random.Random(2))
    ratios, with_ms, without_ms = [], [], []
    for n in range(runs + 5):
        memory = Memory(name="Topic 7", description="about deploys 7", type=MemoryType.PROJECT, body=body(rng))
        times = {}
        for name, directory in (("with", with_dir), ("without", without_dir)):
            started = time.perf_counter()
            directory.save(memory, file="project_topic_7.md", force=True)
            times[name] = time.perf_counter() - started
        if n >= 5:  # the first saves open the database and take the first look at the directory
            ratios.append(times["with"] / times["without"])
            with_ms.append(times["with"] * 1000)
            without_ms.append(times["without"] * 1000)
    return {
        "ratio": statistics.median(ratios),
        "with_ms": statistics.median(with_ms),
        "without_ms": statistics.median(without_ms),
    }


def wall(argv: list[str], env: dict[str, str], stdin: str = "") -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, input=stdin, capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip()}")
    return took


def process_pairs(tmp: Path, runs: int) -> dict[str, float]:
    """``memdir add --force`` as a whole process, with and without history, paired."""
    sides = {}
    for name, keep in (("with", True), ("without", False)):
        root, home = tmp / f"p-{name}" / "mem", tmp / f"p-{name}" / "home"
        fill(open_dir(root, home, history=keep), 200, random.Random(3))
        sides[name] = (root, environment(home, history=keep))
    rng = random.Random(4)
    ratios, with_ms, without_ms = [], [], []
    for n in range(runs + 1):
        text = body(rng)
        times = {}
        for name, (root, env) in sides.items():
            argv = [*memdir_argv(), "--memory-dir", str(root), "add", "--type", "project", "--name", "Topic 7"]
            times[name] = wall([*argv, "--description", "about deploys 7", "--body", text, "--force"], env)
        if n:
            ratios.append(times["with"] / times["without"])
            with_ms.append(times["with"] * 1000)
            without_ms.append(times["without"] * 1000)
    return {
        "ratio": statistics.median(ratios),
        "with_ms": statistics.median(with_ms),
        "without_ms": statistics.median(without_ms),
    }


def git_per_save(tmp: Path, runs: int) -> dict[str, float] | None:
    """A save followed by ``git add -A && git commit`` of the directory: the git way, per save."""
    if shutil.which("git") is None:
        return None
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType

    root = tmp / "git" / "mem"
    directory = open_dir(root, tmp / "git" / "home", history=False)
    fill(directory, 200, random.Random(5))
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    env["GIT_COMMITTER_EMAIL"] = "b@b"
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "start"], check=True, env=env)
    rng = random.Random(6)
    ratios, saves, totals = [], [], []
    for _ in range(runs):
        memory = Memory(name="Topic 7", description="about deploys 7", type=MemoryType.PROJECT, body=body(rng))
        started = time.perf_counter()
        directory.save(memory, file="project_topic_7.md", force=True)
        saved = time.perf_counter()
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
        subprocess.run(["git", "-C", str(root), "commit", "-qm", "save"], check=True, env=env)
        done = time.perf_counter()
        ratios.append((done - started) / (saved - started))
        saves.append((saved - started) * 1000)
        totals.append((done - started) * 1000)
    return {
        "ratio": statistics.median(ratios),
        "save_ms": statistics.median(saves),
        "with_git_ms": statistics.median(totals),
    }


def size_after(tmp: Path, *, random_text: bool, changes: int = 10_000) -> dict[str, float]:
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType
    from memdir.store.history_records import history_path
    from memdir.store.provenance import acting_as

    rng = random.Random(7)
    root, home = tmp / f"size-{random_text}" / "mem", tmp / f"size-{random_text}" / "home"
    directory = open_dir(root, home, history=True)
    memories = 100
    texts = {n: body(rng) for n in range(memories)}
    descriptions = {n: f"about {rng.choice(WORDS)} {n}" for n in range(memories)}
    started = time.perf_counter()
    for step in range(changes):
        n = step % memories
        if random_text:
            texts[n] = body(rng)
        else:
            lines = texts[n].split("\n")
            lines[rng.randrange(len(lines))] = " ".join(rng.choice(WORDS) for _ in range(10))
            texts[n] = "\n".join(lines)
        if rng.random() < 0.1:
            descriptions[n] = f"about {rng.choice(WORDS)} {rng.choice(WORDS)} {n}"
        memory = Memory(name=f"Topic {n}", description=descriptions[n], type=MemoryType.PROJECT, body=texts[n])
        with acting_as("api"):  # one run per save, as one command each would be
            directory.save(memory, file=f"project_topic_{n}.md", force=True)
    seconds = time.perf_counter() - started
    db = history_path(str(root), str(home))
    history = directory.history
    history.db.close()
    import sqlite3

    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    versions = conn.execute("SELECT COUNT(*) FROM versions").fetchone()[0]
    conn.close()
    size = os.path.getsize(db)
    return {
        "changes": changes,
        "versions": versions,
        "bytes": size,
        "bytes_per_change": size / changes,
        "memory_bytes": statistics.mean(len(t) for t in texts.values()),
        "seconds": seconds,
        "root": str(root),
        "home": str(home),
    }


def reads(tmp: Path, store: dict[str, Any], runs: int) -> dict[str, float]:
    env = environment(Path(store["home"]), history=True)
    base = [*memdir_argv(), "--memory-dir", store["root"]]
    commands = {
        "history --json (all 10,000+)": [*base, "history", "--json"],
        "history FILE": [*base, "history", "project_topic_7.md"],
        "show FILE --version 1": [*base, "show", "project_topic_7.md", "--version", "1"],
        "restore FILE --version 1": [*base, "restore", "project_topic_7.md", "--version", "1"],
        "undo --last --force": [*base, "undo", "--last", "--force"],
    }
    out: dict[str, Any] = {}
    baseline = [*base, "path"]  # a command that reads no history: the same start-up and configuration
    for name, argv in commands.items():
        wall(argv, env)
        times, ratios = [], []
        for _ in range(runs):
            other = wall(baseline, env)
            took = wall(argv, env)
            times.append(took * 1000)
            ratios.append(took / other)
        out[name] = {"ms": statistics.median(times), "ratio_to_memdir_path": statistics.median(ratios)}
    out["in_process_ms"] = in_process(store)
    return out


def in_process(store: dict[str, Any]) -> dict[str, float]:
    """The same reads through the Python API, where no process start-up hides them."""
    directory = open_dir(Path(store["root"]), Path(store["home"]), history=True)
    history = directory.history

    def timed(action: Any) -> float:
        samples = []
        for _ in range(7):
            started = time.perf_counter()
            action()
            samples.append((time.perf_counter() - started) * 1000)
        return statistics.median(samples)

    return {
        "versions(all)": timed(lambda: history.versions()),
        "versions(file)": timed(lambda: history.versions("project_topic_7.md")),
        "text(file, 1)": timed(lambda: history.text("project_topic_7.md", 1)),
        "restore(file, 1)": timed(lambda: history.restore("project_topic_7.md", 1)),
        "runs(limit=50)": timed(lambda: history.runs(limit=50)),
    }


def hook(tmp: Path, store: dict[str, Any], runs: int) -> dict[str, float]:
    """The prompt hook with the 10,000-version history there, vs bare python, vs history off."""
    project = tmp / "hook-project"
    project.mkdir(exist_ok=True)
    data = json.dumps({"session_id": "b", "cwd": str(project), "prompt": "how do we deploy payments?"})
    argv = [*memdir_argv(), "--memory-dir", store["root"], "hook", "user-prompt-submit"]
    on = environment(Path(store["home"]), history=True)
    off_home = tmp / "hook-off-home"
    off = environment(off_home, history=False)
    for env in (on, off):
        wall(argv, env, data)
    ratios, against_off, times = [], [], []
    for n in range(runs):
        bare = wall([sys.executable, "-c", "pass"], on)
        took = wall(argv, on, json.dumps({**json.loads(data), "session_id": f"on{n}"}))
        other = wall(argv, off, json.dumps({**json.loads(data), "session_id": f"off{n}"}))
        ratios.append(took / bare)
        against_off.append(took / other)
        times.append(took * 1000)
    # After an outside edit the hook's scan notices it and starts `memdir history sync` in the
    # background (a detached process): what that start costs the prompt, paired with a bare
    # interpreter; a pause after each lets the background sync finish before the next sample.
    edited = Path(store["root"]) / "project_topic_7.md"
    after_ratios, after_off, after_times = [], [], []
    for n in range(runs):
        with open(edited, "a", encoding="utf-8") as handle:
            handle.write(f"outside edit {n}\n")
        bare = wall([sys.executable, "-c", "pass"], on)
        took = wall(argv, on, json.dumps({**json.loads(data), "session_id": f"edit{n}"}))
        other = wall(argv, off, json.dumps({**json.loads(data), "session_id": f"edit-off{n}"}))  # re-reads it too
        after_ratios.append(took / bare)
        after_off.append(took / other)
        after_times.append(took * 1000)
        time.sleep(2.0)
    return {
        "ratio_to_bare": statistics.median(ratios),
        "ratio_to_history_off": statistics.median(against_off),
        "ms": statistics.median(times),
        "after_outside_edit_ratio_to_bare": statistics.median(after_ratios),
        "after_outside_edit_ratio_to_history_off": statistics.median(after_off),
        "after_outside_edit_ms": statistics.median(after_times),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--changes", type=int, default=10_000)
    parser.add_argument("--skip", default="", help="steps to leave out, comma-separated (e.g. size_random)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memdir-history-") as name:
        tmp = Path(name)
        result: dict[str, Any] = {"runs": args.runs}
        steps = {
            "save_in_process": lambda: save_pairs(tmp, args.runs * 5),
            "save_process": lambda: process_pairs(tmp, args.runs),
            "git_per_save": lambda: git_per_save(tmp, args.runs),
            "size_edits": lambda: size_after(tmp, random_text=False, changes=args.changes),
            "reads_at_10000": lambda: reads(tmp, result["size_edits"], max(5, args.runs // 2)),
            "hook": lambda: hook(tmp, result["size_edits"], args.runs),
            "size_random": lambda: size_after(tmp, random_text=True, changes=args.changes),
        }
        for key, step in steps.items():
            if key in args.skip.split(","):
                result[key] = None
                continue
            result[key] = step()
            print(key, json.dumps(result[key]), flush=True)  # as it goes: a long run shows progress
    s, p, g = result["save_in_process"], result["save_process"], result["git_per_save"]
    print(f"medians; ratios are per pair (A B A B ...), {args.runs}+ pairs\n")
    print("| what | with history | without | ratio |\n|---|---|---|---|")
    rows = [
        ("save, in process (200 memories, 1 KB)", s["with_ms"], s["without_ms"], s["ratio"]),
        ("`memdir add --force`, whole process", p["with_ms"], p["without_ms"], p["ratio"]),
    ]
    if g:
        rows.append(("save + `git add -A && git commit` instead", g["with_git_ms"], g["save_ms"], g["ratio"]))
    for label, with_ms, without_ms, ratio in rows:
        print(f"| {label} | {with_ms:.2f} ms | {without_ms:.2f} ms | {ratio:.2f}× |")
    for key, label in (("size_edits", "one line edited per save"), ("size_random", "a new random text per save")):
        z = result[key]
        if z is None:
            continue
        print(
            f"\nhistory after {z['changes']:,} changes ({label}; memories of {z['memory_bytes']:.0f} B, "
            f"{z['versions']:,} versions with MEMORY.md): {z['bytes'] / 1e6:.1f} MB, "
            f"{z['bytes_per_change']:.0f} B per change ({z['seconds']:.0f} s to make)"
        )
    print("\n| at 10,000+ versions, whole process | median | ratio to `memdir path` |\n|---|---|---|")
    reads_result = dict(result["reads_at_10000"])
    api = reads_result.pop("in_process_ms")
    for name, figures in reads_result.items():
        print(f"| `memdir {name}` | {figures['ms']:.0f} ms | {figures['ratio_to_memdir_path']:.2f}× |")
    print("\n| at 10,000+ versions, Python API | median |\n|---|---|")
    for name, ms in api.items():
        print(f"| `history.{name}` | {ms:.1f} ms |")
    h = result["hook"]
    print(
        f"\nUserPromptSubmit hook with that history: {h['ms']:.0f} ms, {h['ratio_to_bare']:.1f}× a bare interpreter, "
        f"{h['ratio_to_history_off']:.2f}× the hook with memdir.history false; after an outside edit (it then "
        f"starts `memdir history sync` in the background): {h['after_outside_edit_ms']:.0f} ms, "
        f"{h['after_outside_edit_ratio_to_bare']:.1f}× a bare interpreter, "
        f"{h['after_outside_edit_ratio_to_history_off']:.2f}× the same hook with memdir.history false"
    )
    for key in ("size_edits", "size_random"):
        if result[key] is None:
            continue
        result[key].pop("root", None)
        result[key].pop("home", None)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "history.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
