"""The session's control plane (tests/controlplane/fixture.py) for the tests in this package."""

from tests.controlplane.fixture import control_plane  # noqa: F401  (the session fixture)
