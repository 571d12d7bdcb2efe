"""scripts/mutation.py's configuration and scoring (the mutation runs themselves are too slow for the suite:
docs/testing.md)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import EXAMPLES, ROOT


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_script", ROOT / "scripts" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_script"] = module
    spec.loader.exec_module(module)
    return module


M = _script()
CONFIG = M.settings()


GENERATORS_OUT_OF_VALIDATE = ["kubectl_testbench/generate/cel_parser.py", "kubectl_testbench/generate/cel_rules.py"]
"""Generation code that lived in validate/ until issue 30, and is mutated as it was."""
RULE_REGISTRY = "rules"
"""The rule registry (issue 30), which validate/rules.py's table became."""
MOVED_PACKAGES = ("pipeline", "model")
"""What issue 30 assembled from code spread over validate/, render/ and the front-ends."""
MOVED_MODULES = ["kubectl_testbench/gofmt.py", "kubectl_testbench/junit.py", "kubectl_testbench/render/rendered.py"]


def test_the_default_set_is_load_validate_and_every_module_issue_30_moved_out_of_them() -> None:
    chosen = M.modules(CONFIG, [])
    packages = ("load", "validate", "validate/cel", RULE_REGISTRY, *MOVED_PACKAGES)
    expected = sorted([*(str(p.relative_to(ROOT)) for d in packages
                         for p in (ROOT / "kubectl_testbench" / d).glob("*.py") if p.name != "__init__.py"),
                       *GENERATORS_OUT_OF_VALIDATE, *MOVED_MODULES])
    assert chosen == expected
    assert M.modules(CONFIG, ["kubectl_testbench/validate/cr*.py"]) == ["kubectl_testbench/validate/crdschema.py",
                                                                        "kubectl_testbench/validate/cron.py"]


def test_every_module_has_its_own_tests_and_they_exist() -> None:
    for module in M.modules(CONFIG, ["kubectl_testbench/*/*.py", "kubectl_testbench/render/resolve/*.py"]):
        package = str(Path(module).parent)
        if package not in CONFIG["mutation"]["tests"] and module not in CONFIG["mutation"]["tests"]:
            continue
        for test in M.tests_for(CONFIG, module):
            assert (ROOT / test).exists(), (module, test)
    assert M.tests_for(CONFIG, "kubectl_testbench/validate/cron.py") == ["tests/validate"]
    with pytest.raises(SystemExit, match=r"no tests configured for kubectl_testbench/emit/files\.py"):
        M.tests_for(CONFIG, "kubectl_testbench/emit/files.py")


def test_every_equivalent_mutant_names_a_module_and_gives_a_reason() -> None:
    for name, reason in CONFIG["mutation"].get("equivalent", {}).items():
        module, _, function = name.rpartition(".")
        assert (ROOT / (module.replace(".", "/") + ".py")).exists(), name
        assert function.startswith("x") and "__mutmut_" in function, name
        assert len(reason) >= 15, f"{name}: say why no behaviour can change"


def test_the_score_leaves_equivalent_mutants_out_and_a_timeout_counts_as_killed() -> None:
    score = M.Score("m.py", mutants=20, killed=17, equivalent=["a", "b"])
    assert score.score == pytest.approx(100 * 17 / 18)
    assert M.Score("m.py").score == 100.0
    assert {1, 3, 36, 152}.issubset(M.KILLED) and 0 not in M.KILLED


def test_the_markdown_table_has_one_row_per_module() -> None:
    text = M.markdown([M.Score("kubectl_testbench/validate/cron.py", mutants=10, killed=9, survivors=["x"])])
    assert "| module | mutants | killed | equivalent | survived | score |" in text
    assert "| `validate/cron.py` | 10 | 9 | 0 | 1 | 90 % |" in text


