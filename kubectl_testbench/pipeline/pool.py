"""Run per-file work in a process pool, keeping input order and bounded memory."""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def _warm() -> None:
    """Build the compiled schema and CEL programs before forking so every worker inherits them."""
    from kubectl_testbench.validate.crdschema import experiment_validator

    experiment_validator()


class _Bound(Generic[T, R]):
    """``fn`` with its options bound; picklable so that spawn-based pools can ship it."""

    def __init__(self, fn: Callable[[T, Any], R], options: Any) -> None:
        self.fn = fn
        self.options = options

    def __call__(self, item: T) -> R:
        return self.fn(item, self.options)


def ordered_map(fn: Callable[[T, Any], R], items: Sequence[T], options: Any, workers: int) -> Iterator[R]:
    """``fn(item, options)`` for every item, in order, using ``workers`` processes."""
    _warm()
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    ctx = multiprocessing.get_context(method)
    chunk = max(1, min(64, len(items) // (workers * 8) or 1))
    with ctx.Pool(workers) as pool:
        yield from pool.imap(_Bound(fn, options), items, chunksize=chunk)
