"""Recall at scale: scan, manifest, index and offline recall over synthetic stores of realistic size.

For each store size (200, 2,000 and 20,000 memories by default; ``--big`` adds 100,000) this
builds a directory of memories shaped like real ones (a short name, a one-line description,
a body of a few hundred to a couple of thousand bytes, words drawn with a Zipf law) and reports:

- cold and warm header scan (``scan_memory_files``, a fresh cache, then the same cache again);
- the manifest of every header;
- offline recall through the plain header scan (``Recaller.select``, lexical), warm, median and p95
  over 50 queries;
- the derived index: build from nothing, refresh after a 1% change, the first recall through it
  ever (it analyses every memory's text and stores the analyses in the index), the first recall
  through a reopened index in this interpreter (loads headers and stored analyses, but no start-up
  and no imports), warm recall through it (``IndexedMemoryDir``), and FTS5 search;
- what a hook really pays per prompt: the installed ``memdir hook user-prompt-submit`` command run
  as a new process (interpreter start-up, imports, settings, recall, hook state, output), wall
  time from start to exit, median of ``--runs`` runs after one warm-up, each with a new session
  and its own query; once with ``scanCap`` null (recall over the whole store through the derived
  index, built beforehand by ``memdir reindex``) and once with the default cap of 200 (plain scan);
  a bare ``python -c pass`` is timed the same way as the floor;
- peak resident memory of the process that measured the size;
- with ``--hybrid`` (needs the ``embed`` extra): the hybrid selector through the index, after one
  warm-up that encodes every memory once (the vectors are cached in the index, as in real use).

Each size runs in its own process so that peak memory is per size. Results are printed as a
table and written to bench/results/recall_scale.json. Run: ``python bench/recall_scale.py [--big]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memdir.integrations.hooks.install import hook_command_prefix
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.manifest import format_manifest
from memdir.recall.recaller import Recaller
from memdir.recall.registry import SelectorInputs, build_selector
from memdir.store.directory import MemoryDir
from memdir.store.index_db import IndexedMemoryDir, MemoryIndex
from memdir.store.scan import ScanCache, scan_memory_files

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
QUERIES = 50
TYPES = ("user", "feedback", "project", "reference")
_COMMON_TEXT = (
    "the a to of and in for is on with that this it as be at by from we use our when should not run test tests "
    "deploy api database service build release user team code review config staging production error fix"
)
COMMON = _COMMON_TEXT.split()


def vocabulary(rng: random.Random, size: int = 12_000) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qui", "dra", "fen", "gol", "hux", "jor"]
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return COMMON + sorted(words)


class Writer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary(self.rng)
        # Cumulative weights, computed once: given plain weights, ``choices`` sums all 12,000 of
        # them again for every phrase, which made writing 100,000 memories take minutes.
        self.cum_weights = list(itertools.accumulate(1.0 / (rank + 1) ** 1.05 for rank in range(len(self.words))))

    def phrase(self, n: int) -> str:
        return " ".join(self.rng.choices(self.words, cum_weights=self.cum_weights, k=n))

    def memory(self, i: int) -> tuple[str, str]:
        kind = TYPES[i % 4]
        name = self.phrase(self.rng.randint(2, 5)).capitalize()
        description = self.phrase(self.rng.randint(8, 20)).capitalize()
        body = "\n".join(self.phrase(self.rng.randint(8, 16)) + "." for _ in range(self.rng.randint(3, 18)))
        text = f"---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n"
        return f"{kind}_{i:06d}.md", text


def build(root: Path, count: int, seed: int = 7) -> tuple[list[str], list[str]]:
    """Write ``count`` memories; return their file names and 50 queries about some of them."""
    writer = Writer(seed)
    root.mkdir(parents=True, exist_ok=True)
    files = []
    descriptions = []
    base = 1_700_000_000
    for i in range(count):
        file, text = writer.memory(i)
        path = root / file
        path.write_text(text, encoding="utf-8")
        os.utime(path, (base + i, base + i))
        files.append(file)
        descriptions.append(text.split("description: ", 1)[1].split("\n", 1)[0])
    queries = []
    for _ in range(QUERIES):
        words = writer.rng.choice(descriptions).lower().split()
        picked = writer.rng.sample(words, k=min(len(words), 4))
        queries.append("how do we handle " + " ".join(picked) + " " + writer.phrase(3))
    return files, queries


def process_ms(command: list[str], *, env: dict[str, str], stdin: str = "") -> tuple[float, float]:
    """Wall and CPU (user + system) milliseconds of one whole process, from start to exit.

    CPU time is the kernel's accounting of the finished child: on a busy machine it stays close to
    what the process costs while its wall time also counts the wait for a core. A failure stops the
    benchmark."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, input=stdin, env=env, capture_output=True, text=True, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if done.returncode != 0 or done.stderr.strip():
        raise RuntimeError(f"{command[-2:]} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return elapsed, cpu


def hook_processes(root: Path, workdir: Path, queries: list[str], runs: int) -> dict[str, Any]:
    """Median wall time of the UserPromptSubmit hook as Claude Code starts it: one process per prompt."""
    project = workdir / "project"
    project.mkdir(exist_ok=True)
    prefix = hook_command_prefix(["--project", str(project), "--memory-dir", str(root)])
    out: dict[str, Any] = {"runs": runs}
    for label, settings in (("uncapped", {"memdir": {"scanCap": None}}), ("capped", {})):
        home = workdir / f"home-{label}"
        home.mkdir(exist_ok=True)
        (home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(home), "HOME": str(workdir)}
        if label == "uncapped":
            process_ms([*prefix, "reindex"], env=env)
        times = []
        for run in range(runs + 1):
            event = {"session_id": f"{label}-{run}", "cwd": str(project), "prompt": queries[run % len(queries)]}
            measured = process_ms([*prefix, "hook", "user-prompt-submit"], env=env, stdin=json.dumps(event))
            if run:  # the first run warms the page cache and writes the first hook state
                times.append(measured)
        out[f"{label}_ms"] = statistics.median(wall for wall, _ in times)
        out[f"{label}_cpu_ms"] = statistics.median(cpu for _, cpu in times)
        out[f"{label}_runs_ms"] = [round(wall, 1) for wall, _ in times]
    floor = [process_ms([sys.executable, "-c", "pass"], env=dict(os.environ)) for _ in range(runs)]
    out["python_ms"] = statistics.median(wall for wall, _ in floor)
    out["python_cpu_ms"] = statistics.median(cpu for _, cpu in floor)
    return out


def timed(fn: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    value = fn()
    return (time.perf_counter() - started) * 1000, value


def latency(fn: Any, queries: list[str]) -> dict[str, float]:
    for query in queries[:5]:
        fn(query)
    times = sorted(timed(lambda q=q: fn(q))[0] for q in queries)
    return {"median_ms": statistics.median(times), "p95_ms": times[int(0.95 * (len(times) - 1))]}


def change_one_percent(root: Path, files: list[str], seed: int) -> int:
    rng = random.Random(seed)
    writer = Writer(seed + 1)
    chosen = rng.sample(files, k=max(1, len(files) // 100))
    for file in chosen:
        path = root / file
        text = path.read_text(encoding="utf-8").replace("description: ", f"description: {writer.phrase(3)} ", 1)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (1_800_000_000, 1_800_000_000))
    return len(chosen)


def measure(count: int, workdir: Path, *, hybrid: bool = False, runs: int = 7) -> dict[str, Any]:
    root = workdir / f"mem-{count}"
    build_ms, (files, queries) = timed(lambda: build(root, count))
    out: dict[str, Any] = {"memories": count, "write_store_s": build_ms / 1000}
    cache = ScanCache()
    out["cold_scan_ms"], headers = timed(lambda: scan_memory_files(str(root), max_files=None, cache=cache))
    out["warm_scan_ms"], _ = timed(lambda: scan_memory_files(str(root), max_files=None, cache=cache))
    out["manifest_ms"], _ = timed(lambda: format_manifest(headers))

    plain = Recaller(MemoryDir(root, scan_cap=None), selector=LexicalSelector())
    out["recall_scan"] = latency(lambda q: plain.select(q), queries)

    index = MemoryIndex(root, str(workdir / f"index-{count}.sqlite3"), refresh_interval=3600)
    out["index_build_s"] = index.refresh().seconds
    changed = change_one_percent(root, files, count)
    stats = index.refresh()
    out["refresh_1pct_s"] = stats.seconds
    out["refresh_changed"] = changed
    out["refresh_nochange_s"] = index.refresh().seconds
    indexed = Recaller(IndexedMemoryDir(root, index=index, scan_cap=None), selector=LexicalSelector(cache=index))
    out["recall_index_first_ms"], _ = timed(lambda: indexed.select(queries[0]))
    out["recall_index"] = latency(lambda q: indexed.select(q), queries)

    def new_process() -> object:
        """A reopened index in this interpreter: headers and stored analyses loaded, then a ranking."""
        reopened = MemoryIndex(root, index.path, refresh_interval=3600)
        try:
            store = IndexedMemoryDir(root, index=reopened, scan_cap=None)
            return Recaller(store, selector=LexicalSelector(cache=reopened)).select(queries[1])
        finally:
            reopened.close()

    out["recall_index_cold_ms"], _ = timed(new_process)
    out["fts_search"] = latency(lambda q: index.search(q, limit=10), queries)
    if hybrid:
        fused = Recaller(
            IndexedMemoryDir(root, index=index, scan_cap=None),
            selector=build_selector("hybrid", SelectorInputs(analyses=index, vectors=index)),
        )
        out["embed_all_s"] = timed(lambda: fused.select(queries[0]))[0] / 1000
        out["recall_hybrid"] = latency(lambda q: fused.select(q), queries)
    index.close()
    out["hook_process"] = hook_processes(root, workdir, queries, runs)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    shutil.rmtree(root, ignore_errors=True)
    return out


def row(r: dict[str, Any]) -> str:
    cells = [
        f"{r['memories']:,}",
        f"{r['cold_scan_ms']:.0f}",
        f"{r['warm_scan_ms']:.0f}",
        f"{r['manifest_ms']:.1f}",
        f"{r['recall_scan']['median_ms']:.1f} / {r['recall_scan']['p95_ms']:.1f}",
        f"{r['index_build_s']:.1f}",
        f"{r['refresh_1pct_s']:.2f}",
        f"{r['recall_index']['median_ms']:.1f} / {r['recall_index']['p95_ms']:.1f}",
        f"{r['recall_index_first_ms']:.0f} / {r['recall_index_cold_ms']:.0f}",
        f"{r['hook_process']['uncapped_ms']:.0f} / {r['hook_process']['capped_ms']:.0f}",
        f"{r['fts_search']['median_ms']:.1f} / {r['fts_search']['p95_ms']:.1f}",
        f"{r['peak_rss_mb']:.0f}",
    ]
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| memories | cold scan ms | warm scan ms | manifest ms | recall via scan ms (median / p95) | index build s "
    "| refresh 1% s | recall via index ms (median / p95) | first recall ms: ever / reopened index in-process "
    "| hook process ms, median: scanCap null / 200 | FTS5 search ms (median / p95) | peak RSS MB |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"
)


HOOK_HEADER = (
    "\n| memories | hook process, scanCap null: wall ms median (runs) | CPU ms median "
    "| hook process, scanCap 200: wall ms / CPU ms | python -c pass: wall ms / CPU ms |\n|---|---|---|---|---|"
)


def hook_row(count: int, hook: dict[str, Any]) -> str:
    runs = ", ".join(f"{t:.0f}" for t in hook["uncapped_runs_ms"])
    cells = [
        f"{count:,}",
        f"{hook['uncapped_ms']:.0f} ({runs})",
        f"{hook['uncapped_cpu_ms']:.0f}",
        f"{hook['capped_ms']:.0f} / {hook['capped_cpu_ms']:.0f}",
        f"{hook['python_ms']:.0f} / {hook['python_cpu_ms']:.0f}",
    ]
    return "| " + " | ".join(cells) + " |"


def child(command: list[str], *, env: dict[str, str], stdin: str = "") -> dict[str, float]:
    """One whole process: wall ms, CPU ms (user + system) and peak resident MB, from the kernel's
    accounting of that child alone (``wait4``), so the peak is the hook's own, not the largest
    of every process this benchmark started. A failure stops the benchmark."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(stdin.encode("utf-8"))
    proc.stdin.close()
    proc.stdout.read()
    err = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = (time.perf_counter() - started) * 1000
    if proc.returncode != 0 or err.strip():
        raise RuntimeError(f"{command[-2:]} failed ({proc.returncode}): {err.strip()[-500:]}")
    cpu = (usage.ru_utime + usage.ru_stime) * 1000
    return {"wall_ms": elapsed, "cpu_ms": cpu, "rss_mb": usage.ru_maxrss / 1024}


# The prompt hook of a small store exits once it has answered and leaves a forked copy checking
# every file's stat (a few milliseconds): each hook run is given this long to let it finish before
# the bare start it is paired with, as a person's next prompt is seconds away.
SETTLE_S = 0.1


def store_for(count: int, stores: Path) -> tuple[Path, list[str]]:
    """The synthetic store of ``count`` memories, written once under ``stores`` and reused after."""
    root = stores / f"mem-{count}"
    done = stores / f"queries-{count}.json"
    if not done.exists():
        shutil.rmtree(root, ignore_errors=True)
        _, queries = build(root, count)
        done.write_text(json.dumps(queries), encoding="utf-8")
    return root, json.loads(done.read_text(encoding="utf-8"))


def summary(samples: list[dict[str, float]], bare: list[dict[str, float]]) -> dict[str, Any]:
    """Medians of one command's runs, and the median of its wall time over the paired bare start."""
    return {
        "runs": len(samples),
        "wall_ms": statistics.median(s["wall_ms"] for s in samples),
        "cpu_ms": statistics.median(s["cpu_ms"] for s in samples),
        "rss_mb": max(s["rss_mb"] for s in samples),
        "rss_median_mb": statistics.median(s["rss_mb"] for s in samples),
        "rss_runs_mb": [round(s["rss_mb"]) for s in samples],
        "ratio": statistics.median(s["wall_ms"] / b["wall_ms"] for s, b in zip(samples, bare, strict=True)),
        "cpu_ratio": statistics.median(s["cpu_ms"] / max(b["cpu_ms"], 1.0) for s, b in zip(samples, bare, strict=True)),
        "walls_ms": [round(s["wall_ms"]) for s in samples],
    }


def seed_vectors(root: Path, home: Path) -> None:
    """Cache a random unit vector (seeded) for every memory under the shipped model's id, as if
    ``memdir reindex --embed`` had encoded them: encoding 100,000 memories takes the better part of
    an hour on two cores, and what a prompt then pays (mapping the matrix, one product, reading the
    best headers) does not depend on the vectors' values. Quality is ``bench/recall_quality.py``'s."""
    import numpy as np

    from memdir.recall.embedding import load_encoder, memory_text, text_hash
    from memdir.store.index_db import index_path

    encoder = load_encoder()
    with MemoryIndex(str(root), index_path(str(root), str(home))) as index:
        headers = index.headers()
        hashes = list(dict.fromkeys(text_hash(memory_text(header)) for header in headers))
        known = set(index.get_vectors(hashes, encoder.model_id))
        rng = np.random.default_rng(27)
        missing = [h for h in hashes if h not in known]
        for start in range(0, len(missing), 5000):
            chunk = missing[start : start + 5000]
            vectors = rng.standard_normal((len(chunk), encoder.dimension)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            index.put_vectors({h: vectors[i].tobytes() for i, h in enumerate(chunk)}, encoder.model_id)


def hook_scale(
    count: int,
    stores: Path,
    workdir: Path,
    *,
    runs: int,
    cold_runs: int,
    selector: str = "lexical",
    random_vectors: bool = False,
) -> dict[str, Any]:
    """The prompt hook as Claude Code runs it (a new process per prompt), recall over the whole store.

    Cold: a config home that has never seen the store (no derived index), first prompt; then
    ``memdir reindex`` runs (it waits for a build already under way), so every cold run starts
    from nothing and the warm runs find the index built. Warm: later prompts, each a new session
    with its own query. Every hook run is paired with a bare ``python -c pass`` run right after it.
    With ``selector`` ``hybrid`` or ``embedding`` (``memdir.hookSelector``) the warm runs come after
    ``memdir reindex --embed`` (every memory encoded once, into a config home kept under ``stores``
    so the vectors are reused by later runs); no cold runs then.
    """
    root, queries = store_for(count, stores)
    project = workdir / "project"
    project.mkdir(exist_ok=True)
    prefix = hook_command_prefix(["--project", str(project), "--memory-dir", str(root)])
    bare_command = [sys.executable, "-c", "pass"]
    settings = json.dumps({"memdir": {"scanCap": None, "hookSelector": selector}})
    base_env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    out: dict[str, Any] = {"memories": count, "selector": selector}
    if selector != "lexical" or not cold_runs:
        # Warm runs only, in a config home kept under ``stores`` (its index is built once).
        cold_runs = 0
        home = stores / f"home-{selector}-{count}{'-random' if random_vectors else ''}"
        home.mkdir(exist_ok=True)
        (home / "settings.json").write_text(settings, encoding="utf-8")
        env = {**base_env, "CLAUDE_CONFIG_DIR": str(home), "HOME": str(workdir)}
        if random_vectors:
            # In a process of its own: a child's peak memory counts the parent's at the time of
            # the fork, and the encoder and NumPy would make this one's the largest of all.
            child([sys.executable, __file__, "--seed-vectors", str(root), str(home)], env=base_env)
        started = time.perf_counter()
        child([*prefix, "reindex", *(["--embed"] if selector != "lexical" else [])], env=env)
        out["embed_s"] = time.perf_counter() - started
        out["random_vectors"] = random_vectors
    cold: list[dict[str, float]] = []
    cold_bare: list[dict[str, float]] = []
    build_s: list[float] = []
    env = env if not cold_runs else {}
    for run in range(cold_runs):
        home = workdir / f"home-{run}"
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir()
        (home / "settings.json").write_text(settings, encoding="utf-8")
        env = {**base_env, "CLAUDE_CONFIG_DIR": str(home), "HOME": str(workdir)}
        event = {"session_id": f"cold-{run}", "cwd": str(project), "prompt": queries[run % len(queries)]}
        cold.append(child([*prefix, "hook", "user-prompt-submit"], env=env, stdin=json.dumps(event)))
        time.sleep(SETTLE_S)
        cold_bare.append(child(bare_command, env=base_env))
        started = time.perf_counter()
        child([*prefix, "reindex"], env=env)
        build_s.append(time.perf_counter() - started)
    if cold:
        out["cold"] = summary(cold, cold_bare)
        out["reindex_after_cold_s"] = statistics.median(build_s)
    warm: list[dict[str, float]] = []
    warm_bare: list[dict[str, float]] = []
    for run in range(runs + 1):
        event = {"session_id": f"warm-{run}", "cwd": str(project), "prompt": queries[(run + 7) % len(queries)]}
        measured = child([*prefix, "hook", "user-prompt-submit"], env=env, stdin=json.dumps(event))
        time.sleep(SETTLE_S)
        bare = child(bare_command, env=base_env)
        if run:  # the first one warms the page cache
            warm.append(measured)
            warm_bare.append(bare)
    out["warm"] = summary(warm, warm_bare)
    out["bare_ms"] = statistics.median(b["wall_ms"] for b in warm_bare)
    return out


HOOK_SCALE_HEADER = (
    "| memories | warm hook: wall ms (× bare) | CPU ms | peak MB (median / max) "
    "| cold hook, never indexed: wall ms (× bare) | CPU ms | peak MB (median / max) "
    "| `reindex` after the cold prompt s | bare start ms |\n|---|---|---|---|---|---|---|---|---|"
)


def hook_scale_row(r: dict[str, Any]) -> str:
    warm, cold = r["warm"], r.get("cold")
    cells = [
        f"{r['memories']:,}" + ("" if r.get("selector", "lexical") == "lexical" else f" ({r['selector']})"),
        f"{warm['wall_ms']:.0f} ({warm['ratio']:.1f}×)",
        f"{warm['cpu_ms']:.0f}",
        f"{warm['rss_median_mb']:.0f} / {warm['rss_mb']:.0f}",
        f"{cold['wall_ms']:.0f} ({cold['ratio']:.1f}×)" if cold else "",
        f"{cold['cpu_ms']:.0f}" if cold else "",
        f"{cold['rss_median_mb']:.0f} / {cold['rss_mb']:.0f}" if cold else "",
        f"{r['reindex_after_cold_s']:.1f}" if cold else f"{r['embed_s']:.1f} (reindex, before the warm runs)",
        f"{r['bare_ms']:.0f}",
    ]
    return "| " + " | ".join(cells) + " |"


def in_process(args: argparse.Namespace) -> int:
    """The older in-process figures (scan, index build, warm recall inside one interpreter)."""
    sizes = [int(s) for s in args.sizes.split(",") if s] or [200, 2_000, 20_000] + ([100_000] if args.big else [])
    results = []
    print(HEADER)
    for size in sizes:
        command = [sys.executable, __file__, "--in-process", "--one", str(size), "--runs", str(args.runs)]
        command += ["--hybrid"] if args.hybrid else []
        proc = subprocess.run(command, capture_output=True, text=True, check=True)
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        results.append(result)
        print(row(result), flush=True)
    if args.hybrid:
        print("\n| memories | encode every memory once s | hybrid recall via index ms (median / p95) |\n|---|---|---|")
        for r in results:
            hybrid_ms = f"{r['recall_hybrid']['median_ms']:.1f} / {r['recall_hybrid']['p95_ms']:.1f}"
            print(f"| {r['memories']:,} | {r['embed_all_s']:.0f} | {hybrid_ms} |")
    out = args.out or RESULTS / "recall_scale_in_process.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "results": results}
    out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(HOOK_HEADER)
    for r in results:
        print(hook_row(r["memories"], r["hook_process"]))
    print(f"\nwrote {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="", help="comma-separated sizes (default 2000,20000,100000)")
    parser.add_argument("--runs", type=int, default=7, help="timed warm hook processes per size (median)")
    parser.add_argument("--cold-runs", type=int, default=3, help="timed first prompts on a never-indexed store")
    parser.add_argument("--stores", type=Path, default=Path(tempfile.gettempdir()) / "memdir-scale-stores")
    parser.add_argument("--label", default="current", help="a name for this run in the JSON (before, after)")
    parser.add_argument("--in-process", action="store_true", help="the older in-process figures instead")
    parser.add_argument("--big", action="store_true", help="with --in-process: also 100,000 memories")
    parser.add_argument("--hybrid", action="store_true", help="with --in-process: also the hybrid selector")
    parser.add_argument(
        "--selector", default="lexical", help="the hook's selector (memdir.hookSelector): lexical, hybrid, embedding"
    )
    parser.add_argument(
        "--random-vectors",
        action="store_true",
        help="with --selector hybrid/embedding: cache seeded random vectors instead of encoding every memory",
    )
    parser.add_argument("--one", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--seed-vectors", nargs=2, type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.seed_vectors:
        seed_vectors(*args.seed_vectors)
        return 0
    if args.in_process:
        if args.one:
            with tempfile.TemporaryDirectory(prefix="memdir-scale-") as tmp:
                print(json.dumps(measure(args.one, Path(tmp), hybrid=args.hybrid, runs=args.runs)))
            return 0
        return in_process(args)
    sizes = [int(s) for s in args.sizes.split(",") if s] or [2_000, 20_000, 100_000]
    args.stores.mkdir(parents=True, exist_ok=True)
    results = []
    print(HOOK_SCALE_HEADER)
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="memdir-scale-") as tmp:
            result = hook_scale(
                size,
                args.stores,
                Path(tmp),
                runs=args.runs,
                cold_runs=args.cold_runs,
                selector=args.selector,
                random_vectors=args.random_vectors,
            )
        results.append(result)
        print(hook_scale_row(result), flush=True)
    out = args.out or RESULTS / "recall_scale.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    previous = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    if "results" in previous:  # the older single-run layout
        previous = {}
    previous[args.label] = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "results": results}
    out.write_text(json.dumps(previous, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
