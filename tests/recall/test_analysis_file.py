import json
import os

from memdir.config import open_memory_dir, read_environment, resolve_config
from memdir.integrations.hooks.events import run_hook
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall.analysis_file import AnalysisFile, analysis_file_path
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.recaller import Recaller
from memdir.store.directory import MemoryDir
from memdir.store.scan import cache_file_path
from topic_store import fill

QUERY = "what is on the billing review checklist?"


def ranking(root, cache_path, query=QUERY):
    """What a new process ranks, reading and writing the analysis file at ``cache_path``."""
    cache = AnalysisFile(root, str(cache_path))
    recaller = Recaller(MemoryDir(root), selector=LexicalSelector(cache=cache))
    return recaller.select(query, limit=5).files, cache


def uncached(root, query=QUERY):
    return Recaller(MemoryDir(root), selector=LexicalSelector()).select(query, limit=5).files


def test_a_new_process_ranks_from_the_stored_analyses_exactly_as_the_first_did(tmp_path):
    root = str(tmp_path / "mem")
    fill(root)
    path = tmp_path / "home" / "analyses.json"
    first, cache = ranking(root, path)
    assert first and all("billing" in name for name in first)
    assert cache.writes == 1 and len(json.loads(path.read_text(encoding="utf-8"))["analyses"]) == 80
    again, cache = ranking(root, path)
    assert again == first == uncached(root)
    assert cache.writes == 0  # every analysis came from the file


def test_an_edited_memory_is_analysed_again_and_ranked_by_its_new_text(tmp_path):
    root = str(tmp_path / "mem")
    fill(root)
    path = tmp_path / "analyses.json"
    ranking(root, path)
    edited = os.path.join(root, "project_billing_note_3.md")
    with open(edited, "a", encoding="utf-8") as handle:
        handle.write("Also: the zanzibar ledger export.\n")
    found, cache = ranking(root, path, "zanzibar ledger export")
    assert found == ("project_billing_note_3.md",) == uncached(root, "zanzibar ledger export")
    assert cache.writes == 1
    stored = json.loads(path.read_text(encoding="utf-8"))["analyses"][os.path.join(root, "project_billing_note_3.md")]
    assert stored[1] == os.path.getsize(edited)
    assert ranking(root, path, "zanzibar ledger export")[1].writes == 0


def test_a_corrupt_or_foreign_file_is_ignored_and_replaced(tmp_path):
    root = str(tmp_path / "mem")
    fill(root)
    expected = uncached(root)
    path = tmp_path / "analyses.json"
    foreign = b'{"format": 1, "version": "0", "root": "/x", "analyses": {}}'
    for garbage in (b"\x00\xff not json", foreign, b"[" * 100_000):
        path.write_bytes(garbage)
        found, cache = ranking(root, path)
        assert found == expected and cache.writes == 1
        assert json.loads(path.read_text(encoding="utf-8"))["format"] == 1


def test_entries_of_the_wrong_shape_are_analysed_again(tmp_path):
    root = str(tmp_path / "mem")
    fill(root)
    path = tmp_path / "analyses.json"
    ranking(root, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    for i, key in enumerate(list(data["analyses"])[:3]):
        data["analyses"][key] = [["not", "an", "entry"], {}, 7][i]
    first_key = next(iter(data["analyses"]))
    path.write_text(json.dumps(data), encoding="utf-8")
    found, cache = ranking(root, path)
    assert found == uncached(root) and cache.writes == 1
    assert isinstance(json.loads(path.read_text(encoding="utf-8"))["analyses"][first_key], list)


def test_a_location_that_cannot_be_written_changes_nothing_but_speed(tmp_path):
    root = str(tmp_path / "mem")
    fill(root)
    blocker = tmp_path / "home"
    blocker.write_text("a file where the cache directory would go", encoding="utf-8")
    found, cache = ranking(root, blocker / "memdir" / "analyses.json")
    assert found == uncached(root) and cache.writes == 0
    assert blocker.read_text(encoding="utf-8") == "a file where the cache directory would go"


def test_deleted_memories_leave_the_file(tmp_path):
    root = str(tmp_path / "mem")
    fill(root)
    path = tmp_path / "analyses.json"
    ranking(root, path)
    gone = os.path.join(root, "project_deploy_note_0.md")
    os.remove(gone)
    # The file is rewritten when something had to be analysed: here the edited memory.
    with open(os.path.join(root, "project_search_note_4.md"), "a", encoding="utf-8") as handle:
        handle.write("more\n")
    ranking(root, path)
    assert gone not in json.loads(path.read_text(encoding="utf-8"))["analyses"]


def test_a_cjk_store_ranks_the_same_from_the_file(tmp_path):
    root = str(tmp_path / "mem")
    store = MemoryDir(root)
    topics = ["集成测试", "数据库迁移", "デプロイ手順", "リリース計画", "데이터베이스", "배포 절차", "결제 검토"]
    for i in range(70):
        topic = topics[i % len(topics)]
        store.save(
            Memory(
                name=f"{topic} {i}",
                description=f"{topic}的注意事项 {i}",
                type=MemoryType.PROJECT,
                body=f"{topic}について、{topic}를 할 때 {i}",
            ),
            index=False,
        )
    path = tmp_path / "analyses.json"
    for query in ("怎么写集成测试", "데이터베이스를 옮기는 방법", "デプロイ手順を教えて"):
        first, _ = ranking(root, path, query)
        again, cache = ranking(root, path, query)
        assert first and again == first == uncached(root, query) and cache.writes == 0


def test_the_file_lives_under_the_config_home_named_for_the_directory(tmp_path):
    path = analysis_file_path(str(tmp_path / "a" / "memory") + "/", str(tmp_path / "claude"))
    assert path.startswith(str(tmp_path / "claude" / "memdir" / "analyses") + os.sep)
    assert path != analysis_file_path(str(tmp_path / "b" / "memory"), str(tmp_path / "claude"))


def test_the_prompt_hook_prints_the_same_bytes_with_and_without_stored_analyses(tmp_path):
    project = str(tmp_path / "repo")
    os.makedirs(project)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    os.makedirs(tmp_path / "claude")  # Claude Code's newest 200 by a plain scan: the path these files serve
    (tmp_path / "claude" / "settings.json").write_text(json.dumps({"memdir": {"scanCap": 200}}))
    config = resolve_config(project, env=env)
    fill(open_memory_dir(config).root)
    cache = analysis_file_path(config.memory_dir, config.config_home)

    def prompt(session):
        data = {"session_id": session, "cwd": project, "prompt": QUERY}
        return json.dumps(
            run_hook("user-prompt-submit", data, environment=read_environment(env)).output, ensure_ascii=False
        )

    headers = cache_file_path(config.memory_dir, config.config_home, "headers")
    cold = prompt("s1")
    assert os.path.isfile(cache) and os.path.isfile(headers)
    warm = prompt("s2")
    for path in (cache, headers):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("{")
    corrupt = prompt("s3")
    assert "billing" in cold and cold == warm == corrupt
