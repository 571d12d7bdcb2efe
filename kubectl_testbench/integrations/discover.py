"""Finding Experiments cheaply, for callers that see a whole repository or every changed YAML file.

Argo CD runs a plugin's discover command for every Application that might use it, and pre-commit hands
a hook every staged YAML file. Both must stay fast and must not trip over YAML that is not ours (Helm
templates, empty files): a byte search for our API group decides which files are ours at all, and only
those are parsed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from kubectl_testbench.load.sources import Source, expand
from kubectl_testbench.model.constants import GROUP, KIND
from kubectl_testbench.sniff import file_mentions_group, mentions_group, read_head

_KIND_LINE = re.compile(rb"""(?m)^\s*(?:-\s+)?["']?kind["']?\s*:\s*["']?Experiment["']?\s*,?\s*$"""
                        rb"""|["']kind["']\s*:\s*["']Experiment["']""")

__all__ = ["experiment_dirs", "file_mentions_group", "holds_experiment", "mentions_group", "read_head", "yaml_files"]


def holds_experiment(data: bytes) -> bool:
    """Whether a file holds a top-level Experiment (or a v1 List containing one).

    Only files that mention our group are parsed. A file that does not parse still counts when a
    line reads ``kind: Experiment``: the plugin should then claim it and report the syntax error,
    rather than leave Argo CD to apply it as a plain manifest.
    """
    if not mentions_group(data):
        return False
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        for doc in yaml.load_all(data, Loader=loader):
            if _is_experiment(doc):
                return True
            if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list) \
                    and any(_is_experiment(item) for item in doc["items"]):
                return True
    except (yaml.YAMLError, ValueError, RecursionError):
        return _KIND_LINE.search(data) is not None
    return False


def _is_experiment(doc: object) -> bool:
    if not isinstance(doc, dict) or doc.get("kind") != KIND:
        return False
    api_version = doc.get("apiVersion")
    return isinstance(api_version, str) and api_version.split("/", 1)[0] == GROUP


def yaml_files(root: str) -> Iterator[str]:
    """The files the validator's directory scan finds under ``root``; unreadable entries are skipped
    (discovery must not fail on them; ``validate`` and ``render`` report them)."""
    for source in expand([root]):
        if isinstance(source, Source):
            yield source.path


def experiment_dirs(root: str) -> list[str]:
    """Directories under ``root`` (relative, ``.`` for root itself) that directly hold an Experiment."""
    found: set[str] = set()
    for path in yaml_files(root):
        directory = os.path.relpath(os.path.dirname(path), root)
        if directory in found:
            continue
        data = read_head(path)
        if data is not None and holds_experiment(data):
            found.add(directory)
    return sorted(d.replace(os.sep, "/") for d in found)
