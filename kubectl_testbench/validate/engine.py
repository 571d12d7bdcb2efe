"""Validation of one file's text, document by document, and of each Experiment in the API server's order.

decode → split (kubectl's ``---`` rules) → build (positions, YAML 1.1) → per Experiment:
status dropped → metadata → schema (prunes nulls, applies defaults) → CEL (unless blocking errors)
→ semantic checks. Finding and reading the inputs, the worker pool, RenderDefaults and what happens across
files are the pipeline's (kubectl_testbench.pipeline); what a caller keeps of the objects besides the
findings it says with :class:`Keep`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kubectl_testbench import rules as rule_table
from kubectl_testbench.gofmt import value_v
from kubectl_testbench.load.builder import Remark
from kubectl_testbench.load.decode import DecodeError, decode
from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.load.lines import SPLITLINES_BREAK, LineIndex
from kubectl_testbench.load.positions import Mark, Path, PosDict, field_path, locate, plain
from kubectl_testbench.load.stream import yaml_documents
from kubectl_testbench.model.constants import API_VERSION, GROUP, KIND
from kubectl_testbench.rules.cel import CEL_COST, CEL_DATASET_EXACTLY_ONE, CEL_ERROR, CEL_NOT_EVALUATED, CEL_RULE
from kubectl_testbench.rules.input import (
    INPUT_BINARY,
    INPUT_EMPTY,
    INPUT_ENCODING,
    INPUT_HELM_CHART,
    INPUT_NOT_A_FILE,
    INPUT_NOT_FOUND,
    INPUT_TEMPLATE,
    INPUT_TOO_LARGE,
    INPUT_UNREADABLE,
)
from kubectl_testbench.rules.kind import KIND_API_VERSION, KIND_GROUP, KIND_MISSING
from kubectl_testbench.rules.metadata import METADATA_NAME_REQUIRED, METADATA_TYPE
from kubectl_testbench.rules.render import RENDER_MANIFEST
from kubectl_testbench.rules.schema import SCHEMA_NULL_FIELD, SCHEMA_TYPE, SCHEMA_UNKNOWN_FIELD
from kubectl_testbench.rules.selection import ALL_RULES, Selection
from kubectl_testbench.rules.semantic import SEMANTIC_NO_GATEWAY, SEMANTIC_S3_DEFAULT_MINIO, SEMANTIC_STATUS_IGNORED
from kubectl_testbench.rules.validate import VALIDATE_TOO_MANY_FINDINGS
from kubectl_testbench.rules.yaml import (
    YAML_AFTER_DOCUMENT_END,
    YAML_ALIAS,
    YAML_ALIAS_LIMIT,
    YAML_DOCUMENT_SEPARATOR,
    YAML_DUPLICATE_KEY,
    YAML_KEY_TYPE,
    YAML_MERGE,
    YAML_NON_FINITE,
    YAML_NOT_AN_OBJECT,
    YAML_SEXAGESIMAL,
    YAML_SYNTAX,
    YAML_TAG,
    YAML_TOO_DEEP,
    YAML_TOO_MANY_NODES,
    YAML_YAML11_BOOLEAN,
)
from kubectl_testbench.sniff import looks_like_json
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Fix, FixKind, Severity
from kubectl_testbench.validate.duplicates import Identity
from kubectl_testbench.validate.fix_choices import EARLIER_SHAPE_FIELDS, MIGRATE_HINT
from kubectl_testbench.validate.schema import BLOCKING, SchemaError
from kubectl_testbench.validate.suppress import Findings
from kubectl_testbench.validate.syntax_hints import runaway_quote, syntax_hint
from kubectl_testbench.validate.valid_parts import ValidParts, valid_parts
from kubectl_testbench.words import plural

"""Dropped when the RenderDefaults file render would use names a default gateway."""

FATAL_RULES = frozenset({
    INPUT_NOT_FOUND.id, INPUT_UNREADABLE.id, INPUT_NOT_A_FILE.id, INPUT_TOO_LARGE.id, INPUT_BINARY.id,
    INPUT_ENCODING.id, INPUT_EMPTY.id, YAML_SYNTAX.id, YAML_TOO_DEEP.id, YAML_ALIAS.id, YAML_ALIAS_LIMIT.id,
    YAML_TOO_MANY_NODES.id,
    YAML_MERGE.id, YAML_KEY_TYPE.id, YAML_TAG.id, YAML_DOCUMENT_SEPARATOR.id,
})
"""Findings that mean the input could not be read at all: exit code 2."""

ALWAYS_REPORTED = FATAL_RULES | {KIND_API_VERSION.id, KIND_GROUP.id, KIND_MISSING.id, YAML_NOT_AN_OBJECT.id}
"""Findings no selection or suppression comment removes: the file, or the object, cannot be read at all."""


def fails(diagnostic: Diagnostic, strict: bool) -> bool:
    """The ``--strict`` policy, for an Experiment's validity and for every command that stops on findings:
    an error fails, and so does a warning under ``--strict``."""
    return diagnostic.severity is Severity.ERROR or (strict and diagnostic.severity is Severity.WARNING)


class Options(NamedTuple):
    """The engine's own settings (frozen records here are named tuples: each frozen dataclass cost every cold
    start about 0.4 ms to define, a named tuple a tenth of that)."""

    strict: bool = False
    limits: Limits = DEFAULT_LIMITS
    rules: Selection = ALL_RULES
    """Which rules are reported (``--select``/``--ignore``/``--extend-select``, the configuration file)."""
    place_fixes: bool = True
    """Place every fix in the source now. False leaves them unplaced (no edits, not blocked) until
    :meth:`FileResult.placed` is asked for: the language server publishes a finding at once and places its fix
    only when the editor asks for code actions (reading the document's span tree again costs as much as
    the rest of a validation of a 2,000-line Experiment)."""


DEFAULT_OPTIONS = Options()


class Keep(NamedTuple):
    """What a caller takes from a file besides the findings, as plain data (the pipeline: the valid Experiments
    it renders and the rendered manifests it passes through). The engine does not know what they are for."""

    experiments: bool = False
    """The valid Experiments, as the API server would store them (:attr:`FileResult.experiments`)."""
    manifest: Callable[[dict[str, Any]], bool] | None = None
    """Which objects of other kinds to return (:attr:`FileResult.manifests`)."""
    manifest_problem: Callable[[dict[str, Any]], str | None] | None = None
    """Why such an object cannot be taken as it is (reported as ``render/manifest``; None: it can)."""


KEEP_NOTHING = Keep()


@dataclass(slots=True)
class ExperimentDoc:
    """A valid Experiment, as the API server would store it (nulls pruned, defaults applied)."""

    file: str
    index: int
    line: int
    data: dict[str, Any]


@dataclass(slots=True)
class FileResult:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)
    experiments: list[ExperimentDoc] = field(default_factory=list)
    checked: list[tuple[str, int]] = field(default_factory=list)
    """Every Experiment looked at: (``Kind namespace/name``, line), for per-object reports such as JUnit."""
    manifests: list[ExperimentDoc] = field(default_factory=list)
    """Objects of other kinds that :attr:`Keep.manifest` asked for."""
    identities: list[Identity] = field(default_factory=list)
    """Every Experiment with a name, for the check across files (validate.duplicates)."""
    deferred: _Places | None = None
    """Where the fixes left unplaced (``Options.place_fixes=False``) are placed when asked for."""

    @property
    def fatal(self) -> bool:
        return any(d.rule in FATAL_RULES for d in self.diagnostics)

    def placed(self) -> list[Diagnostic]:
        """The findings with their fixes placed in the source, as ``place_fixes=True`` would have returned
        them (the same edits, the same blocked reasons, the same repeated fix dropped)."""
        if self.deferred is None:
            return self.diagnostics
        return self.deferred.place_all(self.diagnostics)


# --- one file ------------------------------------------------------------------------------------------


def validate_bytes(data: bytes, path: str, options: Options = DEFAULT_OPTIONS, scanned: bool = False,
                   gateway_default: Callable[[], bool] | None = None, keep: Keep = KEEP_NOTHING,
                   minio_default: Callable[[], bool] | None = None) -> FileResult:
    """Validate the raw content of ``path``: decode it as kubectl would, then every document."""
    try:
        text = decode(data)
    except DecodeError as err:
        return unreadable(path, err.rule, err.message, err.mark)
    result = validate_text(text, path, options, scanned=scanned, gateway_default=gateway_default, keep=keep,
                           minio_default=minio_default)
    if any(d.fix is not None and d.fix.edits for d in result.diagnostics):
        from kubectl_testbench.validate.fix_placement import with_byte_offsets

        result.diagnostics = with_byte_offsets(result.diagnostics, text, data)
    return result


def template_notice(path: str) -> FileResult:
    result = FileResult(path)
    result.counts.files = 1
    _add(result, INPUT_TEMPLATE.id, path, (0, 0), (), "a Go/Helm template, not YAML: skipped",
         "validate what it renders: helm template . | kubectl testbench validate -")
    return result


def helm_chart_notice(path: str) -> FileResult:
    """The one notice for a Helm chart a directory scan met (its hint a command: the path is shell-quoted)."""
    import shlex

    result = FileResult(path)
    _add(result, INPUT_HELM_CHART.id, path, (0, 0), (), "a Helm chart (Chart.yaml): its files are not manifests, "
         "skipped", f"validate what it renders: helm template {shlex.quote(path)} | kubectl testbench validate -")
    return result


def validate_text(text: str, path: str, options: Options = DEFAULT_OPTIONS, scanned: bool = False,
                  gateway_default: Callable[[], bool] | None = None, keep: Keep = KEEP_NOTHING,
                  minio_default: Callable[[], bool] | None = None) -> FileResult:
    """Validate every document of ``text`` (the content of ``path``). ``gateway_default`` tells whether a
    defaults file names an AI gateway (asked only when an Experiment names none); ``minio_default``, whether it
    sets one of the setup phase's MinIO settings (asked only for an S3 dataset without them); ``keep``, what to
    return besides the findings."""
    result = FileResult(path)
    result.counts.files = 1
    findings = Findings(text, path, options.rules, ALWAYS_REPORTED)
    places = _Places(text, defer=not options.place_fixes)
    reading = _Reading(path, options, places, gateway_default, keep, findings, minio_default)
    if looks_like_json(text):
        _json_stream(text, reading, result)
    else:
        _yaml_stream(text, reading, result, scanned)
    if result.identities and _written_by_render(text):
        result.identities = [dataclasses.replace(i, rendered_copy=True) for i in result.identities]
    result.diagnostics = findings.keep(result.diagnostics)
    if result.fatal:
        result.counts.malformed = 1
        result.identities.clear()  # kubectl applies nothing from a file it cannot read: no copy to clash with
    else:
        result.diagnostics.extend(findings.report())
    result.diagnostics.sort(key=Diagnostic.sort_key)
    if places.pending:
        result.deferred = places
    result.counts.errors = sum(d.severity is Severity.ERROR for d in result.diagnostics)
    result.counts.warnings = sum(d.severity is Severity.WARNING for d in result.diagnostics)
    return result


class _Reading(NamedTuple):
    """What every step of reading one file needs, besides the result it adds to."""

    path: str
    options: Options
    places: _Places
    gateway_default: Callable[[], bool] | None
    keep: Keep
    findings: Findings
    """The selection and the file's suppression comments (applied before an Experiment's validity is decided)."""
    minio_default: Callable[[], bool] | None = None


def _yaml_stream(text: str, reading: _Reading, result: FileResult, scanned: bool) -> None:
    """The documents of a YAML stream, split as kubectl splits them; an input without any is an error (unless
    a directory scan found it)."""
    path, places = reading.path, reading.places
    found = False
    for index, chunk, built in yaml_documents(text, reading.options.limits):
        before = len(result.diagnostics)
        if built is None:
            _add(result, YAML_DOCUMENT_SEPARATOR.id, path, (chunk.start_line + 1, 4), (),
                 "invalid document separator: only a comment may follow '---' on its line",
                 "put the document content on the next line", fix=_separator_fix(chunk.text))
        elif built.error is not None:
            err = built.error
            mark = err.mark
            hint = syntax_hint(chunk.text, err.message, err.mark, err.context,
                               chunk.start_line) if err.rule == YAML_SYNTAX.id else ""
            runaway = runaway_quote(chunk.text, err.mark, chunk.start_line) if err.rule == YAML_SYNTAX.id else None
            if runaway is not None:  # reported where the quote opened, as editors point at it
                mark, hint = runaway
            _add(result, err.rule, path, mark, (), err.message, hint,
                 fix=_tab_fix(chunk.text) if hint.startswith("YAML does not allow tabs") else None)
        else:
            if built.ignored is not None:
                _add(result, YAML_AFTER_DOCUMENT_END.id, path, built.ignored, (),
                     "kubectl ignores everything after '...' up to the next '---' line: this content is dropped",
                     "start the next document with a '---' line")
            if not built.empty:
                found = True
                _document(built.data, built.remarks, index, chunk.start_line, result, reading)
        if any(d.fix is not None and not d.fix.blocked for d in result.diagnostics[before:]):
            result.diagnostics[before:] = places.resolve(result.diagnostics[before:], chunk.text,
                                                         places.line_offset(chunk.start_line))
    if not found and not result.diagnostics and not scanned:
        _add(result, INPUT_EMPTY.id, path, (0, 0), (), "no YAML documents in the input")


class _Pending(NamedTuple):
    """One document's findings whose fixes wait to be placed, with what placing them needs."""

    diagnostics: list[Diagnostic]
    doc_text: str
    doc_offset: int
    read: Callable[[str], Any] | None


