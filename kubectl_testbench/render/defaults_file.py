"""Finding, reading and validating RenderDefaults files (``testbench-defaults.yaml``)."""

from __future__ import annotations

import os
from functools import cache
from typing import TYPE_CHECKING

from kubectl_testbench.load.builder import build
from kubectl_testbench.load.decode import DecodeError, decode
from kubectl_testbench.load.limits import DEFAULT_LIMITS
from kubectl_testbench.load.sources import Source, SourceError, read_bytes
from kubectl_testbench.load.split import split_documents
from kubectl_testbench.model.constants import DEFAULTS_KIND, GROUP
from kubectl_testbench.rules.input import INPUT_EMPTY, INPUT_UNREADABLE
from kubectl_testbench.validate.defaults_document import check_defaults_document
from kubectl_testbench.validate.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:  # its dataclasses cost validate's start-up; only a file that exists needs them
    from kubectl_testbench.render.settings import Defaults

DEFAULTS_FILE = "testbench-defaults.yaml"


class DefaultsError(Exception):
    """A defaults file that cannot be used; carries the findings."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "invalid defaults file")
        self.diagnostics = diagnostics


def load_defaults(path: str) -> Defaults:
    """The RenderDefaults in ``path``; raises :class:`DefaultsError` with located findings. Read once per
    version of the file (a tree of Experiments shares one; an edited file is read again)."""
    try:
        stat = os.stat(path)
        version: tuple[int, int] = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        version = (0, 0)
    return _load_defaults(path, version)


@cache
def _load_defaults(path: str, version: tuple[int, int]) -> Defaults:
    from kubectl_testbench.config import CONFIG_NAMES

    if os.path.basename(path) in CONFIG_NAMES:
        return _configured_defaults(path)
    try:
        text = decode(read_bytes(Source(path), DEFAULT_LIMITS))
    except (SourceError, DecodeError) as err:
        raise DefaultsError([Diagnostic(err.rule, Severity.ERROR, err.message, path)]) from None
    for chunk in split_documents(text):
        built = build(chunk.text, chunk.start_line)
        if built.error is not None:
            e = built.error
            raise DefaultsError([Diagnostic(e.rule, Severity.ERROR, e.message, path, e.mark[0], e.mark[1])])
        doc = built.data
        if isinstance(doc, dict) and doc.get("kind") == DEFAULTS_KIND:
            problems = check_defaults_document(doc, path)
            if problems:
                raise DefaultsError(problems)
            from kubectl_testbench.render.settings import Defaults

            return Defaults.from_spec(doc.get("spec") or {}, path)
    raise DefaultsError([Diagnostic(INPUT_EMPTY.id, Severity.ERROR,
                                    f"no {DEFAULTS_KIND} document ({GROUP}/v1alpha1) in the file", path)])


def _configured_defaults(path: str) -> Defaults:
    """The ``defaults`` of a configuration file, checked as the ``spec`` of a RenderDefaults document."""
    import dataclasses

    from kubectl_testbench.config import ConfigError, read_config
    from kubectl_testbench.load.positions import PosDict
    from kubectl_testbench.render.settings import Defaults

    try:
        spec = read_config(path).defaults or {}
    except ConfigError as err:
        raise DefaultsError([Diagnostic(INPUT_UNREADABLE.id, Severity.ERROR, str(err), path)]) from None
    document = PosDict(getattr(spec, "mark", (0, 0)))  # positions: the findings point into the configuration
    document.update({"apiVersion": f"{GROUP}/v1alpha1", "kind": DEFAULTS_KIND, "spec": spec})
    document.key_marks["spec"] = document.mark
    problems = check_defaults_document(document, path)
    if problems:
        raise DefaultsError([dataclasses.replace(d, path="defaults" + d.path.removeprefix("spec"))
                             if d.path == "spec" or d.path.startswith("spec.") else d for d in problems])
    return Defaults.from_spec(spec, path)


def discover(source_path: str, root: str) -> str | None:
    """The nearest ``testbench-defaults.yaml`` from the Experiment's directory up to the input root."""
    if source_path == "-":
        return None
    directory = os.path.dirname(os.path.abspath(source_path))
    stop = os.path.abspath(root if os.path.isdir(root) else os.path.dirname(root) or ".")
    while True:
        candidate = os.path.join(directory, DEFAULTS_FILE)
        if os.path.isfile(candidate):
            return candidate
        if directory == stop or os.path.dirname(directory) == directory or not directory.startswith(stop):
            return None
        directory = os.path.dirname(directory)
