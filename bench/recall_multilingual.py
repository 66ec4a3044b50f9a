"""Recall quality in Chinese, Japanese, Korean and mixed Chinese–English, next to English.

Protocol: one memory directory per language, holding the same fifty memories written in that
language (``bench/multilingual_topics.py``), each saved through :meth:`MemoryDir.save` with its
default file name, so a name collision shows up as a memory lost. Each memory has one question
that paraphrases it; the question is a recall query against its language's directory. Per language
and selector:

- hit@1, hit@5: the memory is first / among the first five of the ranking;
- MRR: mean reciprocal rank of the memory (0 when not ranked at all);
- surfaced: the memory is among what recall would actually surface (above the relevance floor);
- quiet: the share of off-topic questions (about nothing in the store) for which recall surfaces nothing;
- median and p95 per-query latency, warm (indexes built, vectors cached);
- lost: memories that could not be saved (a file-name collision).

English is the reference: the target is hit@5 within 5 points of English in every other language.
Run: ``python bench/recall_multilingual.py [--selectors lexical,embedding,hybrid]``; prints a table
and writes JSON to ``bench/results/recall_multilingual.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memdir.errors import MemdirError
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall.registry import SelectorInputs, build_selector
from memdir.recall.selector_protocol import RankingSelector, SelectionRequest
from memdir.store.directory import MemoryDir
from memdir.store.index_db import MemoryIndex

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from multilingual_topics import LANGUAGES, OFF_TOPIC, TOPICS  # noqa: E402

RESULTS = HERE / "results"


def build_store(language: str, root: Path) -> tuple[MemoryDir, dict[int, str], int]:
    """The language's store; (store, topic number -> file, memories lost to a refused save)."""
    store = MemoryDir(root)
    files: dict[int, str] = {}
    lost = 0
    for number, (kind, texts) in enumerate(TOPICS):
        name, description, body, _ = texts[language]
        memory = Memory(name=name, description=description, type=MemoryType(kind), body=body + "\n")
        try:
            files[number] = store.save(memory).file
        except MemdirError:
            lost += 1
    return store, files, lost


def evaluate(selector: RankingSelector, store: MemoryDir, files: dict[int, str], language: str) -> dict[str, Any]:
    candidates = store.headers()
    selector.rank("warm up", candidates)
    rows: list[dict[str, Any]] = []
    for number, (_, texts) in enumerate(TOPICS):
        query = texts[language][3]
        target = files.get(number)
        started = time.perf_counter()
        ranked = [header.filename for header, _ in selector.rank(query, candidates)]
        elapsed = (time.perf_counter() - started) * 1000
        surfaced = selector.select(SelectionRequest(query, candidates, limit=5)).files
        rank = ranked.index(target) + 1 if target in ranked else None
        rows.append({"rank": rank, "surfaced": target in surfaced, "ms": elapsed})
    quiet = [not selector.select(SelectionRequest(query, candidates, limit=5)).files for query in OFF_TOPIC[language]]
    n = len(rows)
    times = sorted(row["ms"] for row in rows)
    return {
        "n": n,
        "hit@1": 100 * sum(1 for r in rows if r["rank"] == 1) / n,
        "hit@5": 100 * sum(1 for r in rows if r["rank"] is not None and r["rank"] <= 5) / n,
        "mrr": 100 * sum(1 / r["rank"] for r in rows if r["rank"]) / n,
        "surfaced": 100 * sum(1 for r in rows if r["surfaced"]) / n,
        "quiet": 100 * sum(quiet) / len(quiet),
        "median_ms": statistics.median(times),
        "p95_ms": times[int(0.95 * (n - 1))],
    }


def table(results: dict[str, dict[str, dict[str, Any]]]) -> str:
    cols = ["n", "lost", "hit@1", "hit@5", "mrr", "surfaced", "quiet", "median_ms", "p95_ms"]
    lines = [f"| selector | language | {' | '.join(cols)} |", "|" + "---|" * (len(cols) + 2)]
    for name, languages in results.items():
        for language, figures in languages.items():
            cells = [f"{figures[c]:.0f}" if c in ("n", "lost") else f"{figures[c]:.1f}" for c in cols]
            cells[-2:] = [f"{figures['median_ms']:.2f}", f"{figures['p95_ms']:.2f}"]
            lines.append(f"| {name} | {language} | {' | '.join(cells)} |")
    return "\n".join(lines)


def gaps(results: dict[str, dict[str, dict[str, Any]]]) -> str:
    """hit@5 of each language minus English's, per selector (the target: no gap below -5)."""
    others = [language for language in LANGUAGES if language != "en"]
    lines = [f"| selector | {' | '.join(others)} |", "|" + "---|" * (len(others) + 1)]
    for name, languages in results.items():
        english = languages["en"]["hit@5"]
        cells = [f"{languages[other]['hit@5'] - english:+.1f}" for other in others]
        lines.append(f"| {name} | {' | '.join(cells)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--selectors", default="lexical,embedding,hybrid")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument(
        "--model",
        default=os.environ.get("MEMDIR_EMBED_MODEL") or None,
        help="embedding model: a directory or an E5 .bin file (default: MEMDIR_EMBED_MODEL, else the extra's)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "recall_multilingual.json")
    args = parser.parse_args(argv)
    languages = [language for language in args.languages.split(",") if language]
    results: dict[str, dict[str, dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="memdir-multilingual-") as tmp:
        stores = {language: build_store(language, Path(tmp) / language) for language in languages}
        for name in [n for n in args.selectors.split(",") if n]:
            results[name] = {}
            for language, (store, files, lost) in stores.items():
                index = MemoryIndex(store.root, str(Path(tmp) / "index" / f"{name}-{language}.sqlite3"))
                try:
                    inputs = SelectorInputs(analyses=None, vectors=index, embed_model=args.model)
                    selector = build_selector(name, inputs)
                    assert isinstance(selector, RankingSelector)
                    figures = evaluate(selector, store, files, language)
                finally:
                    index.close()
                results[name][language] = {"lost": lost, **figures}
            print(f"{name}: " + ", ".join(f"{lang} {f['hit@5']:.0f}" for lang, f in results[name].items()))
    print()
    print(table(results))
    if "en" in languages:
        print()
        print("hit@5 minus English's (target: no worse than -5):")
        print(gaps(results))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"results": results}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
