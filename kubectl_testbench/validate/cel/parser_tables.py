"""celpy's CEL grammar compiled into Lark LALR tables when the package is built, so no run analyses it.

Building the parser from ``cel.lark`` (grammar analysis, LALR table construction) was most of a cold
start. ``python -m kubectl_testbench.generate --write`` runs Lark once and writes what it produced to
``_generated/cel-parser.json`` (:mod:`kubectl_testbench.generate.cel_parser`); this module loads it, as
Lark does with a cache hit: the same ``Lark`` object, trees and exceptions as building the parser,
without the analysis. The options and the stamp below are shared by both sides.

The file names the Lark version and the grammar's digest it was built from. When either differs from
what is installed (another celpy or Lark), :func:`load` returns None and the caller builds the parser.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from kubectl_testbench.package_data import GENERATED_DIR

GENERATED = GENERATED_DIR / "cel-parser.json"

BUILD_OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "start": "expr",
    "g_regex_flags": re.M,
    "propagate_positions": True,
    "maybe_placeholders": False,
    "priority": "invert",
    # celpy asks for debug=True: a table keyed by item sets, and a state dump *printed to stdout* when
    # parsing fails with an internal error. The integer table parses the same; a library never prints.
    "debug": False,
}
"""celpy's ``CELParser`` options, except ``lexer_callbacks`` and ``tree_class``: given at load time."""


def grammar_text() -> str:
    import celpy

    return (Path(celpy.__file__).parent / "cel.lark").read_text(encoding="utf-8")


def runtime_options() -> dict[str, Any]:
    """The options Lark accepts when loading tables: celpy's lexer callback and tree class."""
    import lark
    from celpy.celparser import CELParser

    return {"lexer_callbacks": {"IDENT": CELParser.ambiguous_literals}, "tree_class": lark.Tree,
            "g_regex_flags": re.M, "propagate_positions": True, "debug": False}


def stamp() -> dict[str, str]:
    import lark

    return {"lark": lark.__version__, "grammar_sha256": hashlib.sha256(grammar_text().encode()).hexdigest()}


def load(path: Path | None = None) -> Any:
    """The precompiled ``lark.Lark`` parser, or None when the file is missing or was built for another
    Lark or grammar."""
    import lark

    try:
        payload = json.loads((path or GENERATED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(payload, dict) or payload.get("stamp") != stamp():
        return None
    data, memo = payload["data"], _int_keys(payload["memo"])
    table = data["parser"]["parser"]
    table["tokens"] = _int_keys(table["tokens"])
    table["states"] = {int(state): _int_keys(actions) for state, actions in table["states"].items()}
    load_from_dict: Any = lark.Lark._load_from_dict  # what Lark's standalone parsers call; untyped upstream
    return load_from_dict(data, memo, **runtime_options())


def _int_keys(mapping: dict[str, Any]) -> dict[int, Any]:
    """JSON object keys are strings; Lark's tables are keyed by int."""
    return {int(k): v for k, v in mapping.items()}
