"""Benchmarks: kubectl-testbench against a peer and a floor, measured in the same run.

    python benchmarks/run.py            # full run, writes benchmarks/results.md
    python benchmarks/run.py --quick    # small corpora, one repetition (CI: proves the script works)

Floors: ``python -c pass`` for start-up; loading the same bytes with PyYAML's CSafeLoader for
throughput. Peer: ``check-jsonschema --schemafile schemas/experiment.schema.json`` (schema only: no CEL,
no semantics). The validators platform teams run in CI sit beside it (``benchmarks/peers.py``, built from the Go
module proxy at pinned versions; absent, with the reason, where Go is missing): kubeconform (``-strict``, our JSON
Schema through its ``-schema-location`` template) and kubectl-validate (the API server's own validation, our CRD
through ``--local-crds``); a "caught" column counts the held invalid files each tool flags.

Every case is a fresh process, timed as wall clock; we report the median of the runs and the peak resident
memory of the process (``wait4``; with ``--jobs`` that is the largest single process).

Cold and warm are measured separately. Cold: every process gets a new, empty ``XDG_CACHE_HOME`` (a fresh
CI runner, container or Argo CD sidecar: no CEL outcomes or parser tables of ours from an earlier run).
Warm: one untimed run of the same command fills a cache directory that the timed runs then share (a CI
cache restored, a second pre-commit run). Bytecode is compiled first in both, as ``pip install`` leaves
it. ``render --output-dir`` renders into a new directory every time (the one left by the previous run is removed,
untimed), so cold and warm differ only in the cache; "render again" re-renders over its own unchanged output
(regenerating a committed directory). The cases of one corpus size run round-robin, so a change of machine
load hits them all alike; the load average is printed with the figures (the machine may be shared).

``fix --check`` runs on the same corpora (nothing to fix) and on a corpus where every tenth file has two
fixable findings, each next to ``validate`` on the same files. The language server's diagnostics latency
after an edit (``benchmarks/lsp_latency.py``, needs the lsp extra) closes the report.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import peers  # noqa: E402  (benchmarks/peers.py, found through the path above)

PY = sys.executable
SCHEMA = ROOT / "schemas" / "experiment.schema.json"
FLOOR_SCRIPT = """
import sys, yaml
for path in open(sys.argv[1]).read().split("\\n"):
    if path:
        with open(path, "rb") as handle:
            list(yaml.load_all(handle.read(), Loader=yaml.CSafeLoader))
"""

FLOOR_WRITE_SCRIPT = """
import os, sys, yaml
os.makedirs(sys.argv[2])
for path in open(sys.argv[1]).read().split("\\n"):
    if path:
        with open(path, "rb") as handle:
            data = handle.read()
        list(yaml.load_all(data, Loader=yaml.CSafeLoader))
        for suffix in ("a", "b"):  # render writes two files per Experiment (ConfigMap, TestWorkflow)
            with open(os.path.join(sys.argv[2], os.path.basename(path) + suffix), "wb") as out:
                out.write(data)
