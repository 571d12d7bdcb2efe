"""``fix --migrate``: Experiments written for the earlier upstream schemas, moved to the current v1alpha1 shape.

Two earlier shapes exist upstream (agentic-layer/testbench):

- the older one (``operator/api/v1alpha1/experiment_types.go`` before the dataset became a union): inline
  ``scenarios``, ``llmAsAJudgeModel``, ``defaultThreshold`` (defaulted to 0.9 by that CRD),
  ``aiGatewayRef`` and ``otlpEndpoint`` directly under ``spec``; ``dataset`` held only ``s3``/``url`` and
  excluded ``scenarios``; ``trigger.event`` named the Testkube event (``modified`` by default);
- the later one (sample at 8c1c97d): ``llmAsAJudgeModel``/``defaultThreshold`` under ``spec`` beside an
  ``s3``/``url`` dataset. That operator wrote them only into the ConfigMap it mounted for inline scenarios,
  so with an s3/url dataset they had no effect: the dataset file carries its own judge settings.

What moves where: ``scenarios`` with the judge settings -> ``spec.dataset.inline`` (a missing
``defaultThreshold`` is written out as the old CRD's 0.9); judge settings beside an s3/url dataset are
commented out with a note (nothing is lost); ``otlpEndpoint`` -> ``spec.env`` as
``OTEL_EXPORTER_OTLP_ENDPOINT``; ``trigger.event: modified`` is commented out (triggers fire on modified
deployments now, the only event). Anything else is refused with the reason: both scenarios and a dataset,
judge settings with no dataset, another trigger event, an OTLP endpoint that contradicts ``spec.env``, or a
layout that cannot be edited line by line (flow-style spec, merge keys).

Blocks of lines move with their comments (the comment lines directly above a key travel with it), re-indented
by the file's own step; every migrated document is read back and must equal the expected new shape, and a
round-trip reader checks that every comment is still there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.fix.comments import lost_comments
from kubectl_testbench.fix.verify import canonical
from kubectl_testbench.load.builder import build
from kubectl_testbench.load.jsonread import read_stream
from kubectl_testbench.load.limits import Limits
from kubectl_testbench.load.lines import SPLITLINES_BREAK, LineIndex, indent_width
from kubectl_testbench.load.positions import plain
from kubectl_testbench.load.split import split_documents
from kubectl_testbench.model.constants import GROUP, KIND
from kubectl_testbench.sniff import looks_like_json
from kubectl_testbench.validate.fix_placement import apply_edits, flow_entry_span
from kubectl_testbench.validate.spans import Node, key_name, span_tree

JUDGE = ("llmAsAJudgeModel", "defaultThreshold")
SCENARIOS = "scenarios"
OTLP = "otlpEndpoint"
OTEL_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT"
EARLIER_DEFAULT_THRESHOLD = 0.9
"""``+kubebuilder:default=0.9`` on the older CRD's spec.defaultThreshold."""
MARK = "kubectl testbench fix --migrate"


@dataclass(slots=True)
class Migration:
    text: str
    notes: list[tuple[int, str]] = field(default_factory=list)
    """``(line, message)``: one per moved field, or why a document was not migrated."""
    moved: int = 0


