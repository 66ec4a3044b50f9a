"""A LangGraph agent for the tests: a scripted chat model, and a graph that reads and writes a store."""

from __future__ import annotations

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.store.base import BaseStore
from pydantic import Field

NS = ("memories",)


class ScriptedChat(BaseChatModel):
    """A chat model that answers from a script and records every input it was given."""

    replies: list[AIMessage] = Field(default_factory=list)
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=self.replies.pop(0))])


def memory_agent(model: ScriptedChat, store: BaseStore):
    """A LangGraph agent the way LangMem's docs build one: the prompt searches the store for the
    latest message, and a save tool puts ``{"content": ...}`` under a fresh key."""

    def agent(state: MessagesState, *, store: BaseStore):
        query = state["messages"][-1].content
        found = store.search(NS, query=query) if isinstance(query, str) and query else []
        system = "You are helpful.\n## Memories\n" + "\n".join(f"- {item.value['content']}" for item in found)
        return {"messages": [model.invoke([SystemMessage(system), *state["messages"]])]}

    def tools(state: MessagesState, *, store: BaseStore):
        replies = []
        for call in state["messages"][-1].tool_calls:
            store.put(NS, f"memory-{len(store.search(NS)) + 1}", {"content": call["args"]["content"]})
            replies.append(ToolMessage("saved", tool_call_id=call["id"]))
        return {"messages": replies}

    def route(state: MessagesState):
        return "tools" if state["messages"][-1].tool_calls else END

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", tools)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["tools", END])
    graph.add_edge("tools", "agent")
    return graph.compile(store=store)


def save_call(content):
    return AIMessage("", tool_calls=[{"name": "save_memory", "args": {"content": content}, "id": "call_1"}])
