"""One oracle process per test module (built once per session by tests.oracle.harness; skipped, naming what to
install, where Go or the Kubernetes sources are missing)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.oracle.harness import Oracle, missing, session_oracle


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    reason = missing()
    if reason:
        pytest.skip(reason)
    process, directory = session_oracle()
    yield process
    process.close()
    shutil.rmtree(directory, ignore_errors=True)
