import json

import pytest
from click.testing import CliRunner

from memdir.cli import cli


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", raising=False)
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    memory_dir = tmp_path / "mem"

    def invoke(*args, input=None):
        return CliRunner().invoke(cli, ["--memory-dir", str(memory_dir), *args], input=input, catch_exceptions=False)

    invoke.tmp = tmp_path
    invoke("add", "--type", "feedback", "--name", "Real DB", "--description", "Integration tests hit a real database")
    invoke("add", "--type", "project", "--name", "Freeze", "--description", "Mobile release freeze in March")
    return invoke


def test_reindex_builds_the_index_outside_the_memory_dir(run):
    data = json.loads(run("reindex", "--json").stdout)
    # the commands that wrote the memories already read through the index (it is the default store)
    assert data["memories"] == 2 and data["added"] + data["unchanged"] == 2
    assert data["index"].startswith(str(run.tmp / "home" / "memdir" / "index"))
    again = json.loads(run("reindex", "--json").stdout)
    assert again["added"] == 0 and again["unchanged"] == 2
    rebuilt = json.loads(run("reindex", "--rebuild", "--json").stdout)
    assert rebuilt["added"] == 2
    assert "2 memories" in run("reindex").stdout


def test_recall_batch_writes_one_json_line_per_query(run):
    queries = "\n".join(
        [
            json.dumps({"query": "how do the integration tests use the database?", "id": 1}),
            json.dumps({"query": "when is the mobile release freeze?", "id": 2}),
            json.dumps({"query": "bananas and kiwis", "id": 3}),
        ]
    )
    result = run("recall", "--batch", "-", "--selector", "lexical", "--limit", "1", input=queries)
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["id"] for line in lines] == [1, 2, 3]
    assert lines[0]["ranked"] == ["feedback_real_db.md"]
    assert lines[1]["ranked"] == ["project_freeze.md"]
    assert lines[2]["ranked"] == [] and lines[2]["surfaced"] == []


def test_recall_needs_a_query_or_a_batch(run):
    result = CliRunner().invoke(cli, ["--memory-dir", str(run.tmp / "mem"), "recall"])
    assert result.exit_code == 2 and "missing QUERY" in result.stderr


def test_recall_accepts_a_selector(run):
    data = json.loads(run("recall", "how do the integration tests work?", "--selector", "lexical", "--json").stdout)
    assert data["selector"] == "lexical"
    assert [m["file"] for m in data["memories"]] == ["feedback_real_db.md"]


def test_the_background_reindex_writes_the_vector_matrix_when_the_hook_ranks_by_embedding(run):
    from memdir.recall.embedding import embedding_available

    if not embedding_available():
        pytest.skip("the embed extra is not installed: pip install 'memdir[embed]'")
    index_dir = run.tmp / "home" / "memdir" / "index"
    run("reindex", "--background")
    assert not list(index_dir.glob("*.vectors-*"))  # nobody ranks by embedding: nothing encoded
    (run.tmp / "home" / "settings.json").write_text(json.dumps({"memdir": {"hookSelector": "hybrid"}}))
    run("reindex", "--background")
    assert len(list(index_dir.glob("*.vectors-*"))) == 1
    assert not list(index_dir.glob("*.tmp"))
