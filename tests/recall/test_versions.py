"""Recall never misleads: relevance decides, and time orders only versions a precise signal names.

Two facts written alike ("Checkout timeout", "Search timeout") are two facts: the one asked about
comes first and nothing says the other replaces it. Two memories whose names say one subject
("Dashboard API latency" and "Dashboard API latency after caching") are versions: the newer comes
first and the older says so. A recorded ``replaces:`` does the same for any two memories.
"""

import os
import time

import pytest

from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall.embedding import embedding_available
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.recaller import Recaller, RecallState
from memdir.recall.registry import SelectorInputs, build_selector
from memdir.recall.versions import CATEGORY_SIZE, same_subject_names
from memdir.store.directory import MemoryDir
from memdir.store.index_db import IndexedMemoryDir, MemoryIndex

DAY = 86_400
NOW = float(int(time.time()))

# (older memory, newer memory, the question, which one it asks about): two facts each.
PAIRS = {
    "timeout": (
        ("Checkout timeout", "The checkout API times out after 30 seconds", "Set in gateway config."),
        ("Search timeout", "The search API times out after 5 seconds", "Set in gateway config."),
        "what is the checkout API timeout?",
        0,
    ),
    "owner": (
        ("Billing owner", "Alice owns the billing service", "Ask her before changing invoices."),
        ("Search owner", "Bob owns the search service", "Ask him before reindexing."),
        "who owns the billing service?",
        0,
    ),
    "port": (
        ("Staging database port", "The staging database listens on port 5433", "Not the default."),
        ("Production database port", "The production database listens on port 5432", "The default."),
        "which port does the staging database use?",
        0,
    ),
    "zh-timeout": (
        ("结账接口超时", "结账接口30秒后超时", "在网关配置里设置。"),
        ("搜索接口超时", "搜索接口5秒后超时", "在网关配置里设置。"),
        "结账接口的超时时间是多少？",
        0,
    ),
    "ja-owner": (
        ("請求サービスの担当", "請求サービスの担当はアリス", "請求書を変える前に相談する。"),
        ("検索サービスの担当", "検索サービスの担当はボブ", "再インデックスの前に相談する。"),
        "請求サービスの担当は誰？",
        0,
    ),
    "ko-port": (
        ("스테이징 DB 포트", "스테이징 데이터베이스는 5433 포트를 쓴다", "기본값이 아니다."),
        ("운영 DB 포트", "운영 데이터베이스는 5432 포트를 쓴다", "기본값이다."),
        "스테이징 데이터베이스 포트가 뭐야?",
        0,
    ),
}

OTHERS = (
    ("Deploy day", "Production deploys happen on Tuesdays", MemoryType.PROJECT),
    ("Commit style", "Commit subjects are imperative and short", MemoryType.FEEDBACK),
    ("Linear project", "Bugs are tracked in the PAY project in Linear", MemoryType.REFERENCE),
    ("User role", "The user is a data scientist new to the frontend", MemoryType.USER),
    ("Real database in tests", "Integration tests must hit a real database, never mocks", MemoryType.FEEDBACK),
    ("Flaky suite", "Nine tests in the web suite are flaky", MemoryType.PROJECT),
    ("Grafana board", "Latency dashboards live on the payments-api Grafana board", MemoryType.REFERENCE),
    ("Release freeze", "No merges to main during the mobile release freeze", MemoryType.PROJECT),
    ("Node version", "The frontend builds on Node 20", MemoryType.PROJECT),
    ("Code review", "Every change needs one approving review", MemoryType.FEEDBACK),
)


def save(store, file, name, description, body="", *, days_ago, kind=MemoryType.PROJECT, extra=None):
    memory = Memory(name=name, description=description, type=kind, body=body, extra=extra or {})
    path = store.save(memory, file=file, index=False).path
    stamp = NOW - days_ago * DAY
    os.utime(path, (stamp, stamp))
    return path


def pair_store(root, pair, *, crowd):
    store = MemoryDir(root)
    (older, newer, _, _) = PAIRS[pair]
    save(store, "first.md", *older, days_ago=40)
    save(store, "second.md", *newer, days_ago=2)
    if crowd:
        for number, (name, description, kind) in enumerate(OTHERS):
            save(store, f"other{number}.md", name, description, days_ago=20 + number, kind=kind)
    return store


def selectors():
    kinds = ["lexical", "hybrid"] if embedding_available() else ["lexical"]
    return kinds


