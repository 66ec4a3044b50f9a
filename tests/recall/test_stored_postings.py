"""Recall over the whole store ranked inside the derived index: stored postings, catch-up, cold start."""

import json
import os
import sqlite3

import pytest

import memdir.recall.stored_lexical as stored_lexical
import memdir.store.index_catchup as index_catchup
import memdir.store.index_db as index_db
from memdir.config import resolve_config
from memdir.integrations.hooks.events import run_hook
from memdir.llm import ScriptedModel
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.llm_selector import LLMSelector
from memdir.recall.recaller import Recaller
from memdir.store.directory import MemoryDir
from memdir.store.index_db import IndexedMemoryDir, MemoryIndex
from topic_store import fill

SPOKEN = [
    ("集成测试", "我们的集成测试必须连接真实的数据库，不要用模拟", "Integration tests hit a real database"),
    ("デプロイ手順", "本番へのデプロイは金曜日に行わない", "No production deploys on Fridays"),
    ("데이터베이스", "데이터베이스에서 마이그레이션은 항상 백업 후에 실행한다", "Back up before migrations"),
    ("CI 修复", "帮我把这个PR的CI修一下的时候先看日志", "Read the CI log before fixing a PR"),
]
QUERIES = [
    "what is on the billing review checklist?",
    "deploy work note",
    "quarterly auth review",
    "我应该怎么写集成测试？",
    "デプロイはいつ？",
    "데이터베이스를 마이그레이션",
    "PR的CI",
    "nothing at all matches this",
]


def multilingual_store(root, count=80):
    store = fill(root, count=count)
    for name, description, body in SPOKEN:
        store.save(Memory(name=name, description=description, type=MemoryType.FEEDBACK, body=body), index=False)
    return store


def both_rankings(index, query, limit=50):
    """The in-memory BM25 ranking over every header, and the one read from the stored postings."""
    selector = LexicalSelector()
    in_memory = selector.rank(query, index.headers(), limit=limit)
    stored = LexicalSelector().rank_store(query, index, limit=limit)
    return [(h.filename, s) for h, s in in_memory], [(h.filename, s) for h, s in stored or []]


@pytest.fixture(params=[4096, 8], ids=["one chunk", "chunks of 8"])
def chunk(request, monkeypatch):
    """Postings cut in chunks of the real size, and in chunks of 8 ids so that every posting spans many."""
    monkeypatch.setattr(stored_lexical, "CHUNK", request.param)
    return request.param


def test_the_stored_postings_give_the_in_memory_ranking_score_for_score_in_every_script(tmp_path, chunk):
    root = str(tmp_path / "mem")
    multilingual_store(root)
    with MemoryIndex(root, str(tmp_path / "index.sqlite3")) as index:
        for query in QUERIES:
            in_memory, stored = both_rankings(index, query)
            assert stored == in_memory, query
        assert both_rankings(index, "我应该怎么写集成测试？")[1][0][0].startswith("feedback_")


def test_the_postings_follow_added_changed_and_removed_memories(tmp_path, chunk):
    root = str(tmp_path / "mem")
    store = multilingual_store(root)
    with MemoryIndex(root, str(tmp_path / "index.sqlite3")) as index:
        assert both_rankings(index, "billing review")[1]
        store.save(
            Memory(name="billing note 3", description="Kangaroo billing", type=MemoryType.PROJECT, body="x"),
            file="project_billing_note_3.md",
            index=False,
            force=True,
        )
        os.remove(os.path.join(root, "project_auth_note_6.md"))
        store.save(
            Memory(name="auth rotation", description="auth keys rotate monthly", type=MemoryType.PROJECT, body="z"),
            index=False,
        )
        index.refresh()
        for query in [*QUERIES, "kangaroo", "auth keys rotation"]:
            in_memory, stored = both_rankings(index, query)
            assert stored == in_memory, query
        assert "project_auth_note_6.md" not in {name for name, _ in both_rankings(index, "auth note")[1]}


def test_recall_over_the_index_surfaces_what_recall_over_the_files_surfaces(tmp_path):
    root = str(tmp_path / "mem")
    multilingual_store(root)
    with MemoryIndex(root, str(tmp_path / "index.sqlite3")) as index:
        indexed = Recaller(IndexedMemoryDir(root, index=index, scan_cap=None), selector=LexicalSelector(cache=index))
        plain = Recaller(MemoryDir(root, scan_cap=None), selector=LexicalSelector())
        for query in QUERIES:
            assert indexed.select(query).files == plain.select(query).files, query


def test_a_change_larger_than_the_budget_is_left_to_the_background(tmp_path):
    root = str(tmp_path / "mem")
    store = fill(root, count=40)
    with MemoryIndex(root, str(tmp_path / "index.sqlite3")) as index:
        index.refresh()
        selector = LexicalSelector()
        assert selector.rank_store("billing", index, limit=5, budget=None)
        for i in range(10):
            store.save(
                Memory(name=f"new {i}", description=f"billing change {i}", type=MemoryType.PROJECT, body="b"),
                index=False,
            )
        index.refresh()
        assert selector.rank_store("billing", index, limit=5, budget=20) is None  # 10 changes cost 80
        assert index.background_due
        assert selector.rank_store("billing", index, limit=5, budget=None)


