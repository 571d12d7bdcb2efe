"""The oracle's build: what CI installs, and the skip reason where it cannot be built."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.go_toolchain import NO_GO
from tests.oracle import harness


def test_ci_installs_every_package_the_oracle_needs_then_runs_the_readme_test_command() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    for package in harness.DEBIAN_PACKAGES:
        assert package in script, package
    assert script.rstrip().splitlines()[-1] == "pip install -q -c constraints.txt '.[test]' && python -m pytest"
    assert "pip install -c constraints.txt '.[test]' && python -m pytest" in (ROOT / "README.md").read_text()
    assert not re.search(r"golang-go(?![\w.-])", script.replace("never Debian's golang-go", ""))


def test_missing_go_sources_give_a_skip_reason_naming_the_packages(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESTBENCH_ORACLE_GOPATH", str(tmp_path))
    reason = harness.missing()
    if reason == NO_GO:
        return
    assert reason is not None and "golang-k8s-kube-openapi-dev" in reason and "golang-k8s-sigs-yaml-dev" in reason


def test_every_go_import_of_the_oracle_is_a_packaged_source() -> None:
    source = harness.SOURCE.read_text()
    imports = {line.strip().split('"')[1] for line in source.split("import (", 1)[1].split(")", 1)[0].splitlines()
               if '"' in line}
    third_party = {i for i in imports if "." in i.split("/", 1)[0]}
    assert third_party <= {*harness.GO_PACKAGES, "k8s.io/kube-openapi/pkg/validation/errors",
                           "k8s.io/kube-openapi/pkg/validation/spec", "k8s.io/kube-openapi/pkg/validation/strfmt",
                           "golang.org/x/text/transform"}
