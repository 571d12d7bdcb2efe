"""The session's control plane with the CRDs installed (tests/controlplane/cluster.py), used unless
TESTBENCH_E2E_KUBECONFIG names a cluster."""

from tests.controlplane.cluster import testkube_cluster  # noqa: F401  (a session fixture)
from tests.controlplane.fixture import control_plane  # noqa: F401  (the session fixture)
