"""The inline dataset of an Experiment as the ``experiment.json`` render puts into its ConfigMap.

The Experiments are found and validated by the pipeline every other command uses (the same reader, the same
RenderDefaults, only valid Experiments are taken) and the bytes come from :func:`model.experiment_json
.experiment_json`, the function render's ConfigMap uses: an exported file is byte for byte the ConfigMap's
``experiment.json``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.validate.diagnostics import Diagnostic, Severity
from kubectl_testbench.validate.engine import ExperimentDoc


class ExportError(Exception):
    """Nothing to export, or the choice is ambiguous: the message says which, ``code`` is the exit status."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class Found:
    """What the inputs hold: the valid Experiments, the errors of the others, whether any input was unreadable."""

    experiments: list[ExperimentDoc] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    """``namespace/name`` (``name``) of every Experiment that did not validate."""
    unreadable: bool = False


def find(paths: Iterable[str], limits: Limits = DEFAULT_LIMITS) -> Found:
    """Validate every input as ``validate`` does and keep the valid Experiments."""
    from kubectl_testbench.load.sources import Source
    from kubectl_testbench.pipeline.inputs import Inputs, iter_sources, validate_source
    from kubectl_testbench.validate.engine import Keep, Options, unreadable

    found = Found()
    for item in iter_sources(paths):
        result = (validate_source(item, Options(limits=limits), Inputs(), keep=Keep(experiments=True))
                  if isinstance(item, Source) else unreadable(item.path, item.rule, item.message))
        found.experiments.extend(result.experiments)
        found.errors.extend(d for d in result.diagnostics if d.severity is Severity.ERROR)
        found.unreadable = found.unreadable or result.fatal
        valid = {(e.file, e.line) for e in result.experiments}
        found.invalid.extend(ref.split(" ", 1)[-1] for ref, line in result.checked if (result.path, line) not in valid)
    return found


def identity(doc: ExperimentDoc) -> str:
    """``namespace/name`` (just ``name`` without a namespace), as the choice is written on the command line."""
    meta = doc.data.get("metadata") or {}
    name, namespace = str(meta.get("name", "")), meta.get("namespace")
    return f"{namespace}/{name}" if namespace else name


def choose(found: Found, wanted: str | None) -> ExperimentDoc:
    """The one Experiment with an inline dataset that ``wanted`` (``name`` or ``namespace/name``) names, or the
    only one when no name is given; :class:`ExportError` otherwise (1: invalid, 2: usage)."""
    inline = [e for e in found.experiments if _inline(e) is not None]
    if wanted is not None:
        matches = [e for e in found.experiments if wanted in (identity(e), _name(e))]
        if not matches:
            if any(wanted in (ref, ref.rsplit("/", 1)[-1]) for ref in found.invalid):
                raise ExportError(f"Experiment {wanted} is invalid: fix the findings above first", 1)
            known = ", ".join(sorted(identity(e) for e in inline)) or "none"
            raise ExportError(f"no valid Experiment named {wanted} (with an inline dataset: {known})", 2)
        with_inline = [e for e in matches if _inline(e) is not None]
        if not with_inline:
            raise ExportError(f"Experiment {wanted} has no inline dataset (its dataset is in S3 or at a URL "
                              "already): nothing to export", 2)
        if len(with_inline) > 1:
            raise ExportError(f"{len(with_inline)} Experiments are named {wanted}: give NAMESPACE/NAME "
                              f"({', '.join(sorted(identity(e) for e in with_inline))})", 2)
        return with_inline[0]
    if len(inline) == 1:
        return inline[0]
    if not inline:
        if found.invalid:
            raise ExportError("no valid Experiment with an inline dataset: fix the findings above first", 1)
        raise ExportError("no Experiment with an inline dataset found", 2)
    raise ExportError(f"{len(inline)} Experiments have an inline dataset: choose one with --experiment NAME "
                      f"({', '.join(sorted(identity(e) for e in inline))})", 2)


def _name(doc: ExperimentDoc) -> str:
    return str((doc.data.get("metadata") or {}).get("name", ""))


def _inline(doc: ExperimentDoc) -> dict[str, Any] | None:
    dataset = (doc.data.get("spec") or {}).get("dataset") or {}
    inline = dataset.get("inline")
    return inline if isinstance(inline, dict) else None


def dataset_bytes(doc: ExperimentDoc) -> bytes:
    """``experiment.json`` of the Experiment's inline dataset: the bytes of its rendered ConfigMap's data."""
    from kubectl_testbench.model.experiment_json import experiment_json

    inline = _inline(doc)
    if inline is None:
        raise ExportError(f"Experiment {identity(doc)} has no inline dataset", 2)
    return experiment_json(inline).encode("utf-8")