class _Places:
    """Where each line of the file starts, computed only when a fix has to be placed; with ``defer``, the
    documents whose fixes are placed only when :meth:`place_all` is called."""

    def __init__(self, text: str, defer: bool = False) -> None:
        self.text = text
        self.split: LineIndex | None = None
        self.lines: LineIndex | None = None
        self.defer = defer
        self.pending: list[_Pending] = []

    def line_offset(self, line: int) -> int:
        """The offset of 0-based ``line`` (the lines split_documents counts)."""
        if self.split is None:
            self.split = LineIndex(self.text, SPLITLINES_BREAK)
        return self.split.start(line)

    def resolve(self, diagnostics: list[Diagnostic], doc_text: str, doc_offset: int,
                read: Callable[[str], Any] | None = None) -> list[Diagnostic]:
        """Place the fixes of one document (``doc_text``, starting at ``doc_offset`` in the file); ``read``
        builds its span tree (default: libyaml's reading of a YAML document). Deferred: kept for later."""
        pending = _Pending(diagnostics, doc_text, doc_offset, read)
        if self.defer:
            self.pending.append(pending)
            return diagnostics
        return self._place(pending)

    def _place(self, doc: _Pending) -> list[Diagnostic]:
        from kubectl_testbench.validate.fix_placement import resolve

        if self.lines is None:
            self.lines = LineIndex(self.text)
        return resolve(doc.diagnostics, doc.doc_text, doc.doc_offset, self.lines, doc.read)

    def place_all(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """``diagnostics`` (in their final order) with the pending fixes placed, document by document, as
        :meth:`resolve` would have placed them when each document was read."""
        placed: dict[int, Diagnostic] = {}
        for doc in self.pending:
            for before, after in zip(doc.diagnostics, self._place(doc), strict=True):
                placed[id(before)] = after
        return [placed.get(id(d), d) for d in diagnostics]


def _separator_fix(doc_text: str) -> Fix | None:
    """``--- {kind: X}`` -> ``---`` and the content on its own line: the same YAML, split as kubectl wants."""
    import re

    from kubectl_testbench.validate.diagnostics import Edit
    from kubectl_testbench.validate.spans import line_break

    match = re.match(r"---([ \t]+)(?=\S)", doc_text)
    if match is None:
        return None
    return Fix(FixKind.SPLIT_SEPARATOR, (), None, "move the content after '---' to the next line",
               (Edit(3, match.end(), line_break(doc_text)),))


def _tab_fix(doc_text: str) -> Fix | None:
    from kubectl_testbench.validate.diagnostics import Edit
    from kubectl_testbench.validate.indentation import tab_indentation_edits

    edits = tab_indentation_edits(doc_text)
    if not edits:
        return None
    return Fix(FixKind.REINDENT, (), None, "indent with spaces instead of tabs",
               tuple(Edit(s, e, t) for s, e, t in edits))


def _json_stream(text: str, reading: _Reading, result: FileResult) -> None:
    """A JSON stream (kubectl reads it with a JSON decoder): every value is a document.

    The C decoder reads first; only when it cannot (or the documents have findings to place) is the file
    read again with every node's position. Fixes are placed from the JSON reader's own spans of the value
    (libyaml's reading of JSON differs from Go's: surrogate escapes, duplicate fields, streams of values).
    """
    from kubectl_testbench.load.jsonread import read_fast, read_stream
    from kubectl_testbench.validate.spans import json_span_tree

    path, limits = reading.path, reading.options.limits
    fast = read_fast(text, limits)
    if fast is not None:
        trial = FileResult(path)
        for index, (data, start_line) in enumerate(fast):
            if data is not None:
                _document(data, [], index, start_line, trial, reading)
        if not trial.diagnostics:
            _merge(result, trial)
            return
    for index, doc in enumerate(read_stream(text, limits)):
        if doc.error is not None:
            if doc.error.rule == YAML_SYNTAX.id and index <= 1 and _yaml_instead(text, doc.start, reading, result):
                return
            _add(result, doc.error.rule, path, doc.error.mark, (), doc.error.message)
            return  # nothing after a syntax error can be read
        if doc.data is None:
            continue
        before = len(result.diagnostics)
        _document(doc.data, doc.remarks, index, doc.start_line, result, reading)
        if any(d.fix is not None and not d.fix.blocked for d in result.diagnostics[before:]):
            result.diagnostics[before:] = reading.places.resolve(result.diagnostics[before:], text, 0,
                                                         functools.partial(json_span_tree, start=doc.start))


def _yaml_instead(text: str, start: int, reading: _Reading, result: FileResult) -> bool:
    """apimachinery's YAMLOrJSONDecoder: a stream that starts with ``{`` is read as JSON, but when the first or
    second value is no JSON (``{apiVersion: v1, kind: …}`` is flow-style YAML) the rest is read as YAML from
    that value on; only when YAML cannot read it either does the JSON error stand. True when YAML read it."""
    line_start = text.rfind("\n", 0, start) + 1
    # the same lines and columns as in the file: earlier lines as empty ones, an earlier value on its line as spaces
    rest = "\n" * text.count("\n", 0, line_start) + " " * (start - line_start) + text[start:]
    trial = FileResult(reading.path)
    _yaml_stream(rest, reading, trial, False)
    if any(d.rule == YAML_SYNTAX.id for d in trial.diagnostics):
        return False
    result.diagnostics.extend(trial.diagnostics)
    _merge(result, trial)
    return True


def _written_by_render(text: str) -> bool:
    from kubectl_testbench.emit.headers import HEADER

    return text.startswith(HEADER + "\n")


def _merge(result: FileResult, trial: FileResult) -> None:
    result.identities.extend(trial.identities)
    result.counts.add(trial.counts)
    result.experiments.extend(trial.experiments)
    result.checked.extend(trial.checked)
    result.manifests.extend(trial.manifests)


CANNOT_OPEN = frozenset({INPUT_NOT_FOUND.id, INPUT_UNREADABLE.id, INPUT_NOT_A_FILE.id})
"""The rules of a file that could not be opened at all: exit 2, like a usage error. Any other fatal finding is
about the file's content (malformed: exit 1)."""


def unreadable(path: str, rule: str, message: str, mark: tuple[int, int] = (0, 0)) -> FileResult:
    """The result for an input that cannot be read at all (not found, too large, not text): one fatal finding,
    counted as unreadable when the file could not be opened and as malformed otherwise."""
    result = FileResult(path)
    result.counts.files = 1
    if rule in CANNOT_OPEN:
        result.counts.unreadable = 1
    else:
        result.counts.malformed = 1
    result.counts.errors = 1
    result.diagnostics.append(Diagnostic(rule, Severity.ERROR, message, path, *mark))
    return result


def _add(result: FileResult, rule: str, path: str, mark: tuple[int, int], fpath: Path, message: str,
         hint: str = "", obj: str = "", fix: Fix | None = None) -> None:
    result.diagnostics.append(Diagnostic(rule, rule_table.severity(rule), message, path, mark[0], mark[1],
                                         field_path(fpath), hint, obj, fix))


def _document(data: Any, remarks: list[Remark], index: int, start_line: int, result: FileResult,
              reading: _Reading) -> None:
    from kubectl_testbench.validate.objects import Problem, objects

    path = reading.path
    here = _start(start_line)
    for found in objects(data, remarks):
        if isinstance(found, Problem):
            _add(result, found.rule, path, locate(data, found.at, key=True) or here, found.at, found.message,
                 found.hint)
            result.counts.invalid += 1
            continue
        before = len(result.diagnostics)
        _object(found.data, found.remarks, index, start_line, result, reading)
        if found.at:  # an item of a list: findings are about the item, its fixes edit the document
            result.diagnostics[before:] = [_fix_within(d, found.at) for d in result.diagnostics[before:]]
    if isinstance(data, dict) and "items" in data:
        for remark in remarks:  # findings in the list itself, outside its items
            if not (len(remark.path) >= 2 and remark.path[0] == "items" and isinstance(remark.path[1], int)):
                _add(result, remark.rule, path, remark.mark, remark.path, remark.message, _remark_hint(remark))


def _fix_within(d: Diagnostic, at: Path) -> Diagnostic:
    """``d`` with its fix's path starting at the document rather than at the list item at ``at``."""
    if d.fix is None or d.fix.edits:
        return d
    return dataclasses.replace(d, fix=dataclasses.replace(d.fix, path=(*at, *d.fix.path)))


def _object(data: dict[str, Any], remarks: list[Remark], index: int, start_line: int, result: FileResult,
            reading: _Reading) -> None:
    from kubectl_testbench.validate.objects import group_of, near_miss_group

    path, options = reading.path, reading.options

    api_version, kind = data.get("apiVersion"), data.get("kind")
    group = group_of(api_version)
    where = locate(data, ("kind",)) or _start(start_line)
    if kind == "RenderDefaults" and group == GROUP:
        from kubectl_testbench.validate.defaults_document import check_defaults_document

        result.diagnostics.extend(check_defaults_document(data, path))
        result.counts.skipped += 1
        return
    if not isinstance(kind, str) or not kind:
        if not api_version and not kind:
            from kubectl_testbench.validate.dataset import check_dataset, is_dataset

            if is_dataset(data):  # an experiment.json: checked against the phase package's schema
                result.diagnostics.extend(check_dataset(data, path, options.limits.max_findings))
                result.counts.datasets += 1
                return
            result.counts.skipped += 1  # a mapping that is no Kubernetes object at all (a CI config...)
            return
        at = locate(data, ("kind",), key=True) or _start(start_line)  # where kind is missing: the object
        _add(result, KIND_MISSING.id, path, at,
             ("kind",), "the object has no kind: kubectl rejects it (Object 'Kind' is missing)",
             f"add kind: {KIND}" if group == GROUP else "add the object's kind")
        result.counts.invalid += 1
        return
    if kind == KIND and not group:
        _add(result, KIND_API_VERSION.id, path, where, ("apiVersion",),
             "Experiment without an API group: kubectl rejects it (no matches for kind)",
             f"use apiVersion: {API_VERSION}", obj=_object_ref(data))
        result.counts.experiments += 1
        result.counts.invalid += 1
        return
    if kind == KIND and near_miss_group(group):
        _add(result, KIND_GROUP.id, path, locate(data, ("apiVersion",)) or where, ("apiVersion",),
             f'no API group "{group}" serves Experiments: kubectl rejects it (no matches for kind)',
             f'did you mean "{GROUP}"? use apiVersion: {API_VERSION}', obj=_object_ref(data))
        result.counts.experiments += 1
        result.counts.invalid += 1
        return
    if kind != KIND or group != GROUP:
        if group == GROUP:
            _add(result, KIND_API_VERSION.id, path, where, ("kind",),
                 f'no kind "{kind}" in {api_version}', f'the kind is "{KIND}"')
            result.counts.experiments += 1
            result.counts.invalid += 1
        else:
            result.counts.skipped += 1
            if reading.keep.manifest is not None and reading.keep.manifest(data):
                _keep_manifest(data, path, index, start_line, result, reading.keep)
        return
    result.counts.experiments += 1
    result.checked.append((_object_ref(data), _line(data, start_line)))
    diagnostics = validate_experiment(data, path, remarks, options.limits.max_findings)
    if api_version != API_VERSION:
        diagnostics.append(_diag(KIND_API_VERSION.id, data, ("apiVersion",), path,
                                    f'Experiment is not served in version "{api_version}"',
                                    f"use apiVersion: {API_VERSION}", obj=_object_ref(data)))
    for rule, answered in ((SEMANTIC_NO_GATEWAY.id, reading.gateway_default),
                           (SEMANTIC_S3_DEFAULT_MINIO.id, reading.minio_default)):
        # what the defaults file supplies is no finding; it is read only when the finding is there
        if answered is not None and any(d.rule == rule for d in diagnostics) and answered():
            diagnostics = [d for d in diagnostics if d.rule != rule]
    diagnostics = reading.findings.keep(diagnostics)
    result.diagnostics.extend(diagnostics)
    failed = any(fails(d, options.strict) for d in diagnostics)
    _identify(data, path, start_line, not failed, result)
    if failed:
        result.counts.invalid += 1
    else:
        result.counts.valid += 1
        if reading.keep.experiments:
            result.experiments.append(ExperimentDoc(path, index, _line(data, start_line), plain(data)))


def _identify(data: dict[str, Any], path: str, start_line: int, valid: bool, result: FileResult) -> None:
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        return
    name, namespace = meta.get("name"), meta.get("namespace")
    if not isinstance(name, str) or not name:
        return
    line, col = locate(data, ("metadata", "name")) or _start(start_line)
    own = str(namespace) if isinstance(namespace, str) and namespace else None
    result.identities.append(Identity(str(name), own, path, line, col, _line(data, start_line), valid))


def _start(start_line: int) -> tuple[int, int]:
    """Where a document starts: the place of an object without positions (locate finds every node of an object
    read with them), i.e. a JSON value read by the fast reader or a list item that was null."""
    return (start_line + 1, 1)


def _keep_manifest(data: dict[str, Any], path: str, index: int, start_line: int, result: FileResult,
                   keep: Keep) -> None:
    problem = keep.manifest_problem(data) if keep.manifest_problem is not None else None
    if problem is not None:
        _add(result, RENDER_MANIFEST.id, path, locate(data, ("metadata",)) or _start(start_line), ("metadata",),
             problem, "render the directory again")
        return
    result.manifests.append(ExperimentDoc(path, index, _line(data, start_line), plain(data)))


def _line(data: dict[str, Any], start_line: int) -> int:
    """The line an object starts on: its own position, or its document's first line."""
    return data.mark[0] if isinstance(data, PosDict) else start_line + 1


# --- one Experiment -------------------------------------------------------------------------------------


def validate_experiment(doc: dict[str, Any], file: str, remarks: Iterable[Remark] = (),
                        max_findings: int = DEFAULT_LIMITS.max_findings) -> list[Diagnostic]:
    """All findings for one Experiment document, in the API server's order, then semantics."""
    from kubectl_testbench.validate.crdschema import experiment_validator
    from kubectl_testbench.validate.hints import improve as improve_hints
    from kubectl_testbench.validate.hints import yaml11_boolean
    from kubectl_testbench.validate.metadata import check_metadata

    obj = _object_ref(doc)
    out: list[Diagnostic] = []

    def add(rule: str, fpath: Path, message: str, hint: str, key: bool = False, fix: Fix | None = None,
            mark: Mark | None = None) -> None:
        out.append(_diag(rule, doc, fpath, file, message, hint, key, obj=obj, fix=fix, mark=mark))

    validator = experiment_validator()
    schema_errors: list[SchemaError] = []
    if "status" in doc:
        add(SEMANTIC_STATUS_IGNORED.id, ("status",), "status is discarded by the API server on create; "
            "the operator or the cluster sets it", "remove the status section from the file", key=True,
            fix=Fix(FixKind.DELETE, ("status",), None, "remove status"))
        for err in validator.unknown_fields("status", doc["status"]):  # strict decoding sees status first
            add(err.rule, err.path, err.message, err.hint, err.key)  # no fix: removing status fixes them all
        del doc["status"]
    from kubectl_testbench.validate.nulls import null_metadata_fields

    for rule, fpath, message, hint, fix in null_metadata_fields(doc):
        add(rule, fpath, message, hint, key=True, fix=fix)

    schema_errors.extend(check_metadata(doc.get("metadata")))
    errors, targets, nulls = validator.validate_noting_nulls(doc)
    for note in nulls:  # warnings: they invalidate nothing and block no other check
        add(note.rule, note.path, note.message, note.hint, note.key, note.fix)
    non_finite = {r.path for r in remarks if r.rule == YAML_NON_FINITE.id}
    schema_errors.extend(e for e in errors if e.path not in non_finite)  # .inf is reported once, as non-finite
    improve_hints(schema_errors, doc)
    type_errors = {e.path: e for e in schema_errors if e.rule in (SCHEMA_TYPE.id, METADATA_TYPE.id)}
    for remark in remarks:
        merged = type_errors.get(remark.path)
        if merged is not None and remark.rule == YAML_YAML11_BOOLEAN.id:
            merged.hint = f'{remark.text} is a YAML 1.1 boolean for Kubernetes: write "{remark.text}" in quotes'
            continue
        message, hint = remark.message, _remark_hint(remark)
        remark_fix = _remark_fix(remark)
        if remark.rule == YAML_YAML11_BOOLEAN.id and remark_fix is not None and isinstance(remark_fix.value, bool):
            message, hint = yaml11_boolean(remark.text, remark_fix.value)  # a boolean field: write true, not quotes
        # a value where the reader saw it (the path alone names the later copy when a key is set twice); a
        # duplicate key at the later key, found by its path (inside a merged map, at the key the merge brings)
        duplicate = remark.rule == YAML_DUPLICATE_KEY.id
        add(remark.rule, remark.path, message, hint, key=duplicate, fix=remark_fix,
            mark=None if duplicate else remark.mark)
    for err in schema_errors:
        hint = err.hint
        if err.rule == SCHEMA_UNKNOWN_FIELD.id and err.path in EARLIER_SHAPE_FIELDS:
            hint = MIGRATE_HINT
        add(err.rule, err.path, err.message, hint, err.key, err.fix)

    parts = valid_parts(doc, [(e.rule, e.path) for e in schema_errors])
    blocking = [e.path for e in schema_errors if _blocks_cel(e, doc)]
    # the server runs no rule once an error blocks them, and says so once; we still run every rule whose field
    # holds no blocking error, in and around it (what the server reports once those errors are fixed)
    run_cel([t for t in targets if not any(_overlap(tuple(t.path), p) for p in blocking)], add)
    _run_semantic(doc, parts, add)
    blocked = bool(blocking)
    if blocked:
        out.extend(_not_evaluated(doc, file, obj, out))
    errors_at = {d.path for d in out if d.severity is Severity.ERROR}
    out = [d for d in out if not (d.rule == SCHEMA_NULL_FIELD.id and d.path in errors_at)]  # spec: null is missing
    out.sort(key=Diagnostic.sort_key)
    if len(out) > max_findings:
        hidden = out[max_findings:]
        out = out[:max_findings]
        hidden_errors = sum(d.severity is Severity.ERROR for d in hidden)
        out.append(_diag(VALIDATE_TOO_MANY_FINDINGS.id, doc, (), file,
                         f"{plural(len(hidden), 'more finding')} ({plural(hidden_errors, 'error')}) not shown",
                         obj=obj))
    return out


def _overlap(a: Path, b: Path) -> bool:
    """Is one path at or under the other?"""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


METADATA_BLOCKING = ("Required value", "Too long", "Too many", "Unsupported value")
"""The ObjectMeta errors whose field.ErrorType the server's hasBlockingErr counts (Required, TooLong, TooMany,
NotSupported): its strategy validates ObjectMeta before the rules, with the same list of errors."""


def _blocks_cel(err: SchemaError, doc: dict[str, Any]) -> bool:
    """Does this error keep the CEL rules from running? Schema errors of the blocking kinds, and ObjectMeta
    errors of the same field.ErrorTypes -- except our own missing-name error where generateName is set (the
    server generates the name)."""
    if err.rule in BLOCKING:
        return True
    if not err.rule.startswith("metadata/") or not err.message.startswith(METADATA_BLOCKING):
        return False
    meta = doc.get("metadata")
    return not (err.rule == METADATA_NAME_REQUIRED.id and isinstance(meta, dict) and meta.get("generateName"))


def _not_evaluated(doc: dict[str, Any], file: str, obj: str, found: list[Diagnostic]) -> list[Diagnostic]:
    """The API server's one note when errors of the blocking kinds keep its CEL rules from running (the strategy's
    hasBlockingErr: ``field.Invalid(nil, ...)`` at the object's root), sorted after the last error as the server
    appends it. Only where the CRD has rules: the server's validator exists only then."""
    from kubectl_testbench.model.cel_rules import ALL

    if not ALL:
        return []
    last = max((d.line, d.col) for d in found if d.severity is Severity.ERROR)
    note = _diag(CEL_NOT_EVALUATED.id, doc, (), file, "some validation rules were not checked because the object "
                 "was invalid; correct the existing errors to complete validation", obj=obj)
    return [dataclasses.replace(note, follows=last)]


def run_cel(targets: list[Any], add: Any, refused: dict[Any, Any] | None = None) -> None:
    """Every rule on its node, with one cost budget for the object, as the API server runs them.

    ``refused``: rules the API server would refuse at CRD creation (default: those of our CRD).
    """
    if not targets:
        return
    from kubectl_testbench.validate.cel.cost import Meter
    from kubectl_testbench.validate.cel.evaluate import evaluate_rule
    from kubectl_testbench.validate.crdschema import refused_rules

    if refused is None:
        refused = refused_rules()
    meter = Meter()
    for target in targets:
        for index, spec in enumerate(target.schema["x-kubernetes-validations"]):
            at = tuple(target.path)
            finding = refused.get((_schema_path(at), index))
            if finding is not None:
                add(CEL_COST.id, at, f"the API server refuses this CRD: {finding.path}: {finding.message}",
                    "the rule was not evaluated; bound the lists and strings it iterates over")
                continue
            outcome = evaluate_rule(spec, target.value, target.schema, meter)
            if outcome.passed:
                if outcome.stopped:
                    add(CEL_NOT_EVALUATED.id, at, f"rule {spec['rule']!r} {outcome.message}", "")
                continue
            from kubectl_testbench.model.cel_rules import BY_RULE_TEXT

            known = BY_RULE_TEXT.get(spec["rule"])
            rule_id = known.id if known else CEL_RULE.id
            where = (*at, *outcome.field_path)
            if outcome.stopped:
                add(CEL_COST.id, at, f'Invalid value: "{_cel_type(target.schema)}": {outcome.error}', "")
                if outcome.stopped in ("call", "budget"):
                    return  # "no further validation rules will be run"
            elif outcome.error:
                add(CEL_ERROR.id, at, f'Invalid value: "{_cel_type(target.schema)}": {outcome.error}', "")
            else:
                add(rule_id, where, _reason_message(outcome.reason, target.value, outcome.message),
                    _cel_hint(rule_id, target.value))


def _schema_path(path: tuple[Any, ...]) -> tuple[str, ...]:
    """A document path as the schema sees it: list indices dropped (every item has the same rules)."""
    return tuple(seg for seg in path if isinstance(seg, str))


def _cel_type(schema: dict[str, Any]) -> str:
    """The structural schema's type the API server shows as the invalid value ("" for int-or-string)."""
    return str(schema.get("type", ""))


def _reason_message(reason: str, value: Any, message: str) -> str:
    """fieldErrorForReason: the kind of field error a rule's ``reason`` asks for, worded as the server does.

    The error carries the value itself, which ``ErrorBody`` prints with Go's ``%v``/``%q`` and leaves out for
    lists and objects ("Invalid value: exactly one of …"). Errors *evaluating* a rule name the schema's type
    instead (:func:`_cel_type`)."""
    shown = value_v(value)
    if reason == "FieldValueRequired":
        return f"Required value: {message}"
    if reason == "FieldValueForbidden":
        return f"Forbidden: {message}"
    if reason == "FieldValueDuplicate":
        return "Duplicate value" if shown is None else f"Duplicate value: {shown}"
    return f"Invalid value: {message}" if shown is None else f"Invalid value: {shown}: {message}"


def _cel_hint(rule_id: str, value: Any) -> str:
    if rule_id == CEL_DATASET_EXACTLY_ONE.id and isinstance(value, dict):
        present = [k for k in ("s3", "url", "inline") if k in value]
        if present:
            return f"found {' and '.join(present)}: keep one"
        return "add one of spec.dataset.inline, spec.dataset.s3 or spec.dataset.url"
    return ""


def _run_semantic(doc: dict[str, Any], parts: ValidParts, add: Any) -> None:
    """The semantic checks over the parts of the document that are valid on their own (validate/valid_parts.py):
    every finding in one run, none about a part the schema already rejected."""
    from kubectl_testbench.validate.semantic import CLAIMS_ABSENCE, run_checks

    def report(rule: str, fpath: Path, message: str, hint: str, fix: Fix | None = None) -> None:
        scope = CLAIMS_ABSENCE.get(rule)
        if not parts.silences(fpath) and not (scope is not None and parts.blanked_under(scope)):
            add(rule, fpath, message, hint, fix=fix)

    run_checks(parts.document, report, tolerant=parts.document is not doc)


def _remark_fix(remark: Remark) -> Fix | None:
    """A key written twice loses its earlier entry (the later one is what Kubernetes reads). YAML 1.1 readings
    that have one certain spelling, by what the schema wants at that field:
    ``1:30`` in a string field is quoted (Kubernetes reads a string, YAML 1.1 tools a number); ``yes`` in a
    boolean field becomes ``true`` (what Kubernetes reads, now also for YAML 1.2 tools)."""
    if remark.rule == YAML_DUPLICATE_KEY.id and "merge key" not in remark.message and remark.path:
        # the later entry is what Kubernetes reads: removing the earlier one changes nothing it reads
        return Fix(FixKind.DELETE_EARLIER, remark.path, None, f"remove the earlier {remark.path[-1]!s} entry")
    if remark.rule not in (YAML_SEXAGESIMAL.id, YAML_YAML11_BOOLEAN.id):
        return None
    from kubectl_testbench.load.scalars import resolve_plain
    from kubectl_testbench.validate.crdschema import schema_type_at

    wanted = schema_type_at(remark.path)
    if remark.rule == YAML_SEXAGESIMAL.id and wanted == "string":
        return Fix(FixKind.QUOTE, remark.path, None, "quote the value as written")
    if remark.rule == YAML_YAML11_BOOLEAN.id and wanted == "boolean":
        value = resolve_plain(remark.text)[0]
        return Fix(FixKind.REPLACE, remark.path, value, f"write {'true' if value else 'false'}")
    return None


def _remark_hint(remark: Remark) -> str:
    if remark.rule == YAML_DUPLICATE_KEY.id:
        return "remove one of the two entries"
    return ""


def _diag(rule: str, doc: Any, fpath: Path, file: str, message: str, hint: str = "", key: bool = False, *,
          obj: str, fix: Fix | None = None, mark: Mark | None = None) -> Diagnostic:
    mark = mark or locate(doc, fpath, key=key) or (0, 0)
    return Diagnostic(rule, rule_table.severity(rule), message, file, mark[0], mark[1], field_path(fpath), hint, obj,
                      fix)


def _object_ref(doc: dict[str, Any]) -> str:
    meta = doc.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
        return KIND
    ns = meta.get("namespace")
    return f"{KIND} {ns}/{meta['name']}" if isinstance(ns, str) and ns else f"{KIND} {meta['name']}"
