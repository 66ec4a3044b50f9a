"""Recall on the held-out sessions set (``truth_sessions.py``): does it find today's answer?

For each language and selector, every store is written to a temporary directory and each of its
questions is asked twice: once of ``selector.rank`` over all headers, once of ``Recaller.recall``
(a fresh recaller per question, as on a new turn, at the set's fixed ``NOW``). Pooled over a
language's stores:

- ``hit@5``: the memory with the current answer ranks in the top 5 (every question with an answer);
- ``surfaced hit``: recall surfaces it;
- on questions about updated facts: ``both surfaced`` (the current memory and a stale version),
  ``stale alone`` (a stale version without the current one: lower is better), ``current first``
  (the current one surfaced, ahead of every surfaced stale version);
- ``recorded ok``, on updated facts whose current memory records ``replaces:``: the current one
  surfaced ahead of every surfaced stale version, and each surfaced stale version either labelled
  (its header names the current memory's path or says "replaced") or left out; ``when shown``: of
  those questions, the ones where recall surfaced some version of the fact (a miss there is a
  relation ignored, not a relevance miss); ``recorded pair ok``: of the surfaced memories a recorded
  ``replaces:`` names, the share surfaced after the memory that replaces it (or the current one,
  at the end of a chain) and labelled as replaced
  (an older version that no relation names is judged by ``current first`` alone);
- ``note right``: of surfaced memories whose header, above its ``Memory`` line, names another
  memory file, the share where that file truly is a newer version of the same fact (with the count);
- ``off-topic silent``: questions about nothing in the store surface nothing;
- the median milliseconds per ``recall`` call.

Prints a Markdown table and writes ``bench/results/recall_sessions.json``. ``--show-misses N``
prints up to N failing questions per metric, for reading (never for tuning: the set is held out).

Usage: ``python bench/recall_sessions.py [--selectors lexical,hybrid,embedding]
[--languages en,zh,ja] [--show-misses N]``
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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from truth_sessions import LANGUAGES, NOW, Question, SessionStore, build_stores, sizes, write_store

from memdir.errors import MemdirError
from memdir.recall.recaller import Recaller
from memdir.recall.registry import SelectorInputs, build_selector
from memdir.store.index_db import MemoryIndex

METRICS = (
    "hit@5",
    "surfaced hit",
    "both surfaced",
    "stale alone",
    "current first",
    "recorded ok",
    "recorded ok when shown",
    "recorded pair ok",
    "note right",
    "off-topic silent",
)
LOWER_IS_BETTER = frozenset({"stale alone"})
RESULTS = Path(__file__).resolve().parent / "results" / "recall_sessions.json"
_MD_TOKEN = re.compile(r"[^\s`'\"()<>\[\]]+\.md")


@dataclass
class Tally:
    """Pooled counts of one language and selector: per metric, the cases that held and all cases,
    the first failing cases (as text), and every recall's duration."""

    held: dict[str, int] = field(default_factory=lambda: dict.fromkeys(METRICS, 0))
    cases: dict[str, int] = field(default_factory=lambda: dict.fromkeys(METRICS, 0))
    misses: dict[str, list[str]] = field(default_factory=lambda: {m: [] for m in METRICS})
    millis: list[float] = field(default_factory=list)

    def count(self, metric: str, ok: bool, miss: str | Callable[[], str], keep: int) -> None:
        """Count one case; keep its text (``miss``, built only when kept) when it failed."""
        self.cases[metric] += 1
        self.held[metric] += ok
        if ok == (metric in LOWER_IS_BETTER) and len(self.misses[metric]) < keep:
            self.misses[metric].append(miss if isinstance(miss, str) else miss())

    def rate(self, metric: str) -> float | None:
        return self.held[metric] / self.cases[metric] if self.cases[metric] else None

    def summary(self) -> dict[str, Any]:
        return {
            "metrics": {m: {"held": self.held[m], "cases": self.cases[m], "rate": self.rate(m)} for m in METRICS},
            "recalls": len(self.millis),
            "median_ms": statistics.median(self.millis) if self.millis else None,
        }


@dataclass(frozen=True)
class Surfaced:
    """What recall showed for one question: files in order, with each one's header."""

    files: tuple[str, ...]
    headers: tuple[str, ...]


def named_files(header: str, root: str, files: Iterable[str]) -> set[str]:
    """Memory files (relative names) that a surfaced header names above its ``Memory`` line."""
    lines = header.split("\n")
    cut = next((i for i, line in enumerate(lines) if line.startswith(("Memory", "Team memory"))), len(lines))
    known = set(files)
    named = set()
    prefix = root.rstrip(os.sep) + os.sep
    for token in _MD_TOKEN.findall("\n".join(lines[:cut])):
        rel = token[len(prefix) :] if token.startswith(prefix) else token
        if rel in known:
            named.add(rel)
    return named


def _judge_updated(
    tally: Tally, question: Question, shown: Surfaced, current_path: str, keep: int, miss: Callable[[], str]
) -> None:
    order = {file: i for i, file in enumerate(shown.files)}
    current = order.get(question.current or "")
    stale = [order[f] for f in question.stale if f in order]
    first = current is not None and all(current < s for s in stale)
    tally.count("both surfaced", current is not None and bool(stale), miss, keep)
    tally.count("stale alone", current is None and bool(stale), miss, keep)
    tally.count("current first", first, miss, keep)
    if question.current_records:
        labelled = all(current_path in shown.headers[s] or "replaced" in shown.headers[s].lower() for s in stale)
        tally.count("recorded ok", first and labelled, miss, keep)
        if current is not None or stale:
            tally.count("recorded ok when shown", first and labelled, miss, keep)
    for newer, older in question.recorded:
        if older in order:
            ahead = [order[f] for f in (newer, question.current or "") if f in order]  # it, or what replaced it
            shown_first = bool(ahead) and min(ahead) < order[older]
            said = current_path in shown.headers[order[older]] or "replaced" in shown.headers[order[older]].lower()
            tally.count("recorded pair ok", shown_first and said, miss, keep)


