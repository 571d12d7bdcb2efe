"""Shared test helpers: paths, the reference data from ../shared, running the CLI in-process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

# Tests never read or write the user's cache (CEL outcomes, parser tables): one private dir per run.
# The one exception is the phase environments (a minute to build, keyed by their contents): see phase_cache_dir.
from tests.tool_cache import USER_CACHE_HOME as USER_CACHE_HOME  # read before the next line changes it
from tests.tool_cache import phase_cache_dir as phase_cache_dir
from tests.tool_cache import tool_cache_dir as tool_cache_dir

os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="kubectl-testbench-tests-cache-")



def pytest_sessionstart(session: pytest.Session) -> None:
    """Under mutmut, start every mutant's session from nothing: mutmut forks each mutant's pytest run from a
    process that has already run the whole suite, so without this the compiled CEL rules, their remembered
    outcomes (in memory and in the cache dir) and every ``functools.cache`` would answer from the unmutated
    code, or from the mutant tested before, and a mutant in that code could never be seen."""
    if os.environ.get("MUTANT_UNDER_TEST"):
        os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="kubectl-testbench-tests-cache-")
        reset_process_caches()
        keep_stats_out_of_child_processes()


def keep_stats_out_of_child_processes() -> None:
    """mutmut's first pass ("stats") records which tests reach which function, in its own process: a CLI run in a
    child process inherits ``MUTANT_UNDER_TEST=stats``, and its trampolines then look for mutmut's
    configuration in the child's working directory, which fails wherever a test runs the CLI elsewhere
    (kustomize's exec function, Argo CD's plugin, ``validate`` in a temp dir). The mode stays this process's
    own (mutmut keeps a process-local copy), children run the code as it is; a mutant's name, set later in
    each forked run, is inherited again, so a child process still runs the mutant."""
    if os.environ.get("MUTANT_UNDER_TEST") != "stats":
        return
    from mutmut.mutation.trampoline import set_mutant_under_test

    set_mutant_under_test("stats")
    del os.environ["MUTANT_UNDER_TEST"]


def reset_process_caches() -> None:
    """Forget everything the package remembers per process (as a fresh ``kubectl-testbench`` run starts)."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("kubectl_testbench") or module is None:
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()
    for module_name, attr, value in PROCESS_STATE:
        if module_name in sys.modules:
            setattr(sys.modules[module_name], attr, value() if callable(value) else value)


PROCESS_STATE: list[tuple[str, str, object]] = [
    ("kubectl_testbench.validate.cel.evaluate", "_RULES", dict),  # compiled rules, each with a memo of outcomes
    ("kubectl_testbench.validate.cel.store", "_STORE", None),  # the outcome store on disk, opened once
    ("kubectl_testbench.validate.cel.environment", "_ENV", None),  # the CEL environment (parser, type provider)
    ("kubectl_testbench.validate.cel.shipped", "_SHIPPED", None),  # the packaged outcome table, loaded once
]


ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
REFERENCE = Path(os.environ.get("TESTBENCH_REFERENCE", ROOT.parent / "shared" / "reference"))
UPSTREAM = REFERENCE / "testbench-upstream"
TESTKUBE_CRDS = REFERENCE / "testkube-crds"


REFERENCE_SKIP = "reference data not found at"


def require_reference(path: Path) -> Path:
    """Skip (with the reason) when the upstream reference data is not next to the checkout."""
    if not path.exists():
        pytest.skip(f"{REFERENCE_SKIP} {path} (set TESTBENCH_REFERENCE)")
    return path


def skip_summary(reasons: list[str]) -> list[str]:
    """The lines the session ends with: why tests were skipped, each reason once with its count. The upstream
    reference data accounts for most skips on a fresh checkout, so it gets one line that says how to fix it."""
    from collections import Counter

    reference = [r for r in reasons if REFERENCE_SKIP in r]
    lines = []
    if reference:
        lines.append(f"{len(reference)} test{'' if len(reference) == 1 else 's'} skipped: the upstream reference data "
                     f"is not at {REFERENCE} (set TESTBENCH_REFERENCE to a copy of it; docs/testing.md)")
    for reason, count in sorted(Counter(r for r in reasons if REFERENCE_SKIP not in r).items()):
        lines.append(f"{count} test{'' if count == 1 else 's'} skipped: {reason}")
    return lines


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Skip reasons are hidden by -q: print them once, grouped, at the end of the session."""
    reasons = []
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        reasons.append(str(reason).removeprefix("Skipped: "))
    for line in skip_summary(reasons):
        terminalreporter.write_line(line)


def run_cli(*args: str, input: str | bytes | None = None) -> Result:
    """Run ``kubectl testbench ARGS`` in-process; ``result.exit_code`` is the process exit code."""
    from kubectl_testbench.cli.main import cli

    runner = CliRunner()
    return runner.invoke(cli, list(args), input=input, prog_name="kubectl testbench", standalone_mode=True)


def run_process(*args: str, input: bytes | None = None, cwd: Path | None = None,
                env: dict[str, str] | None = None, timeout: float = 60,
                unprivileged: bool = False) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m kubectl_testbench ARGS`` as a real process (exit codes, stdout/stderr, no traceback).

    ``unprivileged``: file permissions apply to it even when the tests run as root. Root is then put in a new
    user namespace (``unshare -U``), where it keeps its uid but has no capability over the files outside, so
    ``chmod 0`` and a read-only directory stop it as they stop any user."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    prefix: list[str] = []
    if unprivileged and os.geteuid() == 0:
        unshare = shutil.which("unshare")
        if unshare is None:
            pytest.skip("root reads and writes regardless of permissions, and unshare (util-linux) is not installed")
        prefix = [unshare, "--user"]
    return subprocess.run([*prefix, sys.executable, "-m", "kubectl_testbench", *args], input=input, cwd=cwd,
                          capture_output=True, env=full_env, timeout=timeout, check=False)


def kubectl() -> str:
    path = shutil.which("kubectl")
    if path is None:
        pytest.skip("kubectl is not installed: overlay builds need the real kubectl kustomize")
    return path


# The control plane's session fixtures, registered here once for every test package. Imported into two conftest.py
# files, a fixture is two fixtures to pytest, each with its own session cache: tests/controlplane and tests/e2e
# then started a control plane each. (Last in this file: both modules import helpers defined above.)
from tests.controlplane.cluster import testkube_cluster  # noqa: E402, F401
from tests.controlplane.fixture import control_plane  # noqa: E402, F401