"""
"""The floor of ``render --output-dir``: the same load, and two new files of the input's size per input written
into a new directory (what creating the files costs on this disk, apart from rendering them)."""
IMPORT_OURS = "import kubectl_testbench.cli.main, kubectl_testbench.cli.validate, kubectl_testbench.validate.engine"
"""What ``validate`` imports before it reads a file: with ``python -c pass`` and ``import yaml``, the split of a
one-file run into interpreter start-up, PyYAML, our modules and the work."""


@dataclass
class Measure:
    name: str
    files: int
    cache: str = "-"
    seconds: list[float] = field(default_factory=list)
    peak_kib: int = 0
    exit_codes: set[int] = field(default_factory=set)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


@dataclass
class Case:
    """One command to time; ``cache`` is "cold" (a new empty cache dir per run), "warm" (filled first) or "-"."""

    key: str
    cmd: list[str]
    name: str
    files: int
    cache: str = "-"
    cwd: Path = ROOT
    fresh: Path | None = None
    """A directory the command writes, removed (untimed) before every run: each run writes it anew."""


def run_group(cases: list[Case], repeats: int, work: Path) -> dict[str, Measure]:
    """Time ``cases`` round-robin, ``repeats`` rounds: each round runs every case once."""
    out = {c.key: Measure(c.name, c.files, c.cache) for c in cases}
    warm_dirs: dict[str, Path] = {}
    for case in cases:
        if case.cache == "warm":
            warm_dirs[case.key] = Path(tempfile.mkdtemp(prefix="warm-", dir=work))
            _spawn(case, warm_dirs[case.key])  # fills the cache; not timed
    for _ in range(repeats):
        for case in cases:
            cache = warm_dirs.get(case.key) or Path(tempfile.mkdtemp(prefix="cold-", dir=work))
            seconds, status, usage = _spawn(case, cache)
            m = out[case.key]
            m.seconds.append(seconds)
            m.peak_kib = max(m.peak_kib, usage.ru_maxrss)
            m.exit_codes.add(os.waitstatus_to_exitcode(status))
            if case.cache != "warm":
                shutil.rmtree(cache, ignore_errors=True)
    return out


def _spawn(case: Case, cache: Path) -> tuple[float, int, os.struct_rusage]:
    if case.fresh is not None:
        shutil.rmtree(case.fresh, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache)}
    env.pop("KUBECTL_TESTBENCH_NO_CACHE", None)
    start = time.perf_counter()
    proc = subprocess.Popen(case.cmd, cwd=case.cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, status, usage


BESIDE_PYTHON = os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))
"""PATH with this interpreter's scripts first: the peer installed with it is found without an activated venv."""


def ours(*args: str) -> list[str]:
    return [PY, "-m", "kubectl_testbench", *args]


def peer(files: list[Path]) -> list[str] | None:
    exe = shutil.which("check-jsonschema", path=BESIDE_PYTHON)
    return [exe, "--schemafile", str(SCHEMA), *map(str, files)] if exe else None


def floor_load(files: list[Path], work: Path, script: str = FLOOR_SCRIPT, *args: str) -> list[str]:
    listing = work / f"files-{len(files)}.txt"
    listing.write_text("\n".join(map(str, files)))
    return [PY, "-c", script, str(listing), *args]


