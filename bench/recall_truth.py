"""Recall that tells the current truth: stale facts, duplicates and expired memories, per selector.

Protocol: one memory directory per language (English, Chinese) and per clock (``mtime``: each file's
mtime is when it was written and the frontmatter has no ``modified:``; ``stamped``: every file has the
same mtime, as after a checkout or a sync, and the time is the frontmatter's ``modified:``). The
stores come from ``bench/truth_topics.py``: facts about the components of a product that change
over time (two or three versions each, in other words), facts stated once, duplicates in other words,
year-old feedback rules nothing replaced, and expiring memories. Every question is a recall query.
Per selector:

- current first: for a question about an updated fact, recall surfaces the newest version before
  every stale one it surfaces (``when shown``: of the questions where recall surfaces a version);
- both surfaced: recall surfaces the newest version and a stale one (both reach the model, dated);
- stale alone: what recall surfaces holds a stale version of the fact but not the current one;
- hit@5: the current version (or the one memory that answers) is in the top five of the ranking;
- rules hit@5: old feedback rules that nothing replaced are still found;
- expired surfaced: a memory past its ``expires:`` date is surfaced (should never be);
- linked both: for a question whose answer is split across two memories joined by a ``[[link]]``,
  recall surfaces both (the linking one matches the question, the linked one holds the figures);
- writers shown what may already say it: over the labelled pairs (duplicates and updates should be
  shown, memories on another attribute of the same component or the same attribute of another
  component need not be), how often a writer saving the later memory is shown the earlier one
  among the memories that may say the same (``near shown``), and how many pairs are refused as
  nearly identical (``refused``: only the duplicates may be);
- latency: median and p95 ms of one ranking, warm.

``--recorded``: every newer version records ``replaces:`` of the one before (as a writer who
decided it would), to measure recall with recorded relations.

Run: ``python bench/recall_truth.py [--selectors lexical,embedding,hybrid] [--no-links] [--recorded]``; prints a
table and writes ``bench/results/recall_truth.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.model.timefields import iso_mtime
from memdir.recall.recaller import Recaller
from memdir.recall.registry import SelectorInputs, build_selector
from memdir.recall.selector_protocol import RankingSelector
from memdir.store.directory import MemoryDir
from memdir.store.index_db import MemoryIndex

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from truth_topics import TruthStore, build_truth_store  # noqa: E402

RESULTS = HERE / "results"
NOW_S = 1_790_000_000  # a fixed "now" (2026-09-20) so that runs compare
CLOCKS = ("mtime", "stamped")


def build_store(
    truth: TruthStore, root: Path, clock: str, *, recorded: bool = False
) -> tuple[MemoryDir, dict[str, str]]:
    """Write the store's facts; returns the store and key -> file name. File names are neutral
    (``mem_0042.md``) and shuffled, so neither the name nor the order gives the version away.
    ``recorded``: each newer version of a fact records that it replaces the one before."""
    store = MemoryDir(root, scan_cap=None)
    order = list(truth.facts)
    random.Random(f"files-{truth.language}").shuffle(order)
    files = {fact.key: f"mem_{number:04d}.md" for number, fact in enumerate(order)}
    previous = {
        fact.key: other.key
        for fact in truth.facts
        for other in truth.facts
        if fact.subject and fact.subject == other.subject and other.version == fact.version - 1
        if fact.duplicate_of is None and other.duplicate_of is None
    }
    for fact in order:
        written_s = NOW_S - fact.age_s
        extra: dict[str, object] = {}
        if fact.expires:
            extra["expires"] = fact.expires
        if clock == "stamped":
            extra["modified"] = iso_mtime(written_s * 1000)
        if recorded and fact.key in previous:
            extra["replaces"] = files[previous[fact.key]]
        memory = Memory(
            name=fact.name, description=fact.description, type=MemoryType(fact.kind), body=fact.body + "\n", extra=extra
        )
        result = store.save(memory, file=files[fact.key], index=False)
        stamp = NOW_S - 3600 if clock == "stamped" else written_s
        os.utime(result.path, (stamp, stamp))
    return store, files


def evaluate(
    selector: RankingSelector,
    store: MemoryDir,
    truth: TruthStore,
    files: dict[str, str],
    *,
    links: bool = True,
    pooled: dict[str, list[float]] | None = None,
) -> dict[str, Any]:
    """The figures of one store; ``pooled``: also collect every question's values and times there,
    so several stores (the conversations) give figures over all their questions."""
    recaller = Recaller(store, selector=selector, clock=lambda: float(NOW_S), follow_links=links)
    candidates = store.headers()
    selector.rank("warm up the caches", candidates)
    versions: dict[str, list[str]] = {}
    for fact in sorted(truth.facts, key=lambda f: f.version):
        if fact.subject and fact.duplicate_of is None:
            versions.setdefault(fact.subject, []).append(files[fact.key])
    duplicates = {files[f.key]: files[f.duplicate_of] for f in truth.facts if f.duplicate_of}
    counts: dict[str, list[float]] = {}

    def add(metric: str, value: float) -> None:
        counts.setdefault(metric, []).append(value)
        if pooled is not None:
            pooled.setdefault(metric, []).append(value)

    times: list[float] = pooled.setdefault("ms", []) if pooled is not None else []
    for question in truth.questions:
        started = time.perf_counter()
        ranking = [header.filename for header, _ in selector.rank(question.query, candidates)]
        times.append((time.perf_counter() - started) * 1000)
        surfaced = recaller.select(question.query, limit=5).files
        if question.kind in ("updated", "static"):
            chain = versions[question.subject]
            current, stale = chain[-1], set(chain[:-1])
            answers = {current} | {dup for dup, of in duplicates.items() if of == current}
            position = {file: i for i, file in enumerate(ranking)}
            add(f"{question.kind} hit@5", float(any(position.get(f, 99) < 5 for f in answers)))
            if question.kind == "updated":
                shown = {file: i for i, file in enumerate(surfaced)}
                best_stale = min((shown.get(f, 10**6) for f in stale), default=10**6)
                add("current first", float(current in shown and shown[current] < best_stale))
                if current in shown or best_stale < 10**6:
                    add("current first when shown", float(current in shown and shown[current] < best_stale))
                add("both surfaced", float(current in shown and best_stale < 10**6))
                add("stale alone", float(bool(stale & set(surfaced)) and current not in surfaced))
                add("stale surfaced", float(bool(stale & set(surfaced))))
        else:
            target = files[question.expect]
            if question.kind == "expired":
                add("expired surfaced", float(target in surfaced))
            elif question.kind == "linked":
                add("linked hit@5", float(target in ranking[:5]))
                add("linked both", float(target in surfaced and files[question.also] in surfaced))
            else:
                add(f"{question.kind} hit@5", float(target in ranking[:5]))
    return figures(counts, times)


def figures(counts: dict[str, list[float]], times: list[float]) -> dict[str, Any]:
    out = {metric: 100 * statistics.mean(values) for metric, values in counts.items() if metric != "ms"}
    out["n updated"] = float(len(counts.get("current first", [])))
    times = sorted(times)
    out["median ms"] = statistics.median(times)
    out["p95 ms"] = times[int(0.95 * (len(times) - 1))]
    return out


def conversations(
    selectors: list[str], languages: list[str], tmp: str, links: bool, recorded: bool
) -> dict[str, dict[str, Any]]:
    """The second set (``bench/truth_conversations.py``): every conversation its own store, the
    figures over all their questions, per selector and language."""
    from truth_conversations import build_conversation_stores

    results: dict[str, dict[str, Any]] = {}
    for language in languages:
        pooled: dict[str, dict[str, list[float]]] = {name: {} for name in selectors}
        for number, truth in enumerate(build_conversation_stores(language, NOW_S)):
            root = Path(tmp) / f"conversation-{language}-{number}"
            store, files = build_store(truth, root, "mtime", recorded=recorded)
            for name in selectors:
                index = MemoryIndex(store.root, str(Path(tmp) / f"conversation-{language}-{number}-{name}.sqlite3"))
                selector = build_selector(name, SelectorInputs(vectors=index))
                assert isinstance(selector, RankingSelector)
                evaluate(selector, store, truth, files, links=links, pooled=pooled[name])
                index.close()
        for name in selectors:
            values = pooled[name]
            results.setdefault(name, {})[f"{language} conversations"] = figures(values, values.get("ms", []))
    return results


def duplicate_detection(truth: TruthStore, store: MemoryDir, files: dict[str, str]) -> dict[str, float]:
    """What a writer saving the later memory of each labelled pair is shown: the earlier one among
    the memories that may say the same (BM25 over the rest of the store), or a refusal as nearly
    identical; per label."""
    from memdir.writes.near import near_memories

    headers = {header.filename: header for header in store.headers()}
    counts: dict[str, list[float]] = {}
    for a, b, label in truth.pairs:
        newer = store.read(files[b]).memory
        near = near_memories(store, newer, exclude=headers[files[b]].path)
        shown = {n.header.filename: n for n in near}
        counts.setdefault(f"{label} near shown", []).append(float(files[a] in shown))
        counts.setdefault(f"{label} refused", []).append(float(any(n.identical for n in near)))
    out = {metric: 100 * statistics.mean(values) for metric, values in counts.items()}
    out["pairs"] = float(len(truth.pairs))
    return out


COLUMNS = (
    "current first",
    "current first when shown",
    "both surfaced",
    "stale alone",
    "stale surfaced",
    "updated hit@5",
    "static hit@5",
    "rule hit@5",
    "live hit@5",
    "expired surfaced",
    "linked both",
    "median ms",
    "p95 ms",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--selectors", default="lexical,embedding,hybrid")
    parser.add_argument("--languages", default="en,zh")
    parser.add_argument("--out", type=Path, default=RESULTS / "recall_truth.json")
    parser.add_argument("--no-links", action="store_true", help="recall does not follow [[links]] (for comparison)")
    parser.add_argument(
        "--set", choices=("grid", "conversations"), default="grid", help="which stores (bench/truth_conversations.py)"
    )
    parser.add_argument("--recorded", action="store_true", help="each newer version records replaces: (see above)")
    parser.add_argument("--no-writers", action="store_true", help="leave out what writers are shown (faster)")
    args = parser.parse_args(argv)
    selectors = [name for name in args.selectors.split(",") if name]
    results: dict[str, dict[str, dict[str, float]]] = {}
    detection: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="memdir-truth-") as tmp:
        if args.set == "conversations":
            results.update(conversations(selectors, args.languages.split(","), tmp, not args.no_links, args.recorded))
        for language in args.languages.split(",") if args.set == "grid" else ():
            truth = build_truth_store(language, NOW_S)
            for clock in CLOCKS:
                root = Path(tmp) / f"{language}-{clock}"
                store, files = build_store(truth, root, clock, recorded=args.recorded)
                if clock == "mtime" and not args.no_writers:
                    detection[language] = duplicate_detection(truth, store, files)
                for name in selectors:
                    index = MemoryIndex(store.root, str(Path(tmp) / f"{language}-{clock}-{name}.sqlite3"))
                    selector = build_selector(name, SelectorInputs(vectors=index))
                    assert isinstance(selector, RankingSelector)
                    figures = evaluate(selector, store, truth, files, links=not args.no_links)
                    results.setdefault(name, {})[f"{language} {clock}"] = figures
                    index.close()
                    print(f"{name} {language} {clock}: current first {figures['current first']:.1f}", file=sys.stderr)
    print(f"| selector | store | {' | '.join(COLUMNS)} |")
    print("|" + "---|" * (len(COLUMNS) + 2))
    for name, stores in results.items():
        for label, figures in stores.items():
            cells = [f"{figures.get(column, float('nan')):.1f}" for column in COLUMNS]
            print(f"| {name} | {label} | {' | '.join(cells)} |")
    if detection:
        labels = ("duplicate", "update", "different")
        print("\n| language | pairs | " + " | ".join(f"{label}: near shown / refused" for label in labels) + " |")
        print("|---|---|" + "---|" * len(labels))
        for language, found in detection.items():
            cells = [
                f"{found.get(f'{label} near shown', 0):.1f} / {found.get(f'{label} refused', 0):.1f}"
                for label in labels
            ]
            print(f"| {language} | {found['pairs']:.0f} | " + " | ".join(cells) + " |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"now": NOW_S, "recorded": args.recorded, "results": results, "writers": detection}
    args.out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
