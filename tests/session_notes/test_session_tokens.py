from _session_fixtures import assistant, boundary, result, user
from hypothesis import given
from hypothesis import strategies as st

from memdir.conversation import Block, ConversationMessage
from memdir.session_notes.tokens import (
    FIXED_MEDIA_TOKENS,
    count_tool_calls_since,
    estimate_message_tokens,
    last_turn_has_tool_calls,
    live_context,
    rough_token_count,
    token_count_with_estimation,
)


def test_rough_token_count_matches_math_round_of_length_over_four():
    assert rough_token_count("") == 0
    assert rough_token_count("abc") == 1
    assert rough_token_count("abcdef") == 2  # 1.5 rounds up
    assert rough_token_count("x" * 8002) == 2001  # Python's round() would give 2000


def test_rough_token_count_measures_utf16_units():
    assert rough_token_count("😀😀") == 1  # four UTF-16 units


@given(st.text())
def test_rough_token_count_is_length_over_four_rounded_half_up(text):
    units = len(text.encode("utf-16-le")) // 2
    assert rough_token_count(text) == (units * 2 + 4) // 8


def test_token_count_uses_the_last_usage_and_estimates_what_follows():
    messages = [user("x" * 400), assistant("hi", tokens=1000), user("y" * 40)]
    assert token_count_with_estimation(messages) == 1000 + 10


def test_token_count_adds_every_usage_field():
    message = ConversationMessage(
        uuid="a",
        role="assistant",
        blocks=(),
        usage={
            "input_tokens": 1,
            "cache_creation_input_tokens": 20,
            "cache_read_input_tokens": 300,
            "output_tokens": 4000,
        },
    )
    assert token_count_with_estimation([message]) == 4321


def test_token_count_includes_tool_results_between_split_records_of_one_response():
    first = assistant("", message_id="msg_1", tool_ids=["t1"], tokens=500)
    between = result("t1", "z" * 400)
    second = assistant("", message_id="msg_1", tool_ids=["t2"], tokens=500)
    tool_use_tokens = rough_token_count('Bash{"command":"ls 0"}')
    assert token_count_with_estimation([user("q"), first, between, second]) == 500 + 100 + tool_use_tokens


def test_token_count_estimates_everything_without_usage():
    assert token_count_with_estimation([user("x" * 40), assistant("y" * 20)]) == 15


def test_estimate_message_tokens_pads_by_four_thirds_and_rounds_up():
    assert estimate_message_tokens([user("x" * 40)]) == 14  # ceil(10 * 4 / 3)
    image = ConversationMessage(uuid="i", role="user", blocks=(Block(type="image"),))
    assert estimate_message_tokens([image]) == -(-FIXED_MEDIA_TOKENS * 4 // 3)


def test_tool_calls_are_counted_after_the_cursor_only():
    a = assistant(tools=2, uuid="cursor")
    messages = [assistant(tools=5), a, user(), assistant(tools=1), assistant(tools=2)]
    assert count_tool_calls_since(messages, None) == 10
    assert count_tool_calls_since(messages, "cursor") == 3
    assert count_tool_calls_since(messages, "gone") == 0


def test_last_turn_tools_look_at_the_last_assistant_message():
    assert last_turn_has_tool_calls([assistant(tools=1), result("t")])
    assert not last_turn_has_tool_calls([assistant(tools=1), assistant()])
    assert not last_turn_has_tool_calls([user()])


def test_the_live_context_starts_at_the_last_compact_boundary():
    old = [user(), assistant()]
    recent = [boundary(), user("summary"), assistant()]
    assert live_context(old + recent) == recent
    assert live_context(old) == old
