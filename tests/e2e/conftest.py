"""The session's control plane (tests/controlplane/fixture.py), used unless TESTBENCH_E2E_KUBECONFIG names a cluster."""

from tests.controlplane.fixture import control_plane  # noqa: F401  (the session fixture)
