"""Benchmarks: kubectl-testbench against a peer and a floor, measured in the same run.

    python benchmarks/run.py            # full run, writes benchmarks/results.md
    python benchmarks/run.py --quick    # small corpora, one repetition (CI: proves the script works)

Floors: ``python -c pass`` for start-up; loading the same bytes with PyYAML's CSafeLoader for
throughput. Peer: ``check-jsonschema --schemafile schemas/experiment.schema.json`` (schema only: no CEL,
no semantics). Every case is a fresh process, timed as wall clock; we report the median of the runs and
the peak resident memory of the process (``wait4``; with ``--jobs`` that is the largest single process).
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
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from corpus import write_big, write_corpus, write_json  # noqa: E402

PY = sys.executable
SCHEMA = ROOT / "schemas" / "experiment.schema.json"
FLOOR_SCRIPT = """
import sys, yaml
for path in open(sys.argv[1]).read().split("\\n"):
    if path:
        with open(path, "rb") as handle:
            list(yaml.load_all(handle.read(), Loader=yaml.CSafeLoader))
"""


@dataclass
class Measure:
    name: str
    files: int
    seconds: list[float] = field(default_factory=list)
    peak_kib: int = 0
    exit_codes: set[int] = field(default_factory=set)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def run(cmd: list[str], repeats: int, name: str, files: int, cwd: Path = ROOT) -> Measure:
    m = Measure(name, files)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(repeats):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        m.seconds.append(time.perf_counter() - start)
        m.peak_kib = max(m.peak_kib, usage.ru_maxrss)
        m.exit_codes.add(os.waitstatus_to_exitcode(status))
    return m


def ours(*args: str) -> list[str]:
    return [PY, "-m", "kubectl_testbench", *args]


def peer(files: list[Path]) -> list[str] | None:
    exe = shutil.which("check-jsonschema")
    return [exe, "--schemafile", str(SCHEMA), *map(str, files)] if exe else None


def floor_load(files: list[Path], work: Path) -> list[str]:
    listing = work / f"files-{len(files)}.txt"
    listing.write_text("\n".join(map(str, files)))
    return [PY, "-c", FLOOR_SCRIPT, str(listing)]


def machine() -> str:
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
    return (f"{cpu}, {os.cpu_count()} CPUs{mem}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}; " + ", ".join(versions))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small corpora, one repetition, no targets")
    parser.add_argument("--repeats", type=int, default=None)
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

    corpora = {n: write_corpus(args.corpus / f"n{n}", n) for n in sizes}
    big = write_big(args.corpus / f"big-{big_steps}" / "experiment.yaml", big_steps)
    results: dict[str, Measure] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # warm caches the way a second run in CI or pre-commit would see them
        subprocess.run(ours("validate", str(corpora[1][0])), env={**os.environ, "PYTHONPATH": str(ROOT)},
                       stdout=subprocess.DEVNULL, check=False)
        results["startup floor"] = run([PY, "-c", "pass"], repeats, "python -c pass", 0)
        for n, files in corpora.items():
            target = files[0] if n == 1 else files[0].parent
            results[f"floor {n}"] = run(floor_load(files, work), repeats, "CSafeLoader load", n)
            cmd = peer(files)
            if cmd:
                results[f"peer {n}"] = run(cmd, repeats if n <= 2000 else max(1, repeats // 2), "check-jsonschema", n)
            results[f"validate {n}"] = run(ours("validate", str(target)), repeats, "validate", n)
            if n >= 100:
                results[f"validate-j1 {n}"] = run(ours("validate", "-j", "1", str(target)), repeats, "validate -j 1", n)
                out = work / f"rendered-{n}"
                results[f"render {n}"] = run(ours("render", "--no-defaults", str(target), "--output-dir", str(out)),
                                             repeats, "render --output-dir", n)
        results["floor big"] = run(floor_load([big], work), repeats, f"CSafeLoader load ({big_steps} steps)", 1)
        cmd = peer([big])
        if cmd:
            results["peer big"] = run(cmd, repeats, f"check-jsonschema ({big_steps} steps)", 1)
        results["validate big"] = run(ours("validate", str(big)), repeats, f"validate ({big_steps} steps)", 1)
        json_files = write_json(corpora[100], args.corpus / "n100-json")
        results["validate-json 100"] = run(ours("validate", str(json_files[0].parent)), repeats,
                                           "validate (JSON)", 100)
        [big_json] = write_json([big], args.corpus / f"big-{big_steps}-json")
        results["validate-json big"] = run(ours("validate", str(big_json)), repeats,
                                           f"validate ({big_steps} steps, JSON)", 1)
        results["render big"] = run(ours("render", "--no-defaults", str(big)), repeats,
                                    f"render ({big_steps} steps)", 1)

    report = format_report(results, sizes, big_steps, repeats, args.quick)
    if not args.quick:
        report += agreement_section()
        from run_local import section

        report += section(repeats)
    print(report)
    if not args.quick:
        args.output.write_text(report)
        print(f"written to {args.output}")
    return 0


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


def format_report(r: dict[str, Measure], sizes: list[int], big_steps: int, repeats: int, quick: bool) -> str:
    lines = ["# kubectl-testbench benchmarks", "",
             f"Machine: {machine()}", "",
             f"Each case: median of {repeats} fresh process run(s), warm caches; peak RSS of the largest process. "
             "Floor = loading the same files with PyYAML's CSafeLoader in one process; peer = check-jsonschema "
             "with the committed JSON Schema (schema only).", "",
             "| case | files | median s | ms/file | peak MiB | vs peer | vs floor |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for key, m in r.items():
        n = sizes[0] if key.startswith("startup") else m.files
        floor = r.get(f"floor {m.files}") if not key.endswith("big") else r.get("floor big")
        if key.startswith("validate") and m.files == 1 and not key.endswith("big"):
            floor = r["startup floor"]
        peer_m = r.get(f"peer {m.files}") if not key.endswith("big") else r.get("peer big")
        vs_peer = ratio(m, peer_m) if not key.startswith(("peer", "floor", "startup")) else None
        vs_floor = ratio(m, floor) if not key.startswith(("floor", "startup")) else None
        per = f"{m.median / m.files * 1000:.2f}" if m.files else "-"
        lines.append(f"| {m.name} | {m.files or '-'} | {m.median:.3f} | {per} | {m.peak_kib / 1024:.0f} | "
                     f"{_fmt(vs_peer)} | {_fmt(vs_floor)} |")
        del n
    if quick:
        return "\n".join(lines) + "\n"
    lines += ["", "## Targets", "", "| target | measured | met |", "|---|---|---|"]
    targets = [
        ("validate one file ≤ check-jsonschema on it", ratio(r.get("validate 1"), r.get("peer 1")), 1.0, "≤"),
        ("validate 2,000 files ≥ 8× faster than check-jsonschema",
         ratio(r.get("peer 2000"), r.get("validate 2000")), 8.0, "≥"),
        ("validate 2,000 files within 3× of the CSafeLoader floor",
         ratio(r.get("validate 2000"), r.get("floor 2000")), 3.0, "≤"),
        ("render 2,000 Experiments to a directory within 6× of the floor",
         ratio(r.get("render 2000"), r.get("floor 2000")), 6.0, "≤"),
        ("validate time for 10,000 files ≤ 5.5× the time for 2,000",
         ratio(r.get("validate 10000"), r.get("validate 2000")), 5.5, "≤"),
        ("validate -j 1 peak memory for 10,000 files ≤ 1.5× that for 2,000",
         _mem_ratio(r.get("validate-j1 10000"), r.get("validate-j1 2000")), 1.5, "≤"),
        ("validate peak memory (default --jobs) for 10,000 files ≤ 1.5× that for 2,000",
         _mem_ratio(r.get("validate 10000"), r.get("validate 2000")), 1.5, "≤"),
        ("--jobs: speed-up of the default over -j 1 on 2,000 files (more than 1 = cores used)",
         ratio(r.get("validate-j1 2000"), r.get("validate 2000")), 1.0, "≥"),
    ]
    for label, value, bound, op in targets:
        ok = value is not None and (value <= bound if op == "≤" else value >= bound)
        lines.append(f"| {label} | {_fmt(value)} (target {op} {bound:g}) | {'yes' if ok else 'NO'} |")
    return "\n".join(lines) + "\n"


def _mem_ratio(a: Measure | None, b: Measure | None) -> float | None:
    return a.peak_kib / b.peak_kib if a and b and b.peak_kib else None


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}×"


if __name__ == "__main__":
    sys.exit(main())
