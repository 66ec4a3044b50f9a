"""MemdirStore against LangGraph's BaseStore interface, with the real langgraph package."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
import warnings

import pytest

pytest.importorskip("langgraph.store.base")

from _framework_helpers import changed_by, index_lines, read_memory, session_over, text_of
from _langgraph_agent import ScriptedChat, memory_agent, save_call
from langchain_core.messages import AIMessage, SystemMessage
from langgraph.store.base import InvalidNamespaceError
from langgraph.store.memory import InMemoryStore

from memdir.errors import MemoryFormatError, UnsafePathError
from memdir.integrations.frameworks.langgraph import MemdirStore
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
    assert memory.type is MemoryType.USER  # the store's default type: doctor finds nothing missing
    assert index_lines(memory_dir) == [
        "- [The user leads the payments team and prefers short code…](b5d2c1.md) — "
        "The user leads the payments team and prefers short code reviews."
    ]
    item = store.get(NS, "b5d2c1")
    assert item is not None and item.key == "b5d2c1" and item.namespace == NS
    assert item.value == {"content": "The user leads the payments team and prefers short code reviews."}


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
    assert read_memory(os.path.join(memory_dir, "profile.md")).description == "Profile"
    assert store.get(NS, "profile").value == value


@pytest.mark.parametrize(
    "value",
    [
        {"food_preference": "I like pizza"},  # LangGraph's documented value
        {"memory": "Will likes ai"},
        {"content": "x", "metadata": {"a": 1}},
        {"content": "x", "type": "opinion"},
        {"content": "x", "type": "User"},
        {"content": "x", "name": 3},
        {"content": "  indented\r\nand CRLF\n\n"},
        {"content": None, "created": "yesterday", "key": "k", "derived": "all"},
        {"nested": {"list": [1, 2.5, True, None, {"deep": "é"}]}, "": "empty field name"},
    ],
)
def test_a_value_of_any_shape_reads_back_as_it_was_put(store, memory_dir, value):
    store.put(NS, "k", value)
    assert store.get(NS, "k").value == value
    assert [item.value for item in store.search(NS)] == [value]
    memory = read_memory(os.path.join(memory_dir, "k.md"))  # still a memory Claude Code reads
    assert memory.name and memory.description and memory.problems() == []
    assert len(index_lines(memory_dir)) == 1


def test_a_value_that_is_not_json_is_refused_and_nothing_is_written(store, memory_dir):
    import datetime

    with pytest.raises(MemoryFormatError, match="must be JSON data"):
        store.put(NS, "k", {"when": datetime.date(2025, 1, 1)})
    assert not os.path.exists(os.path.join(memory_dir, "k.md"))


@pytest.mark.parametrize("key", ["con", "a|b", "a*b", "C:foo", "a\tb", "notes.md", "user:42", "../escape", "é" * 200])
def test_any_key_is_one_file_inside_the_directory_and_comes_back_as_it_was(store, memory_dir, key):
    store.put(NS, key, {"content": f"The note of {key!r}"})
    store.put(NS, "other", {"content": "another note"})
    assert store.get(NS, key).value == {"content": f"The note of {key!r}"}
    assert sorted(item.key for item in store.search(NS)) == sorted([key, "other"])
    files = sorted(os.listdir(memory_dir))
    assert len([f for f in files if f.endswith(".md") and f != "MEMORY.md"]) == 2
    store.delete(NS, key)
    assert store.get(NS, key) is None and [item.key for item in store.search(NS)] == ["other"]


def test_keys_and_namespaces_that_name_the_index_or_leave_the_directory_are_refused(store):
    with pytest.raises(UnsafePathError, match="index"):
        store.put(NS, "MEMORY", {"content": "x"})
    with pytest.raises(InvalidNamespaceError, match="plain directory name"):
        store.put((*NS, "a/b"), "k", {"content": "x"})
    with pytest.raises(InvalidNamespaceError, match="periods"):  # LangGraph's own check
        store.put(("..",), "k", {"content": "x"})


def test_a_longer_namespace_is_a_subdirectory_of_the_same_memory(store, memory_dir):
    store.put((*NS, "user-42"), "coffee", {"content": "Drinks oat flat whites"})
    assert os.path.isfile(os.path.join(memory_dir, "user-42", "coffee.md"))
    assert index_lines(memory_dir) == ["- [Drinks oat flat whites](user-42/coffee.md) — Drinks oat flat whites"]
    assert store.get(NS, "coffee") is None
    assert store.get((*NS, "user-42"), "coffee").namespace == (*NS, "user-42")
    assert [item.key for item in store.search((*NS, "user-42"))] == ["coffee"]
    assert [item.key for item in store.search(NS)] == ["coffee"]
    assert store.search((*NS, "other")) == [] and store.search(("elsewhere",)) == []
    store.put(("u1", "memories"), "tea", {"content": "Green tea"})  # LangGraph's user-first namespace
    assert [(i.key, i.namespace) for i in store.search(("u1",))] == [("tea", ("u1", "memories"))]
    assert os.path.isfile(os.path.join(memory_dir, "u1", "memories", "tea.md"))


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


def test_langgraphs_own_store_examples_answer_as_with_its_in_memory_store(store):
    """The examples of LangGraph's store documentation (persistence, BaseStore.search and
    list_namespaces), run on both stores."""
    reference = InMemoryStore()

    def run(target):
        seen = []
        target.put(("users", "123"), "prefs", {"theme": "dark"})
        seen.append(target.get(("users", "123"), "prefs").value)
        user_id = "1"
        namespace_for_memory = (user_id, "memories")
        target.put(namespace_for_memory, "7f7c4a9e-1c2b-4f3a-9d8e-2a6b5c4d3e2f", {"food_preference": "I like pizza"})
        target.put(namespace_for_memory, "0b1e2d3c-4f5a-4b6c-8d7e-9f0a1b2c3d4e", {"food_preference": "I like pasta"})
        memories = target.search(namespace_for_memory)
        seen.append([(m.key, m.namespace, m.value) for m in memories])
        seen.append({k: v for k, v in memories[-1].dict().items() if k in ("value", "key", "namespace")})
        target.put(("docs",), "doc1", {"text": "Python tutorial", "type": "article", "status": "published"})
        target.put(("docs",), "doc2", {"text": "TypeScript guide", "type": "article", "status": "draft"})
        seen.append([m.key for m in target.search(("docs",), filter={"type": "article", "status": "published"})])
        for namespace in [
            ("a", "b", "c"),
            ("a", "b", "d", "e"),
            ("a", "b", "d", "i"),
            ("a", "b", "f"),
            ("a", "c", "f"),
        ]:
            target.put(namespace, "k", {"n": len(namespace)})
        seen.append(target.list_namespaces(prefix=("a", "b"), max_depth=3))
        seen.append(sorted(target.list_namespaces(suffix=("f",))))
        first = target.get(namespace_for_memory, "7f7c4a9e-1c2b-4f3a-9d8e-2a6b5c4d3e2f")
        target.put(namespace_for_memory, "7f7c4a9e-1c2b-4f3a-9d8e-2a6b5c4d3e2f", {"food_preference": "I like sushi"})
        again = target.get(namespace_for_memory, "7f7c4a9e-1c2b-4f3a-9d8e-2a6b5c4d3e2f")
        seen.append((again.updated_at >= first.updated_at, again.value))
        if target is store:  # the time of the first put, as LangGraph's PostgresStore keeps it
            assert again.created_at == first.created_at and again.updated_at > again.created_at
        seen.append([m.value["food_preference"] for m in target.search(namespace_for_memory)])  # first put, first
        target.delete(("docs",), "doc1")
        seen.append([m.key for m in target.search(("docs",))])
        return seen

    assert run(store) == run(reference)


def test_a_put_over_a_claude_code_memory_keeps_what_the_value_does_not_say(store, memory_dir, env):
    os.makedirs(memory_dir, exist_ok=True)
    path = os.path.join(memory_dir, "feedback_tests.md")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(
            "---\nname: Real database in tests\ndescription: Integration tests hit a real database\n"
            "type: feedback\nexpires: 2099-01-01\n---\n\nNever mock the database.\n"
        )
    store.put(NS, "feedback_tests", {"content": "Never mock the database; use the test container."})
    memory = read_memory(path)
    assert (memory.name, memory.description, memory.type) == (
        "Real database in tests",
        "Integration tests hit a real database",
        MemoryType.FEEDBACK,
    )
    assert memory.extra["expires"] == "2099-01-01" and memory.body.endswith("use the test container.")
    store.put(NS, "langmem", {"content": "The user prefers tabs."})  # LangMem's value: given a type
    assert doctor_findings(memory_dir, env) == []


def doctor_findings(memory_dir, env):
    """What ``memdir doctor --json`` reports about the memory files."""
    import json
    import subprocess
    import sys

    argv = [sys.executable, "-m", "memdir.cli", "--memory-dir", memory_dir, "doctor", "--json"]
    full = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sys.path), **env}
    done = subprocess.run(argv, capture_output=True, text=True, env=full, timeout=60)
    return [(problem["file"], problem["rule"]) for problem in json.loads(done.stdout)["problems"]]


def test_langmem_updates_and_deletes_a_claude_code_memory_by_the_uuid_the_store_shows(memory_dir, env):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        langmem = pytest.importorskip("langmem")
    store = MemdirStore(session=session_over(memory_dir, env), uuid_keys=True)
    os.makedirs(memory_dir, exist_ok=True)
    path = os.path.join(memory_dir, "feedback_tests.md")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("---\nname: Real DB\ndescription: Tests hit a real database\ntype: feedback\n---\n\nNo mocks.\n")
    manage = langmem.create_manage_memory_tool(namespace=NS, store=store)
    search = langmem.create_search_memory_tool(namespace=NS, store=store)
    found = json.loads(search.invoke({"query": "real database tests"}))
    (shown,) = [item["key"] for item in found]
    assert shown == str(uuid.UUID(shown))  # what manage_memory accepts
    manage.invoke({"action": "update", "id": shown, "content": "No mocks, ever: a mock hid a broken migration."})
    memory = read_memory(path)
    assert (memory.name, memory.type, memory.body) == (
        "Real DB",
        MemoryType.FEEDBACK,
        "No mocks, ever: a mock hid a broken migration.",
    )
    manage.invoke({"action": "delete", "id": shown})
    assert not os.path.exists(path) and index_lines(memory_dir) == []


def test_puts_past_a_full_index_keep_every_memory_and_warn(store, memory_dir):
    from memdir.errors import IndexFullWarning

    with pytest.warns(IndexFullWarning, match="memdir doctor") as warned:
        for n in range(203):
            store.put(NS, f"k{n}", {"content": f"Memory number {n}"})
    assert len(index_lines(memory_dir)) == 200 and len(warned) == 1  # once per index in a process: the log has each
    assert len(store.search(NS, limit=1000)) == 203


def test_a_filter_only_search_reads_the_values_from_the_derived_index_not_the_files(memory_dir, env):
    for n in range(30):
        MemdirStore(session=session_over(memory_dir, env)).put(NS, f"k{n}", {"content": f"Note {n}", "n": n % 3})
    MemdirStore(session=session_over(memory_dir, env)).search(NS)  # the derived index catches up with the puts
    fresh = MemdirStore(session=session_over(memory_dir, env))  # as a new process would: nothing cached
    opened = []

    def audit(event, args):
        if event == "open" and isinstance(args[0], str) and args[0].startswith(memory_dir) and args[0].endswith(".md"):
            opened.append(args[0])

    watching = [True]
    sys.addaudithook(lambda event, args: audit(event, args) if watching[0] else None)
    try:
        found = fresh.search(NS, filter={"n": 1}, limit=100)
    finally:
        watching[0] = False
    assert sorted(item.key for item in found) == sorted(f"k{n}" for n in range(30) if n % 3 == 1)
    assert opened == []


def test_one_directory_per_user_in_a_langgraph_app_as_its_docs_build_it(tmp_path, env, monkeypatch):
    """LangGraph's persistence guide: a node reads the user id from the config, searches
    ("memories", user_id) and saves {"data": ...} there; each user's memory is a directory."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph import START, MessagesState, StateGraph

    root = tmp_path / "users"
    store = MemdirStore(memory_dir=str(root / "{user_id}"), namespace=("memories", "{user_id}"))
    model = ScriptedChat(replies=[AIMessage("Hi Bob."), AIMessage("Your name is Bob."), AIMessage("I do not know.")])

    def call_model(state: MessagesState, config: RunnableConfig, *, store):
        user_id = config["configurable"]["user_id"]
        namespace = ("memories", user_id)
        memories = store.search(namespace, query=str(state["messages"][-1].content))
        info = "\n".join(d.value["data"] for d in memories)
        last = state["messages"][-1]
        if "remember" in last.content.lower():
            store.put(namespace, str(uuid.uuid4()), {"data": "User name is Bob"})
        return {"messages": [model.invoke([SystemMessage(f"You are helpful. User info: {info}"), *state["messages"]])]}

    builder = StateGraph(MessagesState)
    builder.add_node("call_model", call_model)
    builder.add_edge(START, "call_model")
    graph = builder.compile(store=store)
    graph.invoke({"messages": [("user", "Hi! Remember: my name is Bob")]}, {"configurable": {"user_id": "Bob@Example"}})
    graph.invoke({"messages": [("user", "what is my name?")]}, {"configurable": {"user_id": "Bob@Example"}})
    assert "User name is Bob" in model.seen[-1][0].content
    graph.invoke({"messages": [("user", "what is my name?")]}, {"configurable": {"user_id": "alice"}})
    assert "Bob" not in model.seen[-1][0].content
    (bob,) = [d for d in os.listdir(root) if d != "alice"]
    assert bob.startswith("bob@example+") and store.list_namespaces() == [("memories", "Bob@Example")]


def test_the_title_of_a_content_that_opens_with_a_rule_is_its_first_line_of_words(store, memory_dir):
    store.put(NS, "k", {"content": "---\n\n## Staging\nStaging listens on port 5433."})
    assert read_memory(os.path.join(memory_dir, "k.md")).name == "Staging"
    assert store.get(NS, "k").value == {"content": "---\n\n## Staging\nStaging listens on port 5433."}


def test_a_put_keeps_a_type_a_person_wrote_outside_the_four(store, memory_dir):
    os.makedirs(memory_dir, exist_ok=True)
    with open(os.path.join(memory_dir, "odd.md"), "w", encoding="utf-8") as handle:
        handle.write("---\nname: Odd\ndescription: An odd one\ntype: opinion\n---\n\nBefore.\n")
    store.put(NS, "odd", {"content": "After."})
    assert "type: opinion" in text_of(os.path.join(memory_dir, "odd.md"))
    assert store.get(NS, "odd").value == {
        "content": "After.",
        "name": "Odd",
        "description": "An odd one",
        "type": "opinion",
    }
