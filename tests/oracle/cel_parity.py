"""Comparing our CEL findings with cel-go's (the oracle's CEL request form), for the test and the benchmark.

Findings must agree field path for field path and message for message, cel-go's source picture under a compile
error dropped (our findings are one line) and the random ``selfType<N>`` of an object type's name dropped. Two
classes of difference are named, on purpose (``DIFFERENCES``); anything else is a defect.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

from kubectl_testbench.validate.engine import run_cel
from tests.oracle.harness import Oracle

DIFFERENCES = {
    "syntax-error": "a rule that does not parse: both refuse it as a compile error ('Syntax error'), but the place "
                    "is celpy's (the last token it took) and cel-go's list of expected tokens (ANTLR's) is not "
                    "reproduced",
    "overload-name": "an evaluation that finds no overload: cel-go names the function ('no such overload: _+_') "
                     "when the checker had chosen its overloads and a value at run time fits none of them (null "
                     "standing for a duration), and not when it dispatches dynamically; we never name it",
}
_OBJECT_NAME = re.compile(r"selfType\d+")
_SYNTAX = re.compile(r'^(Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:\d+:\d+: '
                     r"Syntax error: )")


def server_findings(answer: list[dict[str, Any]]) -> list[tuple[list[Any], str]]:
    return [(e["path"], _OBJECT_NAME.sub("selfType", " ".join(
        line for line in e["detail"].splitlines() if not line.startswith(" |")))) for e in answer]


def our_findings(schema: dict[str, Any], value: Any) -> list[tuple[list[Any], str]]:
    found: list[tuple[list[Any], str]] = []
    run_cel([SimpleNamespace(schema=schema, path=[], value=value)],
            lambda rule, at, message, hint: found.append((list(at), message)), refused={})
    return found


_NAMED_OVERLOAD = re.compile(r"'no such overload: [^']+'")


def difference(ours: list[tuple[list[Any], str]], theirs: list[tuple[list[Any], str]]) -> str | None:
    """The named class a disagreement falls in, or None when it is a defect."""
    if len(ours) != len(theirs):
        return None
    named = None
    for (our_path, our_text), (their_path, their_text) in zip(ours, theirs, strict=True):
        if our_path == their_path and our_text == their_text:
            continue
        if our_path == their_path and _SYNTAX.match(our_text) and _SYNTAX.match(their_text):
            named = named or "syntax-error"
            continue
        if our_path == their_path and _NAMED_OVERLOAD.sub("'no such overload'", their_text) == our_text:
            named = named or "overload-name"
            continue
        return None
    return named


def compare(oracle: Oracle, batch: list[tuple[dict[str, Any], Any]]) -> tuple[int, dict[str, int], list[str]]:
    answers = oracle.ask_cel(batch)
    agree, classes, defects = 0, dict.fromkeys(DIFFERENCES, 0), []
    for (schema, value), answer in zip(batch, answers, strict=True):
        ours, theirs = our_findings(schema, value), server_findings(answer)
        if ours == theirs:
            agree += 1
            continue
        named = difference(ours, theirs)
        if named is None:
            defects.append(f"{schema['x-kubernetes-validations']} on {value}\n  server: {theirs}\n  ours:   {ours}")
        else:
            classes[named] += 1
    return agree, classes, defects
