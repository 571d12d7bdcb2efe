"""Our CEL (celpy, our Kubernetes library and cel-go's checks in ``validate/cel/check``) judged by cel-go itself.

Each case is a schema node with ``x-kubernetes-validations`` and a value; the Go oracle answers with the API
server's CEL validator (apiextensions-apiserver 1.35.4, cel-go with Kubernetes' libraries and cost budget), we
answer with ``run_cel``. Findings must agree field path for field path and message for message (cel-go's
source picture under a compile error dropped: our findings are one line; the random ``selfType<N>`` of an
object type's name dropped). ``cel_cases`` holds the fidelity gaps issue 29 named, the probes that found the
others, the shipped dataset rule's corner cases and rules generated for the kinds we could add (lists, maps,
quantities, regexes, optionals, strings, numbers, durations, timestamps).

Two classes of difference remain, on purpose, and are checked to stay within their bounds (``DIFFERENCES`` in
cel_parity.py).
"""

from __future__ import annotations

import os

import pytest

from tests.oracle.cel_cases import KNOWN_GAPS, cases
from tests.oracle.cel_parity import compare, our_findings
from tests.oracle.harness import Oracle

COUNT = int(os.environ.get("CEL_PARITY_COUNT", "2000"))


@pytest.mark.parametrize("rule", KNOWN_GAPS)
def test_each_named_gap_reads_as_cel_go_reads_it(oracle: Oracle, rule: str) -> None:
    from tests.oracle.cel_cases import SCHEMA

    value = {"s": "x", "i": 1, "n": 1.5, "b": True, "l": ["a"], "li": [1, 2], "ln": [1.5, 2.5], "m": {"k": "v"},
             "o": {"a": "z"}, "d": "1s", "t": "2020-01-01T00:00:00Z", "q": 1, "qs": "1Gi", "u": {"z": 1}}
    batch = [({**SCHEMA, "x-kubernetes-validations": [{"rule": rule}]}, value)]
    agree, classes, defects = compare(oracle, batch)
    assert not defects, defects[0]
    assert agree + sum(classes.values()) == 1


def test_generated_rules_agree_with_cel_go(oracle: Oracle) -> None:
    agree, classes, defects = compare(oracle, cases(seed=29, count=COUNT))
    print(f"\nCEL parity: {agree}/{COUNT} agree; named differences: {classes}")
    assert not defects, f"{len(defects)} disagreements:\n" + "\n".join(defects[:3])
    assert classes["syntax-error"] + classes["overload-name"] <= COUNT // 100, "both are rare: more means a new class"


@pytest.mark.parametrize(("rule", "expected"), [
    ("[1,2].isSorted() == 1", "found no matching overload for '_==_' applied to '(bool, int)'"),
    ("self.m.exists(k, k)", "expected type 'bool' but found 'string'"),
    ("duration(1) == duration('1s')", "invalid duration argument"),
    ("int('x') == 1", "program instantiation failed: type conversion error from 'string' to 'int'"),
])
def test_the_gaps_issue_29_named_are_compile_errors_now(rule: str, expected: str) -> None:
    """Without the oracle too: each of these passed or read as celpy's error before cel_check."""
    schema = {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}},
              "x-kubernetes-validations": [{"rule": rule}]}
    [(path, message)] = our_findings(schema, {"m": {"a": "b"}})
    assert path == [] and message.startswith('Invalid value: "object": rule compile error: ') and expected in message


def test_the_agreement_benchmark_reports_cel_per_kind_of_case(oracle: Oracle,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "agreement", Path(__file__).resolve().parents[2] / "benchmarks" / "agreement.py")
    assert spec is not None and spec.loader is not None
    agreement = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(agreement)
    assert agreement.cel_run(oracle, 150) == 0
    out = capsys.readouterr().out
    for kind in ("named gaps and probes", "the shipped dataset rule", "generated rules"):
        assert f"| {kind} |" in out
    assert "disagreements outside the named class: 0" in out


def test_the_checker_cases_are_cel_gos_answers(oracle: Oracle) -> None:
    """tests/validate/test_cel_check.py writes down cel-go's answer for each of its rules: cel-go still gives it."""
    from tests.oracle.cel_parity import server_findings
    from tests.validate.test_cel_check import CASES, SCHEMA, expected_error

    refused = 'Invalid value: "object": rule compile error: '
    answers = oracle.ask_cel([({**SCHEMA, "x-kubernetes-validations": [{"rule": rule}]}, {}) for rule, _ in CASES])
    wrong = []
    for (rule, short), answer in zip(CASES, answers, strict=True):
        found = [text[len(refused):] for _, text in server_findings(answer) if text.startswith(refused)]
        if (found[0] if found else "") != expected_error(short):
            wrong.append(f"{rule!r}: cel-go says {found}")
    assert not wrong, "\n".join(wrong)


def test_the_checker_message_expressions_keep_or_drop_the_field_path_as_cel_go_does(oracle: Oracle) -> None:
    from tests.oracle.cel_parity import server_findings
    from tests.validate.test_cel_check import MESSAGE_EXPRESSIONS, SCHEMA

    batch = [({**SCHEMA, "x-kubernetes-validations": [{"rule": "false", "fieldPath": ".s", "messageExpression": e}]},
              {"s": "x"}) for e, _ in MESSAGE_EXPRESSIONS]
    paths = [[path for path, _ in server_findings(answer)] for answer in oracle.ask_cel(batch)]
    assert paths == [[["s"] if kept else []] for _, kept in MESSAGE_EXPRESSIONS]


def test_typed_formats_and_a_missing_key_read_as_cel_go_reads_them(oracle: Oracle) -> None:
    """The cases of tests/validate/test_cel_evaluate_values.py, judged by cel-go."""
    from tests.validate.test_cel_evaluate_values import FORMAT_CASES, FORMATS, MAP_SCHEMA, MISSING_KEY

    batch = [({**FORMATS, "x-kubernetes-validations": [{"rule": rule}]}, value) for rule, value, _ in FORMAT_CASES]
    batch.append(({**MAP_SCHEMA, "x-kubernetes-validations": [{"rule": MISSING_KEY[0]}]}, MISSING_KEY[1]))
    agree, _, defects = compare(oracle, batch)
    assert not defects, defects[0]
    assert agree == len(batch)
