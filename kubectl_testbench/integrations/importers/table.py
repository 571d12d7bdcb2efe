"""Tables of RAGAS rows (csv, json, parquet) → scenarios: one step per row, ``scenario``/``step`` to group turns.

Columns (matched case-insensitively; the first listed name is the canonical one, see :data:`COLUMNS`):
``user_input`` (required), ``reference``, ``retrieved_contexts``, ``reference_tool_calls``,
``reference_topics``, ``metrics``, ``scenario``, ``step`` and ``id``. Without a ``scenario`` column every row
is a scenario of its own, named by ``id`` or ``<file>-<row>``. Columns with the agent's recorded answers
(``response``, ``answer``) are not carried over (the agent answers at run time); any other column is kept in
the step's customValues.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.integrations.importers.common import (
    Collected,
    ImportInputError,
    MetricSpec,
    Origin,
    ScenarioSpec,
    StepSpec,
    display_name,
    json_text,
    parse_list_cell,
    parse_metric_option,
    plain,
    scalar_text,
    tool_call,
)

COLUMNS: dict[str, tuple[str, ...]] = {
    "user_input": ("user_input", "question", "query", "input", "prompt"),
    "reference": ("reference", "ground_truth", "expected_output", "expected_answer", "reference_answer"),
    "ground_truths": ("ground_truths",),
    "retrieved_contexts": ("retrieved_contexts", "contexts", "context", "retrieved_context"),
    "reference_tool_calls": ("reference_tool_calls", "tool_calls", "expected_tool_calls"),
    "reference_topics": ("reference_topics", "topics"),
    "metrics": ("metrics",),
    "scenario": ("scenario", "scenario_name", "conversation_id"),
    "step": ("step", "step_index", "turn"),
    "id": ("id", "name", "sample_id"),
}
"""Canonical column → accepted names (RAGAS v0.2 names first, then v0.1 and common alternatives)."""

NOT_CARRIED: dict[str, str] = {
    "response": "the agent's answer is produced at run time, a recorded one is not a reference",
    "answer": "the agent's answer is produced at run time, a recorded one is not a reference (RAGAS v0.1 "
              "'answer' is the system's response; the expected answer is 'ground_truth')",
    "reference_contexts": "Testbench has no reference contexts; put the contexts to check in retrieved_contexts",
}


@dataclass(slots=True)
class Cell:
    value: Any
    line: int = 0
    col: int = 0


@dataclass(slots=True)
class Row:
    number: int
    """1-based data row (the header is not counted)."""
    line: int
    col: int
    cells: dict[str, Cell] = field(default_factory=dict)


@dataclass(slots=True)
class Table:
    file: str
    stem: str
    columns: list[tuple[str, int, int]]
    """Column names in order, with the position of their header (0, 0 where the format has none)."""
    rows: list[Row]


@dataclass(slots=True)
class _Entry:
    row: Row
    step: StepSpec
    group: str | None
    """The scenario column's value: rows with the same value are the turns of one scenario."""
    label: str | None
    """The id column's value: the name of a single-row scenario."""
    order: int | None


def collect_tables(fmt: str, files: list[str], read_one: Callable[[str, Collected], Table]) -> Collected:
    """Read every table file of one format into one Collected, in the order the files were found."""
    collected = Collected(fmt)
    for path in files:
        file = display_name(path)
        collected.sources.append(file)
        collected.warnings.file_seen(file)
        add_table(read_one(path, collected), collected)
    return collected


def add_table(table: Table, collected: Collected) -> None:
    """Append the scenarios of ``table`` to ``collected``, reporting what cannot be carried over."""
    warn = collected.warnings.add
    file = table.file
    columns = _columns(table, collected)
    if "user_input" not in columns:
        found = ", ".join(name for name, _, _ in table.columns) or "none"
        raise ImportInputError(file, f"has no user_input column (or question, query, input, prompt); columns: {found}")
    if "scenario" in columns and "id" in columns:
        name, line, col = _header(table, columns.pop("id"))
        warn(file, (line, col), name, f'column "{name}" is kept in customValues: scenario names come from the '
             f'"{columns["scenario"]}" column')
    if "step" in columns and "scenario" not in columns:
        name, line, col = _header(table, columns["step"])
        warn(file, (line, col), name, "the step column orders the turns of a scenario, but there is no scenario "
             "column: every row is its own scenario")
    extra = [name for name, _, _ in table.columns
             if name not in columns.values() and name.strip().lower() not in NOT_CARRIED]
    entries: list[_Entry] = []
    for row in table.rows:
        entry = _row(table, row, columns, extra, collected)
        if entry is not None:
            entries.append(entry)
    _group(table, entries, "scenario" in columns, collected)


