"""A cached virtualenv holding the phase image's package (agentic-layer-testbench), built once per key.

The phases only run on Python >= 3.12, which the user's own interpreter may not be, so the environment is a
separate virtualenv made with a Python found by :func:`find_python`. It is built once under the user's cache dir,
keyed by what determines its contents (name, requirements, the shipped constraints, the interpreter's version),
in a temporary directory renamed into place when complete: a crashed or concurrent build never leaves a
half-installed environment behind under the final name. Library code: progress goes to a callback, errors are
:class:`PhaseEnvError`; the CLI prints them.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

PACKAGE = "agentic-layer-testbench"
PACKAGE_VERSION = "0.10.0"
"""The phase package release the environment installs (and the tests run)."""
MIN_PYTHON = (3, 12)
"""agentic-layer-testbench declares Requires-Python >= 3.12."""
CACHE_ENV = "KUBECTL_TESTBENCH_CACHE_DIR"
"""Overrides where environments are kept (default: the user cache dir + ``/kubectl-testbench/envs``)."""

Progress = Callable[[str], None]
_MARKER = ".kubectl-testbench-env"
_VERSION_PROBE = "import sys; print('%d.%d' % sys.version_info[:2])"


class PhaseEnvError(Exception):
    """No suitable Python, or the environment could not be built (the message says which and why)."""


@dataclass(frozen=True)
class EnvSpec:
    """What goes into one virtualenv: pip requirements plus pip constraints text."""

    name: str
    requirements: tuple[str, ...]
    constraints: str = ""

    def key(self, python_version: str) -> str:
        """The directory name: readable prefix, then a hash of everything that changes the contents."""
        digest = hashlib.sha256("\n".join((self.name, python_version, *self.requirements, "--",
                                           self.constraints)).encode()).hexdigest()[:16]
        return f"{self.name}-py{python_version}-{digest}"


@dataclass(frozen=True)
class Env:
    """A built environment: its root and its interpreter."""

    root: Path
    python: Path
    key: str
    built: bool
    """True when this call built it, False when it came from the cache."""


def constraints() -> str:
    """The pip constraints shipped with kubectl-testbench (the image's locked versions + the ragas fix)."""
    return resources.files("kubectl_testbench.phases").joinpath("constraints.txt").read_text(encoding="utf-8")


def phase_spec() -> EnvSpec:
    """The phase environment: the phase package at the version the tests run, under the shipped constraints."""
    return EnvSpec(name=f"{PACKAGE}-{PACKAGE_VERSION}", requirements=(f"{PACKAGE}=={PACKAGE_VERSION}",),
                   constraints=constraints())


def default_cache_dir() -> Path:
    """``$KUBECTL_TESTBENCH_CACHE_DIR``, else the platform's user cache dir + ``kubectl-testbench/envs``."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "kubectl-testbench" / "envs"


# --- finding a Python --------------------------------------------------------------------------------------

def python_version(python: str | os.PathLike[str]) -> tuple[int, int] | None:
    """The interpreter's (major, minor), or None when it does not run (a pyenv shim without that version)."""
    try:
        done = subprocess.run([os.fspath(python), "-c", _VERSION_PROBE], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.fullmatch(r"(\d+)\.(\d+)\s*", done.stdout)
    if done.returncode != 0 or match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def _pyenv_pythons(pyenv_root: Path) -> list[Path]:
    """pyenv's installed CPythons >= 3.12, newest first (``versions/3.13.0/bin/python3.13``)."""
    found: list[tuple[tuple[int, ...], Path]] = []
    versions = pyenv_root / "versions"
    if not versions.is_dir():
        return []
    for entry in versions.iterdir():
        match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", entry.name)
        if match is None:
            continue
        version = tuple(int(g) for g in match.groups())
        if version[:2] >= MIN_PYTHON:
            found.append((version, entry / "bin" / f"python{version[0]}.{version[1]}"))
    return [path for _, path in sorted(found, reverse=True)]


def candidates(explicit: str | None = None, *, search_path: str | None = None,
               pyenv_root: Path | None = None) -> list[str]:
    """Where a Python >= 3.12 is looked for, in order: the flag, python3.13/python3.12 on PATH, this
    interpreter, pyenv's versions (``$PYENV_ROOT`` or ``~/.pyenv``). pyenv's shims on PATH are skipped when pyenv
    has such versions: starting a shim costs about 0.3 s, and it runs one of those versions (or fails, when the
    selected version lacks the name)."""
    if explicit:
        return [explicit]
    root = pyenv_root or Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    pyenv = _pyenv_pythons(root)
    found = [p for name in ("python3.13", "python3.12") if (p := shutil.which(name, path=search_path))
             and not (pyenv and Path(p).parent == root / "shims")]  # a shim costs ~0.3 s; its versions are below
    if sys.version_info[:2] >= MIN_PYTHON:
        found.append(sys.executable)
    found.extend(str(p) for p in pyenv)
    return list(dict.fromkeys(found))


def find_python(explicit: str | None = None, *, search_path: str | None = None,
                pyenv_root: Path | None = None) -> tuple[Path, str]:
    """The first candidate that runs and is >= 3.12, as (path, "3.13"); PhaseEnvError names what was tried."""
    tried: list[str] = []
    for candidate in candidates(explicit, search_path=search_path, pyenv_root=pyenv_root):
        resolved = shutil.which(candidate) or candidate
        version = python_version(resolved)
        if version is None:
            tried.append(f"{candidate} (does not run)")
        elif version < MIN_PYTHON:
            tried.append(f"{candidate} (Python {version[0]}.{version[1]})")
        else:
            return Path(resolved), f"{version[0]}.{version[1]}"
    need = f"Python >= {MIN_PYTHON[0]}.{MIN_PYTHON[1]}"
    if explicit:
        raise PhaseEnvError(f"--phase-python {explicit}: not a usable {need}: {'; '.join(tried)}")
    detail = f" (tried: {'; '.join(tried)})" if tried else ""
    raise PhaseEnvError(f"no {need} found on PATH or under pyenv{detail}: the phase package "
                        f"{PACKAGE} requires it; install one or pass --phase-python")


# --- building ----------------------------------------------------------------------------------------------

def _env_python(root: Path) -> Path:
    return root / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def _ready(root: Path) -> bool:
    return (root / _MARKER).is_file() and _env_python(root).exists()


def _run(argv: Sequence[str], what: str, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(list(argv), capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise PhaseEnvError(f"{what} failed (exit {done.returncode}):\n{tail}")


def _relocate_scripts(root: Path, built_at: Path) -> None:
    """Console scripts and activate files name the directory they were built in: point them at ``root``."""
    scripts = root / ("Scripts" if sys.platform == "win32" else "bin")
    old, new = os.fspath(built_at).encode(), os.fspath(root).encode()
    for path in scripts.iterdir():
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if old in data and b"\0" not in data[:1024]:
            path.write_bytes(data.replace(old, new))


def _compile(root: Path) -> None:
    """Bytecode written here, after the rename, names the final paths; a file that fails to compile is
    simply imported from source later, so the exit status does not matter."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([os.fspath(_env_python(root)), "-m", "compileall", "-q", "-j0", os.fspath(root / "lib")],
                   capture_output=True, check=False, env=env)


def ensure_env(spec: EnvSpec, python: Path, python_version: str, *, cache_dir: Path | None = None,
               progress: Progress | None = None, pip_args: Iterable[str] = ()) -> Env:
    """The environment for ``spec`` under ``cache_dir``, built with ``python`` the first time it is asked for."""
    say = progress or (lambda _message: None)
    base = cache_dir or default_cache_dir()
    key = spec.key(python_version)
    root = base / key
    if _ready(root):
        return Env(root=root, python=_env_python(root), key=key, built=False)
    base.mkdir(parents=True, exist_ok=True)
    if root.exists():  # a build that died before it was complete: never used, replaced
        shutil.rmtree(root, ignore_errors=True)
    start = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}.building-", dir=base))
    try:
        say(f"creating the environment {key} with Python {python_version} ({python})")
        _run([os.fspath(python), "-m", "venv", os.fspath(tmp)], "python -m venv")
        constraints_file = tmp / "constraints.txt"
        constraints_file.write_text(spec.constraints, encoding="utf-8")
        say(f"installing {', '.join(spec.requirements)} (pip; about a minute the first time)")
        env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        _run([os.fspath(_env_python(tmp)), "-m", "pip", "install", "--no-compile", "--quiet",
              "-c", os.fspath(constraints_file), *pip_args, *spec.requirements], "pip install", env)
        (tmp / _MARKER).write_text(f"{key}\n", encoding="utf-8")
        try:
            os.rename(tmp, root)
        except OSError:
            if not _ready(root):  # someone else's build won the rename only if theirs is complete
                raise
            shutil.rmtree(tmp, ignore_errors=True)
            return Env(root=root, python=_env_python(root), key=key, built=False)
        _relocate_scripts(root, tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    say("compiling bytecode at the final path (each phase then starts in about half the time)")
    _compile(root)
    say(f"environment ready in {time.monotonic() - start:.0f} s: {root}")
    return Env(root=root, python=_env_python(root), key=key, built=True)


def ensure_phase_env(phase_python: str | None = None, *, cache_dir: Path | None = None,
                     progress: Progress | None = None) -> Env:
    """The phase environment (agentic-layer-testbench under the shipped constraints), found or built."""
    python, version = find_python(phase_python)
    return ensure_env(phase_spec(), python, version, cache_dir=cache_dir, progress=progress)
