"""Recall that tells the current truth: stale facts, duplicates and expired memories, per selector.

Protocol: one memory directory per language (English, Chinese) and per clock (``mtime``: each file's
mtime is when it was written and the frontmatter has no ``modified:``; ``stamped``: every file has the
same mtime, as after a checkout or a sync, and the time is the frontmatter's ``modified:``). The
stores come from ``bench/truth_topics.py``: facts about the components of a product that change
over time (two or three versions each, in other words), facts stated once, duplicates in other words,
year-old feedback rules nothing replaced, and expiring memories. Every question is a recall query.
Per selector:

- current first: for a question about an updated fact, the newest version ranks above every stale one;
- stale alone: what recall surfaces holds a stale version of the fact but not the current one;
- hit@5: the current version (or the one memory that answers) is in the top five of the ranking;
- rules hit@5: old feedback rules that nothing replaced are still found;
- expired surfaced: a memory past its ``expires:`` date is surfaced (should never be);
- linked both: for a question whose answer is split across two memories joined by a ``[[link]]``,
  recall surfaces both (the linking one matches the question, the linked one holds the figures);
- duplicate detection: precision and recall of the near-duplicate check on labelled pairs (duplicates
  and updates are pairs that should be flagged, memories on another attribute of the same component
  or the same attribute of another component are pairs that should not), when memdir has one, and
  the precision/recall curve of the lexical overlap, the embedding similarity and their sum (in the
  JSON; the table gives each one's most recall at a precision of at least 0.9);
- latency: median and p95 ms of one ranking, warm.

Run: ``python bench/recall_truth.py [--selectors lexical,embedding,hybrid] [--no-links]``; prints a table and writes
``bench/results/recall_truth.json``.
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


def build_store(truth: TruthStore, root: Path, clock: str) -> tuple[MemoryDir, dict[str, str]]:
    """Write the store's facts; returns the store and key -> file name. File names are neutral
    (``mem_0042.md``) and shuffled, so neither the name nor the order gives the version away."""
    store = MemoryDir(root, scan_cap=None)
    order = list(truth.facts)
    random.Random(f"files-{truth.language}").shuffle(order)
    files: dict[str, str] = {}
    for number, fact in enumerate(order):
        written_s = NOW_S - fact.age_s
        extra: dict[str, object] = {}
        if fact.expires:
            extra["expires"] = fact.expires
        if clock == "stamped":
            extra["modified"] = iso_mtime(written_s * 1000)
        memory = Memory(
            name=fact.name, description=fact.description, type=MemoryType(fact.kind), body=fact.body + "\n", extra=extra
        )
        file = f"mem_{number:04d}.md"
        result = store.save(memory, file=file, index=False)
        stamp = NOW_S - 3600 if clock == "stamped" else written_s
        os.utime(result.path, (stamp, stamp))
        files[fact.key] = file
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
                best_stale = min((position.get(f, 10**6) for f in stale), default=10**6)
                add("current first", float(current in position and position[current] < best_stale))
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


def conversations(selectors: list[str], languages: list[str], tmp: str, links: bool) -> dict[str, dict[str, Any]]:
    """The second set (``bench/truth_conversations.py``): every conversation its own store, the
    figures over all their questions, per selector and language."""
    from truth_conversations import build_conversation_stores

    results: dict[str, dict[str, Any]] = {}
    for language in languages:
        pooled: dict[str, dict[str, list[float]]] = {name: {} for name in selectors}
        for number, truth in enumerate(build_conversation_stores(language, NOW_S)):
            root = Path(tmp) / f"conversation-{language}-{number}"
            store, files = build_store(truth, root, "mtime")
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


def duplicate_detection(truth: TruthStore, store: MemoryDir, files: dict[str, str]) -> dict[str, float] | None:
    """Precision and recall of memdir's near-duplicate check on the labelled pairs, when it has one."""
    try:
        from memdir.recall.similar import Similarity
    except ImportError:
        return None
    headers = {header.filename: header for header in store.headers()}
    similarity = Similarity(list(headers.values()))
    found = {"tp": 0, "fp": 0, "fn": 0, "dup_tp": 0, "dup_n": 0}
    for a, b, label in truth.pairs:
        near = similarity.near(headers[files[a]], headers[files[b]])
        wanted = label != "different"
        found["tp"] += near and wanted
        found["fp"] += near and not wanted
        found["fn"] += wanted and not near
        if label == "duplicate":
            found["dup_n"] += 1
            found["dup_tp"] += near
    precision = found["tp"] / max(1, found["tp"] + found["fp"])
    recall = found["tp"] / max(1, found["tp"] + found["fn"])
    return {
        "precision": 100 * precision,
        "recall": 100 * recall,
        "duplicate recall": 100 * found["dup_tp"] / max(1, found["dup_n"]),
        "pairs": float(len(truth.pairs)),
    }


