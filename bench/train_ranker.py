"""Train the learned rankings (``memdir.recall.learned``) on LoCoMo and check them on conversations they never saw.

For every question of every conversation the script computes the candidates and their features
exactly as recall does (the hybrid selector's own lexical index and embedding ranker, then
:func:`memdir.recall.learned.candidate_features`), labels each candidate by how many of the
question's evidence turns it cites, and fits a linear model with a pairwise (lambdarank) loss:
for each pair of candidates of one question where one cites more evidence, the loss of ordering
them wrongly, weighted by how much swapping them changes the NDCG of the top ten; L2 on the
weights. Plain NumPy, full-batch gradient descent: a handful of weights need nothing more. The
lexical selector's model sees the lexical matches only, without the embedding.

It is judged only where it was not trained: leave-one-conversation-out (each conversation ranked by
a model trained on the other four) and the split of ``bench/recall_quality.py --holdout`` (trained on
conv-26 and conv-30, ranked on the rest), always beside the hand-set ranking on the same candidates
(BM25 alone; the hybrid's 1 x BM25 + 0.5 x cosine lift).
``--write`` stores in ``src/memdir/recall/ranker.json``, for each selector whose learned ranking
beats its hand-set one left out, the weights of the fewest features within 0.2 point of the best
cross-validated evid@5, trained on every conversation.

Features are recomputed from the data each run (nothing derived from the CC BY-NC data set is
written but the weights and these aggregate figures). Run:
``python bench/train_ranker.py [--write]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_quality import DEFAULT_DATA, FALLBACK_DATA, RESULTS, TUNED, build_store, dia_ids, load

from memdir.recall.learned import FEATURES, candidate_features
from memdir.recall.registry import SelectorInputs, build_selector
from memdir.store.index_db import MemoryIndex

MODEL_FILE = Path(__file__).resolve().parent.parent / "src" / "memdir" / "recall" / "ranker.json"
HAND = {"lexical": 1.0, "embedding": 0.5}  # the hand-set score fusion of memdir.recall.hybrid
CUT = 10  # the NDCG the pairs are weighted by
L2S = (0.001, 0.01, 0.1)
PARSIMONY = 0.2  # evid@5 points


class Question:
    """One question's candidates: features, graded labels and what each cites."""

    def __init__(self, conv: str, category: int, evidence: set[str], x: Any, cites: list[set[str]]) -> None:
        self.conv, self.category, self.evidence = conv, category, evidence
        self.x = x
        self.cites = cites
        self.label = np.array([len(c & evidence) for c in cites], dtype=np.float64)


def collect(data: Path) -> list[Question]:
    questions: list[Question] = []
    with tempfile.TemporaryDirectory(prefix="memdir-train-") as tmp:
        for conv in load(data):
            sample = str(conv.get("sample_id"))
            store, cites = build_store(conv, Path(tmp) / sample)
            index = MemoryIndex(store.root, os.path.join(tmp, f"{sample}.sqlite3"))
            selector: Any = build_selector("hybrid", SelectorInputs(vectors=index))
            candidates = store.headers()
            selector.rank("warm up the caches", candidates)
            for qa in conv["qa"]:
                query = qa["question"]
                lexical = selector.lexical.scored(query, candidates, limit=100)
                embedded = selector._embedded(query, candidates)
                headers, rows = candidate_features(query, lexical, embedded, selector.lexical.index)
                x = np.array(rows, dtype=np.float64).reshape(-1, len(FEATURES))
                chosen = [cites[h.filename] for h in headers]
                questions.append(Question(sample, int(qa["category"]), dia_ids(qa.get("evidence", [])), x, chosen))
            index.close()
            print(f"{sample}: {len(conv['qa'])} questions", file=sys.stderr)
    return questions


def lexical_only(q: Question) -> Question:
    """The question as the lexical selector sees it: its lexical matches only."""
    keep = q.x[:, FEATURES.index("lexical_place")] > 0
    out = Question(q.conv, q.category, q.evidence, q.x[keep], [c for c, k in zip(q.cites, keep, strict=True) if k])
    return out


def evid_at(q: Question, scores: Any, k: int = 5) -> float:
    # Stable order: ties keep the candidates' order (the lexical ranking's, then the embedding's).
    order = np.argsort(-scores, kind="stable")[:k]
    covered: set[str] = set().union(*(q.cites[i] for i in order.tolist())) if len(order) else set()
    return len(q.evidence & covered) / len(q.evidence)


