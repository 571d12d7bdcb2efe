"""Typed cluster errors, each carrying the one line the CLI prints.

The library decides what went wrong (and says it in words a kubectl user knows); the CLI decides
the exit code from the type alone.

A message quotes what the cluster sent (the API server's own ``message``, object names, label values), and
whoever controls the server or can edit a namespace controls that text. So every message is made safe to
print where it is made, once: on one line, with control characters escaped and never starting like a CI
log command (:func:`~kubectl_testbench.safe_text.safe_log_line`), and without the user name and password
a kubeconfig's server URL may carry (:func:`redact`).
"""

from __future__ import annotations

import re

from kubectl_testbench.safe_text import safe_log_line

_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://)[^/\s]*@")


def redact(text: str) -> str:
    """``text`` with the userinfo of every URL in it replaced: ``https://admin:s3cret@host`` → ``https://***@host``."""
    return _USERINFO.sub(r"\1***@", text) if "@" in text else text


class ClusterError(Exception):
    """A problem talking to the cluster; ``message`` is a single line, safe to print (see the module docstring)."""

    def __init__(self, message: str) -> None:
        message = safe_log_line(redact(" ".join(message.split())))
        super().__init__(message)
        self.message = message

    def conceal(self, secret: str) -> None:
        """Replace ``secret`` (a token a server echoed back) wherever the message quotes it."""
        if secret and secret in self.message:
            self.message = self.message.replace(secret, "***")
            self.args = (self.message,)


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
