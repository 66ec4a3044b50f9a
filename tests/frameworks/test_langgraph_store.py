"""MemdirStore against LangGraph's BaseStore interface, with the real langgraph package."""

from __future__ import annotations

import asyncio
import os
import warnings

import pytest

pytest.importorskip("langgraph.store.base")

from _framework_helpers import changed_by, index_lines, read_memory, session_over, text_of
from _langgraph_agent import ScriptedChat, memory_agent, save_call
from langchain_core.messages import AIMessage, SystemMessage
from langgraph.store.base import InvalidNamespaceError
from langgraph.store.memory import InMemoryStore

from memdir.errors import MemoryFormatError, UnsafePathError
from memdir.integrations.langgraph import MemdirStore
from memdir.model.memory_type import MemoryType

NS = ("memories",)


@pytest.fixture
def store(memory_dir, env):
    return MemdirStore(session=session_over(memory_dir, env))


def test_langmems_default_value_becomes_a_claude_code_memory_file_with_its_index_line(store, memory_dir):
    store.put(NS, "b5d2c1", {"content": "The user leads the payments team and prefers short code reviews."})
    memory = read_memory(os.path.join(memory_dir, "b5d2c1.md"))
    assert memory.name == "The user leads the payments team and prefers short code…"  # a title for the index
    assert memory.description == "The user leads the payments team and prefers short code reviews."
    assert memory.body == "The user leads the payments team and prefers short code reviews."
    assert index_lines(memory_dir) == [
        "- [The user leads the payments team and prefers short code…](b5d2c1.md) — "
        "The user leads the payments team and prefers short code reviews."
    ]
    item = store.get(NS, "b5d2c1")
    assert item is not None and item.key == "b5d2c1" and item.namespace == NS
    assert item.value["content"] == "The user leads the payments team and prefers short code reviews."


def test_a_full_value_maps_to_the_frontmatter_and_reads_back_the_same(store, memory_dir):
    value = {
        "content": "Integration tests hit a real database.\n**Why:** a mock hid a broken migration.",
        "name": "Real DB in tests",
        "description": "Integration tests must hit a real database, never mocks",
        "type": "feedback",
        "tags": ["testing", "db"],
    }
    store.put(NS, "feedback_real_db", value)
    memory = read_memory(os.path.join(memory_dir, "feedback_real_db.md"))
    assert (memory.name, memory.type, memory.extra["tags"]) == (
        "Real DB in tests",
        MemoryType.FEEDBACK,
        ["testing", "db"],
    )
    assert store.get(NS, "feedback_real_db").value == value


def test_json_content_is_a_fenced_block_that_reads_back_as_the_same_object(store, memory_dir):
    value = {"kind": "Profile", "content": {"name": "Ada", "languages": ["python", "ocaml"], "level": 3}}
    store.put(NS, "profile", value)
    text = text_of(os.path.join(memory_dir, "profile.md"))
    assert "content_format: json" in text and '```json\n{\n  "name": "Ada"' in text
    got = store.get(NS, "profile").value
    assert got["content"] == value["content"] and got["kind"] == "Profile" and got["description"] == "Profile"


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ({"memory": "Will likes ai"}, 'needs a "content" field'),
        ({"content": "x", "metadata": {"a": 1}}, "cannot be fields"),
        ({"content": "x", "type": "opinion"}, "unknown memory type"),
        ({"content": "x", "name": 3}, '"name" must be a string'),
    ],
)
def test_values_that_are_not_memories_are_refused_and_nothing_is_written(store, memory_dir, value, words):
    with pytest.raises(MemoryFormatError, match=words):
        store.put(NS, "k", value)
    assert not os.path.exists(os.path.join(memory_dir, "k.md"))


def test_keys_and_namespaces_that_are_not_plain_names_are_refused(store):
    with pytest.raises(UnsafePathError, match="one file name"):
        store.put(NS, "../escape", {"content": "x"})
    with pytest.raises(UnsafePathError, match="index"):
        store.put(NS, "MEMORY", {"content": "x"})
    with pytest.raises(InvalidNamespaceError, match="outside this store's namespace"):
        store.put(("documents",), "k", {"content": "x"})
    with pytest.raises(InvalidNamespaceError, match="plain directory name"):
        store.put((*NS, "a/b"), "k", {"content": "x"})


