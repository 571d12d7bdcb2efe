"""The cluster side: server-side apply, diff, prune, run and status against a Kubernetes API server.

Library code only (it never prints or exits). The ``kubernetes`` package is imported lazily, inside
the functions that talk to a cluster, so that ``validate`` and ``render`` never pay for it.
"""
