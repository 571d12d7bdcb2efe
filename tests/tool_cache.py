"""One way the tests install a tool they drive (npm packages, a Go binary, another PyYAML) into the user cache dir.

A tool is installed once per machine and key: into a private directory beside its final place, then renamed into
place in one step, so an interrupted or concurrent install never leaves a half-filled directory that a later
session would take for a finished one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

USER_CACHE_HOME = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
"""The user's own cache dir, read when this module is first imported: tests/conftest.py imports it before it points
``XDG_CACHE_HOME`` at a private dir for the tests, and the benchmark (which must not change its own environment)
imports it directly."""


def phase_cache_dir() -> Path:
    """Where the tests keep phase virtualenvs: $KUBECTL_TESTBENCH_CACHE_DIR, else the user's own cache, shared
    with ``run --local`` (the key covers everything that changes an environment, so sharing is safe)."""
    return Path(os.environ.get("KUBECTL_TESTBENCH_CACHE_DIR") or USER_CACHE_HOME / "kubectl-testbench" / "envs")


def tool_cache_dir(name: str) -> Path:
    """Where the tests keep a tool they install on first use (npm packages, Go tools, other PyYAML versions):
    beside the phase environments in the user's own cache, so a second run starts at once."""
    return phase_cache_dir().parent / name


def install_once(root: Path, ready: str, install: Callable[[Path], str | None]) -> Path | str:
    """``root`` when ``root/ready`` exists; else ``install(directory)`` fills a fresh directory (returning None,
    or why it failed) that becomes ``root``. Returns ``root``, or the reason there is none."""
    if (root / ready).exists():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=root.parent))
    try:
        failure = install(partial)
        if failure is None and not (partial / ready).exists():
            failure = f"the install did not produce {ready}"
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    if failure is not None:
        shutil.rmtree(partial, ignore_errors=True)
        return failure
    try:
        os.rename(partial, root)
    except OSError:  # another session installed it first
        shutil.rmtree(partial, ignore_errors=True)
    return root