def test_a_longer_namespace_is_a_subdirectory_of_the_same_memory(store, memory_dir):
    store.put((*NS, "user-42"), "coffee", {"content": "Drinks oat flat whites"})
    assert os.path.isfile(os.path.join(memory_dir, "user-42", "coffee.md"))
    assert index_lines(memory_dir) == ["- [Drinks oat flat whites](user-42/coffee.md) — Drinks oat flat whites"]
    assert store.get(NS, "coffee") is None
    assert store.get((*NS, "user-42"), "coffee").namespace == (*NS, "user-42")
    assert [item.key for item in store.search((*NS, "user-42"))] == ["coffee"]
    assert [item.key for item in store.search(NS)] == ["coffee"]
    assert store.search((*NS, "other")) == [] and store.search(("elsewhere",)) == []


def test_a_query_runs_the_offline_ranking_and_returns_only_matches_best_first(store):
    store.put(NS, "deploy", {"content": "Deploys go out on Tuesdays after the freeze", "type": "project"})
    store.put(NS, "coffee", {"content": "The user drinks oat flat whites", "type": "user"})
    store.put(NS, "freeze", {"content": "Mobile release freeze starts on Friday; no deploys", "type": "project"})
    found = store.search(NS, query="when do deploys go out?")
    assert [item.key for item in found][:1] == ["deploy"] and "coffee" not in [item.key for item in found]
    assert all(item.score is not None and item.score > 0 for item in found)
    assert found == sorted(found, key=lambda item: -item.score)


def test_filter_limit_and_offset_behave_as_the_interface_says(store):
    for n in range(5):
        store.put(NS, f"k{n}", {"content": f"note {n}", "rank": n, "team": "a" if n % 2 else "b"})
    assert sorted(i.key for i in store.search(NS, filter={"team": "a"})) == ["k1", "k3"]
    assert sorted(i.key for i in store.search(NS, filter={"rank": {"$gte": 3}})) == ["k3", "k4"]
    assert sorted(i.key for i in store.search(NS, filter={"rank": {"$ne": 0, "$lt": 2}})) == ["k1"]
    every = [i.key for i in store.search(NS, limit=10)]
    assert len(every) == 5
    assert [i.key for i in store.search(NS, limit=2, offset=1)] == every[1:3]


def test_delete_removes_the_file_and_its_index_line_and_a_missing_key_is_no_error(store, memory_dir):
    store.put(NS, "gone", {"content": "temporary"})
    store.put(NS, "kept", {"content": "permanent"})
    store.delete(NS, "gone")
    store.delete(NS, "never-there")
    assert store.get(NS, "gone") is None and not os.path.exists(os.path.join(memory_dir, "gone.md"))
    assert index_lines(memory_dir) == ["- [permanent](kept.md) — permanent"]


def test_list_namespaces_matches_prefixes_suffixes_depth_and_pages(store):
    for namespace in [NS, (*NS, "u1"), (*NS, "u1", "notes"), (*NS, "u2")]:
        store.put(namespace, "k", {"content": "x"})
    assert store.list_namespaces() == [NS, (*NS, "u1"), (*NS, "u1", "notes"), (*NS, "u2")]
    assert store.list_namespaces(prefix=(*NS, "u1")) == [(*NS, "u1"), (*NS, "u1", "notes")]
    assert store.list_namespaces(suffix=("notes",)) == [(*NS, "u1", "notes")]
    assert store.list_namespaces(prefix=("*", "u2")) == [(*NS, "u2")]
    assert store.list_namespaces(max_depth=2) == [NS, (*NS, "u1"), (*NS, "u2")]
    assert store.list_namespaces(limit=2, offset=1) == [(*NS, "u1"), (*NS, "u1", "notes")]


def test_the_async_methods_see_the_same_store(store):
    async def scenario():
        await store.aput(NS, "a", {"content": "alpha memory about databases"})
        got = await store.aget(NS, "a")
        found = await store.asearch(NS, query="databases")
        spaces = await store.alist_namespaces()
        await store.adelete(NS, "a")
        return got, found, spaces, await store.aget(NS, "a")

    got, found, spaces, after = asyncio.run(scenario())
    assert got.value["content"] == "alpha memory about databases"
    assert [item.key for item in found] == ["a"] and spaces == [NS] and after is None