@pytest.mark.parametrize("crowd", [False, True], ids=["alone", "among ten others"])
@pytest.mark.parametrize("pair", list(PAIRS))
def test_the_fact_asked_about_comes_first_and_nothing_says_the_other_replaces_it(tmp_path, pair, crowd):
    store = pair_store(tmp_path / "mem", pair, crowd=crowd)
    (_, _, question, asked) = PAIRS[pair]
    wanted = ("first.md", "second.md")[asked]
    for kind in selectors():
        with MemoryIndex(str(store.root), str(tmp_path / f"{kind}.sqlite3")) as index:
            selector = build_selector(kind, SelectorInputs(vectors=index))
            result = Recaller(store, selector=selector, clock=lambda: NOW).recall(question)
        files = [memory.file for memory in result.memories]
        assert files and files[0] == wanted, (kind, files)
        for memory in result.memories:
            assert "newer memory" not in memory.header and "Replaced by" not in memory.header, (kind, memory.header)


def latency_store(root, *, names=("Dashboard API latency", "Dashboard API latency after caching"), stamped=False):
    """The old figure shares more of the question's words than the new one does."""
    store = MemoryDir(root)
    old_extra = {"modified": "2026-01-10T09:00:00.000Z"} if stamped else None
    new_extra = {"modified": "2026-03-02T09:00:00.000Z"} if stamped else None
    save(
        store,
        "old.md",
        names[0],
        "Measured the dashboard API p95 response time: 800 ms under load",
        days_ago=60,
        extra=old_extra,
    )
    save(store, "new.md", names[1], "With the cache, dashboard API p95 is 250 ms", days_ago=5, extra=new_extra)
    save(store, "owner.md", "Dashboard owner", "Priya owns the dashboard API and reviews its code", days_ago=1)
    save(store, "other.md", "Search datastore", "The search service stores its data in PostgreSQL 16", days_ago=2)
    return store


LATENCY = "What is the dashboard API p95 response time under load?"


def test_the_newer_of_two_memories_whose_names_say_one_subject_comes_first_and_the_older_names_it(tmp_path):
    store = latency_store(tmp_path / "mem")
    scored = [h.filename for h, _ in LexicalSelector().rank(LATENCY, store.headers())]
    assert scored.index("old.md") < scored.index("new.md")  # relevance alone prefers the stale figure
    result = Recaller(store, clock=lambda: NOW).recall(LATENCY)
    assert [m.file for m in result.memories][:2] == ["new.md", "old.md"]
    note = result.memories[1].header.split("\n")[0]
    assert note == f"A newer memory on the same subject (saved 5 days ago): {store.resolve('new.md')}"
    assert note not in result.memories[1].content  # never part of the memory's text
    assert "newer memory" not in result.memories[0].header


def test_the_modified_stamp_decides_when_every_file_has_the_same_mtime(tmp_path):
    store = latency_store(tmp_path / "mem", stamped=True)
    for header in store.headers():
        os.utime(header.path, (NOW, NOW))
    assert [m.file for m in Recaller(store, clock=lambda: NOW).recall(LATENCY).memories][:2] == ["new.md", "old.md"]


