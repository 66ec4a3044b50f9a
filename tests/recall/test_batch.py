import json

import pytest

from memdir.errors import ConfigError
from memdir.model.memory_type import MemoryType
from memdir.recall.batch import parse_batch_line, rank_batch
from memdir.recall.lexical_selector import LexicalSelector
from memdir.store.scan import MemoryHeader


def header(name, description):
    return MemoryHeader(f"{name}.md", f"/m/{name}.md", 1.0, 10, description, MemoryType.PROJECT, name, "")


HEADERS = [
    header("db", "Integration tests must hit a real database"),
    header("deploy", "Deploys go through the staging cluster first"),
    header("db_pool", "The database connection pool holds twenty connections"),
]


def test_each_line_gets_a_ranking_and_keeps_its_other_keys():
    lines = [
        json.dumps({"query": "database for integration tests", "id": 7, "gold": ["db.md"]}),
        "",
        json.dumps({"query": "staging deploys"}),
    ]
    out = list(rank_batch(lines, HEADERS, LexicalSelector(), limit=2))
    assert len(out) == 2
    assert out[0]["id"] == 7 and out[0]["gold"] == ["db.md"]
    assert out[0]["ranked"][0] == "db.md" and len(out[0]["ranked"]) == 2
    assert out[1]["ranked"] == ["deploy.md"]
    assert out[1]["surfaced"] == ["deploy.md"]
    assert out[0]["ms"] >= 0


def test_queries_are_independent():
    line = json.dumps({"query": "database for integration tests"})
    first, second = rank_batch([line, line], HEADERS, LexicalSelector(), limit=3)
    assert first["ranked"] == second["ranked"]


@pytest.mark.parametrize(
    ("text", "message"), [("{oops", "not JSON"), ('{"q": 1}', '"query" string'), ("[1]", "object")]
)
def test_a_bad_line_is_named(text, message):
    with pytest.raises(ConfigError, match=message) as info:
        parse_batch_line(text, line=3, source="q.jsonl")
    assert "q.jsonl:3" in info.value.message
