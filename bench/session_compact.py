"""Session-memory compaction on synthetic conversations of 10k to 500k tokens.

For each size: the time to count the context (tokenCountWithEstimation, which stops at the
last usage report) and to estimate every message (the no-usage fallback), the time to plan the
compaction from notes on disk (SessionNotes.compact: read notes, keep-index walk, invariant
adjustment, summary), and how many messages and tokens are kept. The notes cover all but the
last ~5% of the conversation, as after a regular update. Prints a table and writes
bench/results/session_compact.json.

    python bench/session_compact.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

from memdir.conversation import Block, ConversationMessage
from memdir.session_notes import CompactionResult, SessionNotes, SessionPaths, SessionState
from memdir.session_notes.paths import load_session_template
from memdir.session_notes.tokens import estimate_message_tokens, token_count_with_estimation

SIZES = (10_000, 50_000, 100_000, 250_000, 500_000)


def synthetic_conversation(target_tokens: int) -> list[ConversationMessage]:
    """Turns of: user request, assistant text + tool call, tool result, assistant reply."""
    messages: list[ConversationMessage] = []
    tokens = 0
    turn = 0
    while tokens < target_tokens:
        tool_id = f"toolu_{turn}"
        turn_messages = [
            ConversationMessage(f"u{turn}", "user", (Block("text", text=f"Step {turn}: " + "please " * 60),)),
            ConversationMessage(
                f"a{turn}",
                "assistant",
                (
                    Block("text", text="Looking at the file. " * 10),
                    Block("tool_use", id=tool_id, name="Read", input={"file_path": f"/src/mod{turn}.py"}),
                ),
                message_id=f"msg_{turn}",
            ),
            ConversationMessage(
                f"r{turn}", "user", (Block("tool_result", tool_use_id=tool_id, text="def f():\n    pass\n" * 120),)
            ),
            ConversationMessage(
                f"b{turn}",
                "assistant",
                (Block("text", text="Done with this step. " * 20),),
                message_id=f"msg_{turn}_b",
                usage={"input_tokens": tokens, "output_tokens": 100},
            ),
        ]
        tokens += estimate_message_tokens(turn_messages)
        messages.extend(turn_messages)
        turn += 1
    return messages


def notes_text(home: str) -> str:
    body = "\n".join(f"- step {n}: changed module {n} and ran the tests" for n in range(400))
    return load_session_template(home).replace("# Worklog\n", "# Worklog\n" + body + "\n", 1)


def timed(call, repeat: int) -> tuple[float, object]:
    times = []
    value: object = None
    for _ in range(repeat):
        start = time.perf_counter()
        value = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            messages = synthetic_conversation(size)
            paths = SessionPaths(directory=os.path.join(tmp, f"s{size}", "session-memory"), config_home=tmp)
            paths.ensure_notes()
            with open(paths.notes, "w", encoding="utf-8") as handle:
                handle.write(notes_text(tmp))
            covered = messages[int(len(messages) * 0.95) - 1]
            state = SessionState(True, size, covered.uuid, covered.uuid)
            memory = SessionNotes(paths, state=state, persist=False)
            count_ms, tokens = timed(lambda m=messages: token_count_with_estimation(m), args.repeat)
            estimate_ms, _ = timed(lambda m=messages: estimate_message_tokens(m), args.repeat)
            compact_ms, result = timed(lambda m=messages, mem=memory: mem.compact(m, wait=False), args.repeat)
            assert isinstance(result, CompactionResult)
            rows.append(
                {
                    "target_tokens": size,
                    "messages": len(messages),
                    "estimated_tokens": estimate_message_tokens(messages),
                    "context_tokens": tokens,
                    "count_ms": round(count_ms, 3),
                    "estimate_all_ms": round(estimate_ms, 2),
                    "compact_ms": round(compact_ms, 2),
                    "kept_messages": len(result.kept),
                    "kept_tokens": estimate_message_tokens(result.kept),
                    "post_compact_tokens": result.post_compact_tokens,
                }
            )
    columns = ("tokens", "messages", "count ms", "estimate ms", "compact ms", "kept msgs", "kept tok", "post tok")
    print(" ".join(f"{name:>11}" for name in columns))
    for row in rows:
        values = (
            row["target_tokens"],
            row["messages"],
            row["count_ms"],
            row["estimate_all_ms"],
            row["compact_ms"],
            row["kept_messages"],
            row["kept_tokens"],
            row["post_compact_tokens"],
        )
        print(" ".join(f"{value:>11}" for value in values))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "session_compact.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as handle:
        json.dump({"repeat": args.repeat, "rows": rows}, handle, indent=2)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
