"""``fix_source`` and ``fix_paths``: what fixing reports for an input it cannot read or must not edit, what it keeps
for stdin, which RenderDefaults and directory-scan rules apply, and when a process pool does the work."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from kubectl_testbench.fix.apply import FileFix, FixOptions, fix_paths, fix_source
from kubectl_testbench.load.sources import Source
from kubectl_testbench.pipeline.inputs import Inputs
from tests.validate.helpers import VALID

ENUM = VALID + "  trigger:\n    enabled: true\n    concurrencyPolicy: forbid\n"
FIXED = ENUM.replace("concurrencyPolicy: forbid", "concurrencyPolicy: Forbid")
NO_GATEWAY = VALID.replace("  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n", "")
GATEWAY_DEFAULTS = ("apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\n"
                    "spec:\n  aiGateway:\n    name: gw\n")


def _findings(outcome: FileFix) -> list[tuple[str, str, str, int, int]]:
    return [(d.rule, d.message, d.file, d.line, d.col) for d in outcome.result.diagnostics]


def _untouched(outcome: FileFix) -> bool:
    return (outcome.applied, outcome.notes, outcome.before, outcome.after, outcome.data) == ([], [], None, None, None)


def test_an_input_that_cannot_be_read_is_reported_with_its_path_and_left_alone(tmp_path: Path) -> None:
    missing = str(tmp_path / "absent.yaml")
    outcome = fix_source(Source(missing), FixOptions())
    assert outcome.path == missing and outcome.result.path == missing
    assert _findings(outcome) == [("input/unreadable", "No such file or directory", missing, 0, 0)]
    assert outcome.result.counts.unreadable == 1 and _untouched(outcome)


def test_an_input_that_is_not_text_is_reported_where_the_bad_byte_is(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"a: 1\nb: caf\xe9\n")
    outcome = fix_source(Source(str(path)), FixOptions())
    assert outcome.path == str(path) and outcome.result.path == str(path)
    assert _findings(outcome) == [("input/encoding", "not UTF-8 text (byte 0xe9 at line 2, column 7); save the file "
                                   "as UTF-8", str(path), 2, 7)]
    assert outcome.result.counts.malformed == 1 and _untouched(outcome)


def test_a_template_is_only_noted_for_hooks_that_see_every_file(tmp_path: Path) -> None:
    path = tmp_path / "chart.yaml"
    path.write_text(ENUM.replace("name: weather-eval", "name: {{ .Values.name }}"))
    hook = FixOptions(inputs=Inputs(only_testbench_files=True))
    outcome = fix_source(Source(str(path)), hook)
    assert outcome.path == str(path)
    assert [(d.rule, d.file) for d in outcome.result.diagnostics] == [("input/template", str(path))]
    assert _untouched(outcome)
    assert "input/template" not in [d.rule for d in fix_source(Source(str(path)), FixOptions()).result.diagnostics]


def test_stdin_keeps_the_bytes_it_read_and_a_file_does_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = ENUM.encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    outcome = fix_source(Source("-"), FixOptions())
    assert outcome.path == "-" and outcome.original == data and outcome.data == FIXED.encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(VALID.encode())))
    clean = fix_source(Source("-"), FixOptions())
    assert clean.original == VALID.encode() and _untouched(clean)
    path = tmp_path / "exp.yaml"
    path.write_bytes(data)
    assert fix_source(Source(str(path)), FixOptions()).original is None


def test_a_file_with_nothing_to_fix_has_no_before_and_after(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(VALID)
    outcome = fix_source(Source(str(path)), FixOptions())
    assert _untouched(outcome) and not outcome.changed and outcome.result.counts.valid == 1


def test_an_empty_file_is_an_error_only_when_named(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("# nothing yet\n")
    named = fix_source(Source(str(path)), FixOptions())
    assert [d.rule for d in named.result.diagnostics] == ["input/empty"]
    assert fix_source(Source(str(path), scanned=True), FixOptions()).result.diagnostics == []


def test_the_defaults_given_or_found_next_to_the_file_name_the_gateway(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(NO_GATEWAY)

    def rules(inputs: Inputs) -> list[str]:
        return [d.rule for d in fix_source(Source(str(path)), FixOptions(inputs=inputs)).result.diagnostics]

    assert rules(Inputs()) == ["semantic/no-gateway"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "testbench-defaults.yaml").write_text(GATEWAY_DEFAULTS)
    assert rules(Inputs(defaults_file=str(elsewhere / "testbench-defaults.yaml"))) == []
    (tmp_path / "testbench-defaults.yaml").write_text(GATEWAY_DEFAULTS)
    assert rules(Inputs()) == []
    assert rules(Inputs(discover_defaults=False)) == ["semantic/no-gateway"]


def test_fix_paths_reports_an_input_that_does_not_exist_under_its_path(tmp_path: Path) -> None:
    missing = str(tmp_path / "absent.yaml")
    [outcome] = fix_paths([missing], FixOptions(), jobs=1)
    assert outcome.path == missing
    assert _findings(outcome) == [("input/not-found", "no such file or directory", missing, 0, 0)]


def test_fix_paths_skips_foreign_files_for_hooks_that_see_every_file(tmp_path: Path) -> None:
    foreign = tmp_path / "deployment.yaml"
    foreign.write_text("apiVersion: apps/v1\nkind: Deployment\n")
    assert list(fix_paths([str(foreign)], FixOptions(inputs=Inputs(only_testbench_files=True)), jobs=1)) == []
    [read] = fix_paths([str(foreign)], FixOptions(), jobs=1)
    assert read.path == str(foreign) and read.result.counts.skipped == 1


def test_fix_paths_uses_a_pool_of_the_workers_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.pipeline.fake_pool import in_process_pool

    pools = in_process_pool(monkeypatch)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    paths = []
    for name, text in (("a.yaml", ENUM), ("b.yaml", VALID)):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    assert [o.after for o in fix_paths(paths, FixOptions(), jobs=1)] == [FIXED, None] and pools == []
    assert [o.path for o in fix_paths(paths, FixOptions(), jobs=2)] == paths and pools == [2]
    assert [o.path for o in fix_paths(paths, FixOptions())] == paths and pools == [2, 4]
