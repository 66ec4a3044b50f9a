"""Recall follows a [[link]] from a chosen memory to the memory it links to, when that bears on the message."""

from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.recaller import Recaller, RecallState
from memdir.store.directory import MemoryDir
from memdir.store.index_db import IndexedMemoryDir, MemoryIndex


def save(store, file, name, description, body):
    memory = Memory(name=name, description=description, type=MemoryType.REFERENCE, body=body)
    store.save(memory, file=file, index=False, force=True)


def linked_store(tmp_path, *, policy_body="Five attempts, exponential backoff capped at 2 minutes.\n"):
    store = MemoryDir(tmp_path / "mem")
    save(
        store,
        "checkout_payments.md",
        "checkout-payments",
        "The checkout API calls the payments gateway through the retry queue",
        "The checkout API calls the payments gateway through the retry queue. Details: [[payments-retry-policy]].\n",
    )
    save(store, "retry_policy.md", "payments-retry-policy", "Retry queue policy: attempts and backoff", policy_body)
    save(store, "style.md", "style-guide", "House style: short functions, no abbreviations", "Keep functions short.\n")
    save(store, "db.md", "search-db", "The search service stores its data in PostgreSQL 16", "PostgreSQL 16.\n")
    return store


QUESTION = "How does the checkout API retry failed calls to the payments gateway?"


def test_a_memory_linked_from_a_surfaced_one_is_surfaced_right_after_it(tmp_path):
    store = linked_store(tmp_path)
    assert Recaller(store, follow_links=False).select(QUESTION).files == ("checkout_payments.md",)
    files = Recaller(store).select(QUESTION).files
    assert files[files.index("checkout_payments.md") + 1] == "retry_policy.md"
    surfaced = [memory.file for memory in Recaller(store).recall(QUESTION).memories]
    assert surfaced[:2] == ["checkout_payments.md", "retry_policy.md"]


def test_a_link_to_a_memory_about_something_else_is_not_followed(tmp_path):
    store = linked_store(tmp_path)
    body = "The checkout API calls the payments gateway. Written to [[style-guide]] rules.\n"
    save(store, "checkout_payments.md", "checkout-payments", "The checkout API calls the payments gateway", body)
    assert "style.md" not in Recaller(store).select(QUESTION).files


def test_a_linked_memory_takes_the_place_of_the_lowest_ranked_choice(tmp_path):
    store = linked_store(tmp_path)
    files = Recaller(store, limit=1).select(QUESTION).files
    assert files == ("checkout_payments.md",)
    both = Recaller(store, limit=2).select(QUESTION).files
    assert both == ("checkout_payments.md", "retry_policy.md")


def test_a_link_to_no_memory_or_to_one_already_surfaced_adds_nothing(tmp_path):
    store = linked_store(tmp_path)
    body = "The checkout API calls the payments gateway. See [[no-such-memory]].\n"
    save(store, "checkout_payments.md", "checkout-payments", "The checkout API retry queue to payments", body)
    assert Recaller(store).select(QUESTION).files.count("checkout_payments.md") == 1
    store = linked_store(tmp_path / "again")
    recaller = Recaller(store)
    state = RecallState()
    first = [memory.file for memory in recaller.recall(QUESTION, state=state).memories]
    assert "retry_policy.md" in first
    again = [memory.file for memory in recaller.recall(QUESTION + " again", state=state).memories]
    assert "retry_policy.md" not in again


def test_recall_over_the_whole_store_in_the_index_follows_the_link_too(tmp_path):
    linked_store(tmp_path)
    root = str(tmp_path / "mem")
    with MemoryIndex(root, str(tmp_path / "index.sqlite3")) as index:
        store = IndexedMemoryDir(root, index=index, scan_cap=None)
        assert store.ranked_store() is not None  # ranked in the index, not over a scan
        recaller = Recaller(store, selector=LexicalSelector(cache=index))
        assert recaller.select(QUESTION).files == ("checkout_payments.md", "retry_policy.md")
