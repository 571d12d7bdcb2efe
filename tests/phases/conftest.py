"""Fixtures for the phase tests: the phase environment (built once, cached) and the stand-ins, each bound to
127.0.0.1, started before and stopped after the test that asks for it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubectl_testbench.phases import env as phase_env_module
from kubectl_testbench.phases.env import Env, PhaseEnvError
from tests.conftest import phase_cache_dir
from tests.phase_package import cached_phase_env
from tests.phases.a2a_agent import A2AAgentStandIn
from tests.phases.judge import JudgeStandIn
from tests.phases.otlp import OtlpStandIn
from tests.phases.s3 import MOTO_SPEC, S3StandIn
from tests.phases.static import StaticStandIn


def _progress(message: str) -> None:
    print(f"phase env: {message}", file=sys.__stderr__, flush=True)


@pytest.fixture(scope="session")
def phase_env() -> Env:
    """agentic-layer-testbench 0.10.0 in its cached virtualenv; skipped only where no Python >= 3.12 exists."""
    try:
        return cached_phase_env(progress=_progress)
    except PhaseEnvError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def s3_env() -> Env:
    """moto's server in its own cached virtualenv (its botocore pins python-dateutil < 3, kubernetes >= 3)."""
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return phase_env_module.ensure_env(MOTO_SPEC, Path(sys.executable), version,
                                       cache_dir=phase_cache_dir(), progress=_progress)


@pytest.fixture
def agent() -> Iterator[A2AAgentStandIn]:
    with A2AAgentStandIn() as standin:
        yield standin


@pytest.fixture
def judge() -> Iterator[JudgeStandIn]:
    with JudgeStandIn() as standin:
        yield standin


@pytest.fixture
def otlp() -> Iterator[OtlpStandIn]:
    with OtlpStandIn() as standin:
        yield standin


@pytest.fixture
def static_server() -> Iterator[StaticStandIn]:
    with StaticStandIn() as standin:
        yield standin


@pytest.fixture
def s3(s3_env: Env) -> Iterator[S3StandIn]:
    with S3StandIn(s3_env.python) as standin:
        yield standin