def machine(go_peers: Sequence[peers.GoPeer] = ()) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kib / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    versions = []
    for dist in ("PyYAML", "cel-python", "check-jsonschema", "ruamel.yaml", "ruamel.yaml.clib"):
        try:
            from importlib.metadata import version

            versions.append(f"{dist} {version(dist)}")
        except Exception:  # absent packages are part of the description
            versions.append(f"{dist} (not installed)")
    versions += [f"{p.name} {p.version}" + ("" if p.exe else " (not built)") for p in go_peers]
    return (f"{cpu}, {os.cpu_count()} CPUs{mem}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}; " + ", ".join(versions))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small corpora, one repetition, no targets")
    parser.add_argument("--repeats", type=int, default=None, help="rounds per case (one-file cases: 3× as many)")
    parser.add_argument("--output", type=Path, default=HERE / "results.md")
    parser.add_argument("--corpus", type=Path, default=HERE / ".corpus")
    parser.add_argument("--only-run-local", action="store_true",
                        help="only the run --local section (benchmarks/run_local.py), printed, not written")
    args = parser.parse_args()
    if args.only_run_local:
        from run_local import section

        print(section(args.repeats or (1 if args.quick else 5)))
        return 0
    repeats = args.repeats or (1 if args.quick else 5)
    sizes = [1, 100] if args.quick else [1, 100, 2000, 10000]
    big_steps = 1000 if args.quick else 10000
    subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "kubectl_testbench")], check=True)

    n_fix = 100 if args.quick else 2000
    subprocess.run([PY, str(HERE / "corpus.py"), str(args.corpus), str(big_steps), str(n_fix), *map(str, sizes)],
                   check=True)
    corpora = {n: [args.corpus / f"n{n}" / f"exp-{i:05d}.yaml" for i in range(n)] for n in sizes}
    big = args.corpus / f"big-{big_steps}" / "experiment.yaml"
    results: dict[str, Measure] = {}
    go_peers = peers.find()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        peer_inputs = peers.prepare(work, PY)
        built = [p for p in go_peers if p.exe]
        for n, files in corpora.items():
            target = str(files[0] if n == 1 else files[0].parent)
            cases = [Case(f"floor {n}", floor_load(files, work), "CSafeLoader load", n)]
            if n == 1:
                cases[:0] = [Case("startup floor", [PY, "-c", "pass"], "python -c pass", 0),
                             Case("import yaml floor", [PY, "-c", "import yaml"], "python -c 'import yaml'", 0),
                             Case("import ours floor", [PY, "-c", IMPORT_OURS], "import validate's modules", 0)]
            out_floor = work / f"floor-written-{n}"
            cases.append(Case(f"floor-write {n}", floor_load(files, work, FLOOR_WRITE_SCRIPT, str(out_floor)),
                              "CSafeLoader load + write 2 files each", n, fresh=out_floor))
            cmd = peer(files)
            if cmd:
                cases.append(Case(f"peer {n}", cmd, "check-jsonschema", n, "cold"))
            for cache in ("cold", "warm"):
                cases += [Case(f"{p.name} {cache} {n}", peers.command(p, peer_inputs, [target]), p.name, n, cache)
                          for p in built]
                cases.append(Case(f"validate {cache} {n}", ours("validate", target), "validate", n, cache))
                if n >= 100:
                    cases.append(Case(f"validate-j1 {cache} {n}", ours("validate", "-j", "1", target), "validate -j 1",
                                      n, cache))
                    cases.append(Case(f"fix-check {cache} {n}", ours("fix", "--check", "-q", target), "fix --check",
                                      n, cache))
                out = work / f"rendered-{cache}-{n}"
                cases.append(Case(f"render {cache} {n}", ours("render", "--no-defaults", target, "--output-dir",
                                                              str(out)), "render --output-dir", n, cache, fresh=out))
                if cache == "warm" and n >= 100:
                    again = str(work / f"rendered-again-{n}")
                    cases.append(Case(f"render-again warm {n}", ours("render", "--no-defaults", target,
                                                                     "--output-dir", again),
                                      "render --output-dir again (unchanged)", n, cache))
            rounds = repeats * 3 if n == 1 else repeats if n <= 2000 else max(1, repeats // 2)
            results.update(run_group(cases, rounds, work))
        fixable = str(args.corpus / f"fixable-{n_fix}")
        results.update(run_group([
            Case(f"validate-fixable {n_fix}", ours("validate", fixable), "validate (10% fixable)", n_fix, "warm"),
            Case(f"fix-check-fixable {n_fix}", ours("fix", "--check", "-q", fixable), "fix --check (10% fixable)",
                 n_fix, "warm"),
        ], repeats, work))
        big_cases = [Case("floor big", floor_load([big], work), f"CSafeLoader load ({big_steps} steps)", 1)]
        cmd = peer([big])
        if cmd:
            big_cases.append(Case("peer big", cmd, f"check-jsonschema ({big_steps} steps)", 1, "cold"))
        big_cases += [Case(f"{p.name} big", peers.command(p, peer_inputs, [str(big)]), f"{p.name} ({big_steps} steps)",
                           1, "-") for p in built]
        big_json = args.corpus / f"big-{big_steps}-json" / "experiment.json"
        big_cases += [
            Case("validate big", ours("validate", str(big)), f"validate ({big_steps} steps)", 1, "warm"),
            Case("validate-json big", ours("validate", str(big_json)), f"validate ({big_steps} steps, JSON)", 1,
                 "warm"),
            Case("render big", ours("render", "--no-defaults", str(big)), f"render ({big_steps} steps)", 1, "warm"),
        ]
        results.update(run_group(big_cases, repeats, work))
        results.update(run_group([Case("validate-json 100", ours("validate", str(args.corpus / "n100-json")),
                                       "validate (JSON)", 100, "warm")], repeats, work))
        tools = {"validate": ours("validate")}
        exe = shutil.which("check-jsonschema", path=BESIDE_PYTHON)
        if exe:
            tools["check-jsonschema"] = [exe, "--schemafile", str(SCHEMA)]
        tools.update({p.name: peers.command(p, peer_inputs, []) for p in built})
        invalid = peers.invalid_files()
        caught = peers.caught(tools, invalid)
    load = (load_before, os.getloadavg())

    report = format_report(results, big_steps, repeats, args.quick, load, go_peers, caught, invalid)
    report += "\n" + lsp_section(args.quick)
    if not args.quick:
        report += agreement_section()
        from run_local import section

        report += section(repeats)
    print(report)
    if not args.quick:
        args.output.write_text(report)
        print(f"written to {args.output}")
    return 0


def lsp_section(quick: bool) -> str:
    """Diagnostics latency of ``kubectl testbench lsp`` after an edit (benchmarks/lsp_latency.py)."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        return "## Language server: diagnostics after an edit, hover\n\nnot measured: pip install '.[lsp]'\n"
    from lsp_latency import measure

    return measure(quick)


def agreement_section() -> str:
    """The oracle agreement figure (benchmarks/agreement.py), next to the speed figures."""
    proc = subprocess.run([PY, str(HERE / "agreement.py")], capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    body = proc.stdout.strip() if proc.returncode in (0, 1) else f"not measured: {proc.stderr.strip()}"
    return ("\n## Agreement with the API server's own code\n\n"
            "Files whose verdict and error field paths agree with the Go oracle (tests/oracle: Kubernetes' own "
            "YAML/JSON decoding and kube-openapi validation after structural pruning and defaulting), allow-list "
            "in tests/oracle/allowlist.yaml. `python benchmarks/agreement.py`:\n\n" + body + "\n")


def ratio(a: Measure | None, b: Measure | None) -> float | None:
    if a is None or b is None or not b.median:
        return None
    return a.median / b.median


OURS = ("validate", "render", "fix")
"""Keys of our own cases: the rows compared with the peers."""
TOOLS = {"validate": "validate", "check-jsonschema": "peer", "kubeconform": "kubeconform",
         "kubectl-validate": "kubectl-validate"}
"""A row's tool (by key prefix) → its name in the caught table."""


def _tool_of(key: str) -> str | None:
    head = key.split(" ", 1)[0]
    return next((tool for tool, prefix in TOOLS.items() if head == prefix), None)


def _peer_case(r: dict[str, Measure], peer: str, key: str, m: Measure) -> Measure | None:
    """The peer's case on the same files with the same cache (its only case on the big document)."""
    if key.endswith("big"):
        return r.get(f"{peer} big")
    return r.get(f"{peer} {m.cache} {m.files}")


def format_report(r: dict[str, Measure], big_steps: int, repeats: int, quick: bool,
                  load: tuple[tuple[float, ...], tuple[float, ...]], go_peers: list[peers.GoPeer],
                  caught: dict[str, dict[str, int]], invalid: dict[str, list[Path]]) -> str:
    before, after = (" / ".join(f"{x:.2f}" for x in avg) for avg in load)
    total_invalid = sum(len(p) for p in invalid.values())
    absent = [f"{p.name} {p.version}: not measured: {p.reason}" for p in go_peers if not p.exe]
    lines = ["# kubectl-testbench benchmarks", "",
             f"Machine: {machine(go_peers)}", "",
             f"Load average (1 / 5 / 15 min) when the run started: {before}; when it ended: {after}.", "",
             f"Each case: median of {repeats} fresh process run(s) ({repeats * 3} for one file), the cases of a "
             "corpus round-robin; peak RSS of the largest process. Cold = a new empty XDG_CACHE_HOME for every "
             "process (a fresh CI runner); warm = a cache directory filled by one untimed run first (kubeconform "
             "and kubectl-validate keep no cache of local schemas: their cold and warm rows differ by noise only). "
             "Floor = loading the same files with PyYAML's CSafeLoader in one process (+ write 2 files each: the "
             "same, and two new files of each input's size written into a new directory, render's I/O); `python -c "
             "'import yaml'` and `import validate's modules` split a one-file run into start-up, PyYAML, our "
             "modules and the work; peer = check-jsonschema with "
             "the committed JSON Schema (schema only); kubeconform = `-strict` with `kubectl testbench schema` "
             "through `-schema-location`; kubectl-validate = the API server's validation with `kubectl testbench "
             "crd` through `--local-crds`. vs kubeconform, vs kubectl-validate: our time over theirs on the same "
             f"files and cache (below 1 = we are faster). Caught: of the {total_invalid} held invalid files "
             "(section below), how many the tool flags.", "",
             *(f"- {line}" for line in absent), *([""] if absent else []),
             "| case | cache | files | median s | ms/file | peak MiB | vs peer | vs floor | vs kubeconform "
             "| vs kubectl-validate | caught |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key, m in r.items():
        big = key.endswith("big")
        floor = r.get("floor big") if big else r.get(f"floor {m.files}")
        if key.startswith(("validate", "render")) and m.files == 1 and not big:
            floor = r["startup floor"]
        ours_row = key.startswith(OURS)
        peer_m = r.get("peer big") if big else r.get(f"peer {m.files}")
        vs_peer = ratio(m, peer_m) if ours_row else None
        vs_floor = ratio(m, floor) if not key.startswith(("floor", "startup")) else None
        vs_kc = ratio(m, _peer_case(r, "kubeconform", key, m)) if ours_row else None
        vs_kv = ratio(m, _peer_case(r, "kubectl-validate", key, m)) if ours_row else None
        tool = _tool_of(key)
        found = f"{peers.total_caught(caught[tool])}/{total_invalid}" if tool in caught else "-"
        per = f"{m.median / m.files * 1000:.2f}" if m.files else "-"
        lines.append(f"| {m.name} | {m.cache} | {m.files or '-'} | {m.median:.3f} | {per} | {m.peak_kib / 1024:.0f} | "
                     f"{_fmt(vs_peer)} | {_fmt(vs_floor)} | {_fmt(vs_kc)} | {_fmt(vs_kv)} | {found} |")
    lines += one_file_split(r)
    lines += ["", "## Caught: held invalid files each tool flags", "",
              "One process per file; a file counts as caught when the tool exits non-zero on it. Negative corpus: "
              "tests/validate/corpus, the cases whose rule is an error (a warning passes validation, as it should); "
              "hostile corpus: the files of tests/hostile/corpus that `validate` must refuse "
              "(tests/hostile/manifest.yaml, exit 1 or 2).", "",
              peers.caught_table(caught, invalid).rstrip("\n")]
    if quick:
        return "\n".join(lines) + "\n"
    lines += ["", "## Targets", "", "| target | measured | met |", "|---|---|---|"]
    for label, what, a, b, bound, op in TARGETS + peer_targets(r):
        value = _mem_ratio(r.get(a), r.get(b)) if what == "memory" else ratio(r.get(a), r.get(b))
        ok = value is not None and (value <= bound if op == "≤" else value >= bound)
        lines.append(f"| {label} | {_fmt(value)} (target {op} {bound:g}) | {'yes' if ok else 'NO'} |")
    return "\n".join(lines) + "\n"


def one_file_split(r: dict[str, Measure]) -> list[str]:
    """Where a cold one-file ``validate`` spends its time, from this run's floors: the part no Python validator
    that reads YAML with PyYAML avoids, next to the Go peers' whole runs."""
    parts = [("interpreter start-up (python -c pass)", r.get("startup floor"), None),
             ("PyYAML's import", r.get("import yaml floor"), r.get("startup floor")),
             ("our modules' import (click, the engine)", r.get("import ours floor"), r.get("import yaml floor")),
             ("reading and checking the file, compiled schema, report", r.get("validate cold 1"),
              r.get("import ours floor"))]
    if any(m is None for _, m, _ in parts):
        return []
    lines = ["", "## Where a cold one-file validate goes", "",
             "Differences of medians of this run (start-up and imports are what `python -c` of them costs); the Go "
             "peers' whole runs below. No run of a Python program that imports PyYAML is shorter than the first two "
             "rows together.", "", "| part | median s |", "|---|---:|"]
    for label, m, before in parts:
        assert m is not None
        lines.append(f"| {label} | {m.median - (before.median if before else 0):.3f} |")
    for peer in ("kubeconform", "kubectl-validate"):
        if (m := r.get(f"{peer} cold 1")) is not None:
            lines.append(f"| {peer}, whole run | {m.median:.3f} |")
    return lines


def peer_targets(r: dict[str, Measure]) -> list[tuple[str, str, str, str, float, str]]:
    """Issue 34's goals against the Go peers: ahead of kubectl-validate on every row; within 2× of kubeconform on
    2,000 and 10,000 files; a cold single file within 3× of kubeconform's."""
    out = []
    for key, m in r.items():
        if key.startswith("validate ") and _peer_case(r, "kubectl-validate", key, m):
            out.append((f"{m.name} ({m.cache}, {m.files} file(s)) ahead of kubectl-validate", "time", key,
                        key.replace("validate", "kubectl-validate", 1) if not key.endswith("big")
                        else "kubectl-validate big", 1.0, "≤"))
    for n in (2000, 10000):
        for cache in ("cold", "warm"):
            out.append((f"validate of {n:,} files within 2× of kubeconform ({cache})", "time", f"validate {cache} {n}",
                        f"kubeconform {cache} {n}", 2.0, "≤"))
    out.append(("cold validate of one file within 3× of kubeconform", "time", "validate cold 1", "kubeconform cold 1",
                3.0, "≤"))
    return out


TARGETS = [  # label, time or memory, case a, case b, bound on a/b, comparison
    ("cold validate of one file ≤ 0.5× check-jsonschema on it", "time", "validate cold 1", "peer 1", 0.5, "≤"),
    ("warm validate of one file ≤ 0.35× check-jsonschema on it", "time", "validate warm 1", "peer 1", 0.35, "≤"),
    ("cold validate of 2,000 files ≥ 10× faster than check-jsonschema", "time", "peer 2000", "validate cold 2000",
     10.0, "≥"),
    ("cold render of one file ≤ 0.6× check-jsonschema's validation of it", "time", "render cold 1", "peer 1", 0.6,
     "≤"),
    ("validate 2,000 files within 3× of the CSafeLoader floor (warm)", "time", "validate warm 2000", "floor 2000",
     3.0, "≤"),
    ("render 2,000 Experiments to a directory within 6× of the floor (warm)", "time", "render warm 2000",
     "floor 2000", 6.0, "≤"),
    ("render 2,000 Experiments to a new directory within 3× of the floor (cold)", "time", "render cold 2000",
     "floor 2000", 3.0, "≤"),
    ("render 10,000 Experiments: warm no slower than cold (same new directory each run)", "time",
     "render warm 10000", "render cold 10000", 1.1, "≤"),
    ("validate time for 10,000 files ≤ 5.5× the time for 2,000 (warm)", "time", "validate warm 10000",
     "validate warm 2000", 5.5, "≤"),
    ("fix --check 2,000 files (nothing to fix) within 3× of validate (warm)", "time", "fix-check warm 2000",
     "validate warm 2000", 3.0, "≤"),
    ("fix --check 2,000 files (10% fixable) within 3× of validate on them (warm)", "time",
     "fix-check-fixable 2000", "validate-fixable 2000", 3.0, "≤"),
    ("validate -j 1 peak memory for 10,000 files ≤ 1.5× that for 2,000", "memory", "validate-j1 warm 10000",
     "validate-j1 warm 2000", 1.5, "≤"),
    ("validate peak memory (default --jobs) for 10,000 files ≤ 1.5× that for 2,000", "memory",
     "validate warm 10000", "validate warm 2000", 1.5, "≤"),
    ("--jobs: speed-up of the default over -j 1 on 2,000 files (more than 1 = cores used)", "time",
     "validate-j1 warm 2000", "validate warm 2000", 1.0, "≥"),
]


def _mem_ratio(a: Measure | None, b: Measure | None) -> float | None:
    return a.peak_kib / b.peak_kib if a and b and b.peak_kib else None


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}×"


if __name__ == "__main__":
    sys.exit(main())
