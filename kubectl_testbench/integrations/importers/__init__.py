"""Importers: other agent-evaluation datasets → one Testbench Experiment with an inline dataset.

Each format is one module with ``read(paths, options) -> Collected``; :func:`import_dataset` picks the
module (imported only when used), then builds and returns the Experiment and the warnings.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kubectl_testbench.integrations.importers.common import (
    Collected,
    ImportInputError,
    ImportOptions,
    ImportResult,
    ImportWarning,
    MetricSpec,
    build_experiment,
)

if TYPE_CHECKING:
    from kubectl_testbench.integrations.importers.detect import Detected

FORMATS: dict[str, tuple[str, str]] = {
    "adk": ("kubectl_testbench.integrations.importers.adk", "Google ADK EvalSet / *.test.json files"),
    "agentv": ("kubectl_testbench.integrations.importers.agentv", "AgentV EVAL.yaml suites"),
    "csv": ("kubectl_testbench.integrations.importers.csv_table", "CSV table: user_input, reference, ..."),
    "json": ("kubectl_testbench.integrations.importers.json_table", "JSON / JSON Lines table of rows"),
    "orloj": ("kubectl_testbench.integrations.importers.orloj", "Orloj EvalDataset (orloj.dev/v1)"),
    "parquet": ("kubectl_testbench.integrations.importers.parquet_table", "Parquet table (needs pyarrow)"),
}
"""Format name → (module, one-line description). Keep sorted by name."""


def read_format(fmt: str, paths: Sequence[str], options: ImportOptions) -> Collected:
    """What ``fmt``'s reader found in ``paths`` (scenarios and warnings), before metrics are finalised."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    module = importlib.import_module(FORMATS[fmt][0])
    collected: Collected = module.read(tuple(paths), options)
    return collected


AUTO = "auto"
"""``--from auto``: each file's format is detected (:mod:`.detect`); a directory may mix formats."""


def read_auto(paths: Sequence[str], options: ImportOptions) -> tuple[Collected, list[Detected]]:
    """Every file read as the format detected for it, all in one :class:`Collected` (formats in first-seen order)."""
    from kubectl_testbench.integrations.importers.detect import detect

    found = detect(paths, options.limits)
    groups: dict[str, list[str]] = {}
    for item in found:
        groups.setdefault(item.format, []).append(item.path)
    merged = Collected("+".join(groups))
    for fmt, files in groups.items():
        part = read_format(fmt, files, options)
        merged.merge(part)
    return merged, found


def import_dataset(fmt: str, paths: Sequence[str], options: ImportOptions) -> ImportResult:
    """Read ``paths`` as ``fmt`` (or ``auto``) and return one Experiment with an inline dataset, and the warnings."""
    if fmt == AUTO:
        collected, found = read_auto(paths, options)
        result = build_experiment(collected, options)
        result.detected = [(d.path, d.format, d.reason) for d in found]
        return result
    return build_experiment(read_format(fmt, paths, options), options)


__all__ = [
    "AUTO",
    "FORMATS",
    "ImportInputError",
    "ImportOptions",
    "ImportResult",
    "ImportWarning",
    "MetricSpec",
    "import_dataset",
    "read_format",
]
