"""One step driver, sync and async, for everything that talks to a model in steps.

Each piece of model-facing logic (an SDK exchange, the agent tool loop, an extraction run, a
session-notes update, a dream) is written once as a generator: it yields what it wants called and
is sent back the answer, so its rules exist in one place whatever the I/O style. These two
functions are the only code that moves values between such a generator and the outside, one
blocking, one awaiting; httpx drives its auth flows the same way.

The differences between callers are parameters: ``catch`` names the exceptions of a call that go
back into the generator instead of ending the run, and ``deliver`` says how: ``"throw"`` raises
them at the ``yield`` (the generator handles them with ``try``), ``"send"`` sends them as values
(the SDK exchanges inspect each outcome).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Literal, TypeVar

__all__ = ["Deliver", "arun_steps", "run_steps"]

_Ask = TypeVar("_Ask")
_Answer = TypeVar("_Answer")
_Result = TypeVar("_Result")

Deliver = Literal["throw", "send"]


def _next(
    steps: Generator[_Ask, _Answer, _Result],
    answer: _Answer | BaseException,
    caught: bool,
    deliver: Deliver,
) -> _Ask:
    if caught and deliver == "throw":
        assert isinstance(answer, BaseException)
        return steps.throw(answer)
    return steps.send(answer)  # type: ignore[arg-type]  # "send" delivers exceptions as values on purpose


def run_steps(
    steps: Generator[_Ask, _Answer, _Result],
    call: Callable[[_Ask], _Answer],
    *,
    catch: tuple[type[BaseException], ...] = (),
    deliver: Deliver = "throw",
) -> _Result:
    """Run ``steps`` to its result, answering each request with ``call`` in this thread."""
    try:
        ask = next(steps)
        while True:
            answer: _Answer | BaseException
            try:
                answer, caught = call(ask), False
            except catch as exc:
                answer, caught = exc, True
            ask = _next(steps, answer, caught, deliver)
    except StopIteration as done:
        result: _Result = done.value
        return result
    finally:
        steps.close()


async def arun_steps(
    steps: Generator[_Ask, _Answer, _Result],
    call: Callable[[_Ask], Awaitable[_Answer]],
    *,
    catch: tuple[type[BaseException], ...] = (),
    deliver: Deliver = "throw",
) -> _Result:
    """:func:`run_steps` for an awaitable ``call``: the same generator, awaited between steps."""
    try:
        ask = next(steps)
        while True:
            answer: _Answer | BaseException
            try:
                answer, caught = await call(ask), False
            except catch as exc:
                answer, caught = exc, True
            ask = _next(steps, answer, caught, deliver)
    except StopIteration as done:
        result: _Result = done.value
        return result
    finally:
        steps.close()
