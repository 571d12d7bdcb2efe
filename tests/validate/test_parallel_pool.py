"""The process pool behind validating many files: input order, inherited compiled schema, bounded batches."""

from __future__ import annotations

import multiprocessing.pool
from typing import Any

import pytest

from kubectl_testbench.pipeline.pool import ordered_map


def _scaled(item: int, options: Any) -> tuple[int, int]:
    import os

    return item * options, os.getpid()


def _validator_was_inherited(item: int, options: Any) -> bool:
    from kubectl_testbench.validate.crdschema import experiment_validator

    return experiment_validator.cache_info().currsize == 1  # type: ignore[attr-defined]


def test_results_keep_input_order_and_come_from_worker_processes() -> None:
    import os

    results = list(ordered_map(_scaled, list(range(50)), 3, 2))
    assert [r for r, _ in results] == [i * 3 for i in range(50)]
    assert os.getpid() not in {pid for _, pid in results}


def test_workers_inherit_the_compiled_schema_instead_of_building_it_again() -> None:
    from kubectl_testbench.validate.crdschema import experiment_validator

    experiment_validator.cache_clear()  # type: ignore[attr-defined]
    assert all(ordered_map(_validator_was_inherited, [1, 2, 3], None, 2))


@pytest.mark.parametrize(("items", "workers", "chunk"), [
    (0, 2, 1), (15, 2, 1), (16, 2, 1), (32, 2, 2), (47, 2, 2), (48, 2, 3), (1024, 2, 64), (1040, 2, 64),
    (2000, 2, 64), (100, 1, 12), (100, 4, 3),
])
def test_batches_are_an_eighth_of_a_workers_share_at_most_64(monkeypatch: pytest.MonkeyPatch, items: int,
                                                               workers: int, chunk: int) -> None:
    """Small batches keep the pool busy to the end; the cap bounds the results held in memory at once."""
    seen: list[int] = []
    imap = multiprocessing.pool.Pool.imap

    def spy(self: multiprocessing.pool.Pool, func: Any, iterable: Any, chunksize: int = 1) -> Any:
        seen.append(chunksize)
        return imap(self, func, iterable, chunksize)

    monkeypatch.setattr(multiprocessing.pool.Pool, "imap", spy)
    assert len(list(ordered_map(_scaled, list(range(items)), 1, workers))) == items
    assert seen == [chunk]


def test_the_bound_function_is_called_with_the_item_and_the_options_and_survives_pickling() -> None:
    """Workers receive ``fn`` and its options as one pickled object; this is what they call (in-process here,
    so that a mutation run sees the call too)."""
    import pickle

    from kubectl_testbench.pipeline.pool import _Bound

    bound = pickle.loads(pickle.dumps(_Bound(_scaled, 7)))
    assert bound.fn is _scaled
    assert bound.options == 7
    assert bound(6)[0] == 42


@pytest.mark.parametrize(("platform", "method"), [("linux", "fork"), ("darwin", "spawn"), ("win32", "spawn")])
def test_fork_on_linux_spawn_elsewhere(monkeypatch: pytest.MonkeyPatch, platform: str, method: str) -> None:
    """Fork lets workers inherit the warmed schema; macOS and Windows only offer spawn safely."""
    import multiprocessing
    import sys

    asked: list[str] = []
    pools: list[object] = []
    real = multiprocessing.get_context

    class Context:
        def Pool(self, processes: object) -> Any:  # the multiprocessing name
            pools.append(processes)
            return real("fork").Pool(processes)

    def spy(name: str | None = None) -> Any:
        asked.append(str(name))
        return Context()

    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(multiprocessing, "get_context", spy)
    assert [r for r, _ in ordered_map(_scaled, [1, 2], 5, 1)] == [5, 10]
    assert (asked, pools) == ([method], [1]), "one pool of exactly the workers asked for"


def test_the_schema_is_compiled_before_the_workers_start() -> None:
    from kubectl_testbench.validate.crdschema import experiment_validator

    experiment_validator.cache_clear()  # type: ignore[attr-defined]
    assert list(ordered_map(_scaled, [], 1, 1)) == []
    assert experiment_validator.cache_info().currsize == 1  # type: ignore[attr-defined]