def test_a_newer_version_the_selector_did_not_choose_is_brought_in_beside_the_older_one(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    save(store, "old.md", "Staging URL", "Staging lives at staging-1.internal behind the VPN", days_ago=30)
    save(store, "new.md", "Staging URL (updated)", "Moved to a new host: stage.example.dev", days_ago=3)
    save(store, "vpn.md", "VPN", "The VPN client is WireGuard", days_ago=10)
    result = Recaller(store, clock=lambda: NOW).recall("where does staging live behind the VPN?")
    files = [m.file for m in result.memories]
    assert files.index("new.md") == files.index("old.md") - 1


def test_names_that_merely_extend_another_name_are_two_facts(tmp_path):
    """Pins the word of change: "Checkout API timeout" extends "Checkout API" and is another attribute."""
    store = MemoryDir(tmp_path / "mem")
    save(store, "api.md", "Checkout API", "The checkout API serves carts and payments", days_ago=30)
    save(store, "timeout.md", "Checkout API timeout", "The checkout API times out after 30 seconds", days_ago=3)
    result = Recaller(store, clock=lambda: NOW).recall("what does the checkout API serve?")
    assert next(m.file for m in result.memories) == "api.md"
    assert all("newer memory" not in m.header for m in result.memories)


def test_a_name_many_memories_hold_is_a_category_not_one_fact(tmp_path):
    """Pins CATEGORY_SIZE: observations of one session share the session's name, and are many facts."""
    store = MemoryDir(tmp_path / "mem")
    facts = ("went camping at the lake", "adopted a puppy", "started a pottery class", "ran a charity race")
    for number, fact in enumerate(facts[: CATEGORY_SIZE + 1]):
        save(
            store,
            f"obs{number}.md",
            "Melanie, session 3",
            f"Melanie {fact}",
            days_ago=30 - number,
            kind=MemoryType.USER,
        )
    result = Recaller(store, clock=lambda: NOW).recall("where did Melanie go camping?")
    assert next(m.file for m in result.memories) == "obs0.md"
    assert all("newer memory" not in m.header for m in result.memories)
    few = MemoryDir(tmp_path / "few")
    for number, fact in enumerate(facts[:CATEGORY_SIZE]):
        save(
            few, f"obs{number}.md", "Melanie, session 3", f"Melanie {fact}", days_ago=30 - number, kind=MemoryType.USER
        )
    shown = Recaller(few, clock=lambda: NOW).recall("where did Melanie go camping?").memories
    assert shown[0].file == "obs2.md"  # three under one name: versions, the newest first


@pytest.mark.parametrize("indexed", [False, True])
def test_a_category_is_counted_by_its_terms_over_a_scan_and_the_derived_index_alike(tmp_path, indexed):
    store = MemoryDir(tmp_path / "mem")
    facts = ("went camping at the lake", "adopted a puppy", "started a pottery class", "ran a charity race")
    names = ("Melanie, session 3", "melanie session 3", "MELANIE  session 3", "Melanie - session 3")
    for number, (fact, name) in enumerate(zip(facts, names, strict=True)):
        save(store, f"obs{number}.md", name, f"Melanie {fact}", days_ago=30 - number, kind=MemoryType.USER)
    question = "where did Melanie go camping?"
    if indexed:
        root = str(store.root)
        with MemoryIndex(root, str(tmp_path / "index.sqlite3")) as index:
            indexed_dir = IndexedMemoryDir(root, index=index, scan_cap=None)
            recaller = Recaller(indexed_dir, selector=LexicalSelector(cache=index), clock=lambda: NOW)
            result = recaller.recall(question)
    else:
        result = Recaller(store, clock=lambda: NOW).recall(question)
    assert next(m.file for m in result.memories) == "obs0.md"
    assert all("newer memory" not in m.header for m in result.memories)


def test_a_newer_memory_of_another_type_is_not_a_version(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    save(store, "fact.md", "Code review", "Reviews happen in GitHub pull requests", days_ago=30)
    save(store, "rule.md", "Code review", "Never approve your own pull request", days_ago=3, kind=MemoryType.FEEDBACK)
    result = Recaller(store, clock=lambda: NOW).recall("where do code reviews happen in GitHub?")
    assert result.memories[0].file == "fact.md"
    assert all("newer memory" not in m.header for m in result.memories)


def test_the_name_rule_in_six_languages():
    assert same_subject_names("Dashboard API latency", "Dashboard API latency after caching")
    assert same_subject_names("checkout-api-timeout", "Checkout API timeout")
    assert same_subject_names("仪表盘接口延迟", "仪表盘接口延迟（缓存后）")
    assert same_subject_names("ダッシュボードAPIの遅延", "キャッシュ後のダッシュボードAPIの遅延")
    assert same_subject_names("결제 서비스 담당자", "결제 서비스 담당자 변경")
    assert same_subject_names("Latencia de la API del panel", "Latencia de la API del panel tras la caché")
    assert same_subject_names("Latenz der Dashboard-API", "Latenz der Dashboard-API nach dem Caching")
    assert same_subject_names("payments-retry-policy", "payments-retry-policy-v2")
    assert not same_subject_names("Checkout timeout", "Search timeout")
    assert not same_subject_names("Topic 1", "Topic 2")
    assert not same_subject_names("Checkout API", "Checkout API timeout")
    assert not same_subject_names("Dashboard API latency", "Mobile dashboard API latency")
    assert not same_subject_names("Latency", "Latency after caching")  # one word says too little
    assert not same_subject_names("New checkout flow", "New checkout flow owner")  # both say "new"
    assert not same_subject_names("结账接口", "结账接口超时")


# -- recorded relations ---------------------------------------------------------------------------


def recorded_store(root, *, target="old.md", expires=None):
    store = MemoryDir(root)
    save(store, "old.md", "On call", "Dana is on call for atlas this week, ping them if prod breaks", days_ago=30)
    extra = {"replaces": target, **({"expires": expires} if expires else {})}
    save(store, "new.md", "Pager handover", "Kenji has the pager now", days_ago=3, extra=extra)
    save(store, "deploy.md", "Deploy day", "Atlas deploys on Tuesdays", days_ago=10)
    return store


ON_CALL = "who is on call for atlas? ping them if prod breaks"


@pytest.mark.parametrize("target", ["old.md", "On call", "old"])
def test_a_recorded_replacement_comes_first_and_the_replaced_memory_is_labelled(tmp_path, target):
    store = recorded_store(tmp_path / "mem", target=target)
    result = Recaller(store, clock=lambda: NOW).recall(ON_CALL)
    files = [m.file for m in result.memories]
    assert files[:2] == ["new.md", "old.md"]
    label = result.memories[1].header.split("\n")[0]
    assert label == f"Replaced by a newer memory (recorded; saved 3 days ago): {store.resolve('new.md')}"


def test_a_replaced_memory_whose_replacement_has_ended_is_left_out(tmp_path):
    yesterday = time.strftime("%Y-%m-%d", time.localtime(NOW - DAY))
    store = recorded_store(tmp_path / "mem", expires=yesterday)
    files = [m.file for m in Recaller(store, clock=lambda: NOW).recall(ON_CALL).memories]
    assert "old.md" not in files and "new.md" not in files


def test_a_replacement_shown_earlier_in_the_conversation_is_named_not_repeated(tmp_path):
    store = recorded_store(tmp_path / "mem")
    recaller = Recaller(store, clock=lambda: NOW)
    state = RecallState()
    first = recaller.recall("who has the pager now, Kenji?", state=state)
    assert next(m.file for m in first.memories) == "new.md"
    later = recaller.recall(ON_CALL, state=state)
    assert [m.file for m in later.memories] == ["old.md"]
    assert later.memories[0].header.startswith("Replaced by a newer memory (recorded; saved 3 days ago): ")


def test_a_chain_of_replacements_leads_to_the_newest(tmp_path):
    store = recorded_store(tmp_path / "mem")
    save(store, "newest.md", "Pager again", "Ravi took the pager", days_ago=1, extra={"replaces": ["new.md"]})
    result = Recaller(store, clock=lambda: NOW).recall(ON_CALL)
    assert [m.file for m in result.memories][:2] == ["newest.md", "old.md"]
    assert str(store.resolve("newest.md")) in result.memories[1].header


def test_a_chain_that_a_name_continues_is_not_labelled_recorded(tmp_path):
    store = recorded_store(tmp_path / "mem")
    save(store, "newest.md", "Pager handover updated", "Ravi took the pager", days_ago=1)
    result = Recaller(store, clock=lambda: NOW).recall(ON_CALL)
    old = next(m for m in result.memories if m.file == "old.md")
    label = old.header.split("\n")[0]
    assert str(store.resolve("newest.md")) in label
    assert "recorded" not in label  # old.md -> new.md is recorded, new.md -> newest.md only named


def test_the_derived_index_finds_the_recorded_replacement_over_the_whole_store(tmp_path):
    store = recorded_store(tmp_path / "mem")
    for number in range(30):
        save(store, f"chore{number}.md", f"Chore {number}", f"Rename helper number {number} in utils", days_ago=50)
    root = str(store.root)
    with MemoryIndex(root, str(tmp_path / "index.sqlite3")) as index:
        indexed = IndexedMemoryDir(root, index=index, scan_cap=None)
        recaller = Recaller(indexed, selector=LexicalSelector(cache=index), clock=lambda: NOW)
        result = recaller.recall(ON_CALL)
        assert [m.file for m in result.memories][:2] == ["new.md", "old.md"]
        assert index.replacing()[0].replaces == ("old.md",)


def test_expiry_is_judged_at_the_time_recall_is_asked_for_not_the_wall_clock(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    save(
        store,
        "freeze.md",
        "Release freeze",
        "No merges to main during the release freeze",
        days_ago=1,
        extra={"expires": "2030-01-31"},
    )
    question = "can I merge to main during the release freeze?"
    before = time.mktime((2030, 1, 30, 12, 0, 0, 0, 0, -1))
    after = time.mktime((2030, 2, 2, 12, 0, 0, 0, 0, -1))
    assert [m.file for m in Recaller(store, clock=lambda: before).recall(question).memories] == ["freeze.md"]
    assert Recaller(store, clock=lambda: after).recall(question).memories == ()
    root = str(store.root)
    with MemoryIndex(root, str(tmp_path / "index.sqlite3")) as index:
        indexed = IndexedMemoryDir(root, index=index, scan_cap=None)
        assert (
            Recaller(indexed, selector=LexicalSelector(cache=index), clock=lambda: after).recall(question).memories
            == ()
        )
        assert [
            m.file
            for m in Recaller(indexed, selector=LexicalSelector(cache=index), clock=lambda: before)
            .recall(question)
            .memories
        ] == ["freeze.md"]


def test_memories_saved_within_a_sitting_under_one_name_are_one_batch_not_versions(tmp_path):
    """Pins SITTING_MS: an import or one session's notes under one name are parts, not updates."""
    store = MemoryDir(tmp_path / "mem")
    save(store, "a.md", "Atlas notes", "Atlas deploys on Tuesdays", days_ago=3)
    path = save(store, "b.md", "Atlas notes", "Atlas uses PostgreSQL 16 for its ledger", days_ago=3)
    stamp = NOW - 3 * DAY + 600  # ten minutes later
    os.utime(path, (stamp, stamp))
    result = Recaller(store, clock=lambda: NOW).recall("which day does atlas deploy?")
    assert next(m.file for m in result.memories) == "a.md"
    assert all("newer memory" not in m.header for m in result.memories)
