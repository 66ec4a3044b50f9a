"""What the hook tests of every coding agent share: the prompt, the memory it should recall, and a
launcher that records what a hook would have started in the background instead of starting it."""

from __future__ import annotations

PROMPT = "how should the integration tests treat the database?"
BODY = "A mocked database hid a broken migration."


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[list[str], str]] = []

    def __call__(self, argv: list[str], log: str) -> str:
        self.calls.append((list(argv), log))
        return "handle"
