"""Mutation testing per module, each module against its own tests only (mutmut 3, configured in pyproject.toml).

    pip install '.[test,mutation]'
    python scripts/mutation.py                          # every module under load/ and validate/
    python scripts/mutation.py kubectl_testbench/validate/cron.py --survivors
    python scripts/mutation.py --markdown               # the table docs/testing.md shows

Why a script around mutmut: mutmut reads one ``[tool.mutmut]`` table for the whole project, while a module's
score should say how well *its own* tests pin it down (the whole suite kills more, by accident). So each
module runs in a scratch copy of the working tree whose pyproject.toml names that module and its tests; the
repository itself never gets a ``mutants/`` directory. The module list, the tests of each package and the
equivalent mutants (no behaviour can change: each with a one-line reason) live in
``[tool.testbench-mutation]``. Score = killed / (mutants - equivalent); a timeout counts as killed.
Not part of ``.ci/run``: a full run takes tens of minutes on two cores.
"""

from __future__ import annotations

import argparse
import datetime
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
KILLED = {1, 3, 24, -24, 36, 152, 255}  # mutmut's exit codes for "killed" and "timeout"
SURVIVED = {0}
NO_TESTS = {5, 33}
NO_TESTS_CODE = 33


@dataclass
class Score:
    module: str
    mutants: int = 0
    killed: int = 0
    equivalent: list[str] = field(default_factory=list)
    survivors: list[str] = field(default_factory=list)
    untested: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # listed as equivalent but killed or gone: the list is out of date

    @property
    def score(self) -> float:
        counted = self.mutants - len(self.equivalent)
        return 100.0 * self.killed / counted if counted else 100.0


def settings() -> dict[str, Any]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {"mutmut": data["tool"]["mutmut"], "mutation": data["tool"]["testbench-mutation"]}


def modules(config: dict[str, Any], wanted: list[str]) -> list[str]:
    """The modules to mutate: ``wanted`` (paths or globs), else the configured default set."""
    patterns = wanted or config["mutation"]["modules"]
    found = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "kubectl_testbench").rglob("*.py"))
    chosen = [m for m in found if any(fnmatch.fnmatch(m, pat) for pat in patterns)]
    skip = set(config["mutation"].get("skip", {}))
    return [m for m in chosen if m not in skip and not m.endswith("__init__.py")]


def tests_for(config: dict[str, Any], module: str) -> list[str]:
    """The module's own tests: an entry for the module itself, else the one for its package."""
    table: dict[str, list[str]] = config["mutation"]["tests"]
    if module in table:
        return table[module]
    package = str(Path(module).parent)
    if package in table:
        return table[package]
    raise SystemExit(f"error: no tests configured for {module} ([tool.testbench-mutation.tests])")


