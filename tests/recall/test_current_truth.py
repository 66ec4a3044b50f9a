"""Relevance keeps an old rule in its place, expiry, and the ranking's own parameters."""

import os
import time

from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall.hybrid import HybridSelector
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.recaller import Recaller
from memdir.recall.selector_protocol import SelectionRequest
from memdir.store.directory import MemoryDir

DAY = 86_400
NOW = time.time()


def save(store, file, description, *, days_ago, body="", kind=MemoryType.PROJECT, extra=None, name=None):
    memory = Memory(name=name or description[:40], description=description, type=kind, body=body, extra=extra or {})
    path = store.save(memory, file=file, index=False).path
    stamp = NOW - days_ago * DAY
    os.utime(path, (stamp, stamp))
    return file


def latency_store(tmp_path, *, stamped=False):
    """The old figure shares more words with the question than the new one does."""
    store = MemoryDir(tmp_path / "mem")
    old_extra = {"modified": "2026-01-10T09:00:00.000Z"} if stamped else None
    new_extra = {"modified": "2026-03-02T09:00:00.000Z"} if stamped else None
    save(
        store, "old.md", "Measured the checkout API p95 response time: 950 ms under load", days_ago=60, extra=old_extra
    )
    save(store, "new.md", "After the cache the checkout API p95 response time is 140 ms", days_ago=5, extra=new_extra)
    save(store, "owner.md", "Priya owns the checkout API and reviews its code", days_ago=1)
    save(store, "other.md", "The search service stores its data in PostgreSQL 16", days_ago=2)
    return store


QUESTION = "What is the checkout API p95 response time under load?"


def test_an_old_rule_that_nothing_replaced_keeps_its_place(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    save(store, "rule.md", "Never mock the database in integration tests", days_ago=365, kind=MemoryType.FEEDBACK)
    save(store, "ci.md", "Integration tests run in the GitHub Actions workflow", days_ago=3)
    save(store, "db.md", "The staging database was restored from Sunday's snapshot", days_ago=1)
    ranked = [
        h.filename for h, _ in LexicalSelector().rank("can I mock the database in integration tests?", store.headers())
    ]
    assert ranked[0] == "rule.md"


def test_a_memory_past_its_expiry_date_is_neither_recalled_nor_deleted(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    past = time.strftime("%Y-%m-%d", time.localtime(NOW - 3 * DAY))
    today = time.strftime("%Y-%m-%d", time.localtime(NOW))
    save(store, "freeze.md", "No merges to main during the release freeze", days_ago=10, extra={"expires": past})
    save(
        store,
        "pilot.md",
        "Do not redeploy the demo environment during the pilot",
        days_ago=10,
        extra={"expires": today},
    )
    recaller = Recaller(store)
    assert recaller.recall("can I merge to main during the release freeze?").memories == ()
    assert [m.file for m in recaller.recall("can I redeploy the demo environment?").memories] == ["pilot.md"]
    assert (tmp_path / "mem" / "freeze.md").exists()


# -- the ranking's own parameters: these fail if the defaults drift ------------------------------


def test_a_memory_sharing_one_incidental_word_is_not_surfaced_beside_the_real_match(tmp_path):
    """Pins the lexical relative floor: at 0 the second memory is surfaced too."""
    store = MemoryDir(tmp_path / "mem")
    save(store, "deploy.md", "Production deploys of the billing worker happen on Tuesday", days_ago=3)
    save(store, "lunch.md", "Lunch with the billing team on the first Friday of the month", days_ago=3)
    save(store, "a.md", "The search service stores its data in PostgreSQL 16", days_ago=3)
    save(store, "b.md", "Priya owns the checkout API and reviews its code", days_ago=3)
    save(store, "c.md", "Integration tests must hit a real database", days_ago=3)
    save(store, "d.md", "Commit subjects are imperative and short", days_ago=3)
    query = "when does the billing worker deploy?"
    assert LexicalSelector().select(SelectionRequest(query, store.headers())).files == ("deploy.md",)
    assert "lunch.md" in LexicalSelector(relative_floor=0.0).select(SelectionRequest(query, store.headers())).files


class FixedSimilarity:
    """An embedding ranking with fixed cosines: the encoder is an outside dependency."""

    name = "embedding"
    min_similarity = 0.9

    def __init__(self, cosines):
        self.cosines = cosines

    def rank(self, query, candidates):
        return sorted(((h, self.cosines[h.filename]) for h in candidates), key=lambda item: -item[1])

    def select(self, request):
        raise AssertionError("the hybrid ranks through rank()")


def test_the_hand_set_hybrid_weighs_the_lexical_score_twice_the_embedding_lift(tmp_path):
    """Pins the score fusion's weights (lexical 1.0, embedding 0.5): swapped, the paraphrase wins."""
    store = MemoryDir(tmp_path / "mem")
    save(store, "exact.md", "Rotate the staging TLS certificates with certbot renew", days_ago=3)
    save(store, "paraphrase.md", "Renewing HTTPS certs on staging: run the renewal job", days_ago=3)
    save(store, "far.md", "The search service stores its data in PostgreSQL 16", days_ago=3)
    cosines = {"exact.md": 0.80, "paraphrase.md": 0.95, "far.md": 0.10}
    query = "how do I rotate the staging TLS certificates?"
    default = HybridSelector(embedding=FixedSimilarity(cosines))
    assert next(h.filename for h, _ in default.rank(query, store.headers())) == "exact.md"
    swapped = HybridSelector(embedding=FixedSimilarity(cosines), lexical_weight=0.5, embedding_weight=1.0)
    assert next(h.filename for h, _ in swapped.rank(query, store.headers())) == "paraphrase.md"
