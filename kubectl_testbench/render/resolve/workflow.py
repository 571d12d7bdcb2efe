"""Expand a TestWorkflow's ``use`` with its TestWorkflowTemplates and print each step as Testkube runs it.

Follows kubeshop/testkube, read for this (paths under ``pkg/testworkflows/``):

- ``testworkflowresolver/apply.go`` ``applyTemplatesToSpec``/``injectTemplateToSpec``: ``spec.use`` is applied
  from the last entry to the first; each template's ``setup``/``steps`` go before the workflow's own (so they
  run in ``use`` order), its ``after`` after them; ``spec.container`` and ``spec.content`` are merged with the
  workflow's on top.
- ``testworkflowresolver/merge.go`` ``MergeContainerConfig``: the included (workflow's) ``workingDir``,
  ``imagePullPolicy``, image with command and args win; env lists are appended and ``DedupeEnvVars``
  (dedupe.go) keeps the *last* entry of each name. So a workflow ``spec.container.env`` entry beats a
  template's ``spec.container.env`` entry of the same name.
- ``testworkflowresolver/config.go`` ``createConfigMachine``/``castParameter``: ``use[].config`` values
  (int-or-string; an int becomes its decimal string) are compiled as templates and cast to the parameter's
  type; given values are registered before defaults, so they win; a parameter neither given nor defaulted
  leaves ``config.x`` unresolved and ``configFinalizer`` fails the workflow. Testkube *ignores* a key the
  template does not declare (config_test.go): we refuse it, because a misspelt key silently runs the default.
- ``testworkflowprocessor/processor.go`` ``Bundle`` + ``operations.go`` + ``stage/container.go``: the root
  container is Testkube's default (env ``CI=1``, constants.go) with the workflow's container applied; each step
  is a child of it and ``run`` a child of the step. ``Env()`` is the parent's list then the child's, deduped
  keeping the last entry, so a *step's* own env beats the workflow's. ``Command()``/``Args()`` inherit unless
  the child sets them. ``content.files`` become volume mounts of the container they are declared on (the
  workflow's reach every step); relative mount paths are taken from the working directory, ``/data`` by
  default.
- ``testworkflowconfig/expressions.go``: the execution-time variables (``execution.*``, ``workflow.*``,
  ``resource.*``), given here as stated placeholders (:class:`ExecutionContext`).

What Testkube supports but a resolve here cannot show faithfully (``shell``, ``parallel``, ``services``,
``execute``, nested ``steps``, step-level ``use``/``template``, function calls in expressions) is refused with
an error naming the field, never approximated.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench import layout
from kubectl_testbench.render.resolve.expressions import (
    ExpressionError,
    UnknownVariable,
    Value,
    evaluate_template,
    render,
    to_bool,
    to_float,
    to_string,
)
from kubectl_testbench.render.resolve.model import (
    EnvValue,
    ExecutionContext,
    MountedFile,
    ResolvedStep,
    ResolvedWorkflow,
)

IMAGE_ENTRYPOINTS: dict[str, tuple[str, ...]] = {layout.TESTWORKFLOW_IMAGE: ("uv", "run", "python3")}
"""ENTRYPOINTs of the images we know, by repository (the phase image's Dockerfile@84cbca3:26)."""
TESTKUBE_ENV = (("CI", "1"),)
"""constants.go ``DefaultContainerConfig``: the root of every execution's containers."""
DATA_PATH = "/data"
"""constants.go ``DefaultDataPath``: the shared volume, and the base of relative mount paths."""
UNSUPPORTED_STEP_FIELDS = ("shell", "parallel", "services", "execute", "steps", "setup", "use", "template")


class ResolveError(ValueError):
    """A workflow Testkube would reject, or a feature this resolver refuses to approximate."""

    def __init__(self, location: str, message: str) -> None:
        super().__init__(f"{location}: {message}" if location else message)
        self.location = location
        self.message = message


@dataclass(frozen=True, slots=True)
class _Text:
    """A string of the spec with the variables it sees: the config of the template it came from."""

    text: str
    scope: _Scope
    where: str


@dataclass(slots=True)
class _Scope:
    """One template applied with its ``use[].config`` (or the workflow itself): its ``config.*`` values."""

    template: str = ""
    """The TestWorkflowTemplate, or ``""`` for the workflow itself."""
    raw: dict[str, tuple[str, str]] = field(default_factory=dict)
    """``name -> (template text, parameter type)`` for every given or defaulted parameter."""
    missing: dict[str, str] = field(default_factory=dict)
    """Declared parameters with neither a value nor a default: ``name -> why``."""
    cache: dict[str, Value] = field(default_factory=dict)

    def config(self, name: str, variables: Callable[[str], Value]) -> Value:
        if name in self.cache:
            return self.cache[name]
        if name in self.missing:
            raise UnknownVariable(f"config.{name}", self.missing[name])
        if name not in self.raw:
            raise UnknownVariable(f"config.{name}", "not a parameter of " + (self.template or "the workflow"))
        text, kind = self.raw[name]
        value = _cast(evaluate_template(text, variables), kind)
        self.cache[name] = value
        return value


def _cast(value: Value, kind: str) -> Value:
    """config.go ``castParameter``: the value in the parameter's declared type."""
    if kind == "integer":
        return int(to_float(value))
    if kind == "number":
        # expressions/stdlib.go ``CastToFloat`` calls the ``int`` function (``intCastStdFn``): Testkube 2.12.2
        # truncates a number parameter to an integer (0.5 -> 0), so a resolve that shows what runs does too
        return int(to_float(value))
    if kind == "boolean":
        return to_bool(value)
    return to_string(value)


@dataclass(slots=True)
class _Container:
    """A ContainerConfig with its strings still unevaluated (each knows its scope)."""

    image: _Text | None = None
    pull_policy: _Text | None = None
    command: list[_Text] | None = None
    args: list[_Text] | None = None
    working_dir: _Text | None = None
    env: list[tuple[str, _Text | dict[str, Any]]] = field(default_factory=list)

    def merge(self, include: _Container) -> _Container:
        """merge.go ``MergeContainerConfig(self, include)``: ``include`` wins; env appended and deduped."""
        out = _Container(self.image, self.pull_policy, self.command, self.args, self.working_dir,
                         _dedupe(self.env + include.env))
        if include.working_dir is not None:
            out.working_dir = include.working_dir
        if include.pull_policy is not None:
            out.pull_policy = include.pull_policy
        if include.image is not None:
            out.image, out.command, out.args = include.image, include.command, include.args
        elif include.command is not None:
            out.command, out.args = include.command, include.args
        elif include.args is not None:
            out.args = include.args
        return out


_DEFAULT_ENV = tuple((name, _Text(value, _Scope(), "Testkube default")) for name, value in TESTKUBE_ENV)
"""The root container's env: constants, no expression in them."""


def _dedupe(env: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """dedupe.go ``DedupeEnvVars``: the last entry of each name, in the order of those last entries."""
    seen: set[str] = set()
    kept: list[tuple[str, Any]] = []
    for name, value in reversed(env):
        if name not in seen:
            seen.add(name)
            kept.append((name, value))
    kept.reverse()  # one reversal, not an insert at the front per entry (quadratic: 50,000 env vars took 3 s)
    return kept


@dataclass(slots=True)
class _Step:
    template: str
    scope: _Scope
    where: str
    spec: dict[str, Any]


def _dict(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ResolveError(where, "must be an object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ResolveError(where, "must be a list")
    return value


def _text(value: Any, scope: _Scope, where: str) -> _Text:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ResolveError(where, "must be a string")
    return _Text(str(value), scope, where)


def _container(spec: Any, scope: _Scope, where: str) -> _Container:
    data = _dict(spec, where)
    out = _Container()
    if data.get("image"):
        out.image = _text(data["image"], scope, f"{where}.image")
    if data.get("imagePullPolicy"):
        out.pull_policy = _text(data["imagePullPolicy"], scope, f"{where}.imagePullPolicy")
    if data.get("command") is not None:
        out.command = [_text(v, scope, f"{where}.command[{i}]") for i, v in
                       enumerate(_list(data["command"], f"{where}.command"))]
    if data.get("args") is not None:
        out.args = [_text(v, scope, f"{where}.args[{i}]") for i, v in enumerate(_list(data["args"], f"{where}.args"))]
    if data.get("workingDir") is not None:
        out.working_dir = _text(data["workingDir"], scope, f"{where}.workingDir")
    for i, item in enumerate(_list(data.get("env"), f"{where}.env")):
        entry = _dict(item, f"{where}.env[{i}]")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise ResolveError(f"{where}.env[{i}]", "has no name")
        if entry.get("valueFrom") is not None:
            out.env.append((name, {"valueFrom": entry["valueFrom"], "scope": scope, "where": f"{where}.env[{i}]"}))
        else:
            out.env.append((name, _text(entry.get("value", ""), scope, f"{where}.env[{i}].value")))
    for key in ("envFrom", "volumeMounts"):
        if data.get(key):
            raise ResolveError(f"{where}.{key}", "is not supported by render --resolve")
    return out


def _config_scope(schema: Any, template: str = "", use: tuple[str, Any, bool] | None = None) -> _Scope:
    """The parameters ``schema`` declares with their values: given by ``use`` = ``(label, use[].config, strict)``
    for a template, none for the workflow's own ``spec.config`` (a run passes those)."""
    scope = _Scope(template)
    at = f"{template}.spec.config" if use else "spec.config"
    declared = _dict(schema, at)
    values: dict[str, Any] = {}
    if use is not None:
        label, given, strict = use
        values = _dict(given, f"{label} config")
        for key in values:
            if key not in declared and strict:
                raise ResolveError(f"{label} config.{key}", f"is not declared by {template}; Testkube ignores such "
                                   "a key and runs the template's default instead")
    for key, entry in declared.items():
        entry = _dict(entry, f"{at}.{key}")
        kind = str(entry.get("type"))  # castParameter: anything but integer, number, boolean is a string
        if key in values:
            raw = values[key]
            if isinstance(raw, bool) or not isinstance(raw, (str, int)):
                raise ResolveError(f"{label} config.{key}", f"must be a string or an integer (int-or-string), got "
                                   f"{type(raw).__name__}")
            scope.raw[key] = (str(raw), kind)
        elif entry.get("default") is not None:
            scope.raw[key] = (str(entry["default"]), kind)
        else:
            scope.missing[key] = (f"a required parameter of {template} that {use[0]} does not give" if use
                                  else "the workflow declares it without a default: a run must pass it")
    return scope


@dataclass(slots=True)
class _Expanded:
    """The workflow after ``use`` is applied: one merged container, content files, and the steps in order."""

    container: _Container
    files: list[tuple[dict[str, Any], _Scope, str]]
    steps: list[_Step]


def _expand(workflow: dict[str, Any], templates: Mapping[str, dict[str, Any]], namespace: str,
            strict: bool) -> _Expanded:
    spec = _dict(workflow.get("spec"), "spec")
    for key in ("services", "pvcs"):
        if spec.get(key):
            raise ResolveError(f"spec.{key}", "is not supported by render --resolve")
    own = _config_scope(spec.get("config"))
    container = _container(spec.get("container"), own, "spec.container")
    files = [(f, own, f"spec.content.files[{i}]") for i, f in
             enumerate(_list(_dict(spec.get("content"), "spec.content").get("files"), "spec.content.files"))]
    setup = [_Step("", own, f"spec.setup[{i}]", _dict(s, f"spec.setup[{i}]"))
             for i, s in enumerate(_list(spec.get("setup"), "spec.setup"))]
    steps = [_Step("", own, f"spec.steps[{i}]", _dict(s, f"spec.steps[{i}]"))
             for i, s in enumerate(_list(spec.get("steps"), "spec.steps"))]
    after = [_Step("", own, f"spec.after[{i}]", _dict(s, f"spec.after[{i}]"))
             for i, s in enumerate(_list(spec.get("after"), "spec.after"))]
    uses = _list(spec.get("use"), "spec.use")
    for i in range(len(uses) - 1, -1, -1):  # apply.go: from the last use to the first
        use = _dict(uses[i], f"spec.use[{i}]")
        name = str(use.get("name") or "")
        if not name:
            raise ResolveError(f"spec.use[{i}]", "has no name (the TestWorkflowTemplate to use)")
        label = f"spec.use[{i}] ({name})"
        template = templates.get(name)
        if template is None:
            raise ResolveError(f"spec.use[{i}]", f"template {name!r} not found (have: {', '.join(sorted(templates))})")
        tmeta = _dict(template.get("metadata"), f"{name}.metadata")
        if tmeta.get("namespace") not in (None, "", namespace):
            raise ResolveError(f"spec.use[{i}]", f"template {name!r} is in namespace {tmeta['namespace']!r}; a "
                               f"TestWorkflow in {namespace!r} can only use templates of its own namespace")
        tspec = _dict(template.get("spec"), f"{name}.spec")
        for key in ("services", "pvcs"):
            if tspec.get(key):
                raise ResolveError(f"{label} spec.{key}", "is not supported by render --resolve")
        scope = _config_scope(tspec.get("config"), name, (label, use.get("config"), strict))
        container = _container(tspec.get("container"), scope, f"{label} spec.container").merge(container)
        tfiles = _list(_dict(tspec.get("content"), f"{label} spec.content").get("files"), f"{label} spec.content.files")
        files = [(f, scope, f"{label} spec.content.files[{j}]") for j, f in enumerate(tfiles)] + files
        setup = [_Step(name, scope, f"{label} spec.setup[{j}]", _dict(s, f"{label} spec.setup[{j}]"))
                 for j, s in enumerate(_list(tspec.get("setup"), f"{label} spec.setup"))] + setup
        steps = [_Step(name, scope, f"{label} spec.steps[{j}]", _dict(s, f"{label} spec.steps[{j}]"))
                 for j, s in enumerate(_list(tspec.get("steps"), f"{label} spec.steps"))] + steps
        after = after + [_Step(name, scope, f"{label} spec.after[{j}]", _dict(s, f"{label} spec.after[{j}]"))
                         for j, s in enumerate(_list(tspec.get("after"), f"{label} spec.after"))]
    return _Expanded(container, files, setup + steps + after)


class _Evaluator:
    """Evaluates the texts of one step: config from their scope, ``env.*`` from the step's env, the rest from
    the execution's placeholders."""

    def __init__(self, variables: dict[str, Value], env: list[tuple[str, _Text | dict[str, Any]]]) -> None:
        self.variables = variables
        self.env = env
        self.resolving: list[str] = []
        """The env variables being evaluated, outermost first (a name met again is a cycle)."""

    def lookup_for(self, scope: _Scope) -> Callable[[str], Value]:
        def lookup(name: str) -> Value:
            if name.startswith("config."):
                return scope.config(name[len("config."):], self.plain)
            if name.startswith("env."):
                return self.env_value(name[len("env."):])
            return self.plain(name)

        return lookup

    def plain(self, name: str) -> Value:
        """execution.*, workflow.*, resource.* … (accessor.go: whole name first, then a property of its prefix)."""
        found, value = self._find(name)
        if not found:
            raise UnknownVariable(name, "not a variable Testkube provides to a TestWorkflow")
        return value

    def _find(self, name: str) -> tuple[bool, Value]:
        if name in self.variables:
            return True, self.variables[name]
        prefix, _, prop = name.rpartition(".")
        if prefix:
            base = self._find(prefix)[1]  # None when not found
            if isinstance(base, dict) and prop in base:
                return True, base[prop]
        return False, None

    def env_value(self, name: str) -> Value:
        for env_name, value in reversed(self.env):
            if env_name != name:
                continue
            if not isinstance(value, _Text):
                raise UnknownVariable(f"env.{name}", "set from a reference: its value is only known in the cluster")
            if name in self.resolving:
                cycle = [*self.resolving[self.resolving.index(name):], name]
                raise ExpressionError(f"env.{name} refers to itself" + (
                    f" ({' -> '.join('env.' + n for n in cycle)})" if len(cycle) > 2 else ""))
            self.resolving.append(name)
            try:
                return self.text(value)
            finally:
                self.resolving.pop()
        raise UnknownVariable(f"env.{name}", "not set on this step")

    def text(self, item: _Text) -> str:
        try:
            return render(item.text, self.lookup_for(item.scope))
        except ExpressionError as err:
            raise ResolveError(item.where, str(err)) from None

    def deep(self, value: Any, scope: _Scope, where: str) -> Any:
        """Every string inside a ``valueFrom``/``contentFrom`` reference, evaluated."""
        if isinstance(value, str):
            return self.text(_Text(value, scope, where))
        if isinstance(value, dict):
            return {k: self.deep(v, scope, f"{where}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [self.deep(v, scope, f"{where}[{i}]") for i, v in enumerate(value)]
        return value


def _join(parent: str, child: str) -> str:
    """expressions/stdlib.go ``makepath(parent, child)``: an absolute child as it is, a child as it is under no
    parent (so a working dir nothing absolute sets stays relative: to the image's WORKDIR, which only the
    cluster knows), else Go's ``filepath.Join`` (cleaned; an empty child cleans the parent)."""
    if child.startswith("/") or not parent:
        return child
    return posixpath.normpath(posixpath.join(parent, child))


def _repository(image: str) -> str:
    """``registry:5000/org/name:tag@sha256:…`` -> ``registry:5000/org/name`` (a tag follows the last ``/``)."""
    name = image.partition("@")[0]
    head, colon, tag = name.rpartition(":")
    return head if colon and "/" not in tag else name


def _step(item: _Step, root: _Container, root_files: list[tuple[dict[str, Any], _Scope, str]],
          variables: dict[str, Value], configmaps: Mapping[tuple[str, str], dict[str, Any]] | None, namespace: str,
          entrypoints: Mapping[str, tuple[str, ...]], index: int) -> ResolvedStep:
    spec, where = item.spec, item.where
    for key in UNSUPPORTED_STEP_FIELDS:
        if spec.get(key):
            raise ResolveError(f"{where}.{key}", "is not supported by render --resolve")
    run = _dict(spec.get("run"), f"{where}.run")
    if not run:
        raise ResolveError(where, "runs nothing (no run): render --resolve shows only run steps")
    if run.get("shell"):
        raise ResolveError(f"{where}.run.shell", "is not supported by render --resolve")
    layers = [root]
    step_container = _container(spec.get("container"), item.scope, f"{where}.container")
    if spec.get("workingDir") is not None:
        step_container.working_dir = _text(spec["workingDir"], item.scope, f"{where}.workingDir")
    layers.append(step_container)
    layers.append(_container(run, item.scope, f"{where}.run"))

    env: list[tuple[str, _Text | dict[str, Any]]] = []
    for layer in layers:
        env += layer.env
    env = _dedupe(env)
    ev = _Evaluator(variables, env)

    image = ""
    pull_policy = ""
    command: list[_Text] | None = None
    args: list[_Text] | None = None
    working_dir = ""
    for layer in layers:  # container.go: Image/ImagePullPolicy nearest set; Command/Args inherited unless set
        if layer.image is not None:
            image = ev.text(layer.image)
        if layer.pull_policy is not None:
            pull_policy = ev.text(layer.pull_policy)
        if layer.command is not None:
            command, args = layer.command, layer.args
        elif layer.args:
            args = layer.args
        # stage/container.go ``WorkingDir``: the root's own path, then makepath(parent, own or "") per child
        own = ev.text(layer.working_dir) if layer.working_dir is not None else ""
        working_dir = own if layer is root else _join(working_dir, own)
    if not image:
        raise ResolveError(where, "sets no image: Testkube would run its own init image")
    resolved_env: dict[str, EnvValue] = {}
    for name, value in env:
        # Testkube resolves every string of an env entry (``expr:"force"`` on ContainerConfig.Env), the name too
        if isinstance(value, _Text):
            shown = ev.text(_Text(name, value.scope, value.where.removesuffix(".value") + ".name"))
            resolved_env[shown] = EnvValue(value=ev.text(value))
        else:
            shown = ev.text(_Text(name, value["scope"], f"{value['where']}.name"))
            resolved_env[shown] = EnvValue(value_from=ev.deep(value["valueFrom"], value["scope"],
                                                              f"{value['where']}.valueFrom"))
    files = [_file(f, scope, fwhere, ev, working_dir, configmaps, namespace) for f, scope, fwhere in root_files]
    files += [_file(f, item.scope, f"{where}.content.files[{i}]", ev, working_dir, configmaps, namespace)
              for i, f in enumerate(_list(_dict(spec.get("content"), f"{where}.content").get("files"),
                                          f"{where}.content.files"))]
    artifacts = [ev.text(_text(p, item.scope, f"{where}.artifacts.paths[{i}]")) for i, p in
                 enumerate(_list(_dict(spec.get("artifacts"), f"{where}.artifacts").get("paths"),
                                 f"{where}.artifacts.paths"))]
    from_image = command is None
    return ResolvedStep(
        name=str(spec.get("name") or f"step-{index}"),
        template=item.template,
        image=image,
        image_pull_policy=pull_policy,
        command=list(entrypoints.get(_repository(image), ())) if from_image else [ev.text(t) for t in command or []],
        entrypoint_from_image=from_image,
        args=[ev.text(t) for t in args or []],
        working_dir=working_dir,
        env=resolved_env,
        files=files,
        artifacts=artifacts,
    )


def _file(spec: Any, scope: _Scope, where: str, ev: _Evaluator, working_dir: str,
          configmaps: Mapping[tuple[str, str], dict[str, Any]] | None, namespace: str) -> MountedFile:
    data = _dict(spec, where)
    if not data.get("path"):
        raise ResolveError(where, "has no path")
    path = _join(working_dir or DATA_PATH, ev.text(_text(data["path"], scope, f"{where}.path")))
    source = data.get("contentFrom")
    if source is None:
        return MountedFile(path, {"inline": True}, ev.text(_text(data.get("content", ""), scope, f"{where}.content")))
    ref = ev.deep(_dict(source, f"{where}.contentFrom"), scope, f"{where}.contentFrom")
    if "configMapKeyRef" in ref:
        cm_ref = _dict(ref["configMapKeyRef"], f"{where}.contentFrom.configMapKeyRef")
        content: str | None = None
        if configmaps is not None:
            cm = configmaps.get((namespace, str(cm_ref.get("name"))))
            data_map = _dict((cm or {}).get("data"), f"ConfigMap {cm_ref.get('name')}.data")
            if cm is None or cm_ref.get("key") not in data_map:
                raise ResolveError(f"{where}.contentFrom.configMapKeyRef", f"ConfigMap {namespace}/{cm_ref.get('name')}"
                                   f" key {cm_ref.get('key')!r} is not among the given ConfigMaps")
            content = str(data_map[cm_ref["key"]])
        return MountedFile(path, {"configMapKeyRef": cm_ref}, content)
    if "secretKeyRef" in ref:
        return MountedFile(path, {"secretKeyRef": ref["secretKeyRef"]})  # a Secret's content is never known
    raise ResolveError(f"{where}.contentFrom", "only configMapKeyRef and secretKeyRef are supported")


def resolve_workflow(workflow: dict[str, Any], templates: Mapping[str, dict[str, Any]], *,
                     execution: ExecutionContext | None = None,
                     configmaps: Mapping[tuple[str, str], dict[str, Any]] | None = None,
                     entrypoints: Mapping[str, tuple[str, ...]] = IMAGE_ENTRYPOINTS,
                     strict_config: bool = True) -> ResolvedWorkflow:
    """Every step of ``workflow`` as Testkube will run it.

    ``templates`` maps TestWorkflowTemplate names to the templates (as YAML/JSON data); ``configmaps`` maps
    ``(namespace, name)`` to ConfigMaps so mounted files carry their content (None: content not looked up).
    ``strict_config`` refuses ``use[].config`` keys the template does not declare. Raises
    :class:`ResolveError` (location + message) for anything Testkube would reject or we cannot show exactly.
    """
    execution = execution or ExecutionContext()
    meta = _dict(workflow.get("metadata"), "metadata")
    name, namespace = str(meta.get("name", "")), str(meta.get("namespace", ""))
    expanded = _expand(workflow, templates, namespace, strict_config)
    root = _Container(env=list(_DEFAULT_ENV))
    root = root.merge(expanded.container)
    variables = execution.variables(name, _dict(meta.get("labels"), "metadata.labels"))
    steps = [_step(item, root, expanded.files, variables, configmaps, namespace, entrypoints, i)
             for i, item in enumerate(expanded.steps)]
    if not steps:
        raise ResolveError("spec", "has nothing to run (Testkube: test workflow has nothing to run)")
    return ResolvedWorkflow(name, namespace, steps)
