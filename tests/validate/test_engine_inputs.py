"""The engine's inputs: files, stdin, directories, templates, the defaults file found next to an input, the
reader's limits and errors, and when the process pool is used."""

from __future__ import annotations

import dataclasses
import io
import sys
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.load.limits import DEFAULT_LIMITS
from kubectl_testbench.load.sources import Source, SourceError
from kubectl_testbench.pipeline import inputs
from kubectl_testbench.pipeline.inputs import Inputs, iter_sources, validate_paths, validate_source
from kubectl_testbench.validate.engine import FileResult, Options, validate_bytes, validate_text
from tests.pipeline.fake_pool import in_process_pool
from tests.validate.helpers import VALID

NO_GATEWAY = VALID.replace("  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n", "")
TEMPLATE = VALID.replace("name: weather-eval", "name: {{ .Values.name }}")


def rows(result: FileResult) -> list[tuple[Any, ...]]:
    return [(d.rule, d.file, d.line, d.col, d.message, d.hint) for d in result.diagnostics]


def test_a_file_that_cannot_be_read_is_one_error_with_the_readers_words(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text(VALID)
    small = dataclasses.replace(DEFAULT_LIMITS, max_file_bytes=10)
    result = validate_source(Source(str(big)), Options(limits=small))
    assert rows(result) == [("input/too-large", str(big), 0, 0, "larger than the 0 MiB limit (raise with "
                             "--max-file-size)", "")]
    missing = next(validate_paths([str(tmp_path / "absent.yaml")], Options(), jobs=1))
    assert rows(missing) == [("input/not-found", str(tmp_path / "absent.yaml"), 0, 0, "no such file or directory", "")]


def test_templates_are_a_notice_only_for_hooks_that_see_every_file(tmp_path: Path) -> None:
    chart = tmp_path / "chart.yaml"
    chart.write_text(TEMPLATE)
    notice = validate_source(Source(str(chart)), Options(), Inputs(only_testbench_files=True))
    assert [(d.rule, d.file) for d in notice.diagnostics] == [("input/template", str(chart))]
    plain = validate_source(Source(str(chart)), Options())
    assert [d.rule for d in plain.diagnostics] == ["yaml/key-type"]
    ours = tmp_path / "ours.yaml"
    ours.write_text(VALID)
    assert validate_source(Source(str(ours)), Options(), Inputs(only_testbench_files=True)).diagnostics == []


def defaults(directory: Path, spec: str) -> None:
    (directory / "testbench-defaults.yaml").write_text(
        "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nspec:\n" + spec)


def gateway_findings(path: Path, **options: Any) -> list[str]:
    [result] = validate_paths([str(path)], Options(), Inputs(**options), jobs=1)
    return [d.rule for d in result.diagnostics]


def test_the_defaults_file_next_to_an_input_names_the_gateway(tmp_path: Path) -> None:
    experiment = tmp_path / "exp.yaml"
    experiment.write_text(NO_GATEWAY)
    defaults(tmp_path, "  aiGateway:\n    name: ai-gateway\n")
    assert gateway_findings(experiment) == []
    assert gateway_findings(experiment, discover_defaults=False) == ["semantic/no-gateway"]
    named = tmp_path / "elsewhere"
    named.mkdir()
    defaults(named, "  aiGateway:\n    name: gw\n")
    assert gateway_findings(experiment, discover_defaults=False,
                            defaults_file=str(named / "testbench-defaults.yaml")) == []
    defaults(tmp_path, "  aiGateway: [not, a, mapping]\n")
    assert gateway_findings(experiment) == ["semantic/no-gateway"], "an invalid defaults file names no gateway"


def test_only_testbench_files_keeps_stdin_and_inputs_that_cannot_be_read(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    missing = str(tmp_path / "absent.yaml")
    (tmp_path / "-").write_text("not: ours\n")  # stdin is never a file of that name
    monkeypatch.chdir(tmp_path)
    found = list(iter_sources(["-", missing, "/dev/null"], only_testbench_files=True))
    assert [(type(s).__name__, s.path) for s in found] == [
        ("Source", "-"), ("SourceError", missing), ("SourceError", "/dev/null")]
    assert [s.rule for s in found if isinstance(s, SourceError)] == ["input/not-found", "input/not-a-file"]
    other = tmp_path / "other.yaml"
    other.write_text("key: [unclosed\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(VALID.encode())))
    results = list(validate_paths([str(other), "-"], Options(), Inputs(only_testbench_files=True), jobs=1))
    assert [(r.path, r.counts.valid) for r in results] == [("-", 1)]


def two_files(tmp_path: Path) -> list[str]:
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text(VALID)
    return [str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")]


def test_the_pool_has_a_worker_per_cpu_unless_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = in_process_pool(monkeypatch)
    paths = two_files(tmp_path)
    monkeypatch.setattr(inputs.os, "cpu_count", lambda: 3)
    assert [r.counts.valid for r in validate_paths(paths, Options())] == [1, 1]
    monkeypatch.setattr(inputs.os, "cpu_count", lambda: None)  # unknown: one worker, in process
    assert [r.counts.valid for r in validate_paths(paths, Options())] == [1, 1]
    assert calls == [3]


def test_stdin_is_never_read_by_the_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = in_process_pool(monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(VALID.encode())))
    results = list(validate_paths([*two_files(tmp_path), "-"], Options(), jobs=2))
    assert ([r.path for r in results][-1], calls) == ("-", [])


def test_bytes_without_documents_are_an_error_unless_a_scan_found_them() -> None:
    assert rows(validate_bytes(b"# nothing\n", "f.yaml")) == [
        ("input/empty", "f.yaml", 0, 0, "no YAML documents in the input", "")]
    assert validate_bytes(b"# nothing\n", "f.yaml", scanned=True).diagnostics == []


def test_reader_errors_other_than_syntax_get_no_syntax_hint_or_tab_fix() -> None:
    result = validate_text("a: !!python/object x\nb:\n\tc: 1\n", "f.yaml")
    assert rows(result) == [("yaml/tag", "f.yaml", 1, 4, "unsupported tag !!python/object", "")]
    assert result.diagnostics[0].fix is None


def test_the_readers_limits_are_the_options() -> None:
    deep = dataclasses.replace(DEFAULT_LIMITS, max_depth=3)
    result = validate_text("a:\n  b:\n    c:\n      d: 1\n", "f.yaml", Options(limits=deep))
    assert rows(result) == [("yaml/too-deep", "f.yaml", 4, 7, "nesting deeper than 3 levels (raise with --max-depth)",
                             "")]


def test_tab_and_separator_fixes_edit_the_text() -> None:
    [tab] = validate_text("a:\n\tb: 1\n\tc: 2\n", "f.yaml").diagnostics
    assert tab.fix is not None and (tab.fix.path, [(e.start, e.end, e.text) for e in tab.fix.edits]) == (
        (), [(3, 4, "  "), (9, 10, "  ")])
    [separator] = validate_text("a: 1\n--- {kind: X}\n", "f.yaml").diagnostics
    assert (separator.file, separator.line, separator.col) == ("f.yaml", 2, 4)
    assert separator.fix is not None and (separator.fix.path, [(e.start, e.end, e.text) for e in separator.fix.edits]
                                          ) == ((), [(8, 9, "\n")])


def test_unreadable_sources_in_a_listing_are_results(tmp_path: Path) -> None:
    unreadable = SourceError("x.yaml", "input/not-a-file", "not a regular file")
    result = inputs._validate_one(unreadable, (Options(), Inputs()))
    assert rows(result) == [("input/not-a-file", "x.yaml", 0, 0, "not a regular file", "")]
