"""Kubernetes name and label rules (k8s.io/apimachinery/pkg/util/validation), with its messages."""

from __future__ import annotations

import re

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
LABEL_VALUE_MAX = 63

_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL = re.compile(_LABEL)
_DNS1123_SUBDOMAIN = re.compile(rf"{_LABEL}(\.{_LABEL})*")
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


def dns1123_label_error(value: str) -> str | None:
    """Why ``value`` is not a DNS-1123 label (namespaces, hostnames), or None."""
    if len(value) > DNS1123_LABEL_MAX:
        return f"must be no more than {DNS1123_LABEL_MAX} characters"
    if not _DNS1123_LABEL.fullmatch(value):
        return ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                "start and end with an alphanumeric character (e.g. 'my-name')")
    return None


def dns1123_subdomain_error(value: str) -> str | None:
    """Why ``value`` is not a DNS-1123 subdomain (most resource names), or None."""
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        return f"must be no more than {DNS1123_SUBDOMAIN_MAX} characters"
    if not _DNS1123_SUBDOMAIN.fullmatch(value):
        return ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                "and must start and end with an alphanumeric character (e.g. 'example.com')")
    return None


def label_value_error(value: str) -> str | None:
    """Why ``value`` is not a valid label value, or None."""
    if len(value) > LABEL_VALUE_MAX:
        return f"must be no more than {LABEL_VALUE_MAX} characters"
    if not _LABEL_VALUE.fullmatch(value):
        return ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                "and must start and end with an alphanumeric character")
    return None


def qualified_name_error(key: str) -> str | None:
    """Why ``key`` is not a valid label/annotation key (``prefix/name``), or None."""
    prefix, _, name = key.rpartition("/")
    if "/" in key and not prefix:
        return "prefix part must be non-empty"
    if prefix:
        err = dns1123_subdomain_error(prefix)
        if err:
            return f"prefix part {err}"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _QUALIFIED_NAME.fullmatch(name):
        return ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
                "an alphanumeric character")
    return None


def mask_trailing_dash(name: str) -> str:
    """A name prefix (generateName) as apimachinery validates it: ``maskTrailingDash`` replaces the last two
    characters of a name ending in "-" with "a" (NameIsDNSSubdomain(name, prefix=true))."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name
