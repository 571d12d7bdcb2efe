"""The session's control plane (tests/controlplane/fixture.py) and, for the cluster verbs' tests, the same control
plane with the CRDs installed (tests/controlplane/cluster.py)."""

from tests.controlplane.cluster import testkube_cluster  # noqa: F401  (a session fixture)
from tests.controlplane.fixture import control_plane  # noqa: F401  (the session fixture)
