"""Typed cluster errors, each carrying the one line the CLI prints.

The library decides what went wrong (and says it in words a kubectl user knows); the CLI decides
the exit code from the type alone.
"""

from __future__ import annotations


class ClusterError(Exception):
    """A problem talking to the cluster; ``message`` is a single line."""

    def __init__(self, message: str) -> None:
        message = " ".join(message.split())
        super().__init__(message)
        self.message = message


class ConfigError(ClusterError):
    """No usable kubeconfig, an unknown context, or credentials that cannot be loaded."""


class Unreachable(ClusterError):
    """Connection refused, DNS failure, TLS failure: the API server was never heard from."""


class RequestTimeout(ClusterError):
    """The API server did not answer within ``--request-timeout``."""


class Unauthorized(ClusterError):
    """401: the credentials were rejected."""


class Forbidden(ClusterError):
    """403: RBAC does not allow the verb on the resource in the namespace."""

    def __init__(self, message: str, verb: str, resource: str, namespace: str | None) -> None:
        super().__init__(message)
        self.verb = verb
        self.resource = resource
        self.namespace = namespace


class NotFound(ClusterError):
    """404 for an object (or its namespace)."""


class NotServed(ClusterError):
    """The API group/version or kind is not served: the CRD is not installed."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class FieldConflict(ClusterError):
    """409 from server-side apply: other field managers own fields we set."""

    def __init__(self, message: str, conflicts: list[tuple[str, str]]) -> None:
        super().__init__(message)
        self.conflicts = conflicts
        """(manager, field path) pairs, in the server's order."""


class AlreadyExists(ClusterError):
    """409 on create."""


class Invalid(ClusterError):
    """422 (or 400): the API server refused the object."""


class ServerError(ClusterError):
    """5xx, 429 or an answer we cannot read."""
