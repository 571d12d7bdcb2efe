"""When to validate a changed document: at once after a pause, at most once per debounce window while typing.

A plain trailing debounce delays every result by the window; this one answers the first change after a
quiet spell immediately (the usual edit: type, stop, look) and, during a burst of changes, validates at most
once per window (or per the last run's duration, when validating the document takes longer than the window)
and always once more after the last change. A run reads the document's latest text when it starts, so
changes that arrive meanwhile are never lost, only coalesced.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

log = logging.getLogger("kubectl_testbench.lsp")


class Scheduler:
    def __init__(self, window: float, run: Callable[[str], Awaitable[None]],
                 failed: Callable[[str, Exception], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.window = window
        self._run = run
        self._failed = failed
        self._clock = clock
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._last_change: dict[str, float] = {}
        self._cost: dict[str, float] = {}

    def now(self, uri: str) -> None:
        """Validate as soon as possible (opened, saved): no debounce."""
        self._request(uri, 0.0)

    def changed(self, uri: str) -> None:
        """The document changed: validate now after a pause, or within the window during a burst."""
        now = self._clock()
        last = self._last_change.get(uri)
        quiet = last is None or now - last >= self.window
        self._last_change[uri] = now
        # a burst waits one window: a run slower than that ended after the burst's last change, so it was quiet
        self._request(uri, 0.0 if quiet else self.window)

    def forget(self, uri: str) -> None:
        """The document closed: drop what was planned for it (a run in progress finishes unpublished)."""
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._again.discard(uri)
        self._last_change.pop(uri, None)
        self._cost.pop(uri, None)

    def pending(self, uri: str) -> bool:
        return uri in self._timers or uri in self._running or uri in self._again

    def _delay(self, uri: str) -> float:
        """After a run that changes came in during: the window, or the run's cost when it took longer."""
        return max(self.window, self._cost[uri])

    def _request(self, uri: str, delay: float) -> None:
        if uri in self._running:
            self._again.add(uri)
            return
        timer = self._timers.get(uri)
        if timer is not None:
            if delay > 0:
                return  # already planned within the window: that run reads the latest text
            timer.cancel()
        self._timers[uri] = asyncio.get_running_loop().call_later(delay, self._start, uri)

    def _start(self, uri: str) -> None:
        del self._timers[uri]  # a cancelled timer never calls: the one calling is the one planned
        self._running[uri] = asyncio.ensure_future(self._execute(uri))

    async def _execute(self, uri: str) -> None:
        started = self._clock()
        try:
            await self._run(uri)
        except Exception as err:  # one document's failure must not stop the others
            log.exception("validating %s failed", uri)
            if self._failed is not None:
                self._failed(uri, err)
        finally:
            self._cost[uri] = self._clock() - started
            del self._running[uri]
            if uri in self._again:
                self._again.discard(uri)
                self._timers[uri] = asyncio.get_running_loop().call_later(self._delay(uri), self._start, uri)
