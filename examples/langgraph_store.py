"""A LangGraph agent whose long-term memory is a memdir directory, through MemdirStore.

What the agent saves is a memory file in Claude Code's format; what it recalls comes from
memdir's offline ranking. Runs offline with a fake chat model; swap in any LangChain chat model.

    python examples/langgraph_store.py --memory-dir /tmp/agent-memory
"""

from __future__ import annotations

import argparse
import tempfile

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, SystemMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.base import BaseStore

from memdir.integrations.langgraph import MemdirStore

NAMESPACE = ("memories",)  # the memory directory itself; ("memories", "user-42") would be user-42/
model = GenericFakeChatModel(messages=iter([AIMessage("Noted."), AIMessage("Port 5433, as you told me.")]))


def agent(state: MessagesState, *, store: BaseStore) -> dict[str, list[object]]:
    said = str(state["messages"][-1].content)
    if said.lower().startswith("remember:"):  # a real agent would call a tool, e.g. LangMem's
        store.put(NAMESPACE, "staging_db", {"content": said[9:].strip(), "type": "project"})
    found = store.search(NAMESPACE, query=said, limit=3)
    system = "Relevant memories:\n" + "\n".join(f"- {item.value['content']}" for item in found)
    print(f"> {said}\n{system}")
    return {"messages": [model.invoke([SystemMessage(system), *state["messages"]])]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-dir", default=None, help="default: a new temporary directory")
    memory_dir = parser.parse_args().memory_dir or tempfile.mkdtemp(prefix="memdir-langgraph-")
    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    app = graph.compile(store=MemdirStore(memory_dir=memory_dir))
    for prompt in ["Remember: the staging database listens on port 5433", "Which port is staging on?"]:
        print(app.invoke({"messages": [("user", prompt)]})["messages"][-1].content)
    with open(f"{memory_dir}/staging_db.md", encoding="utf-8") as saved:
        print(f"\n{memory_dir}/staging_db.md:\n{saved.read()}")


if __name__ == "__main__":
    main()
