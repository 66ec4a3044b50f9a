import json
import os

import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.config import resolve_config
from memdir.errors import ModelNotConfigured
from memdir.llm import ScriptedModel
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.llm_selector import SELECTOR_SCHEMA, LLMSelector
from memdir.recall.selector_protocol import SelectionRequest
from memdir.store.directory import MemoryDir
from memdir.store.scan import MemoryHeader


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


def header(index, description="unrelated note about gardening"):
    return MemoryHeader(
        filename=f"note_{index:04d}.md",
        path=f"/m/note_{index:04d}.md",
        mtime_ms=1_700_000_000_000 + index * 1000,
        size=100,
        description=description,
        type=MemoryType.PROJECT,
        name=f"Note {index}",
    )


def test_the_model_sees_query_manifest_and_tools_and_only_candidate_names_come_back(store):
    model = ScriptedModel([{"json": {"selected_memories": ["feedback_real_db_in_tests.md", "invented.md"]}}])
    selector = LLMSelector(model)
    request = SelectionRequest(query="how do I test this?", candidates=store.scan(), recent_tools=("Bash", "Read"))
    selection = selector.select(request)
    assert selection.selector == "llm"
    assert selection.files == ("feedback_real_db_in_tests.md",)
    assert any("invented.md" in note for note in selection.notes)
    (sent,) = model.requests
    assert sent.max_tokens == 256 and sent.schema_name == "select_memories"
    assert sent.json_schema == SELECTOR_SCHEMA
    text = sent.messages[0].text
    assert text.startswith("Query: how do I test this?\n\nAvailable memories:\n- [")
    assert "project_release_freeze.md" in text and text.endswith("\n\nRecently used tools: Bash, Read")
    assert "at most 5" in sent.system


def test_the_answer_is_cut_to_the_limit(store):
    names = [h.filename for h in store.scan()]
    selector = LLMSelector(ScriptedModel([{"json": {"selected_memories": names}}]))
    selection = selector.select(SelectionRequest(query="q w", candidates=store.scan(), limit=1))
    assert len(selection.files) == 1


@pytest.mark.parametrize("failure", [{"error": "timeout"}, {"error": "garbage"}, {"error": "http", "status": 529}])
def test_a_failed_call_falls_back_to_the_offline_selector_and_says_so(store, failure):
    selector = LLMSelector(ScriptedModel([failure]))
    selection = selector.select(SelectionRequest(query="integration tests database", candidates=store.scan()))
    assert selection.selector == "lexical"
    assert selection.files == ("feedback_real_db_in_tests.md",)
    assert len(selection.notes) == 1 and "llm selector" in selection.notes[0]


def test_an_answer_breaking_the_schema_falls_back(store):
    selector = LLMSelector(ScriptedModel([{"text": '{"selected_memories": "all of them"}'}]))
    selection = selector.select(SelectionRequest(query="integration tests", candidates=store.scan()))
    assert selection.selector == "lexical" and "model-output-schema" in selection.notes[0]


def test_no_candidates_means_no_model_call():
    model = ScriptedModel([])
    assert LLMSelector(model).select(SelectionRequest(query="a b", candidates=())).files == ()
    assert model.requests == []


def test_a_large_store_is_prefiltered_by_the_offline_ranking_then_topped_up_with_the_newest():
    candidates = [header(i) for i in range(300)]
    candidates[3] = header(3, "deploy checklist for the payments api")
    candidates[7] = header(7, "payments api rate limits")
    model = ScriptedModel([{"json": {"selected_memories": ["note_0003.md", "note_0010.md"]}}])
    selection = LLMSelector(model, prefilter_threshold=40).select(
        SelectionRequest(query="deploy the payments api", candidates=candidates)
    )
    lines = model.requests[0].messages[0].text.split("Available memories:\n", 1)[1].splitlines()
    assert len(lines) == 40
    assert "note_0003.md" in lines[0] and "note_0007.md" in lines[1]
    assert "note_0299.md" in lines[2]  # the newest fill the rest
    assert selection.files == ("note_0003.md",)  # note_0010 was not shown, so it cannot be chosen
    assert "pre-filtered 300 candidates to 40" in selection.notes


def test_without_a_threshold_the_whole_manifest_is_sent():
    model = ScriptedModel([{"json": {"selected_memories": []}}])
    LLMSelector(model, prefilter_threshold=None).select(
        SelectionRequest(query="a b", candidates=[header(i) for i in range(100)])
    )
    assert model.requests[0].messages[0].text.count("\n- [project]") == 100


