"""Conversations and scripted models for the extraction tests."""

from __future__ import annotations

import asyncio
import threading

from memdir.conversation import Block, ConversationMessage
from memdir.llm import ScriptedModel

WAIT = 10.0


def user(uuid, text):
    return ConversationMessage(uuid=uuid, role="user", blocks=(Block(type="text", text=text),))


def assistant(uuid, text="", *tool_uses):
    blocks = [Block(type="text", text=text)] if text else []
    for index, (name, arguments) in enumerate(tool_uses):
        blocks.append(Block(type="tool_use", id=f"{uuid}-t{index}", name=name, input=arguments))
    return ConversationMessage(uuid=uuid, role="assistant", blocks=tuple(blocks))


def turn(n, text=None, reply="Noted."):
    return [user(f"u{n}", text or f"user message {n}"), assistant(f"a{n}", reply)]


def write(path, content):
    return {"tool_calls": [{"name": "Write", "input": {"file_path": path, "content": content}}]}


def memory_text(name, description, kind="user", body="Body."):
    return f"---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n"


DONE = {"text": "Saved."}


class BlockingModel(ScriptedModel):
    """A scripted model whose first call waits until the test lets it go, to hold a run in flight."""

    def __init__(self, responses):
        super().__init__(responses)
        self.entered = threading.Event()
        self.release = threading.Event()
        self._first = True

    def complete(self, request):
        if self._first:
            self._first = False
            self.entered.set()
            if not self.release.wait(WAIT):
                raise AssertionError("the test never released the model")
        return super().complete(request)


class AsyncBlockingModel(ScriptedModel):
    def __init__(self, responses):
        super().__init__(responses)
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self._first = True

    async def acomplete(self, request):
        if self._first:
            self._first = False
            self.entered.set()
            await asyncio.wait_for(self.release.wait(), WAIT)
        return self.complete(request)
