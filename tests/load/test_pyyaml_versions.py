"""The product reads YAML the same on PyYAML 6.0.3 (a libyaml without a nesting limit) and on the version
constraints.txt pins (6.0.4 and later: libyaml stops at 1,000 levels inside its scanner).

Each version is installed once, from PyPI, into the user cache dir (``pip install --target``, wheels only) and
put in front of this environment's PyYAML with PYTHONPATH; the CLI and the reader tests then run on it in a
child process. Without PyPI (an offline machine) the tests skip, saying so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, tool_cache_dir
from tests.hostile.generate import deep_block_1100, deep_flow, deep_flow_1001
from tests.tool_cache import install_once

UNLIMITED = "6.0.3"
"""The last PyYAML whose bundled libyaml has no nesting limit of its own."""


def _pinned(name: str) -> str:
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.lower().startswith(f"{name.lower()}=="):
            return line.split("==", 1)[1].strip()
    raise AssertionError(f"constraints.txt does not pin {name}")


VERSIONS = sorted({UNLIMITED, _pinned("PyYAML")})


def _target(version: str) -> Path:
    """PyYAML ``version`` for this interpreter, installed once under the user cache dir."""
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"

    def install(directory: Path) -> str | None:
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                               "--no-deps", "--only-binary=:all:", "--target", str(directory), f"PyYAML=={version}"],
                              capture_output=True, text=True, timeout=300, check=False)
        return None if proc.returncode == 0 else proc.stderr.strip()[-300:]

    found = install_once(tool_cache_dir("pyyaml") / f"{version}-{tag}", "yaml/__init__.py", install)
    if isinstance(found, str):
        pytest.skip(f"PyYAML {version} could not be installed from PyPI: {found}")
    return found


@pytest.fixture(scope="module", params=VERSIONS)
def pyyaml(request: pytest.FixtureRequest) -> tuple[str, dict[str, str]]:
    """(version, the environment that puts it first)."""
    version = str(request.param)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(_target(version)), str(ROOT)))}
    return version, env


def _python(env: dict[str, str], code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                          check=True)
    return proc.stdout.strip()


def test_the_child_runs_the_version_asked_for_with_libyaml(pyyaml: tuple[str, dict[str, str]]) -> None:
    version, env = pyyaml
    assert _python(env, "import yaml; print(yaml.__version__, yaml.__with_libyaml__)") == f"{version} True"


def test_only_versions_after_6_0_3_refuse_1001_levels(pyyaml: tuple[str, dict[str, str]]) -> None:
    """Both sides of load/libyaml's fallback are reached: the versions really differ where it matters."""
    version, env = pyyaml
    probe = ("import yaml\nfrom kubectl_testbench.load.libyaml import refused_nesting\n"
             "try:\n    list(yaml.parse('[' * 1001 + ']' * 1001, Loader=yaml.CSafeLoader)); print('read')\n"
             "except yaml.YAMLError as err:\n    print('refused' if refused_nesting(err) else err)\n")
    assert _python(env, probe) == ("read" if version == UNLIMITED else "refused")


CASES = [
    (deep_flow, [], 1, "deep.yaml:1:257: error[yaml/too-deep] nesting deeper than 256 levels (raise with "
                       "--max-depth)\n"),
    (deep_flow_1001, [], 1, "deep-1001.yaml:1:257: error[yaml/too-deep] nesting deeper than 256 levels "
                            "(raise with --max-depth)\n"),
    (deep_flow_1001, ["--max-depth", "2000"], 1, "deep-1001.yaml:1:1: error[yaml/not-an-object] the document is a "
                                                 "list, not a Kubernetes object: kubectl rejects it\n"),
    (deep_block_1100, [], 1, "deep-block-1100.yaml:257:513: error[yaml/too-deep] nesting deeper than 256 levels "
                             "(raise with --max-depth)\n"),
]


@pytest.mark.parametrize(("generate", "args", "code", "first_line"), CASES,
                         ids=["100k-flow", "1001-flow", "1001-flow-raised", "1100-block"])
def test_validate_says_the_same_on_every_version(pyyaml: tuple[str, dict[str, str]], tmp_path: Path,
                                                 generate: object, args: list[str], code: int,
                                                 first_line: str) -> None:
    _, env = pyyaml
    paths, _ = generate(tmp_path)  # type: ignore[operator]
    proc = subprocess.run([sys.executable, "-m", "kubectl_testbench", "validate", "-j", "1", *paths, *args],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False)
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert proc.stdout.replace(str(tmp_path) + "/", "").splitlines(keepends=True)[0] == first_line


def test_the_reader_tests_pass_on_every_version(pyyaml: tuple[str, dict[str, str]]) -> None:
    _, env = pyyaml
    tests = ["tests/load/test_builder.py", "tests/load/test_libyaml.py", "tests/load/test_builder_events.py",
             "tests/load/test_limits_defaults.py"]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *tests],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