def _ask(
    tally: Tally,
    store: SessionStore,
    question: Question,
    selector: Any,
    recaller: Recaller,
    headers: Sequence[Any],
    root: str,
    paths: dict[str, str],
    keep: int,
) -> None:
    started = time.perf_counter()
    result = recaller.recall(question.text)
    tally.millis.append((time.perf_counter() - started) * 1000)
    by_path = {path: file for file, path in paths.items()}
    shown = Surfaced(
        tuple(by_path.get(m.path, os.path.basename(m.path)) for m in result.memories),
        tuple(m.header for m in result.memories),
    )
    names = {note.file: note.name for note in store.notes}

    def miss() -> str:
        got = ", ".join(f"{f} ({names.get(f, '?')})" for f in shown.files) or "nothing"
        want = f"{question.current} ({names.get(question.current or '', '?')})" if question.current else "nothing"
        stale = f"; stale {', '.join(question.stale)}" if question.stale else ""
        return f"[{store.key}] {question.text!r}: want {want}{stale}; surfaced {got}"

    if question.current is None:
        tally.count("off-topic silent", not shown.files, miss, keep)
    else:
        top = [header.filename for header, _score in selector.rank(question.text, headers)[:5]]
        tally.count("hit@5", question.current in top, miss, keep)
        tally.count("surfaced hit", question.current in shown.files, miss, keep)
        if question.stale:
            _judge_updated(tally, question, shown, paths[question.current], keep, miss)
    for file, header in zip(shown.files, shown.headers, strict=True):
        named = named_files(header, root, paths) - {file}
        if named:
            right = all(store.is_newer_version(file, other) for other in named)
            text = f"[{store.key}] {question.text!r}: {file} names {', '.join(sorted(named))}"
            tally.count("note right", right, text, keep)


def _run_store(store: SessionStore, selectors: Sequence[str], tallies: dict[str, Tally], keep: int) -> None:
    with tempfile.TemporaryDirectory(prefix="memdir-sessions-") as tmp:
        directory = write_store(store, Path(tmp) / "memory")
        headers = directory.headers()
        paths = {h.filename: h.path for h in headers}
        with MemoryIndex(directory.root, str(Path(tmp) / "index.sqlite3")) as index:
            for name in selectors:
                selector = build_selector(name, SelectorInputs(vectors=index))
                for question in store.questions:
                    recaller = Recaller(directory, selector=selector, clock=lambda: float(NOW))
                    _ask(tallies[name], store, question, selector, recaller, headers, directory.root, paths, keep)


def _cell(tally: Tally, metric: str) -> str:
    rate = tally.rate(metric)
    if rate is None:
        return "–"
    if metric == "note right":
        return f"{rate:.1%} (n={tally.cases[metric]})"
    return f"{rate:.1%}"


def _table(rows: Sequence[tuple[str, str, Tally]]) -> str:
    head = ["language", "selector", *METRICS, "ms/recall"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for code, name, tally in rows:
        ms = statistics.median(tally.millis) if tally.millis else float("nan")
        lines.append("| " + " | ".join([code, name, *(_cell(tally, m) for m in METRICS), f"{ms:.1f}"]) + " |")
    return "\n".join(lines)


def _check_selectors(names: Sequence[str]) -> None:
    """Fail before any store is written when a selector cannot be built here (unknown, or its extra missing)."""
    with (
        tempfile.TemporaryDirectory(prefix="memdir-sessions-") as tmp,
        MemoryIndex(tmp, str(Path(tmp) / "i.sqlite3")) as index,
    ):
        for name in names:
            try:
                build_selector(name, SelectorInputs(vectors=index))
            except (ImportError, MemdirError, ValueError, KeyError) as exc:
                raise SystemExit(f"selector {name!r} cannot be built here: {exc}") from exc


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--selectors", default="lexical,hybrid,embedding", help="comma-separated selector names")
    parser.add_argument("--languages", default=",".join(LANGUAGES), help="comma-separated: en,zh,ja")
    parser.add_argument(
        "--show-misses", type=int, default=0, metavar="N", help="print up to N failing questions per metric"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON results")
    args = parser.parse_args(argv)
    selectors = [s.strip() for s in args.selectors.split(",") if s.strip()]
    codes = [c.strip() for c in args.languages.split(",") if c.strip()]
    _check_selectors(selectors)
    rows: list[tuple[str, str, Tally]] = []
    report: dict[str, Any] = {"now": NOW, "set": {}, "results": []}
    for code in codes:
        stores = build_stores(code)
        report["set"][code] = sizes(stores)
        tallies = {name: Tally() for name in selectors}
        for store in stores:
            _run_store(store, selectors, tallies, args.show_misses)
        for name in selectors:
            rows.append((code, name, tallies[name]))
            report["results"].append({"language": code, "selector": name, **tallies[name].summary()})
    print(_table(rows))
    if args.show_misses:
        for code, name, tally in rows:
            for metric in METRICS:
                if tally.misses[metric]:
                    note = " (cases where it happened)" if metric in LOWER_IS_BETTER else ""
                    print(f"\n## {code} / {name} / {metric}{note}")
                    for line in tally.misses[metric]:
                        print(f"- {line}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
