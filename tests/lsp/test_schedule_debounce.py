"""When a changed document is validated: at once after a pause, at most once per window during a burst, once
more after the last change, never lost while a run is going on. A fake clock stands for time.monotonic; the
delays themselves are the event loop's (windows of tenths of a second, generous margins)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from kubectl_testbench.lsp.schedule import Scheduler

WINDOW = 0.25  # and clock steps of 1/8 s: exact in binary, so a window's edge is exact


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Recorder:
    def __init__(self, cost: float = 0.0, clock: Clock | None = None) -> None:
        self.runs: list[tuple[str, float]] = []
        self.cost = cost
        self.clock = clock
        self.fail: set[str] = set()

    async def __call__(self, uri: str) -> None:
        self.runs.append((uri, asyncio.get_running_loop().time()))
        if self.clock is not None:
            self.clock.now += self.cost
        if self.cost:
            await asyncio.sleep(0.05)
        if uri in self.fail:
            raise RuntimeError(f"broken {uri}")


class At:
    """A run's start, ``seconds`` after the scenario's start: a timer never fires early, but a loaded machine may
    fire it late, so the margin is small below and generous above."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __eq__(self, other: object) -> bool:
        return isinstance(other, float) and self.seconds - 0.01 <= other <= self.seconds + 0.2

    def __repr__(self) -> str:
        return f"~{self.seconds}"


def at(runs: list[tuple[str, float]], start: float) -> list[tuple[str, float]]:
    return [(uri, when - start) for uri, when in runs]


def test_a_change_after_a_pause_is_validated_at_once_a_burst_once_per_window() -> None:
    async def scenario() -> list[tuple[str, float]]:
        clock, run = Clock(), Recorder()
        scheduler = Scheduler(WINDOW, run, clock=clock)
        start = asyncio.get_running_loop().time()
        scheduler.changed("a")  # the first change: at once
        await asyncio.sleep(0.1)
        clock.now += 0.125
        scheduler.changed("a")  # within the window: planned a window later
        clock.now += 0.125
        scheduler.changed("a")  # already planned: the same run reads the latest text
        assert scheduler.pending("a")
        await asyncio.sleep(0.4)
        assert not scheduler.pending("a")
        clock.now += WINDOW  # exactly a window after the last change: quiet again
        scheduler.changed("a")
        await asyncio.sleep(0.05)
        return at(run.runs, start)

    assert asyncio.run(scenario()) == [("a", At(0.0)), ("a", At(0.35)), ("a", At(0.5))]


def test_just_under_a_window_after_the_last_change_is_still_a_burst() -> None:
    async def scenario() -> list[tuple[str, float]]:
        clock, run = Clock(), Recorder()
        scheduler = Scheduler(WINDOW, run, clock=clock)
        start = asyncio.get_running_loop().time()
        scheduler.changed("a")
        await asyncio.sleep(0.05)
        clock.now += WINDOW - 0.125
        scheduler.changed("a")
        await asyncio.sleep(0.4)
        return at(run.runs, start)

    assert asyncio.run(scenario()) == [("a", At(0.0)), ("a", At(0.3))]


def test_now_runs_at_once_even_with_a_run_planned() -> None:
    async def scenario() -> list[tuple[str, float]]:
        clock, run = Clock(), Recorder()
        scheduler = Scheduler(WINDOW, run, clock=clock)
        start = asyncio.get_running_loop().time()
        scheduler.changed("a")
        await asyncio.sleep(0.1)
        scheduler.changed("a")  # planned for a window later
        scheduler.now("a")  # saved: at once instead
        await asyncio.sleep(0.4)
        return at(run.runs, start)

    assert asyncio.run(scenario()) == [("a", At(0.0)), ("a", At(0.1))]


def test_changes_during_a_run_give_one_more_run_after_it_delayed_by_the_window_or_the_runs_cost() -> None:
    async def scenario(cost: float) -> list[tuple[str, float]]:
        clock = Clock()
        run = Recorder(cost, clock)
        scheduler = Scheduler(WINDOW, run, clock=clock)
        start = asyncio.get_running_loop().time()
        scheduler.now("a")
        await asyncio.sleep(0.01)  # the run is going on
        scheduler.changed("a")
        scheduler.changed("a")
        assert scheduler.pending("a")
        await asyncio.sleep(0.9)
        return at(run.runs, start)

    assert asyncio.run(scenario(0.125)) == [("a", At(0.0)), ("a", At(0.3))]  # the run (0.05 s), then the window
    assert asyncio.run(scenario(0.5)) == [("a", At(0.0)), ("a", At(0.55))]  # a run slower than the window sets the pace