def test_it_answers_like_langgraphs_own_in_memory_store(store):
    """LangGraph ships no store conformance suite: its reference implementation is the oracle. (One
    difference is by design: InMemoryStore keeps listing a namespace whose last item was deleted.)"""
    reference = InMemoryStore()
    values = {
        ("k1", NS): {"content": "one", "name": "One", "description": "first", "type": "user", "n": 1},
        ("k2", (*NS, "x")): {"content": "two", "name": "Two", "description": "second", "type": "project", "n": 2},
        ("k3", (*NS, "x", "y")): {"content": "three", "name": "Three", "description": "third", "n": 3},
        ("k4", (*NS, "x")): {"content": "four", "name": "Four", "description": "fourth", "n": 4},
    }
    for target in (store, reference):
        for (key, namespace), value in values.items():
            target.put(namespace, key, value)
        target.put(NS, "k1", {**values[("k1", NS)], "n": 10})
        target.delete((*NS, "x"), "k2")

    def view(target):
        found = target.search(NS, filter={"n": {"$gt": 1}})
        return (
            {(i.key, i.namespace): i.value for i in found},
            target.get(NS, "k1").value,
            target.get((*NS, "x"), "k2"),
            target.list_namespaces(prefix=NS),
        )

    assert view(store) == view(reference)


def test_rewriting_a_claude_code_file_keeps_its_metadata_block(store, memory_dir):
    os.makedirs(memory_dir, exist_ok=True)
    path = os.path.join(memory_dir, "user_role.md")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(
            "---\nname: Role\ndescription: Backend lead\nmetadata:\n  node_type: memory\n  type: user\n"
            "  originSessionId: 5f0c\n---\n\nLeads the backend team.\n"
        )
    item = store.get(NS, "user_role")
    assert item.value == {
        "content": "Leads the backend team.",
        "name": "Role",
        "description": "Backend lead",
        "type": "user",
    }
    store.put(NS, "user_role", {**item.value, "content": "Leads the backend and payments teams."})
    text = text_of(path)
    assert "originSessionId: 5f0c" in text and "Leads the backend and payments teams." in text


def test_a_langgraph_agent_saves_through_the_store_and_recall_reaches_its_model(store, memory_dir, env):
    model = ScriptedChat(
        replies=[save_call("The user's staging database is on port 5433."), AIMessage("Saved."), AIMessage("5433.")]
    )
    graph = memory_agent(model, store)
    graph.invoke({"messages": [("user", "Remember: my staging database listens on port 5433")]})
    memory = read_memory(os.path.join(memory_dir, "memory-1.md"))
    assert memory.body == "The user's staging database is on port 5433."
    assert index_lines(memory_dir) == [
        "- [The user's staging database is on port 5433.](memory-1.md) — The user's staging database is on port 5433."
    ]
    assert changed_by(memory_dir, env, "memory-1.md") == "langgraph"

    graph.invoke({"messages": [("user", "which port is the staging database on?")]})
    system = model.seen[-1][0]
    assert isinstance(system, SystemMessage) and "staging database is on port 5433" in system.content


def test_langmems_own_memory_tools_keep_their_memories_as_files(store, memory_dir):
    with warnings.catch_warnings():  # trustcall, which LangMem imports, uses an import LangGraph 1.x deprecates
        warnings.simplefilter("ignore", DeprecationWarning)
        langmem = pytest.importorskip("langmem")
    manage = langmem.create_manage_memory_tool(namespace=NS, store=store)
    search = langmem.create_search_memory_tool(namespace=NS, store=store)
    created = manage.invoke({"action": "create", "content": "The staging database listens on port 5433"})
    key = created.removeprefix("created memory ")
    assert index_lines(memory_dir) == [
        f"- [The staging database listens on port 5433]({key}.md) — The staging database listens on port 5433"
    ]
    manage.invoke({"action": "update", "id": key, "content": "Staging moved to port 6543"})
    assert read_memory(os.path.join(memory_dir, f"{key}.md")).body == "Staging moved to port 6543"
    assert "6543" in str(search.invoke({"query": "which port is staging on"}))
    manage.invoke({"action": "delete", "id": key})
    assert not os.path.exists(os.path.join(memory_dir, f"{key}.md")) and index_lines(memory_dir) == []
