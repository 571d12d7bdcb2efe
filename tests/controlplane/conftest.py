"""The session fixtures ``control_plane`` (tests/controlplane/fixture.py) and ``testkube_cluster``
(tests/controlplane/cluster.py) are registered once, in tests/conftest.py, for every test package."""

from tests.oracle.conftest import oracle  # noqa: F401  (one oracle process per module, as in tests/oracle)
