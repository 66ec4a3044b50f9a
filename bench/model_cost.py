"""What memdir's model calls cost in prompt tokens, by store size.

For synthetic stores of 20, 200 and 2,000 memories it drives the LLM selector and the extraction
agent with a scripted model and counts the prompt tokens of the requests the model recorded:

* selector, full manifest: every candidate is listed (no pre-filter);
* selector, pre-filtered: above 40 candidates the offline ranking picks the 40 the model sees;
* extraction: one run (read, write, finish = 3 model calls) over every memory (no scan cap),
  with the whole store in its manifest, and with the manifest pre-filtered to the 40 memories
  nearest the conversation (the default); plus the whole manifest under the default scan cap (200).

Tokens are estimated as characters / 4 over everything the request carries (system prompt,
messages, tool declarations, JSON schema), the same rough rule Claude Code uses for its own
estimates; the ratios are what matter. Target: at 2,000 memories the pre-filtered selector
prompt is at most 1/5 of the full-manifest prompt.

    python bench/model_cost.py            # prints a table, writes bench/results/model_cost.json
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
import tempfile
from pathlib import Path

from memdir.conversation import Block, ConversationMessage
from memdir.extract import Extractor
from memdir.llm import ChatRequest, ScriptedModel
from memdir.recall.llm_selector import LLMSelector
from memdir.recall.selector_protocol import SelectionRequest
from memdir.store.directory import MemoryDir

SIZES = (20, 200, 2000)
QUERIES = (
    "how do we run the integration tests against the database?",
    "deploy the payments api to staging",
    "what did the user say about code review comments?",
    "why is the mobile release frozen this month?",
    "where are pipeline bugs tracked?",
)
TOPICS = (
    "integration tests database migrations",
    "payments api deploy staging",
    "code review comments style",
    "mobile release freeze schedule",
    "pipeline bugs tracker ingest",
    "oncall dashboard latency alerts",
    "frontend build cache webpack",
    "python packaging wheels release",
    "kubernetes cluster upgrade nodes",
    "customer onboarding emails copy",
)
TYPES = ("user", "feedback", "project", "reference")
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima")


def prompt_tokens(request: ChatRequest) -> int:
    chars = len(request.system)
    for message in request.messages:
        chars += len(message.text)
        chars += sum(len(call.name) + len(json.dumps(dict(call.input))) for call in message.tool_calls)
        chars += sum(len(result.content) for result in message.tool_results)
    chars += sum(len(t.name) + len(t.description) + len(json.dumps(dict(t.input_schema))) for t in request.tools)
    if request.json_schema is not None:
        chars += len(json.dumps(dict(request.json_schema)))
    return math.ceil(chars / 4)


def build_store(root: Path, count: int, rng: random.Random) -> None:
    root.mkdir(parents=True)
    for index in range(count):
        topic = TOPICS[index % len(TOPICS)]
        extra = " ".join(rng.sample(WORDS, 3))
        kind = TYPES[index % len(TYPES)]
        text = (
            f"---\nname: Note {index} on {topic.split()[0]}\n"
            f"description: {topic} — {extra} (note {index})\ntype: {kind}\n---\n\n"
            f"Details about {topic}: {extra}.\n**Why:** it came up.\n**How to apply:** keep it in mind.\n"
        )
        path = root / f"{kind}_note_{index:04d}.md"
        path.write_text(text, encoding="utf-8")
        stamp = 1_770_000_000 + index * 60
        os.utime(path, (stamp, stamp))


def selector_cost(store: MemoryDir, threshold: int | None) -> float:
    candidates = store.headers()
    totals = []
    for query in QUERIES:
        model = ScriptedModel([{"json": {"selected_memories": []}}])
        LLMSelector(model, prefilter_threshold=threshold).select(SelectionRequest(query=query, candidates=candidates))
        totals.append(prompt_tokens(model.requests[0]))
    return sum(totals) / len(totals)


def conversation() -> list[ConversationMessage]:
    said = [
        ("user", "I lead the payments team; please keep reviews short and to the point."),
        ("assistant", "Understood, I will keep review comments brief."),
        ("user", "Also: never mock the database in integration tests, a mock hid a broken migration once."),
        ("assistant", "Noted. I will use the real database for integration tests."),
        ("user", "Thanks. Now run the test suite please."),
        ("assistant", "All 412 tests pass."),
    ]
    return [
        ConversationMessage(uuid=f"m{i}", role=role, blocks=(Block(type="text", text=text),))
        for i, (role, text) in enumerate(said)
    ]


def extraction_cost(root: Path, scan_cap: int | None, manifest_limit: int | None) -> int:
    store = MemoryDir(root, scan_cap=scan_cap)
    first = sorted(p.name for p in root.glob("*.md"))[0]
    model = ScriptedModel(
        [
            {"tool_calls": [{"name": "Read", "input": {"file_path": first}}]},
            {
                "tool_calls": [
                    {
                        "name": "Write",
                        "input": {
                            "file_path": "feedback_real_db.md",
                            "content": "---\nname: Real DB\ndescription: no mocks\ntype: feedback\n---\n\nReal DB.\n",
                        },
                    }
                ]
            },
            {"text": "Saved one memory."},
        ]
    )
    result = Extractor(model, store, manifest_limit=manifest_limit).run_once(conversation())
    if result.error is not None:
        raise SystemExit(f"extraction failed: {result.error}")
    os.unlink(root / "feedback_real_db.md")
    return sum(prompt_tokens(request) for request in model.requests)


def main() -> int:
    rng = random.Random(7)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            root = Path(tmp) / f"store{size}"
            build_store(root, size, rng)
            store = MemoryDir(root, scan_cap=None)
            full = selector_cost(store, None)
            filtered = selector_cost(store, 40)
            rows.append(
                {
                    "memories": size,
                    "selector_full_manifest": round(full),
                    "selector_prefiltered": round(filtered),
                    "prefiltered_ratio": round(filtered / full, 3),
                    "extraction_full_cap_200": extraction_cost(root, 200, None),
                    "extraction_full": extraction_cost(root, None, None),
                    "extraction_prefiltered": extraction_cost(root, None, 40),
                }
            )
    header = (
        "memories",
        "sel. full",
        "sel. pre-filtered",
        "ratio",
        "extr. full cap 200",
        "extr. full",
        "extr. pre-filtered",
    )
    print("Prompt tokens (chars/4) per selector call and per extraction run (3 calls), scripted model")
    print(" | ".join(f"{h:>18}" for h in header))
    for row in rows:
        print(" | ".join(f"{v!s:>18}" for v in row.values()))
    largest = rows[-1]
    met = largest["prefiltered_ratio"] <= 0.2
    print(
        f"\ntarget: pre-filtered selector prompt at {largest['memories']} memories <= 1/5 of the full manifest: "
        f"{'met' if met else 'NOT met'} ({largest['prefiltered_ratio']:.3f})"
    )
    out = Path(__file__).parent / "results" / "model_cost.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"rows": rows, "target_met": met}, indent=2) + "\n", encoding="utf-8")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
