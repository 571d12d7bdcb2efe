"""An editor buffer validated as validate would validate the saved file, in process: which documents are
served, the size and encoding checks on the text, the file's own decoding error, templates, the defaults file
found up to the workspace folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kubectl_testbench.load.limits import Limits, MiB
from kubectl_testbench.lsp.check import Settings, check, holds_experiments, is_served, workspace_root
from kubectl_testbench.validate.diagnostics import Severity
from tests.conftest import EXAMPLES

WEATHER = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text(encoding="utf-8")
NO_GATEWAY = WEATHER.replace("  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n", "")


@pytest.mark.parametrize(("language", "uri", "served"), [
    ("yaml", "file:///x.txt", True),
    ("json", "untitled:1", True),
    ("jsonc", "file:///x", True),
    ("", "file:///x.yaml", True),
    ("plaintext", "file:///X.YML", True),
    ("plaintext", "file:///x.json", True),
    ("markdown", "file:///x.yaml", False),  # the client knows better
    ("", "file:///x.yaml.txt", False),
    ("plaintext", "file:///yaml", False),
])
def test_which_documents_are_served(language: str, uri: str, served: bool) -> None:
    assert is_served(language, uri) is served


@pytest.mark.parametrize(("text", "ours"), [
    ("apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: Nope\n", True),
    ("apiVersion: v1\nkind: Experiment\n", True),  # a typo'd group: validate reports it
    ("- kind: 'Experiment'\n", True),
    ("  \"kind\" :  Experiment\n", True),
    ("apiVersion: v1\nkind: ExperimentList\n", False),
    ("apiVersion: v1\nkind: ConfigMap\ndata: {a: kind: Experiment}\n", False),
    ("apiVersion: v1\nkind: ConfigMap\n", False),
])
def test_which_buffers_hold_experiments(text: str, ours: bool) -> None:
    assert holds_experiments(text) is ours


def test_the_innermost_workspace_folder_holds_the_path(tmp_path: Path) -> None:
    outer, inner = str(tmp_path / "repo"), str(tmp_path / "repo" / "team")
    path = os.path.join(inner, "exp.yaml")
    assert workspace_root(path, [outer, inner]) == inner
    assert workspace_root(path, [inner, outer]) == inner
    assert workspace_root(path, [outer + os.sep]) == outer
    assert workspace_root(outer, [outer]) == outer
    assert workspace_root(str(tmp_path / "repository" / "x.yaml"), [outer]) is None  # a prefix is not a parent
    assert workspace_root(path, []) is None
    assert workspace_root(path, ["/"]) == "/"  # the file system's root holds everything


def test_a_buffer_over_the_size_limit_gets_validates_finding() -> None:
    limit = Settings(Limits(max_file_bytes=2 * MiB))
    at_limit = "#" * (2 * MiB - 1) + "\n"
    assert all(d.rule != "input/too-large" for d in check(at_limit, "/w/x.yaml", None, limit))
    [finding] = check(at_limit + "\n", "/w/x.yaml", None, limit)
    assert (finding.rule, finding.message, finding.file, finding.line, finding.col) == (
        "input/too-large", "larger than the 2 MiB limit (raise with --max-file-size)", "/w/x.yaml", 0, 0)
    assert (finding.severity, finding.path, finding.hint, finding.object) == (Severity.ERROR, "", "", "")
    [multibyte] = check("é" * MiB + "\n", "/w/x.yaml", None, limit)  # bytes count, not characters
    assert multibyte.rule == "input/too-large"


def test_a_lone_surrogate_is_an_encoding_finding_at_its_line_and_column() -> None:
    [finding] = check("a: 1\nb: x\ud83dy\n", "/w/x.yaml", None)
    assert (finding.rule, finding.line, finding.col, finding.message, finding.hint) == (
        "input/encoding", 2, 5, "the text holds a lone UTF-16 surrogate (U+D83D) at line 2, column 5: it cannot "
        "be saved as UTF-8", "remove the character, or write the pair it belongs to")
    [first] = check("\udc00", "untitled:1", None)
    assert (first.line, first.col, first.file) == (1, 1, "untitled:1")
    assert "(U+DC00)" in first.message


def test_a_buffer_shown_with_replacement_characters_gets_the_files_decoding_error(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_bytes(b"a: 1\nb: \xff\n")
    [finding] = check("a: 1\nb: \ufffd\n", str(path), None)
    assert (finding.file, finding.severity, finding.path) == (str(path), Severity.ERROR, "")
    assert (finding.rule, finding.line, finding.col, finding.message, finding.hint) == (
        "input/encoding", 2, 4, "the file on disk: not UTF-8 text (byte 0xff at line 2, column 4); save the file as "
        "UTF-8", "the editor shows it decoded with replacement characters (U+FFFD)")


def test_replacement_characters_that_are_really_in_the_file_are_validated_as_text(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    text = "# written as \ufffd on purpose\n" + WEATHER
    path.write_text(text, encoding="utf-8")
    assert check(text, str(path), None) == []
    assert check(text, "relative.yaml", None) == []  # no file to read: the text is all there is
    assert check(text, str(tmp_path / "missing.yaml"), None) == []
    large = tmp_path / "large.yaml"
    limit = len(text.encode()) + 1
    large.write_bytes(b"\xff" * (limit + 1))
    assert check(text, str(large), None, Settings(Limits(max_file_bytes=limit))) == []  # over the limit: not read
    large.write_bytes(b"\xff" * limit)
    assert [d.rule for d in check(text, str(large), None, Settings(Limits(max_file_bytes=limit)))] == [
        "input/encoding"]


def test_templates_get_the_template_notice() -> None:
    [finding] = check("kind: Experiment\nx: {{ .Values.x }}\n", "/w/x.yaml", None)
    assert (finding.file, finding.severity) == ("/w/x.yaml", Severity.INFO)
    assert (finding.rule, finding.message, finding.hint) == (
        "input/template", "a Go/Helm template, not YAML: skipped",
        "validate what it renders: helm template . | kubectl testbench validate -")


def test_the_defaults_file_is_looked_for_up_to_the_workspace_folder(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    nested = workspace / "team"
    nested.mkdir(parents=True)
    shutil.copy(EXAMPLES / "experiments" / "testbench-defaults.yaml", workspace / "testbench-defaults.yaml")
    inside = str(nested / "exp.yaml")
    assert check(NO_GATEWAY, inside, str(workspace)) == []
    [no_gateway] = check(NO_GATEWAY, inside, str(nested))
    assert (no_gateway.rule, no_gateway.file) == ("semantic/no-gateway", inside)
    assert [d.rule for d in check(NO_GATEWAY, "untitled:1", str(workspace))] == ["semantic/no-gateway"]
    assert check(WEATHER, inside, None) == []