def hit_at(q: Question, scores: Any, k: int = 5) -> float:
    order = np.argsort(-scores, kind="stable")[:k]
    return float(any(q.label[i] > 0 for i in order.tolist()))


def figures(
    questions: list[Question], weights: dict[int, np.ndarray] | np.ndarray, columns: list[int]
) -> dict[str, float]:
    """evid@5 over questions with evidence, hit@5 over categories 1-4 (each question scored by the
    weights of its fold when ``weights`` is per fold)."""
    evid, hit = [], []
    for i, q in enumerate(questions):
        w = weights[i] if isinstance(weights, dict) else weights
        scores = q.x[:, columns] @ w if len(q.x) else np.zeros(0)
        if q.evidence:
            evid.append(evid_at(q, scores))
        if q.category != 5:
            hit.append(hit_at(q, scores))
    return {"evid@5": 100 * float(np.mean(evid)), "hit@5 cat 1-4": 100 * float(np.mean(hit)), "n": len(questions)}


def _pairs(q: Question, columns: list[int]) -> tuple[Any, Any] | None:
    """The feature differences (better minus worse) of every pair of one question's candidates where
    one cites more evidence, and each pair's |delta NDCG@CUT| at the hand-set fusion's order (fixed:
    the weighting need not follow the model for six weights)."""
    if len(q.x) < 2 or not (q.label > 0).any():
        return None
    hand = sum(HAND.get(FEATURES[c], 0.0) * q.x[:, c] for c in range(len(FEATURES)))
    rank = np.empty(len(hand), dtype=np.int64)
    rank[np.argsort(-hand, kind="stable")] = np.arange(len(hand))
    discount = np.where(rank < CUT, 1.0 / np.log2(rank + 2.0), 0.0)
    gain = 2.0**q.label - 1.0
    ideal = np.sort(gain)[::-1][:CUT]
    idcg = float(np.sum(ideal / np.log2(np.arange(len(ideal)) + 2.0)))
    better, worse = np.nonzero(q.label[:, None] > q.label[None, :])
    delta = np.abs((gain[better] - gain[worse]) * (discount[better] - discount[worse])) / idcg
    # Pairs outside the top on both sides still count a little, so the model learns the tail too.
    delta = np.maximum(delta, 0.01 / idcg)
    x = q.x[:, columns]
    return x[better] - x[worse], delta


def train(questions: list[Question], columns: list[int], l2: float, steps: int = 300) -> np.ndarray:
    """Pairwise logistic loss weighted by |delta NDCG| (each question's pairs summing to one), L2
    ``l2``, Adam; starts at the hand-set fusion."""
    prepared = [p for q in questions if (p := _pairs(q, columns)) is not None]
    diffs = np.concatenate([d for d, _ in prepared])
    delta = np.concatenate([w / w.sum() for _, w in prepared]) / len(prepared)
    w = np.array([HAND.get(FEATURES[c], 0.0) for c in columns], dtype=np.float64)
    m, v = np.zeros_like(w), np.zeros_like(w)
    for step in range(1, steps + 1):
        margin = diffs @ w
        coeff = -delta / (1.0 + np.exp(np.clip(margin, -30, 30)))
        grad = coeff @ diffs + l2 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w = w - 0.05 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w


def cross_validate(questions: list[Question], columns: list[int], l2: float) -> dict[str, Any]:
    convs = sorted({q.conv for q in questions})
    per_question: dict[int, np.ndarray] = {}
    for held in convs:
        w = train([q for q in questions if q.conv != held], columns, l2)
        per_question.update({i: w for i, q in enumerate(questions) if q.conv == held})
    loco = figures(questions, per_question, columns)
    loco["per conversation"] = by_conversation(questions, per_question, columns)
    tuned_w = train([q for q in questions if q.conv in TUNED], columns, l2)
    rest = [q for q in questions if q.conv not in TUNED]
    return {"leave one conversation out": loco, "trained on tuned, held-out": figures(rest, tuned_w, columns)}


def by_conversation(questions: list[Question], weights: dict[int, Any] | Any, columns: list[int]) -> dict[str, float]:
    """evid@5 of each conversation alone."""
    out: dict[str, float] = {}
    for conv in sorted({q.conv for q in questions}):
        ids = [i for i, q in enumerate(questions) if q.conv == conv]
        w = {n: weights[i] for n, i in enumerate(ids)} if isinstance(weights, dict) else weights
        out[conv] = figures([questions[i] for i in ids], w, columns)["evid@5"]
    return out


