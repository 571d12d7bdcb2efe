"""The phase environment module: finding a Python >= 3.12, the cache key, and the atomic, cached build."""

from __future__ import annotations

import base64
import hashlib
import os
import stat
import sys
import zipfile
from pathlib import Path

import pytest

from kubectl_testbench.phases import env
from kubectl_testbench.phases.env import EnvSpec, PhaseEnvError


def fake_python(directory: Path, name: str, version: str | None) -> Path:
    """An executable that answers the version probe like a Python would (or fails, like a pyenv shim)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    body = f"echo {version}" if version else "echo 'pyenv: python3.13: command not found' >&2; exit 127"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_find_python_skips_a_failing_shim_and_an_old_python_and_takes_pyenvs(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    fake_python(bin_dir, "python3.13", None)  # a pyenv shim whose version is not selected
    fake_python(bin_dir, "python3.12", "3.11")  # misnamed, too old
    pyenv = tmp_path / "pyenv"
    fake_python(pyenv / "versions" / "3.12.1" / "bin", "python3.12", "3.12")
    newest = fake_python(pyenv / "versions" / "3.13.0" / "bin", "python3.13", "3.13")
    fake_python(pyenv / "versions" / "3.11.7" / "bin", "python3.11", "3.11")
    python, version = env.find_python(search_path=str(bin_dir), pyenv_root=pyenv)
    if sys.version_info[:2] >= env.MIN_PYTHON:  # this interpreter comes before pyenv's
        assert python == Path(sys.executable)
    else:
        assert (python, version) == (newest, "3.13")


def test_find_python_explicit_too_old_or_missing_is_a_one_line_error(tmp_path: Path) -> None:
    old = fake_python(tmp_path, "python3.11", "3.11")
    with pytest.raises(PhaseEnvError, match=rf"--phase-python {old}: not a usable Python >= 3.12: .*Python 3.11"):
        env.find_python(str(old))
    with pytest.raises(PhaseEnvError, match="does not run"):
        env.find_python(str(tmp_path / "nope"))


def test_no_python_anywhere_names_what_was_tried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "version_info", (3, 11, 0))
    fake_python(tmp_path / "bin", "python3.13", None)
    with pytest.raises(PhaseEnvError) as err:
        env.find_python(search_path=str(tmp_path / "bin"), pyenv_root=tmp_path / "no-pyenv")
    assert "no Python >= 3.12 found" in str(err.value) and "python3.13 (does not run)" in str(err.value)
    assert "--phase-python" in str(err.value)


def test_cache_key_covers_name_python_requirements_and_constraints() -> None:
    spec = env.phase_spec()
    key = spec.key("3.13")
    assert key.startswith("agentic-layer-testbench-0.10.0-py3.13-")
    assert spec.requirements == ("agentic-layer-testbench==0.10.0",)
    assert "langchain-community==0.4.1" in spec.constraints.splitlines()
    assert len({key, spec.key("3.12"), EnvSpec(spec.name, spec.requirements, spec.constraints + "x==1\n").key("3.13"),
                EnvSpec(spec.name, ("other",), spec.constraints).key("3.13")}) == 4


def test_shipped_constraints_pin_the_images_locked_versions() -> None:
    pins = dict(line.split("==") for line in env.constraints().splitlines() if "==" in line and line[0] != "#")
    assert {k: pins[k] for k in ("openai", "ragas", "a2a-sdk", "langchain-openai", "httpx", "pydantic", "boto3",
                                 "opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-http")} == {
        "openai": "2.54.0", "ragas": "0.4.3", "a2a-sdk": "0.3.26", "langchain-openai": "1.6.0", "httpx": "0.28.1",
        "pydantic": "2.13.5", "boto3": "1.43.89", "opentelemetry-sdk": "1.44.0",
        "opentelemetry-exporter-otlp-proto-http": "1.44.0"}
    assert all(line == line.strip() and "==" in line for line in env.constraints().splitlines()
               if line and not line.startswith("#")), "pins only: pip -c takes nothing else"


def tiny_wheel(directory: Path) -> Path:
    """A one-module wheel with a console script, so a real venv + pip build runs offline in seconds."""
    path = directory / "standin_pkg-1.0-py3-none-any.whl"
    files = {
        "standin_pkg.py": "def main():\n    print('stand-in package')\n",
        "standin_pkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: standin-pkg\nVersion: 1.0\n",
        "standin_pkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                           "Tag: py3-none-any\n",
        "standin_pkg-1.0.dist-info/entry_points.txt": "[console_scripts]\nstandin-pkg = standin_pkg:main\n",
    }
    record = []
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
            digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(text.encode())}")
        record.append("standin_pkg-1.0.dist-info/RECORD,,")
        wheel.writestr("standin_pkg-1.0.dist-info/RECORD", "\n".join(record) + "\n")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, EnvSpec, list[str], env.Env]:
    directory = tmp_path_factory.mktemp("envs")
    spec = EnvSpec("stand-in-pkg", (os.fspath(tiny_wheel(directory)),), "standin-pkg==1.0\n")
    messages: list[str] = []
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    first = env.ensure_env(spec, Path(sys.executable), version, cache_dir=directory / "cache",
                           progress=messages.append, pip_args=("--no-index",))
    return directory / "cache", spec, messages, first


def test_a_build_lands_under_its_key_complete_with_relocated_scripts(built: tuple[Path, EnvSpec, list[str],
                                                                                    env.Env]) -> None:
    cache, _spec, messages, first = built
    assert first.built and first.root == cache / first.key and first.root.name.startswith("stand-in-pkg-py")
    assert [p.name for p in cache.iterdir()] == [first.key], "no temporary build directory is left behind"
    script = first.root / "bin" / "standin-pkg"
    assert script.read_text().splitlines()[0] == f"#!{first.root}/bin/python"
    assert os.popen(os.fspath(script)).read() == "stand-in package\n"
    assert messages[0].startswith("creating the environment stand-in-pkg-py") and "ready in" in messages[-1]


def test_the_second_call_comes_from_the_cache_without_progress(built: tuple[Path, EnvSpec, list[str],
                                                                              env.Env]) -> None:
    cache, spec, _, first = built
    messages: list[str] = []
    again = env.ensure_env(spec, Path(sys.executable), first.key.split("-py")[1].split("-")[0], cache_dir=cache,
                           progress=messages.append)
    assert (again.root, again.built, messages) == (first.root, False, [])


def test_a_failed_build_leaves_nothing_and_an_unfinished_one_is_replaced(tmp_path: Path) -> None:
    spec = EnvSpec("broken", ("no-such-package-anywhere==1.0",))
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    leftover = tmp_path / spec.key(version)
    leftover.mkdir(parents=True)  # a build that died: no completion marker
    with pytest.raises(PhaseEnvError, match=r"pip install failed \(exit 1\)"):
        env.ensure_env(spec, Path(sys.executable), version, cache_dir=tmp_path, pip_args=("--no-index",))
    assert list(tmp_path.iterdir()) == [], "neither the unfinished build nor the failed one is kept"


def test_the_normal_cli_never_imports_the_phase_machinery() -> None:
    import subprocess

    done = subprocess.run([sys.executable, "-c", "import sys, kubectl_testbench.cli.main, "
                           "kubectl_testbench.validate.engine; print(sorted(m for m in sys.modules "
                           "if m.startswith('kubectl_testbench.phases')))"], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"


def test_docs_map_the_default_image_tag_to_the_package_version_the_tests_run() -> None:
    """Changing either constant without the other (and the docs) fails here."""
    from kubectl_testbench import layout
    from tests.conftest import ROOT

    table = (ROOT / "docs" / "phases.md").read_text(encoding="utf-8").split("## Image tag and package version")[1]
    assert f"| `{layout.DEFAULT_IMAGE_TAG}` | `kubectl_testbench/layout.py: DEFAULT_IMAGE_TAG`" in table
    assert f"| `{env.PACKAGE_VERSION}` | `kubectl_testbench/phases/env.py: PACKAGE_VERSION`" in table


def test_pyenv_shims_on_path_give_way_to_pyenvs_versions(tmp_path: Path) -> None:
    """A shim takes ~0.3 s to start (run --local looks for the Python on every run); the version behind it is
    listed from pyenv's versions directly. Without such versions the shim is still a candidate."""
    pyenv = tmp_path / "pyenv"
    shim = fake_python(pyenv / "shims", "python3.13", "3.13")
    listed = env.candidates(search_path=str(pyenv / "shims"), pyenv_root=pyenv)
    assert str(shim) in listed
    version = fake_python(pyenv / "versions" / "3.13.0" / "bin", "python3.13", "3.13")
    listed = env.candidates(search_path=str(pyenv / "shims"), pyenv_root=pyenv)
    assert str(shim) not in listed and listed[-1] == str(version)
