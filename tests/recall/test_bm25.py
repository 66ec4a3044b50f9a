"""BM25 written once: its parameters as the stored postings save them, the idf, and the one query
value a recall hands to every stage."""

import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from memdir.recall.bm25 import DEFAULT_PARAMS, FIELD_WEIGHTS, Params, idf
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.selector_protocol import Query, SelectionRequest
from memdir.store.index_db import MemoryIndex
from topic_store import fill

weights = st.floats(min_value=0.0, max_value=10.0, allow_nan=False)


@given(
    st.floats(min_value=0.0, max_value=5.0, allow_nan=False),
    st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
    st.dictionaries(st.sampled_from(sorted(FIELD_WEIGHTS)), weights, min_size=1),
)
def test_parameters_read_back_are_the_parameters_saved(k1, b, field_weights):
    params = Params(k1=k1, b=b, field_weights=field_weights)
    assert Params.from_json(params.to_json()) == params


def test_parameters_that_cannot_be_read_are_none_so_the_postings_are_built_again():
    for text in (None, "", "not json", "[]", '{"k1": 1.2}', '{"k1": "x", "b": 0.75, "field_weights": {}}'):
        assert Params.from_json(text) is None


def test_the_idf_is_zero_for_an_unheld_term_falls_with_the_documents_holding_it_and_stays_positive():
    assert idf(100, 0) == 0.0
    values = [idf(100, df) for df in range(1, 101)]
    assert values == sorted(values, reverse=True)
    assert values[-1] > 0


def test_stored_postings_keep_the_parameters_they_were_built_for_and_are_rebuilt_for_others(tmp_path):
    root = str(tmp_path / "mem")
    fill(root, count=30)
    db = str(tmp_path / "index.sqlite3")
    no_body = {**FIELD_WEIGHTS, "body": 0.0}
    with MemoryIndex(root, db) as index:
        index.refresh()
        assert LexicalSelector().rank_store("quarterly billing review", index, limit=5)
        saved = index.transact(lambda conn: conn.execute("SELECT value FROM meta WHERE key='lex_params'").fetchone())
        assert Params.from_json(saved[0]) == DEFAULT_PARAMS
        # "quarterly" is only in the bodies: postings built without the body cannot find it.
        other = LexicalSelector(field_weights=no_body)
        stored = other.rank_store("quarterly", index, limit=5)
        assert stored == [] == other.rank("quarterly", index.headers())
        assert other.stored(index).params == Params(field_weights=no_body)
        assert LexicalSelector().rank_store("quarterly", index, limit=5)
    with sqlite3.connect(db) as conn:
        saved = conn.execute("SELECT value FROM meta WHERE key='lex_params'").fetchone()
    conn.close()
    assert Params.from_json(saved[0]) == DEFAULT_PARAMS


def test_a_query_is_its_text_with_its_terms_analysed_once():
    query = Query("Deploys deploy on Fridays, deploys!")
    assert query == "Deploys deploy on Fridays, deploys!" and isinstance(query, str)
    assert query.terms == ("deploy", "friday")
    assert Query(query) is query


def test_a_selector_answers_a_query_as_it_answers_its_text(tmp_path):
    store = fill(str(tmp_path / "mem"), count=30)
    headers = store.headers()
    text = "what is on the billing review checklist?"
    selector = LexicalSelector()
    assert selector.select(SelectionRequest(Query(text), headers)) == selector.select(SelectionRequest(text, headers))
    assert selector.select(SelectionRequest(text, headers)).files