def duplicate_curve(truth: TruthStore, store: MemoryDir, files: dict[str, str]) -> dict[str, list[list[float]]]:
    """The precision/recall curve of the pair scores on the labelled pairs: the lexical overlap the
    check uses, the embedding similarity (its lift over the store's mean, when the ``embed`` extra
    is installed) and their sum; for each, (floor, precision, recall) at every distinct score."""
    from memdir.recall.similar import Similarity

    headers = list(store.headers())
    by_file = {header.filename: header for header in headers}
    similarity = Similarity(headers)
    scores: dict[str, list[tuple[float, bool]]] = {"lexical": []}
    pairs = [(by_file[files[a]], by_file[files[b]], label != "different") for a, b, label in truth.pairs]
    for a, b, wanted in pairs:
        scores["lexical"].append((similarity.score(a, b), wanted))
    try:
        import numpy as np

        from memdir.recall.embedding import load_encoder, memory_text

        encoder = load_encoder()
    except Exception:  # noqa: BLE001  (no embed extra, no model: the lexical curve alone)
        encoder = None
    if encoder is not None:
        vectors = np.asarray(encoder.encode([memory_text(header) for header in headers]), dtype=np.float32)
        at = {header.path: i for i, header in enumerate(headers)}
        mean = float((vectors @ vectors.T).mean())
        scores["embedding"], scores["sum"] = [], []
        for (a, b, wanted), (lexical, _) in zip(pairs, scores["lexical"], strict=True):
            lift = (float(vectors[at[a.path]] @ vectors[at[b.path]]) - mean) / (1.0 - mean)
            scores["embedding"].append((lift, wanted))
            scores["sum"].append((lexical + lift, wanted))
    curves: dict[str, list[list[float]]] = {}
    for kind, scored in scores.items():
        scored.sort(key=lambda item: -item[0])
        positives = max(1, sum(wanted for _, wanted in scored))
        hits, curve = 0, []
        for rank, (score, wanted) in enumerate(scored, start=1):
            hits += wanted
            curve.append([score, 100 * hits / rank, 100 * hits / positives])
        curves[kind] = curve
    return curves


def best_recall(curve: list[list[float]], precision: float = 90.0) -> list[float]:
    """The point of a curve with the most recall at or above ``precision``: (floor, precision, recall)."""
    kept = [point for point in curve if point[1] >= precision]
    return max(kept, key=lambda point: point[2]) if kept else [float("nan"), float("nan"), 0.0]


COLUMNS = (
    "current first",
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
    args = parser.parse_args(argv)
    selectors = [name for name in args.selectors.split(",") if name]
    results: dict[str, dict[str, dict[str, float]]] = {}
    detection: dict[str, dict[str, float]] = {}
    curves: dict[str, dict[str, list[list[float]]]] = {}
    with tempfile.TemporaryDirectory(prefix="memdir-truth-") as tmp:
        if args.set == "conversations":
            results.update(conversations(selectors, args.languages.split(","), tmp, not args.no_links))
        for language in args.languages.split(",") if args.set == "grid" else ():
            truth = build_truth_store(language, NOW_S)
            for clock in CLOCKS:
                root = Path(tmp) / f"{language}-{clock}"
                store, files = build_store(truth, root, clock)
                if clock == "mtime":
                    found = duplicate_detection(truth, store, files)
                    if found is not None:
                        detection[language] = found
                        curves[language] = duplicate_curve(truth, store, files)
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
        print("\n| language | pairs | near-duplicate precision | recall | duplicates found |")
        print("|---|---|---|---|---|")
        for language, found in detection.items():
            print(
                f"| {language} | {found['pairs']:.0f} | {found['precision']:.1f} | {found['recall']:.1f} | "
                f"{found['duplicate recall']:.1f} |"
            )
        print("\n| language | pair score | most recall at precision >= 0.9 (floor, precision, recall) |")
        print("|---|---|---|")
        for language, by_kind in curves.items():
            for kind, curve in by_kind.items():
                floor, precision, recall = best_recall(curve)
                print(f"| {language} | {kind} | {floor:.3f}, {precision:.1f}, {recall:.1f} |")
    else:
        print("\nnear-duplicate detection: none in this version")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"now": NOW_S, "results": results, "duplicates": detection, "duplicate curves": curves}
    args.out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
