"""The test environment's pinned versions: refresh them, or run the suite against the newest releases.

``constraints.txt`` at the top of the repository pins every package the test environment holds, so
``.ci/run`` and the README's test command install the same versions on every machine and a new upstream
release cannot turn main red overnight. Two jobs keep it honest:

``python scripts/deps.py refresh``
    builds a fresh virtualenv with ``pip install '.[test]'`` and no constraints (the newest releases that
    ``pyproject.toml`` allows) and writes what pip installed into ``constraints.txt``. Run the suite with it,
    then commit the file.
``python scripts/deps.py newest [PYTEST ARGS]``
    the non-blocking job: the same fresh, unconstrained install, a list of the versions that differ from
    ``constraints.txt``, then ``python -m pytest`` with it. Its exit code is pytest's. Run it on purpose
    (before a refresh, or on a schedule) to find an upstream break before a constraint refresh does.

Both print their progress on stderr and leave the repository as it was (the virtualenv lives in a temporary
directory).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "constraints.txt"
HEADER = """\
# The test environment's versions (pip constraints): `pip install -c constraints.txt '.[test]'`, as the
# README's test command and .ci/run do. Written by `python scripts/deps.py refresh` (a fresh virtualenv, the
# newest releases pyproject.toml allows); `python scripts/deps.py newest` runs the suite without these pins.
# Python {python}. Do not edit by hand: refresh, run the suite, commit.
"""


def pins(freeze: str) -> dict[str, str]:
    """``name -> version`` from ``pip freeze`` output (names as pip prints them); other lines are ignored."""
    found: dict[str, str] = {}
    for line in freeze.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "==" not in line:
            continue
        name, _, version = line.partition("==")
        found[name.strip()] = version.strip()
    return found


def _key(name: str) -> str:
    """PEP 503's normalised name: ``PyYAML``, ``pyyaml`` and ``py_yaml`` are one package."""
    return "-".join(name.lower().replace("_", "-").replace(".", "-").split("-"))


def render(found: dict[str, str], python: str) -> str:
    """The constraints file: the header, then one ``name==version`` a line, sorted by normalised name."""
    lines = [f"{name}=={found[name]}" for name in sorted(found, key=_key)]
    return HEADER.format(python=python) + "\n".join(lines) + "\n"


def differences(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """One line per package whose version differs, was added or was dropped, sorted by name."""
    before = {_key(name): (name, version) for name, version in old.items()}
    after = {_key(name): (name, version) for name, version in new.items()}
    lines = []
    for key in sorted(before.keys() | after.keys()):
        was, now = before.get(key), after.get(key)
        if was is not None and now is not None and was[1] != now[1]:
            lines.append(f"{now[0]}: {was[1]} -> {now[1]}")
        elif was is None and now is not None:
            lines.append(f"{now[0]}: new, {now[1]}")
        elif was is not None and now is None:
            lines.append(f"{was[0]}: {was[1]} no longer installed")
    return lines


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _fresh_env(directory: Path) -> Path:
    """A new virtualenv in ``directory`` with the newest releases of ``.[test]``; its interpreter."""
    _say(f"creating a virtualenv in {directory}")
    subprocess.run([sys.executable, "-m", "venv", str(directory)], check=True)
    python = directory / "bin" / "python"
    _say("installing '.[test]' without constraints (a few minutes)")
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PIP_CONSTRAINT", None)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", f"{ROOT}[test]"], check=True,
                   env=env, cwd=directory)
    return python


def _freeze(python: Path) -> dict[str, str]:
    out = subprocess.run([str(python), "-m", "pip", "freeze", "--exclude", "kubectl-testbench"], check=True,
                         capture_output=True, text=True).stdout
    return pins(out)


def _python_version(python: Path) -> str:
    return subprocess.run([str(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], check=True,
                          capture_output=True, text=True).stdout.strip()


def _current() -> dict[str, str]:
    return pins(CONSTRAINTS.read_text(encoding="utf-8")) if CONSTRAINTS.exists() else {}


def refresh() -> int:
    with tempfile.TemporaryDirectory(prefix="kubectl-testbench-deps-") as tmp:
        python = _fresh_env(Path(tmp) / "venv")
        found = _freeze(python)
        text = render(found, _python_version(python))
    for line in differences(_current(), found):
        _say(line)
    partial = CONSTRAINTS.with_name(f".{CONSTRAINTS.name}.tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, CONSTRAINTS)
    _say(f"wrote {CONSTRAINTS.relative_to(ROOT)} ({len(found)} packages): run the suite, then commit it")
    return 0


def newest(pytest_args: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="kubectl-testbench-deps-") as tmp:
        python = _fresh_env(Path(tmp) / "venv")
        changed = differences(_current(), _freeze(python))
        _say("versions that differ from constraints.txt:" if changed else "no version differs from constraints.txt")
        for line in changed:
            _say(f"  {line}")
        env = {**os.environ, "KUBECTL_TESTBENCH_UNPINNED": "1"}  # tests/test_constraints.py steps aside
        return subprocess.run([str(python), "-m", "pytest", *pytest_args], cwd=ROOT, env=env, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("refresh", help="rewrite constraints.txt from the newest releases pyproject.toml allows")
    run = sub.add_parser("newest", help="run the suite against the newest releases (non-blocking job)")
    run.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed to pytest")
    args = parser.parse_args(argv)
    if args.command == "refresh":
        return refresh()
    return newest(args.pytest_args)


if __name__ == "__main__":
    sys.exit(main())
