"""A KRM function (kustomize, kpt): Experiments in a ``ResourceList`` become their rendered resources.

The function specification: a ``ResourceList`` (``config.kubernetes.io/v1``) arrives on stdin with
``items`` and a ``functionConfig``; the same list goes back on stdout with the items transformed and
problems reported as ``results`` (severity, message, resourceRef, field.path, file.path). Everything
here is pure: the caller reads, writes and chooses the exit code (non-zero when an error result exists).

Configuration (``functionConfig``): a ConfigMap or a ``RenderExperiments`` object
(``fn.testbench.agentic-layer.ai/v1alpha1``) whose ``data`` holds
the render flags by their command-line names (``mode: render|validate``, ``namespace``,
``testkube-namespace``, ``agent-url``, ``agent-port``, ``ai-gateway-url``, ``ai-gateway-port``,
``include-experiment``, ``argocd-sync-waves``, ``strict``), or a ``RenderDefaults`` object. A
``RenderDefaults`` among the items (the ``testbench-defaults.yaml`` a kustomization lists) supplies
defaults too and is consumed by rendering, since it is not a Kubernetes resource.

Orchestrators track each item's file in ``internal.config.kubernetes.io/path`` (kpt, kustomize ≥ 4;
``config.kubernetes.io/path`` in older ones) or ``config.kubernetes.io/origin`` (kustomize's
``buildMetadata: [originAnnotations]``). Results point at that file. Rendered objects are placed beside
their Experiment under the file name ``render --output-dir`` would use, so ``kpt fn sink`` writes the
same layout; kept items keep every annotation untouched so orchestrators can match them.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import posixpath
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubectl_testbench.integrations.documents import Document, Problem, read_documents
from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.model.constants import DEFAULT_NAMESPACE, DEFAULTS_KIND, GROUP
from kubectl_testbench.model.render_settings import (
    FLAG_SETTINGS,
    KRM_SETTINGS,
    PORT_RANGE,
    parse_port,
)
from kubectl_testbench.model.url_templates import template_problem
from kubectl_testbench.render.settings import Defaults, Flags
from kubectl_testbench.rules.krm import KRM_CONFIG, KRM_DEFAULTS, KRM_INPUT, KRM_SUMMARY
from kubectl_testbench.rules.render import RENDER_DUPLICATE
from kubectl_testbench.rules.selection import ALL_RULES, Selection
from kubectl_testbench.safe_text import LEGACY_COMMAND, display_path, escape_controls
from kubectl_testbench.validate.objects import group_of

if TYPE_CHECKING:
    from kubectl_testbench.validate.diagnostics import Diagnostic
    from kubectl_testbench.validate.duplicates import Identity

RESOURCE_LIST = "ResourceList"
RESOURCE_LIST_API = "config.kubernetes.io/v1"
FUNCTION_KIND = "RenderExperiments"
FUNCTION_API = "fn.testbench.agentic-layer.ai/v1alpha1"
"""The typed functionConfig; its own group, so validate and render skip it like any foreign kind."""
PATH_KEYS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
INDEX_KEYS = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")
ORIGIN_KEY = "config.kubernetes.io/origin"
BOOKKEEPING = ("config.kubernetes.io/", "internal.config.kubernetes.io/", "config.k8s.io/", "kustomize.config.k8s.io/")
"""Annotation prefixes orchestrators add for their own tracking; stripped before an Experiment is validated."""

MODES = ("render", "validate")


def _keys(*kinds: str) -> tuple[str, ...]:
    return tuple(s.krm_key for s in KRM_SETTINGS if s.kind in kinds and s.krm_key)


BOOLEAN_KEYS = _keys("switch", "tristate")
PORT_KEYS = _keys("port")
NAMESPACE_KEYS = _keys("namespace")
"""Values that become metadata.namespace of rendered objects and part of their file names (path annotations)."""
URL_KEYS = _keys("url")
TEXT_KEYS = (*NAMESPACE_KEYS, *URL_KEYS)
CONFIG_KEYS = ("mode", *TEXT_KEYS, *PORT_KEYS, *BOOLEAN_KEYS)
"""The keys of ``functionConfig.data``: the mode, then the render settings from the table
(model/render_settings)."""
_FLAG_NAMES = {"namespace", *(s.name for s in FLAG_SETTINGS)}
_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")


class InputError(Exception):
    """The input is not a ResourceList (or resource stream) this function can read at all; ``problem`` says
    where, when a document could not be read."""

    def __init__(self, message: str, problem: Problem | None = None) -> None:
        super().__init__(message)
        self.problem = problem


@dataclass(frozen=True)
class Result:
    """One entry of ``ResourceList.results``."""

    message: str
    severity: str = "error"
    resource: dict[str, Any] | None = None
    field_path: str = ""
    file_path: str = ""
    file_index: int | None = None
    rule: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The result as orchestrators read it. kpt and kustomize print message, resourceRef and paths as
        they are, so user text in them is escaped (one line, no control characters)."""
        out: dict[str, Any] = {"message": escape_controls(self.message), "severity": self.severity}
        if self.resource is not None:
            out["resourceRef"] = {k: escape_controls(v) for k, v in resource_ref(self.resource).items()}
        if self.field_path:
            out["field"] = {"path": escape_controls(self.field_path)}
        if self.file_path:
            path = escape_controls(self.file_path)
            out["file"] = {"path": path} if self.file_index is None else {"path": path, "index": self.file_index}
        if self.rule:
            out["tags"] = {"rule": self.rule}
        return out

    def text(self) -> str:
        """A one-line, grep-friendly form for stderr (kustomize shows a failing function's stderr)."""
        where = f"{display_path(self.file_path)}: " if self.file_path else ""
        obj = ""
        if self.resource is not None:
            ref = resource_ref(self.resource)
            ns = f"{ref['namespace']}/" if ref.get("namespace") else ""
            obj = f" {ref.get('kind') or '(no kind)'} {ns}{ref.get('name') or '(no name)'}"
        rule = f"[{self.rule}]" if self.rule else ""
        fpath = f" {self.field_path}:" if self.field_path else ""
        return escape_controls(f"{where}{self.severity}{rule}{obj}{fpath} {self.message}")


