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