def config_for(tmp_path, settings=None, **variables):
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    if settings is not None:
        (home / "settings.json").write_text(json.dumps({"memdir": settings}), encoding="utf-8")
    return resolve_config(str(project), env={"CLAUDE_CONFIG_DIR": str(home), "HOME": str(tmp_path), **variables})


def script(tmp_path, *responses, name="script.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"responses": list(responses)}), encoding="utf-8")
    return f"scripted:{path}"


def selector_of(config, kind=None, model_spec=None):
    """The selector a session builds: the one place memdir builds selectors."""
    return MemorySession(config, selector_kind=kind, model_spec=model_spec).selector


def test_the_auto_selector_is_offline_without_a_model_and_llm_with_one(tmp_path):
    config = config_for(tmp_path)
    assert isinstance(selector_of(config), LexicalSelector)
    chosen = selector_of(config_for(tmp_path, MEMDIR_MODEL=script(tmp_path)))
    assert isinstance(chosen, LLMSelector) and chosen.prefilter_threshold == 40
    assert isinstance(selector_of(config, "lexical", script(tmp_path)), LexicalSelector)
    assert selector_of(config, "offline", script(tmp_path)).name in ("lexical", "offline", "hybrid")


def test_the_selector_reads_the_settings_keys(tmp_path):
    config = config_for(tmp_path, {"selector": "llm", "selectorPrefilter": 12, "model": "scripted:/nowhere.json"})
    with pytest.raises(Exception, match="file not found"):
        selector_of(config)
    chosen = selector_of(config, model_spec=script(tmp_path))
    assert isinstance(chosen, LLMSelector) and chosen.prefilter_threshold == 12


def test_the_llm_selector_without_a_model_names_the_three_ways_to_configure_one(tmp_path):
    with pytest.raises(ModelNotConfigured) as caught:
        selector_of(config_for(tmp_path), "llm")
    assert "--model" in caught.value.message and "MEMDIR_MODEL" in caught.value.message
    assert "memdir.model" in caught.value.message


def test_auto_with_an_unusable_model_answers_offline_and_says_why(tmp_path, store):
    chosen = selector_of(config_for(tmp_path, MEMDIR_MODEL="anthropic:claude-sonnet-4-6"))
    selection = chosen.select(SelectionRequest(query="integration tests", candidates=store.scan()))
    assert selection.selector == "lexical" and "cannot be used" in selection.notes[0]


def test_a_session_uses_the_configured_model_for_recall(tmp_path):
    configured = config_for(tmp_path, MEMDIR_MODEL=script(tmp_path, {"json": {"selected_memories": []}}))
    session = MemorySession(configured)
    assert session.recaller.selector.name == "llm"
    assert session.selector.model is session.model  # one model for the selector and the agents
    assert MemorySession(config_for(tmp_path)).recaller.selector.name == "lexical"


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    monkeypatch.delenv("MEMDIR_MODEL", raising=False)
    monkeypatch.delenv("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", raising=False)
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    project = tmp_path / "proj"
    project.mkdir()

    def invoke(*args):
        return CliRunner().invoke(cli, ["--project", str(project), *args], catch_exceptions=False)

    invoke("add", "--type", "feedback", "--name", "Real DB", "--description", "Integration tests hit a real database")
    return invoke


def test_recall_cli_names_the_selector_that_answered(run, tmp_path):
    spec = script(tmp_path, {"json": {"selected_memories": ["feedback_real_db.md"]}})
    first = json.loads(run("recall", "integration tests please", "--selector", "llm", "--model", spec, "--json").stdout)
    assert first["selector"] == "llm" and [m["file"] for m in first["memories"]] == ["feedback_real_db.md"]
    failing = script(tmp_path, {"error": "timeout"}, name="failing.json")
    second = run("recall", "integration tests please", "--selector", "llm", "--model", failing, "--json")
    data = json.loads(second.stdout)
    assert data["selector"] == "lexical" and "timed out" in data["notes"][0]
    assert data["memories"] and "note:" in second.stderr
    offline = json.loads(run("recall", "integration tests please", "--json").stdout)
    assert offline["selector"] == "lexical"


def test_recall_cli_without_a_model_for_the_llm_selector_exits_with_a_clear_error(run):
    result = run("recall", "integration tests please", "--selector", "llm")
    assert result.exit_code == 1 and "MEMDIR_MODEL" in result.stderr
    assert os.environ.get("MEMDIR_MODEL") is None
