"""Agreement with the API server: our validator against the Go oracle (tests/oracle) and, given a cluster, the server.

    python benchmarks/agreement.py               # corpora + 20,000 generated files (seed 16), against the oracle
    python benchmarks/agreement.py --count 2000 --seed 7
    python benchmarks/agreement.py --kubeconfig DIR/kubeconfig --server-count 2000
                                                 # also judged by that server (dry run; our CRD must be installed)
    python benchmarks/agreement.py --cel-count 20000   # CEL rules and values judged by cel-go (default 2,000)

The oracle is Kubernetes 1.35.4's own code (tests/oracle/go.mod). Prints the agreement figure per category
(files whose verdict and error field paths agree, and how many agree only through the allow-list in
tests/oracle/allowlist.yaml), with the time taken; with --kubeconfig, the same per category for the server,
its known differences counted by class (tests/oracle/server.py) and the server's version; and CEL rules judged
by cel-go (tests/oracle/cel_parity.py), per kind of case. The same comparisons run in CI as
tests/oracle/test_differential.py, tests/oracle/test_cel_oracle.py and tests/controlplane/test_server_parity.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.oracle.differential import Tally, check, corpus_files, generated  # noqa: E402
from tests.oracle.harness import KUBERNETES_VERSION, Oracle, build, missing  # noqa: E402


def _table(rows: list[tuple[str, Tally]]) -> None:
    print("| input | files | agree | through allow-list | disagree |")
    print("|---|---:|---:|---:|---:|")
    for name, tally in rows:
        print(f"| {name} | {tally.documents} | {tally.agreed} | {tally.via_allowlist} | {len(tally.disagreements)} |")


def _per_category(tally: Tally) -> None:
    bad = Counter(c for c, _, _ in tally.disagreements)
    print("| category | files | agree |")
    print("|---|---:|---:|")
    for category, n in sorted(tally.by_category.items()):
        print(f"| {category} | {n} | {n - bad[category]} |")


def oracle_run(oracle: Oracle, seed: int, count: int) -> int:
    corpus, generated_tally = Tally(), Tally()
    start = time.perf_counter()
    check(oracle, [("corpus", str(p.relative_to(ROOT)), p.read_bytes()) for p in corpus_files()], corpus)
    files = generated(seed, count)
    for i in range(0, len(files), 1000):
        check(oracle, files[i:i + 1000], generated_tally)
    seconds = time.perf_counter() - start
    print(f"## The oracle (Kubernetes {KUBERNETES_VERSION}'s code)\n")
    _table([("corpora (examples, negative, hostile)", corpus), (f"generated (seed {seed})", generated_tally)])
    print()
    _per_category(generated_tally)
    total = corpus.documents + generated_tally.documents
    agreed = corpus.agreed + generated_tally.agreed
    print(f"\nagreement: {agreed}/{total} ({100.0 * agreed / total:.2f}%) in {seconds:.1f} s\n")
    for category, cmp, data in (corpus.disagreements + generated_tally.disagreements)[:5]:
        print(f"[{category}] " + cmp.explain(data), file=sys.stderr)
    return total - agreed


def server_run(oracle: Oracle, kubeconfig: Path, seed: int, count: int) -> int:
    from tests.oracle.server import Server, difference, judge

    server = Server(kubeconfig)
    try:
        status, version = server.request("GET", "/version", b"", "application/json")
        files = [("corpus", str(p.relative_to(ROOT)), p.read_bytes()) for p in corpus_files()]
        files += generated(seed, count)
        per, bad, known, ways = Counter[str](), Counter[str](), Counter[str](), Counter[str]()
        unexplained = 0
        start = time.perf_counter()
        for i in range(0, len(files), 200):
            batch = files[i:i + 200]
            for (category, name, data), docs in zip(batch, oracle.ask(d for _, _, d in batch), strict=True):
                judged = judge(server, name, data, docs)
                per[category] += 1
                ways.update(a.way for a in judged.answers)
                if not judged.comparison.agrees:
                    bad[category] += 1
                    kind = difference(judged)
                    known[kind or "unexplained"] += 1
                    if kind is None:
                        unexplained += 1
                        if unexplained <= 5:
                            print(f"[{category}] {judged.explain(data)}", file=sys.stderr)
        seconds = time.perf_counter() - start
    finally:
        server.close()
    print(f"## The server ({version.get('gitVersion', '?') if status == 200 else '?'}, dry run, strict)\n")
    print("| category | files | agree |")
    print("|---|---:|---:|")
    for category in sorted(per):
        print(f"| {category} | {per[category]} | {per[category] - bad[category]} |")
    print(f"\nrequests: {json.dumps(dict(ways))}; differences by class: {json.dumps(dict(known))}")
    total = sum(per.values())
    print(f"agreement: {total - sum(bad.values())}/{total} in {seconds:.1f} s; unexplained: {unexplained}")
    return unexplained


def cel_run(oracle: Oracle, count: int) -> int:
    from tests.oracle.cel_cases import KNOWN_GAPS, cases
    from tests.oracle.cel_parity import compare

    every = cases(seed=29, count=count)
    named, rest = every[:len(KNOWN_GAPS)], every[len(KNOWN_GAPS):]
    shipped = [c for c in rest if "x-kubernetes-validations" in c[0] and c[0].get("properties", {}).get("s3")]
    generated_rules = [c for c in rest if c not in shipped]
    start = time.perf_counter()
    rows = [(kind, batch, compare(oracle, batch)) for kind, batch in
            (("named gaps and probes", named), ("the shipped dataset rule", shipped),
             ("generated rules", generated_rules))]
    seconds = time.perf_counter() - start
    print("## CEL (cel-go v0.26.0 with Kubernetes' libraries)\n")
    print("| cases | count | agree | named difference | disagree |")
    print("|---|---:|---:|---:|---:|")
    defects = 0
    for kind, batch, (agree, classes, found) in rows:
        defects += len(found)
        print(f"| {kind} | {len(batch)} | {agree} | {sum(classes.values())} | {len(found)} |")
    total = sum(len(b) for _, b, _ in rows)
    agreed = sum(r[0] for _, _, r in rows)
    print(f"\nagreement: {agreed}/{total} in {seconds:.1f} s; disagreements outside the named class: {defects}\n")
    for _, _, (_, _, found) in rows:
        for text in found[:3]:
            print(text, file=sys.stderr)
    return defects


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--kubeconfig", type=Path, help="also send the files to this cluster (dry run)")
    parser.add_argument("--server-count", type=int, default=2000)
    parser.add_argument("--cel-count", type=int, default=2000, help="CEL cases judged by cel-go (0: none)")
    args = parser.parse_args()
    reason = missing()
    if reason:
        print(f"oracle unavailable: {reason}", file=sys.stderr)
        return 2
    oracle = Oracle(build())
    try:
        failures = oracle_run(oracle, args.seed, args.count)
        if args.cel_count:
            failures += cel_run(oracle, args.cel_count)
        if args.kubeconfig:
            failures += server_run(oracle, args.kubeconfig, 29, args.server_count)
    finally:
        oracle.close()
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
