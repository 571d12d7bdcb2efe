"""Remembered CEL outcomes in the user's cache: same answers as evaluating, survive restarts, never trusted
blindly. The packaged CRD's outcomes ship with the package (test_cel_shipped.py); these tests switch that
table off so the cache is what answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_testbench.validate.cel import shipped as cel_shipped
from kubectl_testbench.validate.cel import store as cel_store
from kubectl_testbench.validate.cel.evaluate import CompiledRule, evaluate_rule
from kubectl_testbench.validate.crdschema import open_api_schema
from tests.conftest import ROOT

SCHEMA = open_api_schema()["properties"]["spec"]["properties"]["dataset"]
SPEC = SCHEMA["x-kubernetes-validations"][0]


@pytest.fixture()
def fresh_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> cel_store.Store:
    store = cel_store.Store(tmp_path)
    monkeypatch.setattr(cel_store, "_STORE", store)
    monkeypatch.setattr(cel_shipped, "_SHIPPED", cel_shipped.Shipped())
    return store


@pytest.mark.parametrize("value", [{"url": "u"}, {}, {"url": "u", "inline": {"scenarios": []}}, {"s3": {}}])
def test_remembered_outcomes_equal_fresh_evaluation(fresh_store: cel_store.Store, value: dict[str, object]) -> None:
    first = evaluate_rule(SPEC, value, SCHEMA)
    assert fresh_store.outcomes, "the outcome was remembered"
    fresh_store.save()
    reloaded = cel_store.Store(fresh_store.path.parent if fresh_store.path else None)
    assert reloaded.outcomes == fresh_store.outcomes
    direct = CompiledRule(SPEC)._run(value, SCHEMA)
    assert (first.passed, first.message) == (direct.passed, direct.message)


def test_a_stale_or_corrupt_file_is_ignored(tmp_path: Path) -> None:
    (tmp_path / cel_store.FILE_NAME).write_text("{not json")
    assert cel_store.Store(tmp_path).outcomes == {}
    (tmp_path / cel_store.FILE_NAME).write_text(json.dumps({"stamp": "other-version", "analyses": {},
                                                            "outcomes": {"k": [True, "", "", []]}}))
    assert cel_store.Store(tmp_path).outcomes == {}


def test_outcomes_are_keyed_by_the_projection_only(fresh_store: cel_store.Store) -> None:
    evaluate_rule(SPEC, {"inline": {"scenarios": [{"name": "a"}]}}, SCHEMA)
    evaluate_rule(SPEC, {"inline": {"scenarios": [{"name": "b", "steps": []}]}}, SCHEMA)
    assert len(fresh_store.outcomes) == 1, "two inline datasets share one presence projection"


def test_a_rule_outside_the_package_is_remembered_so_a_warm_run_does_not_import_celpy(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    code = ("import sys; from kubectl_testbench.validate.cel.evaluate import evaluate_rule;"
            "spec = {'rule': 'has(self.a) != has(self.b)', 'message': 'one of a and b'};"
            "schema = {'type': 'object', 'properties': {'a': {'type': 'string'}, 'b': {'type': 'string'}}};"
            "r = evaluate_rule(spec, {'a': 'x', 'b': 'y'}, schema);"
            "assert (r.passed, r.message) == (False, 'one of a and b'), r; print('celpy' in sys.modules)")
    cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert (cold.stdout.strip(), warm.stdout.strip()) == ("True", "False")
    no_cache = subprocess.run([sys.executable, "-c", code], env={**env, "KUBECTL_TESTBENCH_NO_CACHE": "1"},
                              capture_output=True, text=True, check=True)
    assert no_cache.stdout.strip() == "True"