def test_a_fresh_process_sees_new_removed_and_replaced_files_of_a_large_store_from_directory_listings(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(index_catchup, "SMALL_STORE", 0)  # every store takes the large-store path
    root = str(tmp_path / "mem")
    store = fill(root, count=20)
    os.makedirs(os.path.join(root, "nested"))
    db = str(tmp_path / "index.sqlite3")
    with MemoryIndex(root, db) as index:
        index.refresh()
    os.remove(os.path.join(root, "project_deploy_note_0.md"))
    store.save(
        Memory(name="database note 1", description="Wombat schema", type=MemoryType.PROJECT, body="y"),
        file="project_database_note_1.md",
        index=False,
        force=True,
    )
    store.save(
        Memory(name="fresh", description="a brand new wombat", type=MemoryType.USER, body="w"),
        file="nested/fresh.md",
        index=False,
    )
    with MemoryIndex(root, db, refresh_interval=3600) as fresh:
        assert fresh.catch_up(defer_work=True)
        assert not fresh.background_due  # the last full refresh is recent
        files = set(fresh.headers_by_files(["nested/fresh.md", "project_deploy_note_0.md"]))
        assert files == {"nested/fresh.md"}
        assert fresh.headers_by_files(["project_database_note_1.md"])["project_database_note_1.md"].description == (
            "Wombat schema"
        )
    with MemoryIndex(root, db, refresh_interval=0) as later:
        assert later.catch_up(defer_work=True) and later.full_due and later.background_due


def test_an_index_never_built_answers_from_the_newest_and_is_built_in_the_background(tmp_path, monkeypatch):
    monkeypatch.setattr(index_db, "INLINE_BUILD", 5)
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    root = tmp_path / "mem"
    fill(str(root), count=30)
    launched = []

    def launcher(argv, log):
        launched.append(list(argv))

    data = {"session_id": "s1", "cwd": str(project), "prompt": "billing review checklist"}
    env = {"CLAUDE_CONFIG_DIR": str(home), "HOME": str(tmp_path)}
    config = resolve_config(str(project), memory_dir=str(root), env=env)
    result = run_hook("user-prompt-submit", data, memory_dir=str(root), project=str(project), launcher=launcher)
    assert "billing" in result.note and "started reindex" in result.note
    assert launched and launched[0][-2:] == ["reindex", "--background"]
    with MemoryIndex(root, index_db.index_path(config.memory_dir, config.config_home)) as index:
        assert not index.ready()


def test_reindex_in_the_background_gives_way_to_one_already_running(tmp_path, monkeypatch):
    from click.testing import CliRunner
    from filelock import FileLock

    from memdir.cli import cli

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    root = str(tmp_path / "mem")
    fill(root, count=5)
    shown = json.loads(CliRunner().invoke(cli, ["--memory-dir", root, "reindex", "--json"]).stdout)
    os.remove(shown["index"])
    with FileLock(shown["index"] + ".build.lock"):
        quiet = CliRunner().invoke(cli, ["--memory-dir", root, "reindex", "--background"])
    assert quiet.exit_code == 0 and quiet.output == ""
    assert (
        not os.path.exists(shown["index"])
        or not sqlite3.connect(shown["index"]).execute("SELECT COUNT(*) FROM memories").fetchone()[0]
    )


@pytest.mark.parametrize("prefilter", [3, None])
def test_the_model_sees_the_best_of_the_whole_store_not_the_newest(tmp_path, prefilter):
    root = str(tmp_path / "mem")
    store = MemoryDir(root)
    store.save(
        Memory(name="wombat", description="the wombat feeding rota", type=MemoryType.PROJECT, body="r"), index=False
    )
    os.utime(os.path.join(root, "project_wombat.md"), (1_000_000, 1_000_000))  # the oldest of all
    fill(root, count=250)
    model = ScriptedModel([{"json": {"selected_memories": ["project_wombat.md"]}}])
    with MemoryIndex(root, str(tmp_path / "index.sqlite3")) as index:
        recaller = Recaller(
            IndexedMemoryDir(root, index=index, scan_cap=None),
            selector=LLMSelector(model, prefilter_threshold=prefilter),
        )
        selection = recaller.select("who feeds the wombat?")
    lines = model.requests[0].messages[0].text.split("Available memories:\n", 1)[1].splitlines()
    assert any("project_wombat.md" in line for line in lines)  # the oldest of all, yet shown
    assert len(lines) == (3 if prefilter else 200)  # Claude Code's manifest size at most
    assert selection.files == ("project_wombat.md",)