class Refusal(Exception):
    """A document that cannot be migrated mechanically, and why."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def earlier_shape(data: Any) -> bool:
    """An Experiment that uses a field of the earlier schemas."""
    if not isinstance(data, dict) or data.get("kind") != KIND:
        return False
    if not str(data.get("apiVersion")).startswith(GROUP + "/"):
        return False
    spec = data.get("spec")
    if not isinstance(spec, dict):
        return False
    trigger = spec.get("trigger")
    return any(f in spec for f in (*JUDGE, SCENARIOS, OTLP)) or (isinstance(trigger, dict) and "event" in trigger)


def migrate_text(text: str, limits: Limits) -> Migration:
    """``text`` with every Experiment of an earlier shape migrated (documents that cannot be are left as they are)."""
    migration = Migration(text)
    if looks_like_json(text):  # one flow object per Experiment: nothing to move line by line
        for doc in read_stream(text, limits):
            if doc.error is None and earlier_shape(doc.data):
                migration.notes.append((doc.start_line + 1, "cannot migrate this Experiment: it is JSON, which is "
                                        "not edited line by line: migrate it by hand"))
        return migration
    lines = LineIndex(text, SPLITLINES_BREAK)  # the lines split_documents counts: where each chunk starts
    edits: list[tuple[int, int, str]] = []
    for chunk in split_documents(text):
        if chunk.bad_separator:
            continue
        built = build(chunk.text, chunk.start_line, limits)
        if built.error is not None or not earlier_shape(built.data):
            continue
        offset = lines.start(chunk.start_line)
        try:  # two readings of the document: the planner reads one and edits the other into the expected shape
            plan = _Planner(chunk.text, plain(built.data), plain(built.data), chunk.start_line).plan()
            new_text = apply_edits(chunk.text, plan.edits)
            _check(chunk.text, new_text, plan, limits, chunk.start_line)
        except Refusal as refusal:
            migration.notes.append((refusal.line, f"cannot migrate this Experiment: {refusal}"))
            continue
        edits.extend((offset + s, offset + e, t) for s, e, t in plan.edits)
        migration.notes.extend(plan.notes)
        migration.moved += plan.moved
    migration.text = apply_edits(text, edits)
    return migration


def _check(before: str, after: str, plan: _Plan, limits: Limits, start_line: int) -> None:
    built = build(after, 0, limits)
    if canonical(plain(built.data)) != canonical(plan.expected):  # data is None when the text does not build
        raise Refusal(start_line + 1, "the edited document did not read back as the migrated Experiment "
                      "(anchors, aliases or an unusual layout?): migrate it by hand")
    lost = lost_comments(before, after, round_trip=True)
    if lost:
        raise Refusal(start_line + 1, f"the comment {lost[0]!r} would not survive the edit: migrate it by hand")


# --- planning one document ------------------------------------------------------------------------------


def _is_comment(line: str) -> bool:
    return line.strip().startswith("#")


@dataclass(slots=True)
class _Block:
    """An entry's lines: comment lines directly above it (``first``..``key``), its own lines (``key``..``end``)."""

    first: int
    key: int
    end: int
    column: int


@dataclass(slots=True)
class _Plan:
    edits: list[tuple[int, int, str]]
    expected: Any
    notes: list[tuple[int, str]]
    moved: int


def _entry(node: Node | None, name: str) -> tuple[Node, Node] | None:
    """The key and value of ``name`` as written in the mapping ``node``; None when the text does not hold it
    (an alias or a merge key stands there instead)."""
    matches = [(k, v) for k, v in (node.entries if node is not None else []) if key_name(k) == name]
    return matches[0] if len(matches) == 1 else None


