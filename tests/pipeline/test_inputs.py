"""pipeline/inputs and pipeline/defaults: which inputs are read, with which options, by whom, with which defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

import kubectl_testbench.pipeline.inputs as inputs
from kubectl_testbench.load.sources import Source
from kubectl_testbench.pipeline.defaults import defaults_path, names_gateway
from kubectl_testbench.pipeline.inputs import Inputs, iter_sources, validate_paths, validate_source
from kubectl_testbench.pipeline.policy import Tally
from kubectl_testbench.validate.diagnostics import Counts
from kubectl_testbench.validate.engine import Options
from tests.pipeline.fake_pool import in_process_pool
from tests.validate.helpers import VALID

GATEWAY_DEFAULTS = ("apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nmetadata: {name: d}\n"
                    "spec: {aiGateway: {name: gw, namespace: ai-gateway}}\n")


def _files(tmp_path: Path, count: int = 2) -> list[str]:
    paths = []
    for i in range(count):
        (tmp_path / f"{i}.yaml").write_text(VALID, encoding="utf-8")
        paths.append(str(tmp_path / f"{i}.yaml"))
    return paths


def test_the_jobs_asked_for_decide_the_pool_and_one_job_is_no_pool(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    workers = in_process_pool(monkeypatch)
    monkeypatch.setattr(inputs.os, "cpu_count", lambda: 8)
    paths = _files(tmp_path)
    assert [r.counts.valid for r in validate_paths(paths, jobs=1)] == [1, 1]
    assert workers == []  # one job: in this process, whatever the CPUs
    assert [r.counts.valid for r in validate_paths(paths, jobs=2)] == [1, 1]
    assert workers == [2]  # two jobs are a pool of two


def test_a_non_testbench_file_is_read_unless_only_ours_are_asked_for(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", encoding="utf-8")
    path = str(tmp_path / "cm.yaml")
    assert [s.path for s in iter_sources([path]) if isinstance(s, Source)] == [path]
    assert [s.path for s in iter_sources([path], only_testbench_files=True) if isinstance(s, Source)] == []


def test_validate_source_reads_with_the_options_and_the_scan_it_is_given(tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing yet\n", encoding="utf-8")
    assert [d.rule for d in validate_source(Source(str(empty))).diagnostics] == ["input/empty"]
    assert validate_source(Source(str(empty), scanned=True)).diagnostics == []  # a directory scan found it
    no_gateway = tmp_path / "w.yaml"
    no_gateway.write_text(VALID[:VALID.index("  aiGatewayRef:")], encoding="utf-8")  # a warning: no gateway
    relaxed = validate_source(Source(str(no_gateway)), Options(), Inputs(discover_defaults=False))
    strict = validate_source(Source(str(no_gateway)), Options(strict=True), Inputs(discover_defaults=False))
    assert relaxed.counts.valid == 1 and strict.counts.invalid == 1


def test_the_nearest_defaults_file_is_found_unless_told_not_to_look(tmp_path: Path) -> None:
    (tmp_path / "testbench-defaults.yaml").write_text(GATEWAY_DEFAULTS, encoding="utf-8")
    source = Source(_files(tmp_path, 1)[0])
    found = str(tmp_path / "testbench-defaults.yaml")
    assert defaults_path(source, None) == found and names_gateway(source)
    assert defaults_path(source, None, discover_defaults=False) is None
    assert not names_gateway(source, discover_defaults=False)
    assert defaults_path(source, "/given.yaml", discover_defaults=False) == "/given.yaml"


def test_clashes_add_to_the_errors_already_counted() -> None:
    from kubectl_testbench.validate.duplicates import Identity

    tally = Tally(counts=Counts(errors=2))
    tally.identities += [Identity("x", "ns", f, 1, 1, 1) for f in ("a.yaml", "b.yaml")]
    tally.clashes()
    assert tally.counts.errors == 4  # both copies
