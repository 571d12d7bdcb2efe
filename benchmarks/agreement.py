"""Agreement with the API server's own code: our validator against the Go oracle (tests/oracle).

    python benchmarks/agreement.py               # corpora + 20,000 generated files (seed 16)
    python benchmarks/agreement.py --count 2000 --seed 7

Prints the agreement figure (files whose verdict and error field paths agree, and how many agree only
through the allow-list in tests/oracle/allowlist.yaml), per adversarial category, with the time taken.
The same comparison runs in CI as tests/oracle/test_differential.py.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.oracle.differential import Tally, check, corpus_files, generated  # noqa: E402
from tests.oracle.harness import Oracle, build, missing  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    reason = missing()
    if reason:
        print(f"oracle unavailable: {reason}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="kubectl-testbench-oracle-") as directory:
        oracle = Oracle(build(Path(directory)))
        try:
            corpus, generated_tally = Tally(), Tally()
            start = time.perf_counter()
            check(oracle, [("corpus", str(p.relative_to(ROOT)), p.read_bytes()) for p in corpus_files()], corpus)
            files = generated(args.seed, args.count)
            for i in range(0, len(files), 1000):
                check(oracle, files[i:i + 1000], generated_tally)
            seconds = time.perf_counter() - start
        finally:
            oracle.close()
    print("| input | files | agree | through allow-list | disagree |")
    print("|---|---:|---:|---:|---:|")
    for name, tally in (("corpora (examples, negative, hostile)", corpus), (f"generated (seed {args.seed})",
                                                                            generated_tally)):
        print(f"| {name} | {tally.documents} | {tally.agreed} | {tally.via_allowlist} | "
              f"{len(tally.disagreements)} |")
    print()
    print("| category | files |")
    print("|---|---:|")
    for category, n in sorted(generated_tally.by_category.items()):
        print(f"| {category} | {n} |")
    print()
    total = corpus.documents + generated_tally.documents
    agreed = corpus.agreed + generated_tally.agreed
    print(f"agreement: {agreed}/{total} ({100.0 * agreed / total:.2f}%) in {seconds:.1f} s")
    for category, cmp, data in (corpus.disagreements + generated_tally.disagreements)[:5]:
        print(f"[{category}] " + cmp.explain(data), file=sys.stderr)
    return 0 if agreed == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
