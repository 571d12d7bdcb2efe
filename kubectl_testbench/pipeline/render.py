"""From paths to manifests: validate every input (the same engine as ``validate``), then render.

Each file is validated and rendered in one worker call, so large trees use every core; the results
carry finished text, and the parent only orders, checks for collisions and writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.load.sources import Source, SourceError
from kubectl_testbench.pipeline.collisions import Meeting, duplicate, meeting, reported_as_clash
from kubectl_testbench.pipeline.inputs import Inputs, each_input, validate_source
from kubectl_testbench.pipeline.policy import Tally
from kubectl_testbench.render.rendered import Rendered, rendered
from kubectl_testbench.render.settings import Defaults, Flags
from kubectl_testbench.rules.selection import ALL_RULES, Selection
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic
from kubectl_testbench.validate.engine import ExperimentDoc, FileResult, Keep, Options, unreadable

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
    rules: Selection = ALL_RULES
    """Which rules are reported (the configuration file's selection)."""
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
    from kubectl_testbench.render.defaults_file import DefaultsError, load_defaults

    if isinstance(item, SourceError):
        return FileRender(unreadable(item.path, item.rule, item.message))
    inputs = Inputs(request.only_testbench_files, request.defaults_file, request.discover_defaults)
    result = validate_source(item, Options(request.strict, request.limits, request.rules), inputs,
                             keep_for_render(request.pass_manifests))
    out = FileRender(result)
    for doc in result.manifests:
        out.objects.append(rendered(doc.data, request.fmt, f"{doc.file}:{doc.line}", manifest=True))
    result.manifests.clear()
    if not result.experiments:
        return out
    from kubectl_testbench.pipeline.defaults import defaults_path

    defaults: Defaults | None = None
    path = defaults_path(item, request.defaults_file, request.discover_defaults)
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
    out.objects.extend(compile_experiments(result.experiments, request.flags, defaults, request.fmt))
    result.experiments.clear()  # the data is rendered; do not ship it back across processes
    return out


def keep_for_render(pass_manifests: bool) -> Keep:
    """The valid Experiments, and (``pass_manifests``) the objects render wrote earlier."""
    if not pass_manifests:
        return Keep(experiments=True)
    from kubectl_testbench.render.manifests import is_rendered, manifest_problem

    return Keep(experiments=True, manifest=is_rendered, manifest_problem=manifest_problem)


def compile_experiments(experiments: Iterable[ExperimentDoc], flags: Flags, defaults: Defaults | None, fmt: str,
                        keep_data: bool = False) -> list[Rendered]:
    """The objects of valid Experiments, each with the place of its Experiment as its origin."""
    from kubectl_testbench.render.compile import render_experiment

    out: list[Rendered] = []
    for exp in experiments:
        origin = f"{exp.file}:{exp.line}"
        out.extend(rendered(obj, fmt, origin, keep_data=keep_data)
                   for obj in render_experiment(exp.data, flags, defaults))
    return out


def render_paths(paths: Iterable[str], request: Request, jobs: int | None = None) -> Iterator[FileRender]:
    """Per-input results in input order, in a process pool when the input is large."""
    return each_input(paths, request.only_testbench_files, render_source, request, jobs)


def met(obj: Rendered, first: Rendered) -> Meeting:
    """What ``obj`` is to the object already written to its file: parsed data is compared where both carry it
    (a manifest passed through, an Experiment in the same run), their text otherwise."""
    both_data = obj.data is not None and first.data is not None
    return meeting(not first.manifest, not obj.manifest, first.data if both_data else first.text,
                   obj.data if both_data else obj.text)


def collision(obj: Rendered, first: Rendered, what: Meeting) -> Diagnostic:
    """Two Experiments that generate the same file (e.g. "a-b" in "c" and "a" in "b-c"), or a rendered
    manifest that no longer matches the Experiment next to it."""
    name = obj.filename.rsplit(".", 1)[0].replace("_", " ")
    if what is Meeting.GENERATED_TWICE:
        return duplicate(obj.origin, f"{name} is also generated by {first.origin}", "rename one of the Experiments")
    return duplicate(obj.origin, f"{name} differs from what the Experiment renders ({first.origin})",
                     "the rendered file is stale: render the directory again, or give only the Experiments")


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
        return not self.problems and not self.counts.unreadable and not self.counts.malformed


def render_all(paths: Iterable[str], request: Request, jobs: int | None = None, sink: Sink | None = None) -> Outcome:
    """Validate and render every input into ``sink`` (default: kept in memory), checking for collisions.

    The one implementation behind ``render``, ``apply``, ``diff``, ``prune`` and ``run --local``. Once a
    problem is found nothing more is handed to the sink (validation and the collision checks go on, to report
    everything in one run), and the sink is told to drop what it holds; an interrupt does the same.
    """
    from kubectl_testbench.render.sinks import StdoutSink

    target = sink if sink is not None else StdoutSink(request.fmt)
    out = Outcome()
    tally = Tally(request.strict, out.counts, problems=out.problems, warnings=out.warnings)
    collisions: list[tuple[Diagnostic, str, str]] = []
    try:
        for file_render in render_paths(paths, request, jobs):
            tally.add(file_render.result)
            tally.judge(file_render.result.diagnostics)
            for obj in file_render.objects:
                first = target.names.get(obj.filename)
                if first is None:
                    if out.ok and not collisions:
                        target.add(obj)
                    else:  # nothing more is written, but every collision is still found
                        target.names[obj.filename] = obj
                elif (what := met(obj, first)) is not Meeting.SAME:
                    collisions.append((collision(obj, first, what), obj.origin, first.origin))
    except BaseException:
        target.abort()
        raise
    out.unnamespaced = [i.origin for i in tally.identities if i.namespace is None and not i.rendered_copy]
    clashes = tally.clashes(request.flags.namespace)
    # two copies of one Experiment collide on every object they generate: the clash above says it once
    out.problems.extend(d for d, a, b in collisions if not reported_as_clash(a, b, clashes.origins))
    if out.ok:
        out.objects = target.ordered()
    else:
        target.abort()
    return out
