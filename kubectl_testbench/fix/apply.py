"""Apply the safe fixes validation offers, file by file: edit, verify by re-reading, repeat until none is left.

A file is validated first on the fast path; only a file with fixable findings is edited. Each round applies
every selected fix at once (their edits never overlap: if two would, the file is left alone with a message),
reads the result again and checks that every document now means exactly what its fixes promise. A fix that
fails that check is dropped and reported; the others stay. Fixing can uncover more (a renamed ``dataset``
key gets its contents validated), so rounds repeat, up to :data:`MAX_ROUNDS`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from kubectl_testbench.load.decode import DecodeError, decode
from kubectl_testbench.load.sources import Source, SourceError, read_bytes
from kubectl_testbench.pipeline.defaults import names_gateway
from kubectl_testbench.pipeline.inputs import Inputs, each_input, skips_as_template
from kubectl_testbench.rules.selection import Selection
from kubectl_testbench.rules.validate import VALIDATE_TOO_MANY_FINDINGS
from kubectl_testbench.sniff import looks_like_json
from kubectl_testbench.validate.diagnostics import Diagnostic
from kubectl_testbench.validate.engine import (
    FileResult,
    Options,
    helm_chart_notice,
    template_notice,
    unreadable,
    validate_text,
)
from kubectl_testbench.validate.fix_placement import apply_edits, encoding_of

MAX_ROUNDS = 10
UNLIMITED_FINDINGS = 10**9
"""Fixing looks at every finding, not the first 200 per document that a report shows."""


@dataclass(frozen=True, slots=True)
class FixOptions:
    validate: Options = field(default_factory=Options)
    select: Selection = field(default_factory=Selection)
    """Which rules' fixes apply (``--select``/``--ignore``)."""
    migrate: bool = False
    """Also upgrade Experiments written for the earlier upstream schemas (``--migrate``)."""
    inputs: Inputs = field(default_factory=Inputs)
    """Which inputs are read, and the RenderDefaults that apply to them (as for ``validate``)."""


@dataclass(slots=True)
class Note:
    """Something the user must know about a file that is not a finding: a migration step, a refused fix."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}" if self.line else f"{self.file}: {self.message}"


@dataclass(slots=True)
class FileFix:
    """What fixing one input did: the text before and after (when it changed), the fixes, what is left."""

    path: str
    result: FileResult
    """Validation of the final text: the findings that are left."""
    applied: list[Diagnostic] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    migrated: int = 0
    """Fields moved by ``--migrate``."""
    before: str | None = None
    after: str | None = None
    data: bytes | None = None
    """The new file bytes (same encoding and byte-order mark as the input) when the file changed."""
    original: bytes | None = None
    """The input bytes, kept for stdin only (written back unchanged when there is nothing to fix)."""
    read_sha256: str | None = None
    """The SHA-256 of the bytes read, when the file changed: the write checks the file still holds them."""

    @property
    def changed(self) -> bool:
        return self.data is not None


def fix_source(source: Source, options: FixOptions) -> FileFix:
    """Fix one input (a file or stdin); nothing is written here."""
    if source.chart:
        return FileFix(source.path, helm_chart_notice(source.path))  # a chart's sources: not ours to edit
    try:
        raw = read_bytes(source, options.validate.limits)
        text = decode(raw)
    except SourceError as err:
        return FileFix(source.path, unreadable(source.path, err.rule, err.message))
    except DecodeError as err:
        return FileFix(source.path, unreadable(source.path, err.rule, err.message, err.mark))
    if skips_as_template(source, raw, options.inputs):
        return FileFix(source.path, template_notice(source.path))  # a Go/Helm template: not ours to edit
    outcome = fix_text(text, source.path, options, scanned=source.scanned,
                       gateway_default=lambda: names_gateway(source, options.inputs.defaults_file,
                                                                  options.inputs.discover_defaults))
    if source.path == "-":
        outcome.original = raw
    if outcome.after is not None and outcome.after != text:
        bom, codec = encoding_of(raw)
        from kubectl_testbench.emit.files import sha256_of

        outcome.data = bom + outcome.after.encode(codec)
        outcome.read_sha256 = sha256_of(raw)
    else:
        outcome.before = outcome.after = None
    return outcome


def fix_text(text: str, path: str, options: FixOptions, scanned: bool = False,
             gateway_default: Callable[[], bool] | None = None) -> FileFix:
    """Fix the documents of ``text``; ``after`` is the new text (equal to ``text`` when nothing applied).
    ``gateway_default`` is validate's: whether the RenderDefaults for this file name an AI gateway."""
    vopts = options.validate._replace(limits=dataclasses.replace(options.validate.limits,
                                                                             max_findings=UNLIMITED_FINDINGS))
    notes: list[Note] = []
    current = text
    migrated = 0
    if options.migrate:
        from kubectl_testbench.fix.migrate import migrate_text

        migration = migrate_text(text, vopts.limits)
        notes.extend(Note(path, line, message) for line, message in migration.notes)
        migrated = migration.moved
        current = migration.text

    def read(content: str, validate: Options) -> FileResult:
        return validate_text(content, path, validate, scanned=scanned, gateway_default=gateway_default)

    applied: list[Diagnostic] = []
    seen = {current}
    first: FileResult | None = None
    for round_ in range(MAX_ROUNDS):
        if round_ == 0:
            # validate's own reading: a clean file is read once, and its report keeps validate's cap on findings
            first = result = read(current, options.validate)
            if any(d.rule == VALIDATE_TOO_MANY_FINDINGS.id for d in result.diagnostics):
                result = read(current, vopts)  # the cap cut that reading short: fixing sees every finding
        else:  # later rounds only look for fixes: every finding, read once
            result = read(current, vopts)
        offered = [d for d in result.diagnostics if d.fix is not None and d.fix.edits and options.select(d.rule)]
        if not offered:
            break
        clash = _overlap(offered)
        if clash is not None:
            a, b = clash
            notes.append(Note(path, a.line, f"the fixes for {a.rule} at {a.path or f'line {a.line}'} and {b.rule} "
                                            f"at {b.path or f'line {b.line}'} overlap: file left unchanged"))
            return FileFix(path, read(text, options.validate), [], notes, 0, text, text)
        new, kept, refused = _verified(current, offered, vopts)
        for d in refused:
            notes.append(Note(path, d.line, f"the fix for {d.rule} at {d.path or f'line {d.line}'} did not read back "
                                            "as promised (meaning or comments changed): not applied"))
        if new in seen:  # also when no fix was kept: new is then the current text
            break
        seen.add(new)
        current = new
        applied.extend(kept)
    if first is None or current != text or options.migrate:  # (a fix applied always changes the text)
        first = read(current, options.validate)
    return FileFix(path, first, applied, notes, migrated, text, current)


