"""Fixtures shared by the integration tests."""

from __future__ import annotations

import pytest

from tests.integrations.precommit import HooksRepo, build_hooks_repo


@pytest.fixture(scope="session")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory) -> HooksRepo:
    """This checkout as a pre-commit hook repository, built once for every hook test (one hook environment)."""
    return build_hooks_repo(tmp_path_factory.mktemp("pre-commit"))
