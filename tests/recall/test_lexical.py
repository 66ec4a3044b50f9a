from memdir.model.analysis import stem, tokenize
from memdir.model.memory_type import MemoryType
from memdir.recall.lexical import LexicalIndex
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.selector_protocol import Query, SelectionRequest
from memdir.store.scan import MemoryHeader


def header(name, description, type_=MemoryType.PROJECT, body="", mtime=1.0):
    return MemoryHeader(f"{name}.md", f"/m/{name}.md", mtime, len(body), description, type_, name, body)


def test_tokenize_drops_stop_words_stems_and_splits_identifiers():
    assert tokenize("The tests are testing the testRunner") == ["test", "test", "test", "run"]
    assert stem("queries") == "query"


def test_the_most_specific_memory_ranks_first():
    selector = LexicalSelector()
    headers = [
        header("db", "Integration tests must hit a real PostgreSQL database"),
        header("freeze", "Mobile release freeze starts 2026-03-05"),
        header("role", "User is a backend lead", MemoryType.USER),
    ]
    result = selector.select(SelectionRequest("how do I write the integration tests?", headers))
    assert result.files[0] == "db.md"
    assert "freeze.md" not in result.files
    assert result.selector == "lexical"


def test_a_query_sharing_no_word_selects_nothing():
    selector = LexicalSelector()
    result = selector.select(SelectionRequest("bananas and kiwis", [header("db", "Integration tests")]))
    assert result.files == ()


def test_limit_is_respected():
    headers = [header(f"m{i}", f"deploy notes number {i}") for i in range(10)]
    result = LexicalSelector().select(SelectionRequest("deploy notes please", headers, limit=3))
    assert len(result.files) == 3


def test_reference_manuals_for_a_tool_in_use_are_skipped_but_warnings_are_kept():
    headers = [
        header("bash_manual", "Bash usage reference for the deploy scripts", MemoryType.REFERENCE),
        header("bash_gotcha", "Warning: Bash deploy scripts must never run as root", MemoryType.REFERENCE),
    ]
    result = LexicalSelector().select(SelectionRequest("run the deploy scripts", headers, recent_tools=["Bash"]))
    assert result.files == ("bash_gotcha.md",)


def test_the_index_follows_changes_incrementally():
    index = LexicalIndex()
    a = header("a", "alpha topic")
    index.sync([a])
    assert set(index.score(Query("alpha"))) == {"/m/a.md"}
    b = header("a", "beta topic", mtime=2.0)
    index.sync([b])
    assert index.score(Query("alpha")) == {}
    assert set(index.score(Query("beta"))) == {"/m/a.md"}
    index.sync([])
    assert len(index) == 0


def test_a_list_changed_in_place_is_reindexed_and_an_equal_one_is_not():
    index = LexicalIndex()
    headers = [header("a", "alpha topic"), header("b", "gamma topic")]
    index.sync(headers)
    headers[1] = header("b", "delta topic", mtime=2.0)
    index.sync(headers)
    assert index.score(Query("gamma")) == {}
    assert set(index.score(Query("delta"))) == {"/m/b.md"}
    # Equal header values, new objects: the same documents, nothing to redo.
    index.sync([header("a", "alpha topic"), header("b", "delta topic", mtime=2.0)])
    assert set(index.score(Query("alpha delta"))) == {"/m/a.md", "/m/b.md"}


def test_a_first_query_scores_the_same_with_postings_built_on_demand_as_with_all_of_them():
    headers = [
        header(f"m{i}", f"{topic} notes {i}", body=f"the {topic} runbook and the {other} checklist")
        for i, (topic, other) in enumerate(
            [("deploy", "release"), ("database", "backup"), ("release", "deploy"), ("billing", "audit")] * 30
        )
    ]
    queries = ["deploy the release", "database backup runbook", "billing audit checklist notes", "nothing here"]
    built = LexicalIndex()
    built.sync(headers)
    built.score(Query("warm up"))
    built.score(Query("every posting is built from the second query on"))
    for query in queries:
        fresh = LexicalIndex()  # what a new process has: one sync, then its first query
        fresh.sync(headers)
        assert fresh.score(Query(query)) == built.score(Query(query))
        assert [fresh.idf(term) for term in tokenize(query)] == [built.idf(term) for term in tokenize(query)]
    changed = [header("m0", "deploy notes moved", body="kept elsewhere", mtime=2.0), *headers[2:]]
    fresh = LexicalIndex()
    fresh.sync(headers)
    fresh.score(Query(queries[0]))
    fresh.sync(changed)  # a change after a first query builds the rest before applying it
    built.sync(changed)
    for query in queries:
        assert fresh.score(Query(query)) == built.score(Query(query))