@dataclass(frozen=True)
class Config:
    """What the function was asked to do."""

    mode: str = "render"
    flags: Flags = field(default_factory=Flags)
    strict: bool = False
    defaults: Defaults | None = None


def namespace_problem(value: str) -> str | None:
    """Why a configured namespace cannot be used (not a DNS-1123 label, as the API server requires), or None."""
    from kubectl_testbench.k8snames import dns1123_label_error

    problem = dns1123_label_error(value) if value else None
    return None if problem is None else f"is not a valid namespace: {problem}"


def resource_ref(obj: dict[str, Any]) -> dict[str, str]:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    ref = {"apiVersion": _text(obj.get("apiVersion")), "kind": _text(obj.get("kind")),
           "name": _text(meta.get("name"))}
    if meta.get("namespace"):
        ref["namespace"] = _text(meta["namespace"])
    return ref


def _text(value: Any) -> str:
    """A field as text for a resourceRef: missing or null is empty, never the word "None"."""
    return value if isinstance(value, str) else "" if value is None else str(value)


def annotations_of(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    anns = meta.get("annotations") if isinstance(meta, dict) else None
    return anns if isinstance(anns, dict) else {}


def source_file(obj: dict[str, Any]) -> tuple[str, int | None]:
    """The file an item came from and its document index there, from the orchestrator's annotations."""
    anns = annotations_of(obj)
    path = next((str(anns[k]) for k in PATH_KEYS if anns.get(k)), "")
    index_text = next((str(anns[k]) for k in INDEX_KEYS if anns.get(k) is not None), "")
    if not path and isinstance(anns.get(ORIGIN_KEY), str):
        # YAML inside an annotation: read within the limits like any input (PyYAML recursed on deep text)
        origin = next((d.data for d in read_documents(anns[ORIGIN_KEY]) if isinstance(d, Document)), None)
        if isinstance(origin, dict) and isinstance(origin.get("path"), str):
            path = origin["path"]
    return path, int(index_text) if index_text.isdigit() else None


# --- configuration ----------------------------------------------------------------------------------------


def parse_config(function_config: Any) -> tuple[Config, list[Result]]:
    """The function's settings from its ``functionConfig``; unusable values become error results."""
    if function_config is None or function_config == {}:
        return Config(), []
    if not isinstance(function_config, dict):
        return Config(), [Result("functionConfig must be an object", rule=KRM_CONFIG.id)]
    if function_config.get("kind") == DEFAULTS_KIND and group_of(function_config.get("apiVersion")) == GROUP:
        defaults, findings = read_defaults(function_config)
        return Config(defaults=defaults), findings
    kind, api_version = function_config.get("kind"), function_config.get("apiVersion")
    if (kind, api_version) not in (("ConfigMap", "v1"), (FUNCTION_KIND, FUNCTION_API)):
        return Config(), [Result(f"functionConfig {kind or '(no kind)'} ({api_version or 'no apiVersion'}) is not "
                                 f"one this function reads: use a ConfigMap (v1) or {FUNCTION_KIND} "
                                 f"({FUNCTION_API}) with data, or a {DEFAULTS_KIND} ({GROUP}/v1alpha1)",
                                 resource=function_config, rule=KRM_CONFIG.id)]
    data = function_config.get("data") or {}
    if not isinstance(data, dict):
        return Config(), [Result("functionConfig.data must be a map of strings", resource=function_config,
                                 field_path="data", rule=KRM_CONFIG.id)]
    problems: list[Result] = []

    def bad(key: str, message: str) -> None:
        problems.append(Result(message, resource=function_config, field_path=f"data.{key}", rule=KRM_CONFIG.id))

    values: dict[str, str] = {}
    for key, value in data.items():
        if key not in CONFIG_KEYS:
            bad(str(key), f"unknown key {key!r} (known: {', '.join(CONFIG_KEYS)})")
        elif value is None or isinstance(value, (dict, list)):
            bad(key, f"{key} must be a string")
        else:
            values[key] = ("true" if value else "false") if isinstance(value, bool) else str(value).strip()
    mode = values.get("mode", "render") or "render"
    if mode not in MODES:
        bad("mode", f"mode must be render or validate, not {mode!r}")
        mode = "render"
    booleans: dict[str, bool | None] = {}
    for key in BOOLEAN_KEYS:
        text = values.get(key, "").lower()
        booleans[key] = True if text in _TRUE else False if text in _FALSE else None
        if text and booleans[key] is None:
            bad(key, f"{key} must be true or false, not {values[key]!r}")
    ports: dict[str, int | None] = {}
    for key in PORT_KEYS:
        text = values.get(key, "")
        ports[key] = parse_port(text)
        if text and ports[key] is None:
            bad(key, f"{key} must be a port number ({PORT_RANGE}), not {text!r}")
    for key in URL_KEYS:
        problem = template_problem(values[key]) if values.get(key) else None
        if problem is not None:
            bad(key, f"{key} {values[key]!r}: {problem}")
    for key in NAMESPACE_KEYS:
        problem = namespace_problem(values.get(key) or "")
        if problem is not None:
            bad(key, f"{key} {values[key]!r} {problem}")
            values[key] = ""  # never into names or config.kubernetes.io/path: '../x' would leave the package
    given: dict[str, Any] = {**{k: values.get(k) or None for k in TEXT_KEYS}, **ports, **booleans}
    chosen = {s.name: given[s.krm_key] for s in KRM_SETTINGS if s.name in _FLAG_NAMES and s.krm_key}
    flags = Flags(**{**chosen, "namespace": chosen["namespace"] or DEFAULT_NAMESPACE,
                     "include_experiment": bool(chosen["include_experiment"])})
    return Config(mode=mode, flags=flags, strict=bool(booleans["strict"])), problems


def read_defaults(doc: dict[str, Any]) -> tuple[Defaults | None, list[Result]]:
    """A RenderDefaults object (an item or the functionConfig), checked against its schema."""
    from kubectl_testbench.validate.defaults_document import check_defaults_document

    path, index = source_file(doc)
    clean = _without_bookkeeping(doc)
    findings = check_defaults_document(clean, path)
    if findings:
        return None, [Result(d.message, "error", doc, d.path, path, index, d.rule) for d in findings]
    spec = clean.get("spec") if isinstance(clean.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    namespace = spec.get("testkubeNamespace")
    problem = namespace_problem(namespace) if isinstance(namespace, str) else None
    if problem is not None:  # it becomes part of file names in config.kubernetes.io/path
        return None, [Result(f"testkubeNamespace {namespace!r} {problem}", "error", doc, "spec.testkubeNamespace",
                             path, index, KRM_CONFIG.id)]
    return Defaults.from_spec(spec, path or DEFAULTS_KIND), []


# --- the transformation -------------------------------------------------------------------------------------


def transform(items: list[Any], function_config: Any, limits: Limits = DEFAULT_LIMITS,
              rules: Selection = ALL_RULES) -> tuple[list[Any], list[Result]]:
    """Validate every Experiment in ``items`` (within ``limits``; ``rules``: which rules are reported, the
    configuration file's); in render mode replace each valid one by its objects."""
    from kubectl_testbench.pipeline.policy import Tally

    config, results = parse_config(function_config)
    defaults_items = {i for i, item in enumerate(items)
                      if isinstance(item, dict) and item.get("kind") == DEFAULTS_KIND
                      and group_of(item.get("apiVersion")) == GROUP}
    defaults = config.defaults
    for i in sorted(defaults_items):
        found, problems = read_defaults(items[i])
        results.extend(problems)
        if found is None:
            continue
        if defaults is not None:
            path, index = source_file(items[i])
            results.append(Result(f"a second RenderDefaults ({defaults.source} is already in use); keep one",
                                  resource=items[i], file_path=path, file_index=index, rule=KRM_DEFAULTS.id))
            continue
        defaults = found
    render = config.mode == "render"
    flags = dataclasses.replace(config.flags, include_experiment=False)
    out: list[Any] = []
    rendered: list[tuple[dict[str, Any], dict[str, Any]]] = []
    tally = Tally(config.strict)
    owner: dict[int, int] = {}
    """The item each Experiment's identity came from (by the identity's id)."""
    experiments = 0
    valid = 0
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            results.append(Result(f"items[{i}] is not an object", rule=KRM_INPUT.id))
            out.append(item)
            continue
        if i in defaults_items:
            if not render:
                out.append(item)
            continue
        if group_of(item.get("apiVersion")) != GROUP:
            out.append(item)
            continue
        experiments += 1
        data, item_results, identities = check_experiment(item, i, config.strict,
                                                          defaults is not None and defaults.names_gateway, limits,
                                                          rules,
                                                          minio_default=defaults is not None and defaults.sets_minio)
        results.extend(item_results)
        owner.update((id(ident), i) for ident in identities)
        tally.identities.extend(identities)
        if data is None:
            out.append(item)
            continue
        valid += 1
        if not render:
            out.append(item)
            continue
        objects = render_item(item, data, flags, defaults)
        rendered.extend((obj, item) for obj in objects)
        out.extend(objects)
        if config.flags.include_experiment:
            kept = copy.deepcopy(item)
            kept.setdefault("metadata", {}).setdefault("namespace", data["metadata"].get("namespace")
                                                       or config.flags.namespace)
            out.append(kept)
    clashes = tally.clashes(config.flags.namespace, where=lambda ident: _item_place(items, owner[id(ident)]))
    clashing: set[int] = set()
    for (extra, first), problem in zip(clashes.copies, clashes.diagnostics, strict=True):
        item = items[owner[id(extra)]]
        clashing.update((id(item), id(items[owner[id(first)]])))
        results.append(_result(problem, item, config.strict))
    valid -= clashes.invalidated
    results.extend(collisions(out, rendered, clashing))
    if experiments:
        verb = "rendered" if render else "validated"
        made = f" into {len(rendered)} objects" if render else ""
        results.append(Result(f"{verb} {valid} of {experiments} Experiments{made}", severity="info",
                              rule=KRM_SUMMARY.id))
    return out, results


def check_experiment(item: dict[str, Any], index: int, strict: bool, gateway_default: bool = False,
                     limits: Limits = DEFAULT_LIMITS,
                     rules: Selection = ALL_RULES, minio_default: bool = False,
                     ) -> tuple[dict[str, Any] | None, list[Result], list[Identity]]:
    """Validate one item as ``kubectl testbench validate`` would: the Experiment as stored when valid, the
    findings, and what it is called (for the clash check over all items, which validate makes over all files).
    ``gateway_default``: the RenderDefaults in use names an AI gateway (no ``semantic/no-gateway`` then);
    ``minio_default``: it sets a MinIO setting (no ``semantic/s3-default-minio`` then)."""
    from kubectl_testbench.validate.engine import Keep, Options, validate_text

    path, _ = source_file(item)
    label = path or f"items[{index}]"
    result = validate_text(json.dumps(_without_bookkeeping(item), ensure_ascii=False), label,
                           Options(strict, limits, rules), gateway_default=lambda: gateway_default,
                           keep=Keep(experiments=True), minio_default=lambda: minio_default)
    results = [_result(d, item, strict) for d in result.diagnostics]
    if result.experiments:
        return result.experiments[0].data, results, result.identities
    return None, results, result.identities


def _result(d: Diagnostic, item: dict[str, Any], strict: bool) -> Result:
    """A finding about ``item`` as a ResourceList result (``--strict``: a warning is an error)."""
    from kubectl_testbench.pipeline.policy import fails

    path, file_index = source_file(item)
    severity = "error" if fails(d, strict) else d.severity.value
    message = d.message + (f" (hint: {d.hint})" if d.hint else "")
    return Result(message, severity, item, d.path, path, file_index, d.rule)


def _item_place(items: list[Any], index: int) -> str:
    """An item as a finding names it: its file and index within the file as the orchestrator gave them, or its
    place in the list."""
    path, file_index = source_file(items[index])
    if not path:
        return f"items[{index}]"
    return path if file_index is None else f"{path} (document {file_index})"


def render_item(item: dict[str, Any], data: dict[str, Any], flags: Flags,
                defaults: Defaults | None) -> list[dict[str, Any]]:
    """The Experiment's objects, placed beside it with the orchestrator's path annotations."""
    from kubectl_testbench.emit.order import file_name
    from kubectl_testbench.render.compile import render_experiment

    anns = annotations_of(item)
    path, _ = source_file(item)
    objects = render_experiment(data, flags, defaults)
    for obj in objects:
        keys = [k for k in PATH_KEYS if anns.get(k)]
        if not keys:
            continue
        target = posixpath.join(posixpath.dirname(path), file_name(obj))
        meta_anns = obj["metadata"].setdefault("annotations", {})
        for key in keys:
            meta_anns[key] = target
        for key in INDEX_KEYS:
            if key in anns:
                meta_anns[key] = "0"
    return objects


def collisions(items: list[Any], rendered: list[tuple[dict[str, Any], dict[str, Any]]],
               clashing: Collection[int] = ()) -> list[Result]:
    """Rendered objects whose kind, namespace and name another item already has. Each such meeting is refused,
    the same content included (see pipeline.collisions: kpt writes the output back, and dropping an input item
    deletes its file); two copies of one Experiment (``clashing``: their items' ids) were reported as a clash."""
    from kubectl_testbench.pipeline.collisions import reported_as_clash

    def key(obj: dict[str, Any]) -> tuple[str, str, str, str]:
        ref = resource_ref(obj)
        return group_of(obj.get("apiVersion")), ref["kind"], ref.get("namespace", ""), ref["name"]

    new = {id(obj): source for obj, source in rendered}
    seen: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        first = seen.setdefault(key(item), item)
        if first is item:
            continue
        culprit, other = (item, first) if id(item) in new else (first, item)
        source, other_source = new.get(id(culprit)), new.get(id(other))
        if source is None:
            continue  # two items of the input: not ours to judge
        if other_source is not None and reported_as_clash(id(source), id(other_source), clashing):
            continue
        path, index = source_file(source)
        ref = resource_ref(culprit)
        out.append(Result(f"renders {ref['kind']} {ref.get('namespace', '')}/{ref['name']}, which another item "
                          "already defines; rename one of them", resource=source, file_path=path, file_index=index,
                          rule=RENDER_DUPLICATE.id))
    return out


def _without_bookkeeping(obj: dict[str, Any]) -> dict[str, Any]:
    clean = copy.deepcopy(obj)
    meta = clean.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
        kept = {k: v for k, v in meta["annotations"].items() if not str(k).startswith(BOOKKEEPING)}
        if kept:
            meta["annotations"] = kept
        else:
            del meta["annotations"]
    return clean


# --- the ResourceList ----------------------------------------------------------------------------------------


def has_errors(results: list[Result]) -> bool:
    return any(r.severity == "error" for r in results)


def process(resource_list: Any, limits: Limits = DEFAULT_LIMITS,
            rules: Selection = ALL_RULES) -> tuple[dict[str, Any], list[Result]]:
    """The output ResourceList for an input one: transformed items, earlier results plus ours."""
    if not isinstance(resource_list, dict) or resource_list.get("kind") != RESOURCE_LIST:
        raise InputError("stdin is not a ResourceList (kind: ResourceList, apiVersion: config.kubernetes.io/v1)")
    items = resource_list.get("items")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise InputError("ResourceList.items must be a list")
    function_config = resource_list.get("functionConfig")
    new_items, results = transform(items, function_config, limits, rules)
    out: dict[str, Any] = {"apiVersion": resource_list.get("apiVersion") or RESOURCE_LIST_API,
                           "kind": RESOURCE_LIST, "items": new_items}
    if function_config is not None:
        out["functionConfig"] = function_config
    earlier = resource_list.get("results")
    all_results = (list(earlier) if isinstance(earlier, list) else []) + [r.as_dict() for r in results]
    if all_results:
        out["results"] = all_results
    return out, results


def write_resource_list(out: dict[str, Any], original: dict[str, Any], text: str) -> str:
    """The output ResourceList as YAML that keeps every untouched item as the orchestrator wrote it.

    The KRM Functions Specification asks functions to preserve comments; orchestrators (kpt) write items
    back to the user's files, so an item we did not change must come back with its comments, flow style
    and quoting. ruamel.yaml's round-trip mode carries them; items are matched by identity with the
    parsed input. Rendered objects and results are written by our own emitter (conservative quoting that
    reads the same under YAML 1.1 and 1.2) and then joined into the tree.
    """
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedSeq

    from kubectl_testbench.emit.yamlout import dump

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.allow_duplicate_keys = True
    yaml.width = 1 << 30  # never fold long strings: the text must stay what it was
    yaml.indent(mapping=2, sequence=2, offset=0)
    tree = yaml.load(text)
    if not isinstance(tree.get("items"), CommentedSeq):
        tree["items"] = CommentedSeq()
    items: CommentedSeq = tree["items"]
    nodes = list(items)
    kept = {id(item): i for i, item in enumerate(original.get("items") or []) if i < len(nodes)}

    def ours(value: Any) -> Any:
        return yaml.load(dump(value))

    # Comments inside an item travel with its node. The comment block before an item (kpt writes it as
    # "- # head comment") belongs to the sequence, and ruamel would move it between the items, where kpt
    # reads it as the previous item's foot comment; kpt restores head comments from its own input
    # (verified by the kpt fn eval test), so they are left out here.
    del items[:]
    items.ca.items.clear()
    items.extend(ours(item) if kept.get(id(item)) is None else nodes[kept[id(item)]] for item in out["items"])
    if "results" in out:
        tree["results"] = ours(out["results"])
    buffer = io.StringIO()
    yaml.dump(tree, buffer)
    return _no_legacy_commands(buffer.getvalue())


def _no_legacy_commands(text: str) -> str:
    """``text`` with the ``[`` of every ``##[`` inside a double-quoted scalar written ``\\x5b``: the same value,
    and no GitHub ``##[command]`` when the ResourceList is printed to a CI log. Our emitter writes such strings
    that way, but ruamel.yaml's round trip writes them back raw; every string we write holding ``##[`` is
    double-quoted (the emitter's choice, kept by ``preserve_quotes``). Untouched items keep their own text."""
    if LEGACY_COMMAND not in text:
        return text
    import yaml as pyyaml

    from kubectl_testbench.load.libyaml import read_with

    def quoted_spans(loader: Any) -> list[tuple[int, int]]:
        spans = []
        while loader.check_token():
            token = loader.get_token()
            if isinstance(token, pyyaml.ScalarToken) and token.style == '"':
                spans.append((token.start_mark.index, token.end_mark.index))
        return spans

    pieces, done = [], 0
    for start, end in read_with(text, quoted_spans):
        if LEGACY_COMMAND in text[start:end]:
            pieces += [text[done:start], text[start:end].replace(LEGACY_COMMAND, "##\\x5b")]
            done = end
    return "".join([*pieces, text[done:]])


def rejected_input(docs: list[Any]) -> tuple[dict[str, Any], list[Result]]:
    """What goes back for input that is not a ResourceList: the items untouched, and an error result.

    The KRM Functions Specification (v1) has the orchestrator send exactly one ``ResourceList`` and the
    function answer with one, reporting problems as results and failure by a non-zero exit. An empty
    stdin, a ``v1 List`` or a bare stream is answered that way instead of being passed through as if
    it had been rendered.
    """
    if not docs:
        items: list[Any] = []
        message = "stdin is empty: expected a ResourceList (config.kubernetes.io/v1) with items"
    elif len(docs) == 1 and isinstance(docs[0], dict) and isinstance(docs[0].get("items"), list):
        items = docs[0]["items"]
        message = (f"stdin is a {docs[0].get('apiVersion', '?')} {docs[0].get('kind', '?')}, not a ResourceList "
                   "(config.kubernetes.io/v1): nothing was rendered; wrap the items in a ResourceList, or run "
                   "kubectl testbench render for plain manifests")
    else:
        items = docs
        message = ("stdin is a stream of resources, not a ResourceList (config.kubernetes.io/v1): nothing was "
                   "rendered; as a kustomize exec plugin the config file must be given as the argument")
    result = Result(message, rule=KRM_INPUT.id)
    return {"apiVersion": RESOURCE_LIST_API, "kind": RESOURCE_LIST, "items": items,
            "results": [result.as_dict()]}, [result]


def load_documents(text: str, limits: Limits = DEFAULT_LIMITS, label: str = "stdin") -> list[Any]:
    """The non-empty documents of ``text`` (named ``label`` in messages), read as validate reads them
    (integrations.documents): Kubernetes' YAML 1.1, JSON streams, the reading limits. Raises
    :class:`InputError` at the first document that cannot be read."""
    docs = []
    for doc in read_documents(text, limits):
        if isinstance(doc, Problem):
            raise InputError(doc.located(label) if doc.over_limit else f"{label} is not YAML: {doc.located(label)}",
                             doc)
        docs.append(doc.data)
    return docs


def unreadable_input(message: str, rule: str) -> tuple[dict[str, Any], list[Result]]:
    """What goes back for stdin over a reading limit: no items and an error result saying which limit.

    The function cannot read the list, so it cannot return its items; an orchestrator keeps nothing from a
    function that exits non-zero, and shows the result."""
    result = Result(message, rule=rule)
    out = {"apiVersion": RESOURCE_LIST_API, "kind": RESOURCE_LIST, "items": [], "results": [result.as_dict()]}
    return out, [result]
