"""From paths to manifests: validate every input (the same engine as ``validate``), then render.

Each file is validated and rendered in one worker call, so large trees use every core; the results
carry finished text, and the parent only orders, checks for collisions and writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubectl_testbench.emit.order import file_name, sort_key
from kubectl_testbench.emit.yamlout import dump
from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.load.sources import Source, SourceError
from kubectl_testbench.render.rendered import Rendered
from kubectl_testbench.render.settings import Defaults, Flags
from kubectl_testbench.rules.input import INPUT_TEMPLATE
from kubectl_testbench.rules.render import RENDER_DUPLICATE
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Severity
from kubectl_testbench.validate.duplicates import Identity, find_clashes
from kubectl_testbench.validate.engine import FileResult, Options, iter_sources, validate_source

if TYPE_CHECKING:
    from kubectl_testbench.render.sinks import Sink


@dataclass(frozen=True)
class Request:
    """Everything a worker needs; picklable."""

    flags: Flags = field(default_factory=Flags)
    defaults_file: str | None = None
    discover_defaults: bool = True
    fmt: str = "yaml"
    strict: bool = False
    limits: Limits = DEFAULT_LIMITS
    pass_manifests: bool = False
    """Pass objects render wrote earlier through unchanged (``apply``, ``diff``, ``prune``)."""
    only_testbench_files: bool = False
    """Leave files that do not mention our API group unread; skip Go/Helm templates with a notice (hooks)."""


@dataclass(slots=True)
class FileRender:
    result: FileResult
    objects: list[Rendered] = field(default_factory=list)


def render_source(item: Source | SourceError, request: Request) -> FileRender:
    """Validate one input and render its valid Experiments (nothing when any error was found)."""
    from kubectl_testbench.render.compile import render_experiment
    from kubectl_testbench.render.defaults_file import DefaultsError, discover, load_defaults

    if isinstance(item, SourceError):
        from kubectl_testbench.validate.engine import _unreadable

        return FileRender(_unreadable(item.path, item.rule, item.message))
    result = validate_source(item, Options(strict=request.strict, limits=request.limits, keep_experiments=True,
                                           keep_manifests=request.pass_manifests,
                                           only_testbench_files=request.only_testbench_files,
                                           defaults_file=request.defaults_file,
                                           discover_defaults=request.discover_defaults))
    out = FileRender(result)
    for doc in result.manifests:
        out.objects.append(_rendered(doc.data, request.fmt, f"{doc.file}:{doc.line}", manifest=True))
    result.manifests.clear()
    if not result.experiments:
        return out
    defaults: Defaults | None = None
    path = request.defaults_file or (discover(item.path, item.root) if request.discover_defaults else None)
    if path is not None:
        try:
            defaults = load_defaults(path)
        except DefaultsError as err:
            result.diagnostics.extend(err.diagnostics)
            result.counts.errors += len(err.diagnostics)
            result.counts.invalid += len(result.experiments)
            result.counts.valid -= len(result.experiments)
            result.experiments.clear()
            return out
    for exp in result.experiments:
        origin = f"{exp.file}:{exp.line}"
        for obj in render_experiment(exp.data, request.flags, defaults):
            out.objects.append(_rendered(obj, request.fmt, origin))
    result.experiments.clear()  # the data is rendered; do not ship it back across processes
    return out


def _rendered(obj: dict[str, Any], fmt: str, origin: str, manifest: bool = False) -> Rendered:
    text = json.dumps(obj, indent=4, ensure_ascii=False) + "\n" if fmt == "json" else dump(obj)
    return Rendered(sort_key(obj), file_name(obj, fmt), text, obj if fmt == "json" else None, origin, manifest)


def render_paths(paths: Iterable[str], request: Request, jobs: int | None = None) -> Iterator[FileRender]:
    """Per-input results in input order, in a process pool when the input is large."""
    import os

    from kubectl_testbench.validate.engine import PARALLEL_MIN_FILES

    items = list(iter_sources(paths, request.only_testbench_files))
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    sources = [s for s in items if isinstance(s, Source)]
    if workers > 1 and len(sources) >= PARALLEL_MIN_FILES and all(s.path != "-" for s in sources):
        from kubectl_testbench.validate.parallel import ordered_map

        yield from ordered_map(render_source, items, request, workers)
    else:
        for item in items:
            yield render_source(item, request)


def same_object(obj: Rendered, first: Rendered) -> bool:
    """A rendered manifest and the Experiment it was rendered from, both in the input, agreeing."""
    if not (obj.manifest or first.manifest):
        return False
    if obj.data is not None and first.data is not None:
        return obj.data == first.data
    return obj.text == first.text


def collision(obj: Rendered, first: Rendered) -> Diagnostic:
    """Two Experiments that generate the same object (e.g. "a-b" in "c" and "a" in "b-c"), or a rendered
    manifest that no longer matches the Experiment next to it."""
    file, _, line = obj.origin.rpartition(":")
    name = obj.filename.rsplit(".", 1)[0].replace("_", " ")
    if obj.manifest or first.manifest:
        message = f"{name} differs from what the Experiment renders ({first.origin})"
        hint = "the rendered file is stale: render the directory again, or give only the Experiments"
    else:
        message, hint = f"{name} is also generated by {first.origin}", "rename one of the Experiments"
    return Diagnostic(RENDER_DUPLICATE.id, Severity.ERROR, message, file, int(line) if line.isdigit() else 0, 1,
                      hint=hint)


@dataclass(slots=True)
class Outcome:
    """Everything one render of many inputs produced: objects in output order, or the problems that stop it."""

    objects: list[Rendered] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    """Errors (and, with ``strict``, warnings): any of them means nothing may be written."""
    warnings: list[Diagnostic] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)
    unnamespaced: list[str] = field(default_factory=list)
    """``file:line`` of the Experiments without metadata.namespace: they go to the command's namespace."""

    @property
    def ok(self) -> bool:
        return not self.problems and not self.counts.unreadable