class _Planner:
    def __init__(self, text: str, data: dict[str, Any], expected: dict[str, Any], start_line: int) -> None:
        self.text = text
        self.index = LineIndex(text)
        self.lines = self.index.with_breaks()
        """The document's lines, each with its line break (ending at CRLF, CR or LF, as editors count)."""
        self.data = data
        self.expected = expected
        """A second reading of the document, edited into the shape the migrated text must read back as."""
        self.start_line = start_line
        self.eol = "\r\n" if "\r\n" in text else "\r" if "\r" in text else "\n"
        self.edits: list[tuple[int, int, str]] = []
        self.notes: list[tuple[int, str]] = []
        self.moved = 0
        found = _entry(span_tree(text), "spec")
        if found is None or found[1].kind != "map":
            raise Refusal(start_line + 1, "spec could not be located in the text (an alias or merge key?)")
        spec_key, spec_node = found
        spec_line = self.index.line_of(spec_key.start)
        if spec_node.flow:
            raise Refusal(self.line_no(spec_line), "spec is written in flow style ({...}): migrate it by hand")
        self.spec = spec_node
        self.entries = {key_name(k): (k, v) for k, v in spec_node.entries}
        for name in (*JUDGE, SCENARIOS, OTLP, "dataset", "env", "trigger"):
            if name in data["spec"] and name not in self.entries:
                raise Refusal(self.line_no(spec_line), f"spec.{name} comes from a merge key or alias: "
                              "migrate it by hand")
        self.column = self.column_of(spec_node.entries[0][0])
        self.step = self.column - self.column_of(spec_key)
        """The file's indentation step (a block mapping's entries are always deeper than its key)."""

    # positions

    def line_no(self, index: int) -> int:
        return self.start_line + index + 1

    def column_of(self, node: Node) -> int:
        return node.start - self.index.start(self.index.line_of(node.start))

    def span(self, first: int, end: int) -> tuple[int, int]:
        return self.index.start(first), self.index.start(end)

    def block(self, key: Node, value: Node) -> _Block:
        """The entry's lines. A key in a block mapping starts its line (after the indentation) unless it is an
        explicit ``? key``, and nothing but a comment can follow its value on the value's last line."""
        lines = self.lines
        k = self.index.line_of(key.start)
        column = self.column_of(key)
        if indent_width(lines[k]) != column:
            raise Refusal(self.line_no(k), f'"{key.value}" does not start its line: migrate it by hand')
        end = self.index.line_of(value.end - 1) + 1
        while end < len(lines) and _is_comment(lines[end]) and indent_width(lines[end]) > column:
            end += 1
        first = k
        while _is_comment(lines[first - 1]) and indent_width(lines[first - 1]) == column:
            first -= 1
        return _Block(first, k, end, column)

    def shifted(self, first: int, end: int, by: int) -> str:
        return "".join(" " * by + line if line.strip() else line for line in self.lines[first:end])

    def comment_out(self, block: _Block, reason: str) -> None:
        """Turn the entry's own lines into comments under a note: the value stays readable, nothing is lost."""
        col = block.column
        body = "".join(line[:col] + "# " + line[col:] if line.strip() else line
                       for line in self.lines[block.key:block.end])
        start, end = self.span(block.key, block.end)
        self.edits.append((start, end, " " * col + f"# {MARK}: {reason}{self.eol}" + body))

    # the plan

    def plan(self) -> _Plan:
        spec = self.data["spec"]
        self._judge_and_scenarios(spec)
        self._otlp(spec)
        self._trigger_event(spec)
        return _Plan(self.edits, self.expected, self.notes, self.moved)

    def _judge_and_scenarios(self, spec: dict[str, Any]) -> None:
        espec = self.expected["spec"]
        judge = [f for f in JUDGE if f in spec]
        dataset = spec.get("dataset")
        if SCENARIOS in spec:
            line = self.line_no(self.index.line_of(self.entries[SCENARIOS][0].start))
            if dataset is not None:
                raise Refusal(line, "spec.scenarios and spec.dataset are both set (the earlier schema allowed "
                              "only one): keep one by hand")
            self._to_inline([*judge, SCENARIOS])
            inline = {f: espec.pop(f) for f in (*JUDGE, SCENARIOS) if f in espec}
            if "defaultThreshold" not in inline:
                inline = {**inline, "defaultThreshold": EARLIER_DEFAULT_THRESHOLD}
            espec["dataset"] = {"inline": inline}
            return
        if not judge:
            return
        line = self.line_no(self.index.line_of(self.entries[judge[0]][0].start))
        if not isinstance(dataset, dict) or not ({"s3", "url"} & set(dataset)):
            raise Refusal(line, f"spec.{judge[0]} belongs to a dataset, and there is no spec.dataset.s3/url or "
                          "spec.scenarios: move it into spec.dataset.inline by hand")
        if "inline" in dataset:
            raise Refusal(line, f"spec.{judge[0]} and spec.dataset.inline are both set: merge them by hand")
        source = "an s3" if "s3" in dataset else "a url"
        for name in judge:
            k, v = self.entries[name]
            snake = "llm_as_a_judge_model" if name == "llmAsAJudgeModel" else "default_threshold"
            self.comment_out(self.block(k, v), f"with {source} dataset the dataset file sets {snake}; "
                             "the earlier operator ignored this field")
            self.notes.append((self.line_no(self.index.line_of(k.start)), f"commented out spec.{name}: with "
                               f"{source} dataset the dataset file sets {snake} (the earlier operator did not "
                               "use this field)"))
            espec.pop(name)
            self.moved += 1

    def _to_inline(self, names: list[str]) -> None:
        blocks = sorted(((self.block(*self.entries[n]), n) for n in names), key=lambda b: b[0].first)
        col, step, eol = self.column, self.step, self.eol
        text = f"{' ' * col}dataset:{eol}{' ' * (col + step)}inline:{eol}"
        for block, name in blocks:
            if name == SCENARIOS and "defaultThreshold" not in names:
                text += (f"{' ' * (col + 2 * step)}defaultThreshold: {EARLIER_DEFAULT_THRESHOLD}  # the earlier "
                         f"CRD's default, written out by {MARK}{eol}")
                self.notes.append((self.line_no(block.key), "wrote spec.dataset.inline.defaultThreshold: "
                                   f"{EARLIER_DEFAULT_THRESHOLD}, the default the earlier CRD applied"))
            text += self.shifted(block.first, block.end, 2 * step)
            self.notes.append((self.line_no(block.key), f"migrated spec.{name} to spec.dataset.inline.{name}"))
            self.moved += 1
        first = blocks[0][0]
        start, end = self.span(first.first, first.end)
        self.edits.append((start, end, text))
        for block, _ in blocks[1:]:
            self.edits.append((*self.span(block.first, block.end), ""))

    def _otlp(self, spec: dict[str, Any]) -> None:
        if OTLP not in spec:
            return
        espec = self.expected["spec"]
        k, v = self.entries[OTLP]
        block = self.block(k, v)
        line = self.line_no(block.key)
        value = spec[OTLP]
        if value in (None, ""):
            self.comment_out(block, "an empty OTLP endpoint has no effect")
            self.notes.append((line, "commented out spec.otlpEndpoint: it is empty"))
            espec.pop(OTLP)
            self.moved += 1
            return
        written = self.text[v.start:v.end]
        if not isinstance(value, str) or re.search(r"[\r\n]", written):
            raise Refusal(line, "spec.otlpEndpoint is not a one-line string: move it to spec.env by hand")
        trailing = re.split(r"[\r\n]", self.text[v.end:])[0]
        env = spec.get("env")
        espec.pop(OTLP)
        self.moved += 1
        if env is None:
            offset = self._sequence_offset()
            col, eol = block.column, self.eol
            text = (f"{' ' * col}env:{eol}{' ' * (col + offset)}- name: {OTEL_ENV}{eol}"
                    f"{' ' * (col + offset + 2)}value: {written}{trailing}{eol}")
            self.edits.append((*self.span(block.key, block.end), text))
            espec["env"] = [{"name": OTEL_ENV, "value": value}]
            self.notes.append((line, f"migrated spec.otlpEndpoint to spec.env {OTEL_ENV}"))
            return
        same = [e for e in env if isinstance(e, dict) and e.get("name") == OTEL_ENV] if isinstance(env, list) else []
        if same:
            if same[0].get("value") != value or "valueFrom" in same[0]:
                raise Refusal(line, f"spec.env already sets {OTEL_ENV} to something else than spec.otlpEndpoint: "
                              "decide which one applies by hand")
            self.comment_out(block, f"spec.env already sets {OTEL_ENV} to this value")
            self.notes.append((line, f"commented out spec.otlpEndpoint: spec.env already sets {OTEL_ENV}"))
            return
        ek, ev = self.entries["env"]
        if ev.kind != "seq" or ev.flow:  # a block list has at least one item
            raise Refusal(line, f"spec.env is not a block list: add {OTEL_ENV} to it by hand")
        item_line = self.index.line_of(ev.items[0].start)
        dash = self.lines[item_line].index("-")
        content = self.column_of(ev.items[0])
        lead = "".join(" " * dash + ln[block.column:] for ln in self.lines[block.first:block.key])
        item = f"{lead}{' ' * dash}- name: {OTEL_ENV}{self.eol}{' ' * content}value: {written}{trailing}{self.eol}"
        at = self.index.start(self.block(ek, ev).end)
        self.edits.append((at, at, item))
        self.edits.append((*self.span(block.first, block.end), ""))
        espec["env"] = [*env, {"name": OTEL_ENV, "value": value}]
        self.notes.append((line, f"migrated spec.otlpEndpoint to spec.env {OTEL_ENV}"))

    def _sequence_offset(self) -> int:
        """How far this file indents a block list under its key (``env:`` then ``  - name``): the first block
        list in spec shows it; without one, the mapping step."""
        for k, v in _entries_in_order(self.spec):
            if v.kind == "seq" and not v.flow:
                return self.lines[self.index.line_of(v.items[0].start)].index("-") - self.column_of(k)
        return self.step

    def _trigger_event(self, spec: dict[str, Any]) -> None:
        trigger = spec.get("trigger")
        if not isinstance(trigger, dict) or "event" not in trigger:
            return
        tk, tv = self.entries["trigger"]
        found = _entry(tv, "event")
        if found is None:
            raise Refusal(self.line_no(self.index.line_of(tk.start)), "spec.trigger.event could not be located in "
                          "the text (an alias or merge key?)")
        k, v = found
        line = self.line_no(self.index.line_of(k.start))
        event = trigger["event"]
        if not isinstance(event, str) or event.lower() != "modified":
            raise Refusal(line, f"spec.trigger.event {event!r} has no counterpart: a TestTrigger now always fires "
                          "when the agent's Deployment is modified")
        etrigger = self.expected["spec"]["trigger"]
        etrigger.pop("event")
        if tv.flow:
            span = flow_entry_span(tv, tv.entries.index(found), self.text)
            if span is None:
                raise Refusal(line, "spec.trigger is a flow mapping with comments: remove event by hand")
            self.edits.append((span[0], span[1], ""))
        else:
            self.comment_out(self.block(k, v), "a TestTrigger now always fires on modified Deployments")
            if not etrigger:
                self.expected["spec"]["trigger"] = None
        self.notes.append((line, "commented out spec.trigger.event: modified is the only event now"))
        self.moved += 1


def _entries_in_order(node: Node) -> Iterator[tuple[Node, Node]]:
    """Every mapping entry under ``node``, in the order the text has them (lists are not entered)."""
    for k, v in node.entries:
        yield k, v
        yield from _entries_in_order(v)
