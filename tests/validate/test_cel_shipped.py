"""What a cold run gets from the package instead of computing it: celpy's grammar as precompiled LALR
tables (cel_tables) and the packaged CRD's rule outcomes (cel_shipped). Both must give exactly what the
run-time path gives: the parser built from cel.lark, and celpy evaluating the rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.generate import cel_rules
from kubectl_testbench.validate.cel import environment as cel_env
from kubectl_testbench.validate.cel import parser_tables as cel_tables
from kubectl_testbench.validate.cel import shipped as cel_shipped
from kubectl_testbench.validate.cel import store as cel_store
from kubectl_testbench.validate.cel.evaluate import CompiledRule, analysis_key, outcome_key, saved_outcome
from kubectl_testbench.validate.crdschema import open_api_schema
from kubectl_testbench.validate.engine import validate_text
from tests.conftest import EXAMPLES, ROOT
from tests.validate.test_cel_library import EXAMPLES as LIBRARY_EXAMPLES

SCHEMA = open_api_schema()
CORPUS = ROOT / "tests" / "validate" / "corpus"


@pytest.fixture(scope="module")
def parsers() -> dict[str, Any]:
    """The parser a cold run loads, and the one built from celpy's grammar (the fallback path)."""
    precompiled = cel_tables.load()
    assert precompiled is not None, "the generated tables do not fit the installed Lark/celpy; regenerate them"
    return {"precompiled": precompiled, "built": cel_env.built_parser()}


@contextmanager
def parser_in_use(parser: Any) -> Iterator[None]:
    """celpy parses with a class-wide parser; swap it for the duration."""
    from celpy.celparser import CELParser

    cel_env.environment()
    saved = CELParser.CEL_PARSER
    CELParser.CEL_PARSER = parser
    try:
        yield
    finally:
        CELParser.CEL_PARSER = saved


def _library_value(expr: str) -> Any:
    from celpy.evaluation import CELEvalError

    from tests.validate.test_cel_library import _value

    try:
        return repr(_value(expr))
    except CELEvalError as err:
        return f"error: {err.args[0] if err.args else err}"


def test_the_precompiled_and_the_built_parser_give_the_same_trees_and_values_for_the_library_examples(
        parsers: dict[str, Any]) -> None:
    from kubectl_testbench.validate.cel.syntax import rewrite

    assert len(LIBRARY_EXAMPLES) > 100
    results: dict[str, list[Any]] = {}
    for name, parser in parsers.items():
        with parser_in_use(parser):
            results[name] = [(parser.parse(rewrite(expr)), _library_value(expr)) for expr, _ in LIBRARY_EXAMPLES]
    assert results["precompiled"] == results["built"]
    assert any(value.startswith("error:") for _, value in results["built"]), "error outcomes are compared too"


def test_the_parsers_agree_on_token_positions_and_on_syntax_errors(parsers: dict[str, Any]) -> None:
    """Positions feed error carets; syntax errors are lark's own exceptions, caught by celpy either way."""
    good = "self.a.exists(x, x > 1) && has(self.b) ? 'yes' : \"no\"\n|| [1u, -2.5e3, b'z'].size() == 3"
    bad = ["1 +", "(", "a..b", "#", "x ? y", "'unterminated", "{1: }"]
    seen: dict[str, list[Any]] = {}
    for name, parser in parsers.items():
        tree = parser.parse(good)
        tokens = [(t.type, str(t), t.line, t.column, t.end_pos) for t in tree.scan_values(lambda _: True)]
        errors = []
        for text in bad:
            with pytest.raises(Exception) as caught:
                parser.parse(text)
            err = caught.value
            errors.append((type(err).__module__, type(err).__name__, getattr(err, "line", None),
                           getattr(err, "column", None), err.get_context(text)))
        seen[name] = [tokens, errors]
    assert seen["precompiled"] == seen["built"]


def test_every_shipped_outcome_is_celpys_verdict_through_both_parsers(parsers: dict[str, Any]) -> None:
    table = cel_shipped.load(cel_shipped.GENERATED)
    assert len(table.outcomes) == 8, "the dataset rule: every combination of s3, url and inline"
    rules = cel_rules.rules_of(SCHEMA)
    assert rules and all(analysis_key(spec) in table.analyses for spec, _ in rules)
    for name, parser in parsers.items():
        with parser_in_use(parser):
            for key, saved in table.outcomes.items():
                spec, projected = json.loads(key)
                [node] = [node for s, node in rules if s == spec]
                rule = CompiledRule(spec)
                assert table.analyses[analysis_key(spec)] == rule.analysis(), name
                assert saved_outcome(rule._run(projected, node)) == saved, (name, projected)
                assert outcome_key(spec, projected) == key


def test_the_shipped_table_lists_passes_and_failures_of_the_dataset_rule() -> None:
    table = cel_shipped.load(cel_shipped.GENERATED)
    verdicts = {tuple(sorted(json.loads(k)[1])): v[0] for k, v in table.outcomes.items()}
    assert verdicts == {(): False, ("s3",): True, ("url",): True, ("inline",): True, ("inline", "s3"): False,
                        ("s3", "url"): False, ("inline", "url"): False, ("inline", "s3", "url"): False}
    assert table.refused == []


def _findings(paths: list[Path]) -> list[Any]:
    out = []
    for path in paths:
        result = validate_text(path.read_text(encoding="utf-8"), str(path))
        out.append([(d.rule, d.severity.value, d.line, d.col, d.path, d.message, d.hint)
                    for d in result.diagnostics])
    return out


