import pytest

from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall.recaller import Recaller, RecallState, prefetch_skip_reason
from memdir.recall.selector_protocol import Selection, SelectionRequest
from memdir.store.directory import MemoryDir


@pytest.fixture
def store(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    store.save(
        Memory(
            name="Real DB in tests",
            description="Integration tests must hit a real database",
            type=MemoryType.FEEDBACK,
            body="Never mock the database.",
        )
    )
    store.save(
        Memory(
            name="Release freeze",
            description="Mobile release freeze from 2026-03-05",
            type=MemoryType.PROJECT,
            body="No API changes after the freeze.",
        )
    )
    return store


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("", "empty message"),
        ("   ", "empty message"),
        ("deploy", "single-word message"),
        ("  deploy\t", "single-word message"),
    ],
)
def test_recall_is_skipped_for_empty_and_single_word_messages(query, reason):
    assert prefetch_skip_reason(query, None) == reason


def test_recall_surfaces_a_relevant_memory_with_its_header(store):
    result = Recaller(store).recall("how should the integration tests use the database?")
    assert [m.file for m in result.memories] == ["feedback_real_db_in_tests.md"]
    assert result.reminders[0].startswith("<system-reminder>\nMemory (saved ")
    assert "Never mock the database." in result.reminders[0]


def test_a_memory_is_surfaced_once_per_conversation(store):
    recaller = Recaller(store)
    state = RecallState()
    first = recaller.recall("integration tests database please", state=state)
    second = recaller.recall("integration tests database again", state=state)
    assert len(first.memories) == 1 and second.memories == ()
    state.reset()
    assert len(recaller.recall("integration tests database again", state=state).memories) == 1


def test_memories_the_agent_already_read_are_not_surfaced(store):
    state = RecallState()
    state.note_read(store.resolve("feedback_real_db_in_tests.md"))
    result = Recaller(store).recall("integration tests database please", state=state)
    assert result.memories == ()


def test_the_session_budget_stops_recall(store):
    state = RecallState(surfaced_bytes=60 * 1024)
    result = Recaller(store).recall("integration tests database please", state=state)
    assert result.skipped is not None and "budget" in result.skipped


class Hallucinating:
    name = "fake"

    def select(self, request: SelectionRequest) -> Selection:
        return Selection(files=("../../etc/passwd", "nope.md", request.candidates[0].filename), selector=self.name)


def test_only_candidate_file_names_are_kept_from_a_selector(store):
    result = Recaller(store, selector=Hallucinating()).recall("anything at all")
    assert len(result.memories) == 1
    assert result.selector == "fake"


def test_a_changed_store_is_seen_by_the_next_recall_on_the_same_recaller(store):
    recaller = Recaller(store)
    assert recaller.recall("integration tests with a database").memories
    assert not recaller.recall("kubernetes ingress certificates rotation").memories
    store.save(
        Memory(
            name="Ingress certificates",
            description="Kubernetes ingress certificates rotate every 60 days",
            type=MemoryType.REFERENCE,
            body="Rotation runs from the ops repo.",
        )
    )
    found = recaller.recall("kubernetes ingress certificates rotation")
    assert any("ingress" in memory.file for memory in found.memories)


def test_what_was_surfaced_is_excluded_even_when_the_pool_is_reused(store):
    recaller = Recaller(store)
    state = RecallState()
    first = recaller.recall("integration tests with a real database", state=state)
    assert first.memories
    again = recaller.select("integration tests with a real database", state=state)
    assert not set(again.files) & {memory.file for memory in first.memories}