def test_a_mutant_session_starts_without_what_the_suite_left_in_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """mutmut forks each mutant's tests from a process that ran the whole suite: everything remembered per
    process (compiled rules and their memos, the outcome store and its directory, functools caches) must be
    forgotten, or a mutant in that code is never run."""
    import kubectl_testbench.validate.cel.environment as cel_env
    import kubectl_testbench.validate.cel.evaluate as cel
    import kubectl_testbench.validate.cel.shipped as cel_shipped
    import kubectl_testbench.validate.cel.store as cel_store
    from kubectl_testbench.validate.crdschema import experiment_validator
    from kubectl_testbench.validate.engine import validate_text
    from tests import conftest

    validate_text((EXAMPLES / "experiments" / "weather-inline.yaml").read_text(encoding="utf-8"), "x.yaml")
    cel.compiled({"rule": "has(self.a)"})
    cel_store.store()
    assert cel._RULES and cel_env._ENV is not None and cel_shipped._SHIPPED is not None
    assert experiment_validator.cache_info().currsize == 1  # type: ignore[attr-defined]
    before = os.environ["XDG_CACHE_HOME"]
    monkeypatch.setenv("XDG_CACHE_HOME", before)  # restored after the test
    monkeypatch.delenv("MUTANT_UNDER_TEST", raising=False)
    conftest.pytest_sessionstart(None)  # type: ignore[arg-type]
    assert os.environ["XDG_CACHE_HOME"] == before and cel._RULES, "an ordinary session keeps its state"
    monkeypatch.setenv("MUTANT_UNDER_TEST", "kubectl_testbench.validate.cel.evaluate.x_compiled__mutmut_1")
    conftest.pytest_sessionstart(None)  # type: ignore[arg-type]
    assert os.environ["XDG_CACHE_HOME"] != before and Path(os.environ["XDG_CACHE_HOME"]).is_dir()
    assert (cel._RULES, cel_store._STORE, cel_env._ENV, cel_shipped._SHIPPED) == ({}, None, None, None)
    assert experiment_validator.cache_info().currsize == 0  # type: ignore[attr-defined]


def test_mutmut_stopping_because_no_test_reaches_the_module_scores_every_mutant_untested() -> None:
    meta = json.dumps({"exit_code_by_key": {"m.x_f__mutmut_1": None, "m.x_f__mutmut_2": None}})
    stopped = "Stopping early, because we could not find any test case for any mutant."
    assert M.exit_codes(meta, 1, stopped) == {"m.x_f__mutmut_1": 33, "m.x_f__mutmut_2": 33}
    assert M.exit_codes(meta, 1, "failed to collect stats. runner returned 1") is None  # a broken test run
    assert M.exit_codes(json.dumps({"exit_code_by_key": {}}), 1, stopped) == {}  # nothing to mutate
    assert M.exit_codes(json.dumps({"exit_code_by_key": {"a": 1, "b": 0}}), 0, "") == {"a": 1, "b": 0}
    assert M.exit_codes(None, 0, "") is None


def test_child_processes_of_the_stats_pass_run_the_code_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """In mutmut's "stats" pass the mode stays the session's own and leaves the environment children inherit;
    a mutant's name (each forked run) stays in it, so a CLI run in a child process runs the mutant."""
    from tests import conftest

    kept: list[str | None] = []
    fake = ModuleType("mutmut.mutation.trampoline")
    fake.set_mutant_under_test = kept.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mutmut.mutation.trampoline", fake)
    monkeypatch.setenv("MUTANT_UNDER_TEST", "stats")
    conftest.keep_stats_out_of_child_processes()
    assert kept == ["stats"] and "MUTANT_UNDER_TEST" not in os.environ
    monkeypatch.setenv("MUTANT_UNDER_TEST", "kubectl_testbench.gofmt.x_quote__mutmut_1")
    conftest.keep_stats_out_of_child_processes()
    assert kept == ["stats"] and os.environ["MUTANT_UNDER_TEST"] == "kubectl_testbench.gofmt.x_quote__mutmut_1"
