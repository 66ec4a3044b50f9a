"""memdir behind the long-term memory seams of agent frameworks: LangGraph (:mod:`.langgraph`),
pydantic-ai (:mod:`.pydantic_ai`), the OpenAI Agents SDK (:mod:`.openai_agents`) and Google ADK
(:mod:`.adk`), over what they share without a framework (:mod:`.agent_memory`, :mod:`.user_dirs`).

Users import an adapter by its public path, ``memdir.integrations.<framework>``; nothing is exported
here, so importing one adapter never imports another framework.
"""

from __future__ import annotations

__all__: list[str] = []