def scratch_copy(target: Path) -> None:
    """The working tree as git sees it (tracked and new files, uncommitted edits included), no caches."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def toml_list(values: list[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def run_module(config: dict[str, Any], module: str, jobs: int) -> tuple[Score, Path]:
    """Mutate ``module`` in a scratch copy; the copy is returned for ``mutmut show`` and removed by the caller."""
    work = Path(tempfile.mkdtemp(prefix="mutation-"))
    scratch_copy(work)
    base = dict(config["mutmut"])
    base["only_mutate"] = [module]
    base["pytest_add_cli_args_test_selection"] = tests_for(config, module)
    lines = ["", "[tool.mutmut]"] + [f"{k} = {toml_list(v) if isinstance(v, list) else json.dumps(v)}"
                                     for k, v in base.items()]
    text = (work / "pyproject.toml").read_text()
    head, _, _ = text.partition("[tool.mutmut]")
    (work / "pyproject.toml").write_text(head.rstrip() + "\n" + "\n".join(lines) + "\n")
    # PYTHONPATH pointing at a checkout would import the unmutated package before mutants/: every mutant survives
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONDONTWRITEBYTECODE": "1"}
    try:  # an interrupted run leaves no scratch copy behind
        proc = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs)], cwd=work, env=env,
                              capture_output=True, text=True, check=False)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    meta = work / "mutants" / (module + ".meta")
    codes = exit_codes(meta.read_text() if meta.exists() else None, proc.returncode, proc.stdout + proc.stderr)
    if codes is None:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-15:]
        shutil.rmtree(work, ignore_errors=True)
        raise SystemExit(f"error: mutmut failed on {module} (exit {proc.returncode}):\n" + "\n".join(tail))
    equivalent: dict[str, str] = config["mutation"].get("equivalent", {})
    score = Score(module, mutants=len(codes))
    dotted = module.removesuffix(".py").replace("/", ".") + "."
    score.stale += sorted(n for n in equivalent if n.startswith(dotted) and n not in codes)  # renamed or gone
    for name, code in sorted(codes.items(), key=lambda kv: _natural(kv[0])):
        if code in KILLED:
            score.killed += 1
            if name in equivalent:
                score.stale.append(name)
        elif name in equivalent:
            score.equivalent.append(name)
        elif code in NO_TESTS:
            score.untested.append(name)
        else:
            score.survivors.append(name)
    return score, work


def exit_codes(meta: str | None, returncode: int, output: str) -> dict[str, int | None] | None:
    """Each mutant's exit code from mutmut's meta file, or None when mutmut failed.

    mutmut mutates function bodies only: a module of constants and dataclass fields has no mutants, and mutmut
    then exits 1 ("could not find any test case for any mutant") with an empty meta file. It stops the same way
    when its tests reach none of the module's mutants: each of them is then untested (exit code 33)."""
    if meta is None:
        return None
    codes: dict[str, int | None] = json.loads(meta)["exit_code_by_key"]
    if returncode == 0 or not codes:
        return codes
    if "could not find any test case for any mutant" in output:
        return dict.fromkeys(codes, NO_TESTS_CODE)
    return None


def _natural(name: str) -> tuple[str, int]:
    stem, _, number = name.rpartition("_")
    return stem, int(number) if number.isdigit() else 0


def show(work: Path, names: list[str]) -> str:
    out = []
    for name in names:
        diff = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=work, capture_output=True,
                              text=True, check=False).stdout
        out.append(diff.rstrip())
    return "\n".join(out)


def commit() -> str:
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                         check=False).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True, check=False).stdout.strip()
    return rev + ("+changes" if dirty else "")


def markdown(scores: list[Score]) -> str:
    lines = [f"Measured {datetime.date.today().isoformat()} on {commit()} with mutmut "
             f"{_version('mutmut')} (`python scripts/mutation.py --markdown`):", "",
             "| module | mutants | killed | equivalent | survived | score |", "|---|---:|---:|---:|---:|---:|"]
    for s in scores:
        lines.append(f"| `{s.module.removeprefix('kubectl_testbench/')}` | {s.mutants} | {s.killed} | "
                     f"{len(s.equivalent)} | {len(s.survivors) + len(s.untested)} | {s.score:.0f} % |")
    return "\n".join(lines)


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "(not installed)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", help="module paths or globs (default: the configured set)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="mutants tested at once")
    parser.add_argument("--survivors", action="store_true", help="print each surviving mutant's diff")
    parser.add_argument("--markdown", action="store_true", help="print the table for docs/testing.md")
    parser.add_argument("--fail-under", type=float, default=None, help="exit 1 when a module scores less")
    args = parser.parse_args()
    config = settings()
    fail_under = args.fail_under if args.fail_under is not None else config["mutation"].get("fail-under", 0)
    scores: list[Score] = []
    for module in modules(config, args.modules):
        score, work = run_module(config, module, args.jobs)
        scores.append(score)
        print(f"{module}: {score.mutants} mutants, {score.killed} killed, {len(score.equivalent)} equivalent, "
              f"{len(score.survivors)} survived, {len(score.untested)} without tests: {score.score:.1f} %",
              file=sys.stderr, flush=True)
        for name in score.stale:
            print(f"  stale: {name} is listed as equivalent but a test kills it or it no longer exists",
                  file=sys.stderr)
        if args.survivors and (score.survivors or score.untested):
            print(show(work, score.survivors + score.untested), file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)
    if args.markdown:
        print(markdown(scores))
    low = [s for s in scores if s.score < fail_under]
    for s in low:
        print(f"below {fail_under:g} %: {s.module} ({s.score:.1f} %)", file=sys.stderr)
    return 1 if low or any(s.stale for s in scores) else 0


if __name__ == "__main__":
    sys.exit(main())
