"""JSON tables of RAGAS rows; see :mod:`table` for the columns.

Accepted shapes: an array of row objects (pandas ``orient="records"``), JSON Lines (``*.jsonl``, one row
object per line), pandas' default ``orient="columns"`` (``{"column": {"0": value, ...}}``) and
``orient="split"`` (``{"columns": [...], "data": [[...]]}``). An Experiment file (``{"scenarios": ...}``) is
refused with a hint: it needs no import.
"""

from __future__ import annotations

from typing import Any

from kubectl_testbench.integrations.importers.common import (
    Collected,
    ImportInputError,
    ImportOptions,
    display_name,
    expand_inputs,
    load_documents,
    mark_of,
    read_input_text,
    value_mark,
)
from kubectl_testbench.integrations.importers.table import Cell, Row, Table, collect_tables, stem_of
from kubectl_testbench.load.positions import PosDict

PATTERNS = ("*.json", "*.jsonl", "*.ndjson")


def read(paths: tuple[str, ...], options: ImportOptions) -> Collected:
    return collect_tables("json", expand_inputs(paths, PATTERNS, "JSON files"),
                          lambda path, collected: read_table(path, options, collected))


def read_table(path: str, options: ImportOptions, collected: Collected) -> Table:
    file = display_name(path)
    if path.endswith((".jsonl", ".ndjson")):
        return _records(file, stem_of(path), _lines(path, file, options))
    data = load_documents(path, collected.warnings, options.limits)[0].data
    if isinstance(data, list):
        return _records(file, stem_of(path), data)
    if isinstance(data, dict):
        if "scenarios" in data:
            raise ImportInputError(file, "is already a Testbench dataset file (it has scenarios): check it with "
                                         f"kubectl testbench dataset validate {file}, upload it with kubectl "
                                         "testbench dataset push, and reference it with spec.dataset.s3 or "
                                         "spec.dataset.url; nothing to import")
        if isinstance(data.get("columns"), list) and isinstance(data.get("data"), list):
            return _split(file, stem_of(path), data)
        if data and all(isinstance(v, dict) for v in data.values()):
            return _by_column(file, stem_of(path), data)
    raise ImportInputError(file, "is not a table: expected an array of row objects, JSON Lines, or pandas' "
                                 '"columns"/"split" layout', *mark_of(data))


def _lines(path: str, file: str, options: ImportOptions) -> list[Any]:
    from kubectl_testbench.load.builder import build
    from kubectl_testbench.load.positions import PosList

    rows: PosList = PosList((1, 1))
    for number, line in enumerate(read_input_text(path, options.limits).splitlines(), start=1):
        if not line.strip():
            continue
        built = build(line, number - 1, options.limits)
        if built.error is not None:
            raise ImportInputError(file, f"line is not JSON: {built.error.message}", *built.error.mark)
        rows.append(built.data)
        rows.item_marks.append((number, 1))
    return rows


def _records(file: str, stem: str, items: list[Any]) -> Table:
    columns: dict[str, tuple[int, int]] = {}
    rows: list[Row] = []
    for i, item in enumerate(items):
        line, col = mark_of(items, i)
        if not isinstance(item, dict):
            raise ImportInputError(file, f"row {i + 1} is not an object", line, col)
        row = Row(i + 1, line, col)
        for key, value in item.items():
            columns.setdefault(key, mark_of(item, key))
            vline, vcol = value_mark(item, key) if isinstance(item, PosDict) else (line, col)
            row.cells[key] = Cell(value, vline, vcol)
        rows.append(row)
    return Table(file, stem, [(name, *mark) for name, mark in columns.items()], rows)


def _split(file: str, stem: str, data: dict[str, Any]) -> Table:
    names = [str(n) for n in data["columns"]]
    rows: list[Row] = []
    for i, values in enumerate(data["data"]):
        line, col = mark_of(data["data"], i)
        if not isinstance(values, list):
            raise ImportInputError(file, f"data row {i + 1} is not an array", line, col)
        row = Row(i + 1, line, col)
        for j, value in enumerate(values[: len(names)]):
            vline, vcol = mark_of(values, j)
            row.cells[names[j]] = Cell(value, vline, vcol)
        rows.append(row)
    header = [(name, *mark_of(data["columns"], j)) for j, name in enumerate(names)]
    return Table(file, stem, header, rows)


def _by_column(file: str, stem: str, data: dict[str, Any]) -> Table:
    index: list[str] = []
    for column in data.values():
        for key in column:
            if key not in index:
                index.append(key)
    index.sort(key=lambda k: (0, int(k)) if str(k).isdigit() else (1, 0))
    rows: list[Row] = []
    for n, key in enumerate(index, start=1):
        first: Any = next((c for c in data.values() if key in c), {})
        line, col = mark_of(first, key)
        row = Row(n, line, col)
        for name, column in data.items():
            if key in column:
                vline, vcol = value_mark(column, key)
                row.cells[name] = Cell(column[key], vline, vcol)
        rows.append(row)
    header = [(name, *mark_of(data, name)) for name in data]
    return Table(file, stem, header, rows)
