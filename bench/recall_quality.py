"""Recall quality on LoCoMo: how well each offline selector finds the observations a question needs.

Protocol (../shared/bench/README.md): one memory directory per conversation, one memory per
observation (type user; description = the observation; body = speaker and session date); each
question is a query against its own conversation. Metrics per category, overall, and overall
without category 5 (adversarial):

- hit@k: some memory citing an evidence turn is in the top k;
- MRR: over questions that have such a memory at all;
- evid@k: the fraction of a question's evidence turns cited by the top k memories (the paper's R@k);
- surfaced: what recall would actually surface (the ranking above the relevance floor, at most 5),
  its hit rate and mean size, and how often off-topic queries surface nothing;
- latency: per-query ranking time, warm (vectors cached, indexes built);
- oracle: the ceiling the observations set, a ranking that knows the evidence (greedy cover of the
  evidence turns, then the rest), so each figure can be read as a share of what is reachable at all.

The data set is CC BY-NC and is read at run time only; nothing derived from it is written but
these aggregate figures. Run: ``python bench/recall_quality.py [--selectors lexical,hybrid] [--holdout]``.

``--holdout`` adds the split table of docs/recall.md: evid@5 / hit@5 per category on the
conversations the ranking's parameters were tuned on (conv-26, conv-30) and, separately, on the
held-out ones (every other conversation), so that a change tuned on the first can be checked on
the second.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.recaller import Recaller
from memdir.recall.registry import SelectorInputs, build_selector
from memdir.recall.selector_protocol import RankingSelector, SelectionRequest, StoreRequest
from memdir.store.directory import MemoryDir
from memdir.store.index_db import MemoryIndex

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "bench" / "locomo" / "locomo-dev.json"
FALLBACK_DATA = Path("/work/shared/bench/locomo/locomo-dev.json")
RESULTS = HERE / "results"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS_HIT = (1, 5, 10)
KS_EVID = (5, 10, 50)
DEPTH = 50
NOW_S = 1_790_000_000.0  # recall's clock: after every session, so that no observation is in the future
# Questions about things no conversation mentions: recall should surface nothing for them.
OFF_TOPIC = (
    "How do I rotate the TLS certificates on the Kubernetes ingress controller?",
    "What is the time complexity of Dijkstra's algorithm with a binary heap?",
    "Which PostgreSQL isolation level prevents phantom reads?",
    "How many moons does Jupiter have?",
    "What does the Rust borrow checker do with two mutable references?",
    "Convert 350 degrees Fahrenheit to Celsius.",
    "What is the capital of Australia?",
    "Explain the difference between TCP and UDP congestion control.",
)
# The conversations ranking parameters were chosen on; every other one is held out.
TUNED = frozenset({"conv-26", "conv-30"})
_DIA = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


def dia_ids(value: Any) -> set[str]:
    """Normalise evidence ids: lists, "D8:6; D9:17", "D:11:26" and "D30:05" all become "D<s>:<t>"."""
    items = value if isinstance(value, list) else [value]
    out: set[str] = set()
    for item in items:
        for session, turn in _DIA.findall(str(item)):
            out.add(f"D{int(session)}:{int(turn)}")
    return out


def build_store(conversation: dict[str, Any], root: Path) -> tuple[MemoryDir, dict[str, set[str]]]:
    """Write one memory per observation; return the store and file -> cited dia ids."""
    store = MemoryDir(root, scan_cap=None)
    talk = conversation["conversation"]
    sessions = sorted(int(key.split("_")[1]) for key in talk if re.fullmatch(r"session_\d+", key))
    cites: dict[str, set[str]] = {}
    base = 1_600_000_000
    counter = 0
    for n in sessions:
        date = talk.get(f"session_{n}_date_time", "")
        per_speaker = conversation["observation"].get(f"session_{n}_observation", {})
        for speaker, facts in per_speaker.items():
            for fact, ids in facts:
                counter += 1
                file = f"obs_{counter:04d}.md"
                memory = Memory(
                    name=f"{speaker}, session {n}",
                    description=" ".join(str(fact).split()),
                    type=MemoryType.USER,
                    body=f"Speaker: {speaker}\nSession date: {date}\n",
                )
                result = store.save(memory, file=file, index=False)
                stamp = base + n * 86_400 + counter
                os.utime(result.path, (stamp, stamp))
                cites[file] = dia_ids(ids)
    return store, cites


def load(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        data: list[dict[str, Any]] = json.load(handle)
    return data


def oracle_ranking(evidence: set[str], cites: dict[str, set[str]]) -> list[str]:
    """The best ranking the observations allow: each next memory cites the most evidence not yet covered."""
    covered: set[str] = set()
    ranked: list[str] = []
    rest = sorted(cites)
    while rest and len(ranked) < DEPTH:
        best = max(rest, key=lambda f: (len((cites[f] & evidence) - covered), -rest.index(f)))
        if not (cites[best] & evidence) - covered:
            break
        ranked.append(best)
        covered |= cites[best] & evidence
        rest.remove(best)
    return ranked


class ThroughIndex:
    """The lexical selector ranking inside the derived index, as recall over the whole store does
    (the stored postings), under the name ``lexical-index``."""

    name = "lexical-index"

    def __init__(self, index: MemoryIndex) -> None:
        self.index = index
        self.inner = LexicalSelector()
        index.refresh()

    def rank(self, query: str, candidates: Any) -> list[Any]:
        return self.inner.rank_store(query, self.index, limit=max(1, len(candidates))) or []

    def select(self, request: SelectionRequest) -> Any:
        answer = self.inner.select_store(StoreRequest(request.query, self.index, limit=request.limit))
        assert answer is not None
        return answer.selection


def evaluate(
    selector: RankingSelector | None,
    store: MemoryDir,
    cites: dict[str, set[str]],
    questions: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """One row per question; ``selector=None`` scores the oracle (the ceiling)."""
    candidates = store.headers()
    cited_anywhere = set().union(*cites.values()) if cites else set()
    recaller = Recaller(store, selector=selector, clock=lambda: float(NOW_S)) if selector is not None else None
    if selector is not None:
        selector.rank("warm up the caches", candidates)
    rows = []
    for qa in questions:
        evidence = dia_ids(qa.get("evidence", []))
        started = time.perf_counter()
        if selector is None:
            ranked = oracle_ranking(evidence, cites)
            surfaced: tuple[str, ...] = tuple(ranked[:5])
        else:
            ranked = [header.filename for header, _ in selector.rank(qa["question"], candidates)[:DEPTH]]
        ms = (time.perf_counter() - started) * 1000
        if recaller is not None:
            # What recall surfaces: the selector's choice with the versions of what it chose.
            surfaced = recaller.select(qa["question"], limit=5, headers=candidates).files
        rank = next((i for i, f in enumerate(ranked, 1) if cites[f] & evidence), None)
        row: dict[str, Any] = {
            "category": int(qa["category"]),
            "ms": ms,
            "answerable": bool(evidence & cited_anywhere),
            "has_evidence": bool(evidence),
            "rank": rank,
            "surfaced_hit": any(cites[f] & evidence for f in surfaced),
            "surfaced_n": len(surfaced),
        }
        for k in KS_EVID:
            covered = set().union(*(cites[f] for f in ranked[:k])) if ranked else set()
            row[f"evid@{k}"] = len(evidence & covered) / len(evidence) if evidence else None
        rows.append(row)
    return rows


def off_topic_silence(selector: RankingSelector | None, store: MemoryDir) -> float:
    if selector is None:
        return 1.0
    candidates = store.headers()
    quiet = sum(1 for q in OFF_TOPIC if not selector.select(SelectionRequest(q, candidates, limit=5)).files)
    return quiet / len(OFF_TOPIC)


def summarise(rows: list[dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = {"n": len(rows)}
    if not rows:
        return out
    for k in KS_HIT:
        out[f"hit@{k}"] = 100 * sum(1 for r in rows if r["rank"] is not None and r["rank"] <= k) / len(rows)
    answerable = [r for r in rows if r["answerable"]]
    out["mrr"] = 100 * sum(1 / r["rank"] for r in answerable if r["rank"]) / max(1, len(answerable))
    with_evidence = [r for r in rows if r["has_evidence"]]
    for k in KS_EVID:
        out[f"evid@{k}"] = 100 * sum(r[f"evid@{k}"] for r in with_evidence) / max(1, len(with_evidence))
    out["surf_hit"] = 100 * sum(1 for r in rows if r["surfaced_hit"]) / len(rows)
    out["surf_n"] = sum(r["surfaced_n"] for r in rows) / len(rows)
    return out


def table(selector_results: dict[str, dict[str, dict[str, float]]]) -> str:
    cols = ["n", "hit@1", "hit@5", "hit@10", "mrr", "evid@5", "evid@10", "evid@50", "surf_hit", "surf_n"]
    lines = [f"| selector | group | {' | '.join(cols)} |", "|" + "---|" * (len(cols) + 2)]
    for name, groups in selector_results.items():
        for group, figures in groups.items():
            cells = [f"{figures.get(c, 0):.0f}" if c == "n" else f"{figures.get(c, 0):.1f}" for c in cols]
            lines.append(f"| {name} | {group} | {' | '.join(cells)} |")
    return "\n".join(lines)


def targets_table(results: dict[str, dict[str, dict[str, float]]]) -> str:
    """Each selector against the targets and as a share of the ceiling the oracle reaches."""
    ceiling = results["oracle"]
    lines = [
        "| selector | evid@5 overall (target 65) | share of ceiling | hit@5 cat 1-4 (target 80) | share of ceiling |",
        "|---|---|---|---|---|",
    ]
    for name, groups in results.items():
        evid, hit = groups["overall"]["evid@5"], groups["overall w/o 5"]["hit@5"]
        evid_share = 100 * evid / max(ceiling["overall"]["evid@5"], 1e-9)
        hit_share = 100 * hit / max(ceiling["overall w/o 5"]["hit@5"], 1e-9)
        lines.append(f"| {name} | {evid:.1f} | {evid_share:.0f}% | {hit:.1f} | {hit_share:.0f}% |")
    return "\n".join(lines)


def split_table(split_results: dict[str, dict[str, dict[str, dict[str, float]]]]) -> str:
    """evid@5 / hit@5 by category, one row per selector and split (tuned, held-out)."""
    groups = ["overall", "overall w/o 5", *CATEGORIES.values()]
    lines = [f"| selector | split | {' | '.join(groups)} |", "|" + "---|" * (len(groups) + 2)]
    for name, splits in split_results.items():
        for split, figures in splits.items():
            cells = [f"{figures[g].get('evid@5', 0):.1f} / {figures[g].get('hit@5', 0):.1f}" for g in groups]
            lines.append(f"| {name} | {split} | {' | '.join(cells)} |")
    return "\n".join(lines)


def by_group(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    groups = {CATEGORIES[c]: summarise([r for r in rows if r["category"] == c]) for c in sorted(CATEGORIES)}
    groups["overall"] = summarise(rows)
    groups["overall w/o 5"] = summarise([r for r in rows if r["category"] != 5])
    return groups


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument(
        "--selectors",
        default="lexical,embedding,hybrid,oracle",
        help="oracle: the ceiling; lexical-index: the lexical ranking read from the derived index",
    )
    parser.add_argument("--conversations", default="", help="comma-separated sample ids (default: all)")
    parser.add_argument("--out", type=Path, default=RESULTS / "recall_quality.json")
    parser.add_argument("--holdout", action="store_true", help="also report the tuned and held-out conversations apart")
    args = parser.parse_args(argv)
    data_path = args.data or (DEFAULT_DATA if DEFAULT_DATA.exists() else FALLBACK_DATA)
    if not data_path.exists():
        print(f"skipped: LoCoMo data not found at {data_path} (see ../shared/bench/README.md)")
        return 0
    conversations = load(data_path)
    if args.conversations:
        wanted = set(args.conversations.split(","))
        conversations = [c for c in conversations if c.get("sample_id") in wanted]
    names = [n for n in args.selectors.split(",") if n]
    with tempfile.TemporaryDirectory(prefix="memdir-locomo-") as tmp:
        cache_dir = Path(os.environ.get("MEMDIR_BENCH_CACHE", Path(tmp) / "index"))
        stores = []
        for conv in conversations:
            store, cites = build_store(conv, Path(tmp) / str(conv.get("sample_id")))
            stores.append((conv, store, cites))
        results: dict[str, dict[str, dict[str, float]]] = {}
        latencies: dict[str, dict[str, float]] = {}
        silence: dict[str, float] = {}
        splits: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
        for name in names:
            rows: list[dict[str, Any]] = []
            quiet = []
            for conv, store, cites in stores:
                index = MemoryIndex(store.root, str(cache_dir / f"{conv.get('sample_id')}.sqlite3"))
                selector: Any = None
                if name == "lexical-index":
                    selector = ThroughIndex(index)
                elif name != "oracle":
                    selector = build_selector(name, SelectorInputs(vectors=index))
                split = "tuned" if conv.get("sample_id") in TUNED else "held-out"
                rows.extend({**row, "split": split} for row in evaluate(selector, store, cites, conv["qa"]))
                quiet.append(off_topic_silence(selector, store))
                index.close()
            groups = by_group(rows)
            if args.holdout:
                splits[name] = {
                    split: by_group([r for r in rows if r["split"] == split])
                    for split in ("tuned", "held-out")
                    if any(r["split"] == split for r in rows)
                }
            groups["cat 1-4"] = groups["overall w/o 5"]
            results[name] = groups
            times = sorted(r["ms"] for r in rows)
            latencies[name] = {
                "median_ms": statistics.median(times),
                "p95_ms": times[int(0.95 * (len(times) - 1))],
            }
            silence[name] = 100 * statistics.mean(quiet)
            print(f"{name}: evid@5 {groups['overall']['evid@5']:.1f}, median {latencies[name]['median_ms']:.2f} ms")
        for groups in results.values():
            groups.pop("cat 1-4")
    print()
    print(table(results))
    print()
    print("| selector | median ms | p95 ms | off-topic queries surfacing nothing (%) |")
    print("|---|---|---|---|")
    for name in names:
        lat = latencies[name]
        print(f"| {name} | {lat['median_ms']:.2f} | {lat['p95_ms']:.2f} | {silence[name]:.0f} |")
    if "oracle" in results:
        print()
        print(targets_table(results))
    if args.holdout:
        print("\nBy split (evid@5 / hit@5):\n")
        print(split_table(splits))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "conversations": [c.get("sample_id") for c in conversations],
        "memories": sum(len(s[2]) for s in stores),
        "questions": sum(len(s[0]["qa"]) for s in stores),
        "results": results,
        "latency": latencies,
        "off_topic_silence_pct": silence,
        **({"splits": splits} if args.holdout else {}),
    }
    args.out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
