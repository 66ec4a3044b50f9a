"""A toy plugin: the ``toy`` selector surfaces the memory with the shortest description, whatever
the query, and the ``toy:FILE`` model picks FILE whatever it is asked."""

from __future__ import annotations

import json

from memdir.environment import Environment
from memdir.llm.base import ChatRequest, Completion, Usage
from memdir.recall.registry import SelectorInputs, SelectorKind
from memdir.recall.selector_protocol import Selection, SelectionRequest

__all__ = ["TOY", "ShortestSelector", "ToyModel", "load_model"]


class ShortestSelector:
    name = "toy"

    def select(self, request: SelectionRequest) -> Selection:
        shortest = sorted(request.candidates, key=lambda header: len(header.description or ""))[:1]
        return Selection(files=tuple(header.filename for header in shortest), selector=self.name)


def _build(inputs: SelectorInputs) -> ShortestSelector:
    return ShortestSelector()


TOY = SelectorKind("toy", _build)


class ToyModel:
    def __init__(self, file: str) -> None:
        self.spec = f"toy:{file}"
        self.file = file

    def complete(self, request: ChatRequest) -> Completion:
        answer = {"selected_memories": [self.file]}
        return Completion(text=json.dumps(answer), tool_calls=(), usage=Usage(), json=answer)

    async def acomplete(self, request: ChatRequest) -> Completion:
        return self.complete(request)


def load_model(rest: str, environment: Environment) -> ToyModel:
    return ToyModel(rest)
