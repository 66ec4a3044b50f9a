"""Waiting until a transcript holds the turn a hook was called for, on a clock the test moves."""

import json

from memdir.integrations.hooks.turn_wait import (
    ANY_REPLY,
    read_complete_lines,
    reply_digest,
    turn_is_written,
    wait_for_turn,
)


def entry(uuid, kind, text, *, parent=None, prompt_id=None, message_id=None):
    content = text if kind == "user" else [{"type": "text", "text": text}]
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = message_id or f"msg_{uuid}"
    line = {"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": False, "message": message}
    if prompt_id is not None:
        line["promptId"] = prompt_id
    return json.dumps(line) + "\n"


class Clock:
    """A clock that only moves when the wait sleeps; ``at`` runs a write once that time is reached."""

    def __init__(self):
        self.now = 0.0
        self.events = []

    def __call__(self):
        return self.now

    def at(self, when, action):
        self.events.append((when, action))

    def sleep(self, seconds):
        self.now += seconds
        due = [event for event in self.events if event[0] <= self.now]
        for event in due:
            self.events.remove(event)
            event[1]()


def append(path, *lines):
    def write():
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("".join(lines))

    return write


def wait(path, clock, **options):
    return wait_for_turn(str(path), timeout=options.pop("timeout", 10.0), clock=clock, sleep=clock.sleep, **options)


def test_the_first_turns_transcript_is_waited_for_until_it_exists_with_the_reply(tmp_path):
    path = tmp_path / "s.jsonl"
    clock = Clock()
    clock.at(0.3, append(path, entry("u1", "user", "I squash-merge"), entry("a1", "assistant", "Noted.", parent="u1")))
    turn = wait(path, clock, reply=reply_digest("Noted."))
    assert turn.found and turn.exists and clock.now >= 0.3
    assert json.loads(turn.lines[-1])["uuid"] == "a1"
    assert turn.reason == "the turn's reply is written (after the start)"


def test_a_reply_already_extracted_does_not_stand_for_the_next_turn_with_the_same_words(tmp_path):
    path = tmp_path / "s.jsonl"
    first = entry("u1", "user", "one") + entry("a1", "assistant", "Noted.", parent="u1")
    path.write_text(first + entry("u2", "user", "two", parent="a1"), encoding="utf-8")
    digest = reply_digest("Noted.")
    assert not turn_is_written(read_complete_lines(str(path)), cursor="a1", reply=digest, prompt_id=None)[0]
    clock = Clock()
    clock.at(0.2, append(path, entry("a2", "assistant", "Noted.", parent="u2")))
    turn = wait(path, clock, cursor="a1", reply=digest)
    assert turn.found and json.loads(turn.lines[-1])["uuid"] == "a2"
    assert turn.reason == "the turn's reply is written (after the last extraction)"


def test_with_a_prompt_id_the_reply_must_follow_that_prompt(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(
        entry("u1", "user", "one", prompt_id="p1")
        + entry("a1", "assistant", "Noted.", parent="u1")
        + entry("u2", "user", "two", parent="a1", prompt_id="p2"),
        encoding="utf-8",
    )
    clock = Clock()
    clock.at(0.5, append(path, entry("a2", "assistant", "Noted.", parent="u2")))
    turn = wait(path, clock, reply=reply_digest("Noted."), prompt_id="p2")
    assert turn.found and json.loads(turn.lines[-1])["uuid"] == "a2"
    assert turn.reason == "the turn's reply is written (after its prompt)"


def test_a_reply_written_as_several_entries_of_one_message_matches_the_hooks_text(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(
        entry("u1", "user", "one")
        + entry("a1", "assistant", "First part.", parent="u1", message_id="msg_1")
        + entry("a2", "assistant", "Second  part.", parent="a1", message_id="msg_1"),
        encoding="utf-8",
    )
    turn = wait(path, Clock(), reply=reply_digest("First part.\nSecond part."))
    assert turn.found


def test_the_wait_gives_up_at_its_bound_and_hands_back_what_is_there(tmp_path):
    path = tmp_path / "s.jsonl"
    clock = Clock()
    missing = wait(path, clock, timeout=1.0, reply=reply_digest("Noted."))
    assert not missing.found and not missing.exists and missing.lines == []
    assert missing.reason == "gave up after 1 s: the transcript does not exist"
    path.write_text(entry("u1", "user", "one"), encoding="utf-8")
    partial = wait(path, Clock(), timeout=2.0, reply=reply_digest("Noted."))
    assert not partial.found and partial.exists and len(partial.lines) == 1
    assert partial.reason == "gave up after 2 s: the turn's reply is not written yet"


def test_a_line_still_being_written_is_not_read(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(entry("u1", "user", "one") + '{"type":"assistant","uuid":"a1","mess', encoding="utf-8")
    assert [json.loads(line)["uuid"] for line in read_complete_lines(str(path))] == ["u1"]
    assert read_complete_lines(str(tmp_path / "absent.jsonl")) is None


def test_any_new_reply_counts_once_the_file_has_been_still_for_a_second(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(entry("u1", "user", "one") + entry("a1", "assistant", "Done.", parent="u1"), encoding="utf-8")
    clock = Clock()
    clock.at(0.4, append(path, entry("u2", "user", "two", parent="a1")))
    clock.at(0.6, append(path, entry("a2", "assistant", "", parent="u2")))
    turn = wait(path, clock, cursor="a1", reply=ANY_REPLY)
    assert turn.found and clock.now >= 1.6
    assert turn.reason == "the turn's reply is written (after the last extraction) and has not changed for 1 s"


def test_without_a_reply_to_wait_for_the_file_only_has_to_exist_and_be_still(tmp_path):
    path = tmp_path / "s.jsonl"
    clock = Clock()
    clock.at(0.2, append(path, entry("u1", "user", "one")))
    turn = wait(path, clock)
    assert turn.found and clock.now >= 0.7
    assert turn.reason == "the transcript is written and has not changed for 0.5 s"