def _header(table: Table, name: str) -> tuple[str, int, int]:
    return next(c for c in table.columns if c[0] == name)


def _columns(table: Table, collected: Collected) -> dict[str, str]:
    """Canonical column → the column name used in this table; duplicates and recorded answers are reported."""
    found: dict[str, str] = {}
    for name, line, col in table.columns:
        key = name.strip().lower()
        canonical = next((c for c, names in COLUMNS.items() if key in names), None)
        if key in NOT_CARRIED:
            collected.warnings.add(table.file, (line, col), name, f'column "{name}" is not carried over: '
                                   f"{NOT_CARRIED[key]}")
        elif canonical is None:
            collected.warnings.add(table.file, (line, col), name, f'column "{name}" is kept in customValues; no '
                                   "metric reads it")
        elif canonical in found:
            collected.warnings.add(table.file, (line, col), name, f'column "{name}" is another name for '
                                   f'{canonical}, already read from "{found[canonical]}": kept in customValues')
        else:
            found[canonical] = name
    return found


def _row(table: Table, row: Row, columns: dict[str, str], extra: list[str],
         collected: Collected) -> _Entry | None:
    file = table.file
    warn = collected.warnings.add

    def cell(canonical: str) -> Cell | None:
        name = columns.get(canonical)
        found = row.cells.get(name) if name is not None else None
        return found if found is not None and not _empty(found.value) else None

    def at(canonical_or_name: str) -> tuple[str | int, ...]:
        return ("rows", row.number - 1, columns.get(canonical_or_name, canonical_or_name))

    def pos(c: Cell) -> tuple[int, int]:
        return (c.line, c.col) if c.line else (row.line, row.col)

    text_cell = cell("user_input")
    text = scalar_text(text_cell.value) if text_cell else None
    if text is None:
        collected.skip(f"row {row.number}", Origin(file, row.line, row.col, f"rows[{row.number - 1}]"),
                       f"row {row.number} has no user_input: skipped")
        return None
    step = StepSpec(text, Origin(file, row.line, row.col, f"rows[{row.number - 1}]"))
    ref = cell("reference")
    if ref is not None:
        step.response = scalar_text(ref.value) or json_text(ref.value)
    truths = cell("ground_truths")
    if truths is not None:
        values = _list(truths.value)
        if values is None:
            values = [truths.value]
        texts = [t for t in (scalar_text(v) for v in values) if t]
        if texts and step.response is None:
            step.response = texts[0]
            if len(texts) > 1:
                warn(file, pos(truths), at("ground_truths"), f"{len(texts) - 1} further ground truth(s) not carried "
                     "over: reference.response holds one answer")
        elif texts:
            warn(file, pos(truths), at("ground_truths"), "ground_truths not carried over: the reference column "
                 "already gives the expected answer")
    contexts = cell("retrieved_contexts")
    if contexts is not None:
        step.contexts = _texts(contexts, "retrieved_contexts", lambda s: [s], table, row, at, pos, collected)
    topics = cell("reference_topics")
    if topics is not None:
        step.topics = _texts(topics, "reference_topics", lambda s: [t.strip() for t in s.split(",")], table, row,
                             at, pos, collected)
    calls = cell("reference_tool_calls")
    if calls is not None:
        step.tool_calls = _tool_calls(calls, table, row, at, pos, collected) or None
    metrics = cell("metrics")
    if metrics is not None:
        step.metrics = _metrics(metrics, table, at, pos, collected) or None
    custom = {name: plain(row.cells[name].value) for name in extra
              if name in row.cells and not _empty(row.cells[name].value)}
    step.custom_values = custom or None
    scenario_cell = cell("scenario")
    name_cell = cell("id")
    order: int | None = None
    step_cell = cell("step")
    if step_cell is not None:
        order = _int(step_cell.value)
        if order is None:
            warn(file, pos(step_cell), at("step"), f'step "{step_cell.value}" is not a whole number: the row keeps '
                 "its place in the file")
    return _Entry(row, step, scalar_text(scenario_cell.value) if scenario_cell else None,
                  scalar_text(name_cell.value) if name_cell else None, order)


