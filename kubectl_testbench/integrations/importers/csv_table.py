"""CSV (and TSV) tables of RAGAS rows; see :mod:`table` for the columns.

Quoted cells may span lines (RFC 4180); positions are the line where a row starts and the 1-based column
number of the cell. The delimiter is the one of ``, ; <tab> |`` that the header line uses most (``,`` on a tie).
"""

from __future__ import annotations

from kubectl_testbench.integrations.importers.common import (
    Collected,
    ImportInputError,
    ImportOptions,
    display_name,
    expand_inputs,
    read_input_text,
)
from kubectl_testbench.integrations.importers.table import Cell, Row, Table, collect_tables, stem_of

PATTERNS = ("*.csv", "*.tsv")
_DELIMITERS = (",", ";", "\t", "|")


def read(paths: tuple[str, ...], options: ImportOptions) -> Collected:
    return collect_tables("csv", expand_inputs(paths, PATTERNS, "CSV files"),
                          lambda path, _: read_table(path, options))


def read_table(path: str, options: ImportOptions) -> Table:
    import csv
    import io

    file = display_name(path)
    text = read_input_text(path, options.limits)
    first = text.split("\n", 1)[0]
    delimiter = "\t" if path.endswith(".tsv") else max(_DELIMITERS, key=lambda d: (first.count(d), d == ","))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[Row] = []
    header: list[tuple[str, int, int]] | None = None
    consumed = 0
    try:
        for record in reader:
            start = consumed + 1
            consumed = reader.line_num
            if not record or all(not cell.strip() for cell in record):
                continue
            if header is None:
                header = _header(record, start)
                continue
            row = Row(len(rows) + 1, start, 1)
            for i, value in enumerate(record):
                if i < len(header):
                    row.cells[header[i][0]] = Cell(value, start, i + 1)
                elif value.strip():
                    raise ImportInputError(file, f"row {row.number} has {len(record)} cells but the header names "
                                                 f"{len(header)} columns", start, i + 1)
            rows.append(row)
    except csv.Error as err:
        raise ImportInputError(file, f"is not valid CSV: {err}", reader.line_num) from None
    if header is None:
        raise ImportInputError(file, "is empty: expected a header line with user_input, reference, ...")
    return Table(file, stem_of(path), header, rows)


def _header(record: list[str], line: int) -> list[tuple[str, int, int]]:
    """Column names with their positions; a repeated name gets a suffix (``reference.1``), as pandas does."""
    seen: dict[str, int] = {}
    out = []
    for i, raw in enumerate(record):
        name = raw.strip()
        if name in seen:
            seen[name] += 1
            name = f"{name}.{seen[name]}"
        else:
            seen[name] = 0
        out.append((name, line, i + 1))
    return out