def _edits(diagnostics: Iterable[Diagnostic]) -> list[tuple[int, int, str]]:
    return [(e.start, e.end, e.text) for d in diagnostics if d.fix for e in d.fix.edits]


def _overlap(offered: list[Diagnostic]) -> tuple[Diagnostic, Diagnostic] | None:
    """Two fixes whose edits touch the same text, or start at the same point, cannot both apply."""
    spans = sorted((e.start, e.end, i) for i, d in enumerate(offered) if d.fix for e in d.fix.edits)
    reach, reach_owner = -1, -1
    previous_start, previous_owner = -1, -1
    for start, end, owner in spans:
        if start < reach and reach_owner != owner:
            return offered[reach_owner], offered[owner]
        if start == previous_start and previous_owner != owner:
            return offered[previous_owner], offered[owner]
        if end > reach:
            reach, reach_owner = end, owner
        previous_start, previous_owner = start, owner
    return None


def _verified(text: str, offered: list[Diagnostic], options: Options) -> tuple[str, list[Diagnostic], list[Diagnostic]]:
    """The text with every fix that reads back as promised, those fixes, and the ones that did not."""
    new = apply_edits(text, _edits(offered))
    if _reads_back(text, new, offered, options):
        return new, offered, []
    kept = [d for d in offered if _reads_back(text, apply_edits(text, _edits([d])), [d], options)]
    refused = [d for d in offered if d not in kept]
    new = apply_edits(text, _edits(kept))
    if kept and not _reads_back(text, new, kept, options):
        return text, [], offered  # each is fine alone, not together
    return new, kept, refused


def _reads_back(text: str, new: str, applied: list[Diagnostic], options: Options) -> bool:
    """Every document means what the fixes promise, and every comment outside deleted lines is still there."""
    from kubectl_testbench.fix.comments import lost_comments
    from kubectl_testbench.fix.verify import failing
    from kubectl_testbench.load.lines import LineIndex

    fixes = [d.fix for d in applied if d.fix is not None]
    if failing(text, new, fixes, options.limits):
        return False
    if looks_like_json(text):
        return looks_like_json(new)  # JSON has no comments; it must stay JSON
    deleted: set[int] = set()
    lines = LineIndex(text)
    for fix in fixes:
        for e in fix.edits:
            if not e.text and e.end > e.start:
                first, last = lines.position(e.start)[0], lines.position(e.end - 1)[0]
                deleted.update(range(first - 1, last))
    return not lost_comments(text, new, deleted)


# --- many files -------------------------------------------------------------------------------------------


def fix_paths(paths: Iterable[str], options: FixOptions, jobs: int | None = None) -> Iterator[FileFix]:
    """Results per input in input order; a process pool does the work when there are many files."""
    return each_input(paths, options.inputs.only_testbench_files, _one, options, jobs)


def _one(item: Source | SourceError, options: FixOptions) -> FileFix:
    if isinstance(item, SourceError):
        return FileFix(item.path, unreadable(item.path, item.rule, item.message))
    return fix_source(item, options)
