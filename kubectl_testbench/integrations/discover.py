"""Finding Experiments cheaply, for callers that see a whole repository or every changed YAML file.

Argo CD runs a plugin's discover command for every Application that might use it, and pre-commit hands
a hook every staged YAML file. Both must stay fast and must not trip over YAML that is not ours (Helm
templates, empty files): a byte search for our API group decides which files are ours at all, and only
those are read, the way ``validate`` reads them (integrations.documents).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator

from kubectl_testbench.integrations.documents import Problem, read_documents
from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.load.sources import Source, expand
from kubectl_testbench.model.constants import GROUP, KIND
from kubectl_testbench.sniff import file_mentions_group, mentions_group, read_head

_KIND_LINE = re.compile(rb"""(?m)^\s*(?:-\s+)?["']?kind["']?\s*:\s*["']?Experiment["']?\s*,?\s*$"""
                        rb"""|["']kind["']\s*:\s*["']Experiment["']""")

__all__ = ["experiment_dirs", "file_mentions_group", "holds_experiment", "inspect", "mentions_group", "read_head",
           "yaml_files"]


def holds_experiment(data: bytes, limits: Limits = DEFAULT_LIMITS) -> bool:
    """Whether a file holds a top-level Experiment (or a v1 List or a list containing one)."""
    return inspect(data, limits)[0]


def inspect(data: bytes, limits: Limits = DEFAULT_LIMITS) -> tuple[bool, Problem | None]:
    """Whether a file holds an Experiment, and the first problem met reading it (None when it reads cleanly).

    Only files that mention our group are read, as ``validate`` reads them (integrations.documents: JSON
    streams value by value, YAML document by document, within the reading limits, never recursing). A file
    that cannot be read still counts when a line reads ``kind: Experiment``: the plugin should then claim it
    and report the problem, rather than leave Argo CD to apply it as a plain manifest. A list of Experiments
    is claimed for the same reason (kubectl refuses it: ``generate`` says why).
    """
    if not mentions_group(data):
        return False, None
    from kubectl_testbench.load.decode import DecodeError, decode

    try:
        text = decode(data)
    except DecodeError as err:
        return _KIND_LINE.search(data) is not None, Problem(err.rule, err.message, err.mark)
    problem: Problem | None = None
    for doc in read_documents(text, limits):
        if isinstance(doc, Problem):
            problem = problem or doc
        elif _claims(doc.data):
            return True, problem
    return problem is not None and _KIND_LINE.search(data) is not None, problem


def _claims(doc: object) -> bool:
    if isinstance(doc, list):
        return any(_is_experiment(item) for item in doc)
    if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
        return any(_is_experiment(item) for item in doc["items"])
    return _is_experiment(doc)


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


def experiment_dirs(root: str, limits: Limits = DEFAULT_LIMITS,
                    unreadable: Callable[[str, Problem], None] | None = None) -> list[str]:
    """Directories under ``root`` (relative, ``.`` for root itself) that directly hold an Experiment.
    ``unreadable`` hears of each file of ours that cannot be read (or only partly), with the first problem."""
    found: set[str] = set()
    for path in yaml_files(root):
        directory = os.path.relpath(os.path.dirname(path), root)
        if directory in found:
            continue
        data = read_head(path, limits.max_file_bytes)
        if data is None:
            continue
        holds, problem = inspect(data, limits)
        if problem is not None and unreadable is not None:
            unreadable(path, problem)
        if holds:
            found.add(directory)
    return sorted(d.replace(os.sep, "/") for d in found)
