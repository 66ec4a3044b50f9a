import asyncio

import pytest

from memdir.llm.steps import arun_steps, run_steps


class Refused(Exception):
    pass


def doubling(log):
    """Asks for three numbers to be doubled; a refusal thrown in is noted and the run goes on."""
    total = 0
    try:
        for n in (1, 2, 3):
            try:
                total += yield n
            except Refused as exc:
                log.append(f"refused {exc}")
        return total
    finally:
        log.append("closed")


def double(n):
    if n == 2:
        raise Refused("two")
    return 2 * n


async def adouble(n):
    return double(n)


def test_the_sync_and_async_runners_drive_the_same_steps_to_the_same_result():
    sync_log, async_log = [], []
    assert run_steps(doubling(sync_log), double, catch=(Refused,)) == 8
    assert asyncio.run(arun_steps(doubling(async_log), adouble, catch=(Refused,))) == 8
    assert sync_log == async_log == ["refused two", "closed"]


def test_an_uncaught_error_ends_the_run_and_closes_the_steps():
    log = []
    with pytest.raises(Refused):
        run_steps(doubling(log), double)
    assert log == ["closed"]


def test_send_delivers_a_caught_error_as_a_value():
    def inspecting():
        outcome = yield "ask"
        return type(outcome).__name__

    def failing(_):
        raise Refused("no")

    assert run_steps(inspecting(), failing, catch=(Refused,), deliver="send") == "Refused"
