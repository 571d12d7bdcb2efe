"""One oracle process per test module (built once per machine by tests.oracle.harness; skipped with NO_GO where Go
is missing)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracle.harness import Oracle, missing, session_oracle


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    reason = missing()
    if reason:
        pytest.skip(reason)
    process = session_oracle()
    yield process
    process.close()
