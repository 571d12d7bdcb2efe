"""constraints.txt: the test environment's versions, complete, consistent with pyproject.toml, and installed.

scripts/deps.py writes it (``refresh``) and runs the suite without it (``newest``, which sets
``KUBECTL_TESTBENCH_UNPINNED`` so the installed-versions test steps aside there).
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
import tomllib

import pytest
from packaging.requirements import Requirement

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import deps

TEXT = (ROOT / "constraints.txt").read_text(encoding="utf-8")
PINS = deps.pins(TEXT)


def _key(name: str) -> str:
    return deps._key(name)


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(r) for r in [*project["dependencies"], *project["optional-dependencies"]["test"]]]


def test_every_line_is_a_comment_or_an_exact_pin() -> None:
    for line in TEXT.splitlines():
        assert line.startswith("#") or (line.count("==") == 1 and " " not in line), line
    assert len(PINS) == len([line for line in TEXT.splitlines() if not line.startswith("#")])


def test_the_file_is_what_refresh_writes() -> None:
    """Sorted, one header, nothing edited by hand: ``render`` of its own pins gives the same bytes."""
    python = TEXT.splitlines()[3].removeprefix("# Python ").split(".", 2)
    assert deps.render(PINS, f"{python[0]}.{python[1].split('.')[0]}") == TEXT


def test_every_requirement_of_the_test_environment_is_pinned_within_its_range() -> None:
    pinned = {_key(name): version for name, version in PINS.items()}
    for requirement in _requirements():
        version = pinned.get(_key(requirement.name))
        assert version is not None, f"constraints.txt does not pin {requirement.name}"
        assert requirement.specifier.contains(version, prereleases=True), f"{requirement.name}=={version} is " \
            f"outside pyproject.toml's {requirement.specifier}"


UNPINNED = "scripts/deps.py newest runs the suite with the newest releases on purpose"
INSTALLER = {"pip", "setuptools", "wheel", "kubectl-testbench"}


def test_this_environment_has_the_pinned_versions() -> None:
    if os.environ.get("KUBECTL_TESTBENCH_UNPINNED"):
        pytest.skip(UNPINNED)
    wrong = []
    for name, version in PINS.items():
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            wrong.append(f"{name}: not installed")
            continue
        if installed != version:
            wrong.append(f"{name}: {installed}, constraints.txt pins {version}")
    assert not wrong, "install with pip install -c constraints.txt '.[test]':\n" + "\n".join(wrong)


def test_every_installed_package_is_pinned() -> None:
    """Complete: a dependency of a dependency (a2a-sdk[http-server]'s starlette, say) is pinned too."""
    if os.environ.get("KUBECTL_TESTBENCH_UNPINNED"):
        pytest.skip(UNPINNED)
    pinned = {_key(name) for name in PINS}
    installed = {_key(dist.metadata["Name"]) for dist in importlib.metadata.distributions()}
    assert sorted(installed - pinned - INSTALLER) == []


def test_pins_read_pip_freeze_output() -> None:
    freeze = "# comment\nPyYAML==6.0.4\n  ruamel.yaml == 0.19.1\n-e git+https://x/y#egg=z\n\nclick==8.5.1\n"
    assert deps.pins(freeze) == {"PyYAML": "6.0.4", "ruamel.yaml": "0.19.1", "click": "8.5.1"}


def test_render_sorts_by_normalised_name_under_the_header() -> None:
    text = deps.render({"typing_extensions": "4", "PyYAML": "6", "a2a-sdk": "0.3", "pydantic": "2"}, "3.11")
    assert text.startswith(deps.HEADER.format(python="3.11"))
    assert text.splitlines()[-4:] == ["a2a-sdk==0.3", "pydantic==2", "PyYAML==6", "typing_extensions==4"]


def test_differences_name_every_change() -> None:
    old = {"PyYAML": "6.0.3", "click": "8.1", "gone": "1"}
    new = {"pyyaml": "6.0.4", "click": "8.1", "fresh": "2"}
    assert deps.differences(old, new) == ["fresh: new, 2", "gone: 1 no longer installed", "pyyaml: 6.0.3 -> 6.0.4"]
