"""Is a file ours? A byte search for our API group, before any YAML parsing.

pre-commit hands hooks every staged YAML file and Argo CD shows plugins whole repositories: Helm
templates, mkdocs.yml with Python tags, other tools' broken YAML. Callers that only care about
Experiments skip files that do not mention ``testbench.agentic-layer.ai`` without reading them as YAML,
and skip Go/Helm templates of our files with a notice instead of failing on their template syntax.
"""

from __future__ import annotations

import codecs
import os
import re

from kubectl_testbench.model.constants import GROUP

MARKER = GROUP.encode()
MAX_BYTES = 16 * 1024 * 1024
"""Files larger than this are not ours to inspect (the validator's own default limit)."""

_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def looks_like_json(text: str) -> bool:
    """kubectl's test (hasJSONPrefix): the first non-blank character is ``{``. (Here, not in load.jsonread:
    deciding the reader must not cost a YAML file the JSON reader's import.)"""
    return text.lstrip()[:1] == "{"


def mentions_group(data: bytes) -> bool:
    """Whether the bytes mention ``testbench.agentic-layer.ai`` (also in UTF-16/32 files with a BOM)."""
    if MARKER in data:
        return True
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            return MARKER in data[len(bom):].decode(encoding, errors="ignore").encode()
    return False


def read_head(path: str, limit: int = MAX_BYTES) -> bytes | None:
    """The file's bytes, or None when it is unreadable or larger than ``limit``."""
    try:
        if os.path.getsize(path) > limit:
            return None
        with open(path, "rb") as handle:
            return handle.read(limit + 1)
    except OSError:
        return None


def file_mentions_group(path: str) -> bool:
    """Whether a file is one of ours to validate; unreadable files count as ours (validate reports them)."""
    data = read_head(path)
    return True if data is None else mentions_group(data)


_TEMPLATE_ACTION = re.compile(
    rb"\{\{-?\s*(?:\.|\$|/\*|(?:if|else|end|range|with|include|template|define|block|toYaml|tpl|required|"
    rb"default|quote|printf|lookup)\b)")
"""A Go template action as Helm charts use them: ``{{ .Values.x }}``, ``{{- if … }}``, ``{{ include … }}``."""


def looks_templated(data: bytes) -> bool:
    """Whether the file is a Go/Helm template rather than YAML (its actions are not YAML syntax)."""
    return _TEMPLATE_ACTION.search(data) is not None
