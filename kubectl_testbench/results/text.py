"""Small text helpers shared by the formatters: numbers, clipping, aligned tables, escaping.

Numbers print the same everywhere: scores and means with three decimals, rates as percentages with one,
deltas signed. Machine formats (json, csv) keep full precision instead (means rounded to 6 places so
float noise never reaches a diff).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from kubectl_testbench.safe_text import escape_controls, json_log_safe, markdown_text
from kubectl_testbench.words import plural as plural  # the formats call it t.plural

DASH = "-"


def score(value: float | None) -> str:
    return DASH if value is None or math.isnan(value) else f"{value:.3f}"


def rate(value: float | None) -> str:
    return DASH if value is None else f"{value * 100:.1f}%"


def delta(value: float | None) -> str:
    if value is None:
        return DASH
    text = f"{value:+.3f}"
    return "0.000" if text in ("+0.000", "-0.000") else text


def rounded(value: float | None) -> float | None:
    """For JSON: 6 decimals, enough for scores in [0, 1] and stable across platforms."""
    return None if value is None else round(value, 6)


def jsonable(value: Any) -> Any:
    """Free-form data from the file (details, parameters) with NaN and infinities as null: strict JSON out."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value


def json_document(doc: Any) -> str:
    """A json report: strict JSON, indented by two, non-ASCII as is; ``##[`` in a value written ``##\\u005b``
    (the same string once parsed) so that printing the report into a CI log forges no workflow command."""
    return json_log_safe(json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"


def raw(value: float | None) -> str:
    """For CSV: the number as Python writes it (``0.65``, ``1.0``), empty when absent."""
    return "" if value is None else repr(value)


def details(value: Any) -> str:
    """The judge's details on one line: strings as they are, anything else as compact sorted JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def one_line(text: str) -> str:
    """User text (names, reasons, sources) for a text line: control characters and line breaks escaped."""
    return escape_controls(text)


def clip(text: str, width: int) -> str:
    """Collapse whitespace (inputs span lines) and cut to ``width`` characters with an ellipsis."""
    flat = escape_controls(" ".join(text.split()))
    return flat if len(flat) <= width else flat[: max(width - 1, 0)] + "…"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    """Plain aligned columns, two spaces apart, no trailing spaces (``kubectl get`` style)."""
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = []
    for row in [list(headers), *rows]:
        cells = [cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def md(text: str, width: int | None = None) -> str:
    """A markdown table cell: one line, pipes and HTML escaped (inputs are user text in a PR comment)."""
    return markdown_text(clip(text, width) if width else " ".join(text.split()))


def code(text: str) -> str:
    """Inline markdown code that survives backticks in the text."""
    flat = escape_controls(" ".join(text.split()))
    fence = "``" if "`" in flat else "`"
    return f"{fence}{flat}{fence}" if fence == "`" else f"{fence} {flat} {fence}"
