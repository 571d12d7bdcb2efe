"""Rule ids are written once, in the registry: code names a rule by its object, never by a string.

Every id the code can report is therefore registered (and so in docs/rules.md, ``--list-rules`` and SARIF);
the scan below fails, listing them, when a string literal equal to a registered id appears outside it.
"""

from __future__ import annotations

import ast
import importlib
import re

from kubectl_testbench.rules import FAMILIES, LIMIT_RULES, RULES
from kubectl_testbench.rules.rule import Rule
from tests.conftest import ROOT

PACKAGE = ROOT / "kubectl_testbench"
REGISTRY = PACKAGE / "rules"
RULE_ID = re.compile(r"(?:input|yaml|kind|schema|metadata|cel|semantic|render|validate|krm|argocd|suppression|"
                     r"dataset)"
                     r"/[a-z0-9]+(?:-[a-z0-9]+)*")

ID_SHAPE = re.compile(r"[a-z]+/[a-z0-9]+(?:-[a-z0-9]+)*")
"""What any rule id looks like, registered or not."""


def rule_id_literals(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string constant of a module that is a registered rule id (f-string parts included)."""
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in RULES]


def test_no_rule_id_is_written_as_a_string_outside_the_registry() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if REGISTRY in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        found += [f"{path.relative_to(ROOT)}:{line}: {value!r}" for line, value in rule_id_literals(tree)]
    assert found == [], "name these rules by their object (e.g. SCHEMA_TYPE.id):\n" + "\n".join(found)


def test_no_finding_is_given_a_rule_the_registry_does_not_know() -> None:
    """A rule id written as a string where a finding is made (``Diagnostic("x/y", …)``, ``rule="x/y"``) is
    refused even when nobody registered it: the scan above only knows registered ids."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if REGISTRY in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Call):
                given = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "rule")]
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: {a.value!r}" for a in given
                          if isinstance(a, ast.Constant) and isinstance(a.value, str) and ID_SHAPE.fullmatch(a.value)]
    assert found == [], "register these rules and name them by their object:\n" + "\n".join(found)


def test_the_scan_finds_literals_wherever_they_are() -> None:
    source = 'X = "schema/type"\ndef f(d):\n    return d.rule == "yaml/syntax" or f"{d}" + "no/such-rule"\n'
    assert rule_id_literals(ast.parse(source)) == [(1, "schema/type"), (3, "yaml/syntax")]


def test_every_rule_is_one_object_named_after_its_id_in_the_module_of_its_group() -> None:
    registered = 0
    for family in FAMILIES:
        for name, value in vars(family).items():
            if isinstance(value, Rule):
                registered += 1
                assert name == value.id.upper().replace("/", "_").replace("-", "_"), name
                assert family.__name__.rsplit(".", 1)[1] == value.group, value.id
    assert registered == len(RULES) >= 100, "an id registered twice would hide one of its rules"


def test_rule_ids_are_stable_kebab_case_with_a_known_prefix() -> None:
    for rule in RULES:
        assert RULE_ID.fullmatch(rule), rule


def test_the_checks_and_fixers_a_rule_names_exist_and_name_it() -> None:
    """``check``/``fixer`` point at the function that reports the rule or builds its fix: it must exist, and
    mention the rule's object (or, for a shared helper, be one a function that does calls)."""
    named = 0
    for rule in RULES.values():
        for ref in filter(None, (rule.check, rule.fixer)):
            module_name, _, function = ref.partition(":")
            module = importlib.import_module(module_name)
            assert callable(getattr(module, function, None)), f"{rule.id}: {ref}"
            named += 1
        if rule.check:
            module_name, _, function = rule.check.partition(":")
            source = (ROOT / (module_name.replace(".", "/") + ".py")).read_text(encoding="utf-8")
            tree = ast.parse(source)
            [node] = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function]
            constant = rule.id.upper().replace("/", "_").replace("-", "_")
            assert constant in ast.unparse(node), f"{rule.check} does not report {rule.id}"
    assert named >= 40


def test_the_reading_limits_are_the_rules_a_flag_raises() -> None:
    assert {"yaml/too-deep", "yaml/too-many-nodes", "yaml/alias-limit", "input/too-large"} == LIMIT_RULES
