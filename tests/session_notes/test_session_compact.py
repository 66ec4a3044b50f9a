from _session_fixtures import assistant, boundary, result, user

from memdir.conversation import ConversationMessage
from memdir.session_notes.compact import (
    CompactionFallback,
    CompactionResult,
    adjust_index_to_preserve_api_invariants,
    calculate_messages_to_keep_index,
    plan_compaction,
)
from memdir.session_notes.thresholds import CompactThresholds
from memdir.session_notes.tokens import estimate_message_tokens

SMALL = CompactThresholds(min_tokens=100, min_text_block_messages=2, max_tokens=1000)
TEMPLATE = "\n# Current State\n_what is going on_\n"
NOTES = TEMPLATE + "Refactoring the parser.\n"


def chat(n, size=120):
    """n user/assistant pairs; each message is ~size characters (size/4 tokens before padding)."""
    messages: list[ConversationMessage] = []
    for i in range(n):
        messages.append(user("u" * size, uuid=f"u{i}"))
        messages.append(assistant("a" * size, uuid=f"a{i}"))
    return messages


def test_everything_after_the_summarised_message_is_kept_when_it_meets_the_minimums():
    messages = chat(10, size=400)  # 134 tokens each after padding
    assert calculate_messages_to_keep_index(messages, 15, SMALL) == 16


def test_the_window_grows_back_until_both_minimums_are_met():
    messages = chat(10, size=120)  # 40 tokens each: three messages pass min_tokens=100
    assert calculate_messages_to_keep_index(messages, 18, SMALL) == 17


def test_the_window_stops_growing_at_max_tokens():
    messages = chat(10, size=4000)  # 1334 tokens each
    limits = CompactThresholds(min_tokens=100, min_text_block_messages=5, max_tokens=1000)
    assert calculate_messages_to_keep_index(messages, 18, limits) == 19
    assert calculate_messages_to_keep_index(messages, 17, limits) == 18


def test_the_window_never_reaches_back_past_the_last_compact_boundary():
    messages = [*chat(3), boundary(), *chat(1, size=8)]
    assert calculate_messages_to_keep_index(messages, len(messages) - 1, SMALL) == 7


def test_a_resumed_session_without_a_cursor_keeps_only_what_the_minimums_need():
    messages = chat(10, size=120)
    assert calculate_messages_to_keep_index(messages, len(messages) - 1, SMALL) == 17
    assert calculate_messages_to_keep_index([], -1, SMALL) == 0


def test_a_tool_result_is_never_separated_from_its_call():
    messages = [
        user("start", uuid="u0"),
        assistant("calling", tool_ids=["t1", "t2"], uuid="a0"),
        result("t1", uuid="r1"),
        result("t2", uuid="r2"),
        assistant("done", uuid="a1"),
    ]
    assert adjust_index_to_preserve_api_invariants(messages, 3) == 1
    assert adjust_index_to_preserve_api_invariants(messages, 4) == 4
    assert adjust_index_to_preserve_api_invariants(messages, 0) == 0


def test_split_records_of_one_response_stay_together_through_chains_of_results():
    messages = [
        user("start", uuid="u0"),
        assistant("", tool_ids=["t1"], message_id="msg_1", uuid="a0"),
        result("t0-unrelated", uuid="r0"),
        assistant("", tool_ids=["t2"], message_id="msg_1", uuid="a1"),
        result("t1", uuid="r1"),
        result("t2", uuid="r2"),
    ]
    # r2 needs a1; a1 shares msg_1 with a0; the kept r1 then needs a0 too.
    assert adjust_index_to_preserve_api_invariants(messages, 5) == 1


def plan(messages, **overrides):
    options = dict(
        notes=NOTES,
        template=TEMPLATE,
        notes_path="/s/summary.md",
        last_summarized_message_id="a8",
        thresholds=SMALL,
        transcript_path="/t/s.jsonl",
    )
    options.update(overrides)
    return plan_compaction(messages, **options)


def test_compaction_returns_the_summary_and_the_kept_messages():
    messages = [*chat(10, size=120), boundary("old-boundary")]
    outcome = plan(messages)
    assert isinstance(outcome, CompactionResult)
    assert [m.uuid for m in outcome.kept] == ["u9", "a9"]  # the trailing boundary is dropped
    assert outcome.summary_message.is_compact_summary and outcome.summary_message.role == "user"
    assert "Refactoring the parser." in outcome.summary
    assert "/t/s.jsonl" in outcome.summary and "preserved verbatim" in outcome.summary
    assert not outcome.was_truncated and "/s/summary.md" not in outcome.summary
    assert outcome.post_compact_tokens == estimate_message_tokens([outcome.summary_message, *outcome.kept])


def test_the_kept_messages_follow_the_summarised_one():
    messages = chat(10, size=400)
    outcome = plan(messages, last_summarized_message_id="a7")
    assert isinstance(outcome, CompactionResult)
    assert outcome.start_index == 16 and [m.uuid for m in outcome.kept] == ["u8", "a8", "u9", "a9"]


def test_truncated_notes_point_at_the_full_file():
    notes = TEMPLATE + "\n".join(["z" * 99] * 100)
    outcome = plan(chat(3), notes=notes, last_summarized_message_id=None, transcript_path=None)
    assert isinstance(outcome, CompactionResult) and outcome.was_truncated
    assert outcome.summary.endswith("the full notes are in: /s/summary.md")
    assert "[... section truncated for length ...]" in outcome.summary
    assert "transcript" not in outcome.summary


def test_compaction_falls_back_when_it_cannot_use_the_notes():
    messages = chat(3)
    missing = plan(messages, notes=None)
    assert isinstance(missing, CompactionFallback) and missing.reason == "no-notes"
    assert plan(messages, notes=TEMPLATE.strip() + "\n\n").reason == "empty-notes"
    assert plan(messages, last_summarized_message_id="nope").reason == "summarized-message-missing"
    assert plan(messages, last_summarized_message_id="a1", auto_compact_threshold=10).reason == "over-threshold"
    assert isinstance(plan(messages, last_summarized_message_id="a1", auto_compact_threshold=100_000), CompactionResult)
