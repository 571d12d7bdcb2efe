"""Parquet tables of RAGAS rows (needs pyarrow, the ``parquet`` extra: ``pip install '.[parquet]'`` in a checkout).

See :mod:`table` for the columns. Parquet has no lines: warnings name the row and column instead.
"""

from __future__ import annotations

from typing import Any

from kubectl_testbench.integrations.importers.common import (
    Collected,
    ImportInputError,
    ImportOptions,
    display_name,
    expand_inputs,
    read_input_bytes,
)
from kubectl_testbench.integrations.importers.table import Cell, Row, Table, collect_tables, stem_of

PATTERNS = ("*.parquet", "*.pq")
EXTRA_HINT = "reading parquet needs pyarrow: pip install pyarrow (the parquet extra of kubectl-testbench)"


class MissingExtraError(ImportInputError):
    """An optional dependency is not installed."""


def read(paths: tuple[str, ...], options: ImportOptions) -> Collected:
    files = expand_inputs(paths, PATTERNS, "parquet files")
    try:
        import pyarrow  # noqa: F401  (fail before reading anything)
    except ImportError:
        raise MissingExtraError("", EXTRA_HINT) from None
    return collect_tables("parquet", files, lambda path, _: read_table(path, options))


def read_table(path: str, options: ImportOptions) -> Table:
    import pyarrow as pa
    import pyarrow.parquet as pq

    file = display_name(path)
    data = read_input_bytes(path, options.limits)
    try:
        table = pq.read_table(pa.BufferReader(data))
    except (pa.ArrowException, OSError, ValueError) as err:
        raise ImportInputError(file, f"is not a readable parquet file: {err}") from None
    names = [str(n) for n in table.column_names]
    rows: list[Row] = []
    for i, record in enumerate(table.to_pylist(), start=1):
        row = Row(i, 0, 0)
        for name in names:
            row.cells[name] = Cell(_plain(record.get(name)))
        rows.append(row)
    return Table(file, stem_of(path), [(name, 0, 0) for name in names], rows)


def _plain(value: Any) -> Any:
    """Arrow values as JSON-like Python values (dates, decimals and bytes become text)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)