def test_validation_finds_the_same_with_and_without_the_shipped_table(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    paths = sorted(CORPUS.glob("*.yaml")) + sorted(EXAMPLES.rglob("*.yaml"))
    assert any("exactly one of" in str(f) for f in _findings(paths)), "the corpus exercises the dataset rule"
    shipped = _findings(paths)
    monkeypatch.setattr(cel_shipped, "_SHIPPED", cel_shipped.Shipped())
    monkeypatch.setattr(cel_store, "_STORE", cel_store.Store(None))
    assert _findings(paths) == shipped


def test_a_rule_outside_the_table_and_an_unlisted_projection_are_evaluated() -> None:
    from kubectl_testbench.validate.cel.evaluate import evaluate_rule

    node = SCHEMA["properties"]["spec"]["properties"]["dataset"]
    [spec] = node["x-kubernetes-validations"]
    listed = cel_shipped.shipped().outcomes
    odd = {"s3": None}  # never reaches CEL after pruning, but the function must not trust a guess
    assert outcome_key(spec, odd) not in listed
    assert evaluate_rule(spec, odd, node).passed == CompiledRule(spec)._run(odd, node).passed
    other = {"rule": "has(self.url) && self.url.startsWith('https://')", "message": "https only"}
    outcome = evaluate_rule(other, {"url": "http://x"}, node)
    assert (outcome.passed, outcome.message) == (False, "https only")


def test_without_fitting_tables_the_parser_is_built_from_the_grammar(monkeypatch: pytest.MonkeyPatch) -> None:
    import lark.parsers.lalr_analysis as analysis

    built: list[Any] = []
    original = analysis.LALR_Analyzer.compute_lalr
    monkeypatch.setattr(analysis.LALR_Analyzer, "compute_lalr", lambda self: built.append(self) or original(self))
    monkeypatch.setenv("KUBECTL_TESTBENCH_NO_CACHE", "1")  # Lark's cache would skip the analysis too
    monkeypatch.setattr(cel_tables, "load", lambda path=None: None)
    parser = cel_env.parser()
    assert len(built) == 1 and parser.parse("1 + 2 == 3").data == "expr"
    assert cel_env.parser() is not None and len(built) == 2


def test_tables_for_another_lark_or_grammar_are_not_used(tmp_path: Path) -> None:
    payload = json.loads(cel_tables.GENERATED.read_text(encoding="utf-8"))
    for field, value in (("lark", "0.0.1"), ("grammar_sha256", "0" * 64)):
        stale = tmp_path / f"{field}.json"
        stale.write_text(json.dumps({**payload, "stamp": {**payload["stamp"], field: value}}))
        assert cel_tables.load(stale) is None
    assert cel_tables.load(tmp_path / "missing.json") is None
    (tmp_path / "bad.json").write_text("{")
    assert cel_tables.load(tmp_path / "bad.json") is None


def test_the_generated_tables_do_not_depend_on_hash_randomisation() -> None:
    """Lark numbers states and tokens in set order; the committed file must be the same on every machine."""
    code = "from kubectl_testbench.generate.cel_parser import tables_text; print(tables_text(), end='')"
    texts = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed}).stdout
             for seed in ("1", "2", "3")}
    assert texts == {cel_tables.GENERATED.read_text(encoding="utf-8")}


def test_presence_projections_cover_absent_present_and_cut_short_paths() -> None:
    projections = cel_rules.presence_projections([("a",), ("b", "c")])
    assert projections == sorted(projections, key=lambda p: json.dumps(p, sort_keys=True))
    assert {json.dumps(p, sort_keys=True) for p in projections} == {
        json.dumps(p, sort_keys=True) for p in
        [{}, {"a": True}, {"b": {}}, {"a": True, "b": {}}, {"b": {"c": True}}, {"a": True, "b": {"c": True}}]}


def _documents(presence: list[tuple[str, ...]]) -> list[dict[str, Any]]:
    """Every document a presence-only rule can meet, by brute force: each node on a path absent or present,
    an inner node (a proper prefix of some path) an object, a node that only ends paths a scalar."""
    nodes = sorted({path[:i] for path in presence for i in range(1, len(path) + 1)}, key=lambda n: (len(n), n))
    inner = {path[:i] for path in presence for i in range(1, len(path))}
    documents: list[dict[str, Any]] = []

    def build(index: int, present: frozenset[tuple[str, ...]]) -> None:
        if index == len(nodes):
            document: dict[str, Any] = {}
            for node in sorted(present, key=len):
                parent = document
                for segment in node[:-1]:
                    parent = parent[segment]
                parent[node[-1]] = {} if node in inner else "x"
            documents.append(document)
            return
        node = nodes[index]
        build(index + 1, present)
        if len(node) == 1 or node[:-1] in present:
            build(index + 1, present | {node})

    build(0, frozenset())
    return documents


@pytest.mark.parametrize("presence", [
    [("a",)],
    [("a",), ("b", "c")],
    [("a", "b", "c")],
    [("a",), ("a", "b")],
    [("a", "b"), ("a",)],
    [("a", "b"), ("a", "c"), ("d",)],
    [("a", "b", "c"), ("a", "d")],
    [("b",), ("a",), ("c",)],  # listed out of order: the projections are still sorted by their sorted-key JSON
], ids=str)
def test_presence_projections_are_exactly_the_projections_of_every_document(
        presence: list[tuple[str, ...]]) -> None:
    # An outcome table missing a projection sends that document back to celpy; one with a projection no
    # document has stores an outcome nobody can look up. Both would hide a wrong table, so: exactly these.
    from kubectl_testbench.validate.cel.evaluate import project

    expected = {json.dumps(project(d, presence, []), sort_keys=True) for d in _documents(presence)}
    got = [json.dumps(p, sort_keys=True) for p in cel_rules.presence_projections(presence)]
    assert got == sorted(expected)