def hand_figures(questions: list[Question], columns: list[int]) -> dict[str, Any]:
    w = np.array([HAND.get(FEATURES[c], 0.0) for c in columns])
    rest = [q for q in questions if q.conv not in TUNED]
    loco = figures(questions, w, columns)
    loco["per conversation"] = by_conversation(questions, w, columns)
    return {"leave one conversation out": loco, "trained on tuned, held-out": figures(rest, w, columns)}


# The feature sets tried for each selector, fewest first; the lexical selector sees no embedding.
FEATURE_SETS = {
    "hybrid": (
        ("lexical", "embedding"),
        ("lexical", "embedding", "coverage"),
        ("lexical", "embedding", "coverage", "described"),
        ("lexical", "embedding", "beside_best"),
        ("lexical", "embedding", "coverage", "beside_best"),
        FEATURES,
    ),
    "lexical": (
        ("lexical", "coverage"),
        ("lexical", "coverage", "described", "lexical_place"),
        ("lexical", "beside_best"),
        ("lexical", "coverage", "beside_best"),
    ),
}


def line(name: str, label: str, splits: dict[str, Any]) -> str:
    cells = " | ".join(f"{f['evid@5']:.1f} / {f['hit@5 cat 1-4']:.1f}" for f in splits.values())
    each = " ".join(f"{v:.1f}" for v in splits["leave one conversation out"]["per conversation"].values())
    return f"| {name} | {label} | {cells} | {each} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument(
        "--write",
        action="store_true",
        help=f"store each selector's best model, if it beats the hand-set ranking, in {MODEL_FILE.name}",
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "train_ranker.json")
    args = parser.parse_args(argv)
    data = args.data or (DEFAULT_DATA if DEFAULT_DATA.exists() else FALLBACK_DATA)
    if not data.exists():
        print(f"skipped: LoCoMo data not found at {data} (see ../shared/bench/README.md)")
        return 0
    questions = collect(data)
    seen = {"hybrid": questions, "lexical": [lexical_only(q) for q in questions]}
    report: dict[str, Any] = {}
    print(
        "| selector | ranking | evid@5 / hit@5 cat 1-4, leave one conversation out | trained on conv-26, -30: rest "
        "| evid@5 of each conversation left out |"
    )
    print("|---|---|---|---|---|")
    tried: dict[str, list[tuple[float, tuple[str, ...], float]]] = {}
    for name, feature_sets in FEATURE_SETS.items():
        qs = seen[name]
        hand_columns = [FEATURES.index(f) for f in ("lexical", "embedding") if name == "hybrid" or f == "lexical"]
        rows: dict[str, Any] = {"hand-set": hand_figures(qs, hand_columns)}
        print(line(name, "hand-set", rows["hand-set"]))
        for features in feature_sets:
            columns = [FEATURES.index(f) for f in features]
            for l2 in L2S:
                label = f"learned {'+'.join(features)} l2={l2}"
                rows[label] = cross_validate(qs, columns, l2)
                print(line(name, label, rows[label]))
                loco = rows[label]["leave one conversation out"]["evid@5"]
                if loco > rows["hand-set"]["leave one conversation out"]["evid@5"]:
                    tried.setdefault(name, []).append((loco, tuple(features), l2))
        report[name] = rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    if args.write:
        models = {}
        for name, beaten in tried.items():
            # The fewest features within PARSIMONY points of the best: a feature must earn its place.
            top = max(loco for loco, _, _ in beaten)
            loco, features, l2 = min(
                (entry for entry in beaten if entry[0] >= top - PARSIMONY), key=lambda e: (len(e[1]), -e[0])
            )
            weights = train(seen[name], [FEATURES.index(f) for f in features], l2)
            models[name] = {
                "features": list(features),
                "weights": [round(float(w), 6) for w in weights],
                "trained": f"LoCoMo {', '.join(sorted({q.conv for q in questions}))}; pairwise lambdarank, l2 {l2}; "
                f"evid@5 left one conversation out {loco:.1f}",
            }
        MODEL_FILE.write_text(json.dumps({"models": models}, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_FILE}: {models}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
