"""The session's SIGTERM handler (tests/conftest.py): the session is interrupted so teardowns run; a process forked
from it (the code under test's worker pools) still ends as SIGTERM ends it, instead of unwinding into a copy of the
session (which deadlocked a CI run at 89 %: a pool's terminate() sends SIGTERM to its workers)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest


def _sleep() -> None:
    time.sleep(30)


def test_a_forked_worker_ends_on_sigterm_as_by_default() -> None:
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("this platform cannot fork")
    worker = multiprocessing.get_context("fork").Process(target=_sleep)
    worker.start()
    time.sleep(0.2)
    assert worker.pid is not None
    os.kill(worker.pid, signal.SIGTERM)
    worker.join(10)
    assert worker.exitcode == -signal.SIGTERM


def test_the_session_itself_turns_sigterm_into_an_interruption() -> None:
    handler = signal.getsignal(signal.SIGTERM)
    assert callable(handler)
    with pytest.raises(KeyboardInterrupt):
        handler(signal.SIGTERM, None)