def test_a_failing_run_is_reported_and_the_others_go_on() -> None:
    async def scenario() -> tuple[list[str], list[tuple[str, str]], bool]:
        clock, run = Clock(), Recorder()
        run.fail.add("bad")
        failures: list[tuple[str, str]] = []
        scheduler = Scheduler(WINDOW, run, lambda uri, err: failures.append((uri, str(err))), clock=clock)
        scheduler.now("bad")
        scheduler.now("good")
        await asyncio.sleep(0.05)
        scheduler.now("bad")
        await asyncio.sleep(0.05)
        return [uri for uri, _ in run.runs], failures, scheduler.pending("bad")

    assert asyncio.run(scenario()) == (["bad", "good", "bad"], [("bad", "broken bad"), ("bad", "broken bad")], False)


def test_a_failing_run_without_a_failure_callback_is_only_logged() -> None:
    async def scenario() -> list[str]:
        run = Recorder()
        run.fail.add("bad")
        scheduler = Scheduler(WINDOW, run, clock=Clock())
        scheduler.now("bad")
        await asyncio.sleep(0.05)
        scheduler.now("bad")
        await asyncio.sleep(0.05)
        return [uri for uri, _ in run.runs]

    assert asyncio.run(scenario()) == ["bad", "bad"]


def test_a_closed_document_drops_what_was_planned() -> None:
    async def scenario() -> tuple[list[str], bool]:
        clock, run = Clock(), Recorder()
        scheduler = Scheduler(WINDOW, run, clock=clock)
        scheduler.changed("a")
        await asyncio.sleep(0.05)
        scheduler.changed("a")  # planned a window later
        scheduler.forget("a")
        assert not scheduler.pending("a")
        await asyncio.sleep(0.4)
        scheduler.changed("a")  # reopened and changed: a first change again, at once
        await asyncio.sleep(0.05)
        scheduler.forget("b")  # nothing planned: nothing to drop
        return [uri for uri, _ in run.runs], scheduler.pending("a")

    assert asyncio.run(scenario()) == (["a", "a"], False)


def test_a_document_closed_during_its_run_is_not_run_again() -> None:
    async def scenario() -> list[str]:
        clock = Clock()
        run = Recorder(0.01, clock)
        scheduler = Scheduler(WINDOW, run, clock=clock)
        scheduler.now("a")
        await asyncio.sleep(0.01)
        scheduler.changed("a")  # during the run
        scheduler.forget("a")
        await asyncio.sleep(0.5)
        return [uri for uri, _ in run.runs]

    assert asyncio.run(scenario()) == ["a"]



def test_a_document_is_pending_while_its_run_goes_on() -> None:
    async def scenario() -> tuple[bool, bool, bool]:
        clock = Clock()
        run = Recorder(0.125, clock)
        scheduler = Scheduler(WINDOW, run, clock=clock)
        scheduler.now("a")
        planned = scheduler.pending("a")
        await asyncio.sleep(0.01)
        running = scheduler.pending("a")
        await asyncio.sleep(0.2)
        return planned, running, scheduler.pending("a")

    assert asyncio.run(scenario()) == (True, True, False)


def test_later_changes_in_a_burst_do_not_push_the_planned_run_back(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> list[tuple[str, float]]:
        clock, run = Clock(), Recorder()
        scheduler = Scheduler(WINDOW, run, clock=clock)
        start = asyncio.get_running_loop().time()
        scheduler.changed("a")  # at once
        await asyncio.sleep(0.05)
        clock.now += 0.125
        scheduler.changed("a")  # planned at 0.05 + 0.25
        await asyncio.sleep(0.22)
        clock.now += 0.125
        scheduler.changed("a")  # still the same plan, not 0.27 + 0.25
        await asyncio.sleep(0.15)
        by_then = len(run.runs)
        await asyncio.sleep(0.3)
        return [*at(run.runs, start), ("runs by 0.42", float(by_then))]

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        assert asyncio.run(scenario()) == [("a", At(0.0)), ("a", At(0.3)), ("runs by 0.42", 2.0)]
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []  # one timer, never a stale one


def test_a_failing_run_is_logged_with_the_document_and_the_error(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        run = Recorder()
        run.fail.add("file:///bad.yaml")
        scheduler = Scheduler(WINDOW, run, clock=Clock())
        scheduler.now("file:///bad.yaml")
        await asyncio.sleep(0.05)

    with caplog.at_level(logging.ERROR, logger="kubectl_testbench.lsp"):
        asyncio.run(scenario())
    [record] = [r for r in caplog.records if r.name == "kubectl_testbench.lsp"]
    assert record.getMessage() == "validating file:///bad.yaml failed"
    assert record.exc_info is not None and str(record.exc_info[1]) == "broken file:///bad.yaml"
