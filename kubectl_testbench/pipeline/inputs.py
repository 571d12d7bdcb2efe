"""Finding and reading the inputs, and the one dispatch that handles them file by file, in a process pool
when there are many.

``validate``, ``render`` (and apply, diff, prune) and ``fix`` all go through :func:`each_input`; each file
is independent, so a tree is handled by as many workers as there are cores, results in input order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple, TypeVar

from kubectl_testbench.load.sources import Source, SourceError, expand, read_bytes
from kubectl_testbench.sniff import file_mentions_group, looks_templated
from kubectl_testbench.validate.engine import (
    KEEP_NOTHING,
    FileResult,
    Keep,
    Options,
    helm_chart_notice,
    template_notice,
    unreadable,
    validate_bytes,
)

R = TypeVar("R")

PARALLEL_MIN_FILES = 200
_OPTIONS = Options()


class Inputs(NamedTuple):
    """Which inputs are read, and which RenderDefaults apply to them (a named tuple, as the engine's records
    are: a frozen dataclass costs a cold start more to define)."""

    only_testbench_files: bool = False
    """For hooks that see every YAML file: skip files that do not mention our API group without reading them as
    YAML, and report Go/Helm templates of ours as an ``input/template`` notice, not a YAML error."""
    defaults_file: str | None = None
    """The RenderDefaults file that applies to every input (``--defaults``)."""
    discover_defaults: bool = True
    """Otherwise look for the nearest ``testbench-defaults.yaml`` next to each input, as render does."""


_INPUTS = Inputs()


def iter_sources(paths: Iterable[str], only_testbench_files: bool = False) -> Iterator[Source | SourceError]:
    """The inputs; with ``only_testbench_files``, files that never mention our API group are left out unread."""
    items = expand(tuple(paths), charts=True)
    if not only_testbench_files:
        return items
    return (i for i in items
            if not isinstance(i, Source) or i.path == "-" or i.chart or file_mentions_group(i.path))


def each_input(paths: Iterable[str], only_testbench_files: bool, work: Callable[[Source | SourceError, Any], R],
               options: Any, jobs: int | None = None) -> Iterator[R]:
    """``work(input, options)`` for every input, in input order; a process pool does the work when there are many
    files (``options`` must then be picklable). Stdin is never read by the pool."""
    items = list(iter_sources(paths, only_testbench_files))
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    sources = [s for s in items if isinstance(s, Source)]
    if workers > 1 and len(sources) >= PARALLEL_MIN_FILES and all(s.path != "-" for s in sources):
        from kubectl_testbench.pipeline.pool import ordered_map

        yield from ordered_map(work, items, options, workers)
        return
    for item in items:
        yield work(item, options)


def validate_source(source: Source, options: Options = _OPTIONS, inputs: Inputs = _INPUTS,
                    keep: Keep = KEEP_NOTHING) -> FileResult:
    """Read one input and validate every document, with the RenderDefaults that apply to it."""
    from kubectl_testbench.pipeline.defaults import names_gateway, sets_minio

    if source.chart:
        return helm_chart_notice(source.path)
    try:
        data = read_bytes(source, options.limits)
    except SourceError as err:
        return unreadable(source.path, err.rule, err.message)
    if skips_as_template(source, data, inputs):
        return template_notice(source.path)
    return validate_bytes(data, source.path, options, scanned=source.scanned,
                          gateway_default=lambda: names_gateway(source, inputs.defaults_file, inputs.discover_defaults),
                          keep=keep,
                          minio_default=lambda: sets_minio(source, inputs.defaults_file, inputs.discover_defaults))


def skips_as_template(source: Source, data: bytes, inputs: Inputs) -> bool:
    """A Go/Helm template that a directory scan found (or any, for hooks): a notice, not YAML errors. A template
    named on the command line is read as YAML: naming a file asks for it to be checked."""
    return (inputs.only_testbench_files or source.scanned) and looks_templated(data)


def validate_paths(paths: Iterable[str], options: Options = _OPTIONS, inputs: Inputs = _INPUTS,
                   jobs: int | None = None) -> Iterator[FileResult]:
    """Results per input in input order."""
    return each_input(paths, inputs.only_testbench_files, _validate_one, (options, inputs), jobs)


def _validate_one(item: Source | SourceError, options: tuple[Options, Inputs]) -> FileResult:
    if isinstance(item, SourceError):
        return unreadable(item.path, item.rule, item.message)
    return validate_source(item, *options)