def _group(table: Table, entries: list[_Entry], grouped: bool, collected: Collected) -> None:
    scenarios: dict[str, tuple[ScenarioSpec, list[_Entry]]] = {}
    for entry in entries:
        if grouped and entry.group is not None:
            key, name = entry.group, entry.group
        else:
            key, name = f"\0row{entry.row.number}", entry.label or f"{table.stem}-{entry.row.number}"
        if key not in scenarios:
            scenarios[key] = (ScenarioSpec(name, entry.step.origin), [])
        scenarios[key][1].append(entry)
    for spec, members in scenarios.values():
        orders = [e.order for e in members if e.order is not None]
        if len(set(orders)) != len(orders):
            collected.warnings.at(spec.origin, f'scenario "{spec.name}" repeats a step number: rows with the same '
                                               "step keep their order in the file")
        members.sort(key=lambda e: (e.order is None, e.order if e.order is not None else 0, e.row.number))
        spec.steps = [e.step for e in members]
        collected.scenarios.append(spec)


def _texts(c: Cell, column: str, split: Any, table: Table, row: Row, at: Any, pos: Any,
           collected: Collected) -> list[str] | None:
    values = _list(c.value)
    if values is None:
        text = scalar_text(c.value)
        if text is None:
            return None
        parsed, problem = parse_list_cell(text)
        if problem:
            collected.warnings.add(table.file, pos(c), at(column), f"{column} {problem}: read as one text")
        values = parsed if parsed is not None else split(text)
    out = [t for t in (scalar_text(v) if not isinstance(v, (dict, list)) else json_text(v) for v in values) if t]
    return out or None


def _tool_calls(c: Cell, table: Table, row: Row, at: Any, pos: Any, collected: Collected) -> list[dict[str, Any]]:
    values = _list(c.value)
    if values is None:
        import json

        text = scalar_text(c.value) or ""
        try:
            loaded = json.loads(text)
        except ValueError:
            loaded, _ = parse_list_cell(text)
        values = loaded if isinstance(loaded, list) else [loaded] if isinstance(loaded, dict) else None
    if values is None:
        collected.warnings.add(table.file, pos(c), at("reference_tool_calls"), "reference_tool_calls is not a JSON "
                               'list of {"name", "args"} objects: not carried over')
        return []
    out = []
    for item in values:
        call = tool_call(item.get("name", item.get("tool_name")), item.get("args", item.get("tool_input"))) \
            if isinstance(item, dict) else None
        if call is None:
            collected.warnings.add(table.file, pos(c), at("reference_tool_calls"), f"tool call {json_text(item)} has "
                                   "no name: skipped")
        else:
            out.append(call)
    return out


def _metrics(c: Cell, table: Table, at: Any, pos: Any, collected: Collected) -> list[MetricSpec]:
    values = _list(c.value)
    if values is None:
        text = scalar_text(c.value) or ""
        parsed, _ = parse_list_cell(text)
        values = parsed if parsed is not None else [part for part in text.split(",") if part.strip()]
    out = []
    for value in values:
        try:
            out.append(parse_metric_option(str(value)))
        except ValueError as err:
            collected.warnings.add(table.file, pos(c), at("metrics"), f"metric not carried over: {err}")
    return out


def _list(value: Any) -> list[Any] | None:
    if isinstance(value, (list, tuple)):
        return list(value)
    return None


def _empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    if isinstance(value, str) and not value.strip():
        return True
    return isinstance(value, (list, tuple, dict)) and not value


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return int(number) if number.is_integer() else None
    return None


def stem_of(path: str) -> str:
    import os

    name = "stdin" if path == "-" else os.path.basename(path)
    return name.rsplit(".", 1)[0] if "." in name else name
