from _session_fixtures import assistant, user

from memdir.session_notes.updater import render_recent_conversation


def test_a_long_conversation_is_shown_from_its_most_recent_part():
    messages = [user("first " * 50, uuid="u1"), assistant("second " * 50, uuid="a1"), user("third", uuid="u2")]
    full = render_recent_conversation(messages, 100_000)
    assert "first" in full and "omitted" not in full
    recent = render_recent_conversation(messages, 400)
    assert recent.startswith("[1 earlier messages omitted") and "second" in recent and "first" not in recent
    assert "third" in render_recent_conversation(messages, 1)