def render_all(paths: Iterable[str], request: Request, jobs: int | None = None, sink: Sink | None = None) -> Outcome:
    """Validate and render every input into ``sink`` (default: kept in memory), checking for collisions.

    The one implementation behind ``render``, ``apply``, ``diff``, ``prune`` and Argo CD's plugin. Once a
    problem is found nothing more is handed to the sink (validation and the collision checks go on, to report
    everything in one run), and the sink is told to drop what it holds; an interrupt does the same.
    """
    from kubectl_testbench.render.sinks import StdoutSink

    target = sink if sink is not None else StdoutSink(request.fmt)
    out = Outcome()
    identities: list[Identity] = []
    collisions: list[tuple[Diagnostic, str, str]] = []
    try:
        for file_render in render_paths(paths, request, jobs):
            out.counts.add(file_render.result.counts)
            identities.extend(file_render.result.identities)
            for d in file_render.result.diagnostics:
                if d.severity is Severity.ERROR or (request.strict and d.severity is Severity.WARNING):
                    out.problems.append(d)
                elif d.severity is Severity.WARNING or d.rule == INPUT_TEMPLATE.id:
                    out.warnings.append(d)  # printed on stderr; a skipped template is worth a notice
            for obj in file_render.objects:
                first = target.names.get(obj.filename)
                if first is None:
                    if out.ok and not collisions:
                        target.add(obj)
                    else:  # nothing more is written, but every collision is still found
                        target.names[obj.filename] = obj
                elif not same_object(obj, first):
                    collisions.append((collision(obj, first), obj.origin, first.origin))
    except BaseException:
        target.abort()
        raise
    out.unnamespaced = [i.origin for i in identities if i.namespace is None and not i.rendered_copy]
    clashes = find_clashes(identities, request.flags.namespace)
    out.problems.extend(clashes.diagnostics)
    out.counts.errors += len(clashes.diagnostics)
    out.counts.valid -= clashes.invalidated
    out.counts.invalid += clashes.invalidated
    # two copies of one Experiment collide on every object they generate: the clash above says it once
    out.problems.extend(d for d, a, b in collisions if not (a in clashes.origins and b in clashes.origins))
    if out.ok:
        out.objects = target.ordered()
    else:
        target.abort()
    return out
