"""What ``argocd generate`` emits: the whole Application, with its Experiments compiled in place.

Argo CD applies exactly what a plugin prints and, with ``prune: true``, deletes everything else it
manages. So every manifest of the Application's path is passed through unchanged (the document's own
text, as Argo CD would have read it without us), and only our kinds are replaced: each Experiment by
the objects ``render`` makes of it, a ``RenderDefaults`` consumed. Where a path entry holds a
``kustomization.yaml`` it is built first with kustomize (``kustomize build``, or ``kubectl kustomize``,
found on PATH) and the Experiments in its output are compiled: the ``kustomize build . | plugin``
pattern of other config-management plugins. Helm charts are out of scope and refused with a message.

Everything here returns data; the CLI prints and chooses the exit code.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.emit.order import sort_key
from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.load.sources import Source, SourceError, expand
from kubectl_testbench.model.constants import GROUP
from kubectl_testbench.pipeline.collisions import Meeting, duplicate, meeting, reported_as_clash
from kubectl_testbench.pipeline.policy import Tally
from kubectl_testbench.render.rendered import Rendered
from kubectl_testbench.render.settings import Defaults, Flags
from kubectl_testbench.rules.argocd import ARGOCD_KUSTOMIZATION_NOT_BUILT
from kubectl_testbench.rules.selection import ALL_RULES, Selection
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic
from kubectl_testbench.validate.engine import FileResult, unreadable
from kubectl_testbench.validate.objects import group_of

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
"""The file names kustomize (and Argo CD's own source-type detection) treat as a kustomization."""
HELM_CHART = "Chart.yaml"
CONFIG_GROUPS = ("kustomize.config.k8s.io", "config.kubernetes.io", "kpt.dev", "fn." + GROUP)
"""Configuration of build tools, not cluster resources: never applied, so never passed through."""


class AppError(Exception):
    """The Application's path cannot be generated at all (a Helm chart, kustomize missing or failing)."""


@dataclass(frozen=True)
class Document:
    """One manifest of the output: where it sorts, its identity, and its YAML text."""

    key: tuple[int, str, str, str]
    identity: tuple[str, str, str, str]
    text: str
    data: dict[str, Any]
    origin: str
    compiled: bool


@dataclass
class AppRender:
    """Everything one ``generate`` produced: the output in apply order, or the problems that stop it."""

    documents: list[Document] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    """Counts, findings and Experiments of every stream, judged by the pipeline's policies."""
    built: list[str] = field(default_factory=list)
    """The kustomize commands that were run, for the log line."""

    @property
    def problems(self) -> list[Diagnostic]:
        return self.tally.problems

    @property
    def warnings(self) -> list[Diagnostic]:
        return self.tally.warnings

    @property
    def counts(self) -> Counts:
        return self.tally.counts

    @property
    def ok(self) -> bool:
        return self.tally.ok

    @property
    def passed_through(self) -> int:
        return sum(not d.compiled for d in self.documents)

    @property
    def compiled(self) -> int:
        return sum(d.compiled for d in self.documents)

    def stream(self) -> str:
        return "---\n".join(d.text for d in self.documents)

    def experiment_namespaces(self, default: str) -> list[str]:
        """The namespaces the Experiments were compiled for: their own (a kustomization's ``namespace:`` sets
        it), else ``default`` (the Application's destination), for the summary line."""
        return sorted({i.namespace or default for i in self.tally.identities if not i.rendered_copy})


Runner = Callable[[list[str], str, float | None], str]


def kustomize_command(directory: str) -> list[str]:
    """``kustomize build DIR`` when a standalone kustomize is on PATH, else ``kubectl kustomize DIR``."""
    standalone = shutil.which("kustomize")
    if standalone is not None:
        return [standalone, "build", directory]
    kubectl = shutil.which("kubectl")
    if kubectl is not None:
        return [kubectl, "kustomize", directory]
    raise AppError(f"{os.path.join(directory, kustomization_file(directory) or 'kustomization.yaml')} needs "
                   "kustomize, but neither kustomize nor kubectl is on PATH (the sidecar image ships kustomize)")


def run_kustomize(command: list[str], directory: str, timeout: float | None) -> str:
    """The build's stdout; a failed build becomes an :class:`AppError` carrying kustomize's own message."""
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise AppError(f"{' '.join(_short(command))} did not finish within {timeout:g} s") from None
    except OSError as err:
        raise AppError(f"cannot run {command[0]}: {err.strerror or err}") from None
    if proc.returncode != 0:
        detail = "; ".join(line.strip() for line in proc.stderr.splitlines() if line.strip()) or "no message"
        raise AppError(f"{' '.join(_short(command))} failed (exit {proc.returncode}): {detail}")
    return proc.stdout


def _short(command: list[str]) -> list[str]:
    return [os.path.basename(command[0]), *command[1:]]


def kustomization_file(directory: str) -> str | None:
    return next((name for name in KUSTOMIZATION_NAMES if os.path.isfile(os.path.join(directory, name))), None)


def helm_refusal(chart: str) -> AppError:
    return AppError(f"{chart}: Helm charts are out of scope for the kubectl-testbench plugin; let Argo CD render "
                    "the chart (a Helm source) and keep the Experiments in their own path or Application, or run "
                    "helm template in CI and commit its output next to the Experiments")


def generate(paths: Iterable[str], flags: Flags, defaults_file: str | None = None, strict: bool = False,
             timeout: float | None = None, runner: Runner | None = None,
             limits: Limits = DEFAULT_LIMITS, rules: Selection = ALL_RULES) -> AppRender:
    """Every manifest under ``paths`` (relative to the working directory, the Application's path); every file
    and document is read within ``limits``; ``rules``: which rules are reported (the configuration file's)."""
    out = AppRender(tally=Tally(strict))
    run = runner or run_kustomize
    for path in paths:
        if os.path.isdir(path):
            if os.path.isfile(os.path.join(path, HELM_CHART)):
                raise helm_refusal(os.path.join(path, HELM_CHART))
            if kustomization_file(path) is not None:
                command = kustomize_command(path)
                text = run(command, path, timeout)
                out.built.append(" ".join(_short(command)))
                label = f"kustomize build {path}"
                _take(out, text, label, _defaults(defaults_file, Source(os.path.join(path, "kustomization.yaml"),
                                                                         root=path)),
                      flags, strict, json_source=False, limits=limits, rules=rules)
                continue
        for item in expand([path]):
            _take_source(out, item, flags, defaults_file, strict, limits, rules)
    clashes = out.tally.clashes(flags.namespace)
    _resolve_collisions(out, flags.namespace, clashes.origins)
    out.documents.sort(key=lambda d: (d.key, d.text))
    return out


def _take_source(out: AppRender, item: Source | SourceError, flags: Flags, defaults_file: str | None,
                 strict: bool, limits: Limits, rules: Selection = ALL_RULES) -> None:
    from kubectl_testbench.load.decode import DecodeError, decode
    from kubectl_testbench.load.sources import read_bytes

    if isinstance(item, SourceError):
        _judged(out, unreadable(item.path, item.rule, item.message))
        return
    name = os.path.basename(item.path)
    if name == HELM_CHART:
        raise helm_refusal(item.path)
    try:
        text = decode(read_bytes(item, limits))
    except SourceError as err:
        _judged(out, unreadable(item.path, err.rule, err.message))
        return
    except DecodeError as err:
        _judged(out, unreadable(item.path, err.rule, err.message, err.mark if err.mark[0] else (0, 0)))
        return
    if name in KUSTOMIZATION_NAMES:
        out.tally.warnings.append(Diagnostic(ARGOCD_KUSTOMIZATION_NOT_BUILT.id,
                                             ARGOCD_KUSTOMIZATION_NOT_BUILT.severity,
                                             "a kustomization below a path entry is not built: its directory is "
                                             "read as plain files", item.path,
                                             hint=ARGOCD_KUSTOMIZATION_NOT_BUILT.hint))
    _take(out, text, item.path, _defaults(defaults_file, item), flags, strict,
          json_source=item.path.endswith(".json"), limits=limits, rules=rules)


def _judged(out: AppRender, result: FileResult) -> None:
    """One stream's (or unreadable file's) result, counted and judged by the pipeline's policies."""
    out.tally.add(result)
    out.tally.judge(result.diagnostics)


def _defaults(defaults_file: str | None, source: Source) -> Defaults | Diagnostic | None:
    """The RenderDefaults for ``source``, as the pipeline finds them; an unusable file is its first finding."""
    from kubectl_testbench.pipeline.defaults import defaults_path
    from kubectl_testbench.render.defaults_file import DefaultsError, load_defaults

    path = defaults_path(source, defaults_file)
    if path is None:
        return None
    try:
        return load_defaults(path)
    except DefaultsError as err:
        return err.diagnostics[0]


def _take(out: AppRender, text: str, label: str, defaults: Defaults | Diagnostic | None, flags: Flags,
          strict: bool, json_source: bool, limits: Limits, rules: Selection = ALL_RULES) -> None:
    """Validate our documents of one stream, compile the valid Experiments, pass everything else through."""
    from kubectl_testbench.pipeline.render import compile_experiments
    from kubectl_testbench.validate.engine import Keep, Options, validate_text

    names_gateway = isinstance(defaults, Defaults) and defaults.names_gateway
    sets_minio = isinstance(defaults, Defaults) and defaults.sets_minio
    result = validate_text(text, label, Options(strict, limits, rules), scanned=True,
                           gateway_default=lambda: names_gateway, keep=Keep(experiments=True),
                           minio_default=lambda: sets_minio)
    _judged(out, result)
    if result.fatal:
        return  # nothing is generated from a path holding a file that cannot be read: no second reading
    if isinstance(defaults, Diagnostic) and result.experiments:
        out.tally.problems.append(defaults)
        return
    compiled = compile_experiments(result.experiments, flags, defaults if isinstance(defaults, Defaults) else None,
                                   "yaml", keep_data=True)
    out.documents.extend(_compiled(r) for r in compiled)
    for data, own_text, line in _foreign_documents(text, limits):
        origin = f"{label}:{line}"
        group = group_of(data.get("apiVersion"))
        if group in CONFIG_GROUPS:
            continue
        out.documents.append(_document(data, None if json_source else own_text, origin, compiled=False))


def _foreign_documents(text: str, limits: Limits) -> Iterable[tuple[dict[str, Any], str | None, int]]:
    """Documents that are Kubernetes objects but not ours, with their own text (None for List items and JSON).

    Read as validate reads the same text (integrations.documents), so every document validate counted is
    here: JSON streams value by value, YAML split on ``---``. What cannot be read is skipped here because
    validate has already reported it, and any error stops generate."""
    from kubectl_testbench.integrations.documents import Document, read_documents

    for doc in read_documents(text, limits):
        if not isinstance(doc, Document) or not isinstance(doc.data, dict):
            continue
        data = doc.data
        line = doc.start_line + 1
        items = data.get("items")
        if data.get("kind") == "List" and data.get("apiVersion") == "v1" and isinstance(items, list):
            ours = any(isinstance(i, dict) and group_of(i.get("apiVersion")) == GROUP for i in items)
            if ours:  # compiled items leave the List: the others go out one by one
                for item in items:
                    if isinstance(item, dict) and _is_object(item) and group_of(item.get("apiVersion")) != GROUP:
                        yield item, None, line
                continue
        if _is_object(data) and group_of(data.get("apiVersion")) != GROUP:
            yield data, None if doc.text is None else _own_text(doc.text), line


def _own_text(text: str) -> str:
    """A document's text as it stands in its file, ending in exactly one newline."""
    return text.rstrip("\n") + "\n"


def _is_object(data: dict[str, Any]) -> bool:
    return isinstance(data.get("apiVersion"), str) and isinstance(data.get("kind"), str) and bool(data["kind"])


def _compiled(obj: Rendered) -> Document:
    """An object the pipeline compiled from an Experiment, as a document of the output."""
    assert obj.data is not None
    return Document(obj.key, _identity(obj.data), obj.text, obj.data, obj.origin, compiled=True)


def _identity(data: dict[str, Any]) -> tuple[str, str, str, str]:
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    return (group_of(data.get("apiVersion")), str(data.get("kind", "")), str(meta.get("namespace") or ""),
            str(meta.get("name", "")))


def _document(data: dict[str, Any], text: str | None, origin: str, compiled: bool) -> Document:
    from kubectl_testbench.emit.yamlout import dump

    return Document(sort_key(data), _identity(data), text if text is not None else dump(data), data, origin, compiled)


def _resolve_collisions(out: AppRender, namespace: str, twice: set[str]) -> None:
    """A manifest in the path that an Experiment also renders: the same object is kept once, a different
    one is an error (a stale rendered copy, or a name clash); the pipeline's :func:`meeting` decides. Objects
    meet at their identity, an object without a namespace in the command's. ``twice``: origins of
    Experiments defined more than once, already reported as such (their objects collide by construction)."""
    def key(doc: Document) -> tuple[str, str, str, str]:
        group, kind, ns, name = doc.identity
        return group, kind, ns or namespace, name

    compiled: dict[tuple[str, str, str, str], Document] = {}
    kept = []
    for doc in [d for d in out.documents if d.compiled]:
        first = compiled.setdefault(key(doc), doc)
        if first is not doc and not reported_as_clash(doc.origin, first.origin, twice):
            out.problems.append(_clash(doc, f"is also generated by the Experiment at {first.origin}",
                                       "rename one of the Experiments"))
    for doc in out.documents:
        twin = compiled.get(key(doc))
        if doc.compiled or twin is None:
            kept.append(doc)
        elif meeting(True, False, twin.data, doc.data) is Meeting.DIFFERENT:
            out.problems.append(_clash(doc, f"is also rendered from the Experiment at {twin.origin}, with "
                                            "different content", "remove or re-render the stale copy, or rename "
                                                                 "one of them"))
    out.documents = kept


def _clash(doc: Document, what: str, hint: str) -> Diagnostic:
    return duplicate(doc.origin, f"{doc.identity[1]} {doc.identity[3]} {what}", hint)
