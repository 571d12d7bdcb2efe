"""The worker pool replaced by an in-process map, for tests of who asks for a pool and with how many workers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest


def in_process_pool(monkeypatch: pytest.MonkeyPatch, min_files: int = 2) -> list[int]:
    """Every pool asked for runs its work in this process and records its worker count in the returned list;
    ``min_files`` inputs are enough to ask for one (200 otherwise)."""
    import kubectl_testbench.pipeline.inputs as inputs
    import kubectl_testbench.pipeline.pool as pool

    workers: list[int] = []

    def ordered_map(fn: Callable[[Any, Any], Any], items: Iterable[Any], options: Any, count: int) -> Any:
        workers.append(count)
        return (fn(item, options) for item in items)

    monkeypatch.setattr(pool, "ordered_map", ordered_map)
    monkeypatch.setattr(inputs, "PARALLEL_MIN_FILES", min_files)
    return workers
