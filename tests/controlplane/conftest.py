"""The session fixtures ``control_plane`` (tests/controlplane/fixture.py) and ``testkube_cluster``
(tests/controlplane/cluster.py) are registered once, in tests/conftest.py, for every test package."""
