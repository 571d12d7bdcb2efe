"""Run files through us and the oracle and count agreement; shared by the test and benchmarks/agreement.py."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tests.oracle.compare import Comparison, compare
from tests.oracle.generators import generate
from tests.oracle.harness import Oracle

ROOT = Path(__file__).resolve().parent.parent.parent
CORPORA = (ROOT / "examples", ROOT / "tests" / "validate" / "corpus", ROOT / "tests" / "hostile" / "corpus")


LOCAL_CONFIG = frozenset({"testbench-defaults.yaml"})
"""RenderDefaults files configure render on the user's machine and are never sent to a cluster."""


def corpus_files() -> list[Path]:
    """Every file of our corpora (examples, the negative corpus, the hostile corpus) that could reach the server."""
    files: list[Path] = []
    for root in CORPORA:
        files.extend(p for p in sorted(root.rglob("*")) if p.is_file() and p.suffix in (".yaml", ".yml", ".json")
                     and p.name not in LOCAL_CONFIG)
    return files


@dataclass
class Tally:
    documents: int = 0
    agreed: int = 0
    via_allowlist: int = 0
    by_category: Counter[str] = field(default_factory=Counter)
    disagreements: list[tuple[str, Comparison, bytes]] = field(default_factory=list)

    def add(self, category: str, cmp: Comparison, data: bytes) -> None:
        self.documents += 1
        self.by_category[category] += 1
        if cmp.agrees:
            self.agreed += 1
            self.via_allowlist += cmp.allowed_only
        else:
            self.disagreements.append((category, cmp, data))

    def merge(self, other: Tally) -> None:
        self.documents += other.documents
        self.agreed += other.agreed
        self.via_allowlist += other.via_allowlist
        self.by_category.update(other.by_category)
        self.disagreements.extend(other.disagreements)

    @property
    def figure(self) -> str:
        share = 100.0 * self.agreed / self.documents if self.documents else 0.0
        return (f"{self.agreed}/{self.documents} files agree ({share:.2f}%), "
                f"{self.via_allowlist} of them through the allow-list")

    def report(self, limit: int = 5) -> str:
        lines = [self.figure]
        for category, cmp, data in self.disagreements[:limit]:
            lines.append(f"[{category}] " + cmp.explain(data))
        return "\n".join(lines)


def check(oracle: Oracle, files: Iterable[tuple[str, str, bytes]], tally: Tally) -> None:
    """(category, name, content) triples through both sides."""
    batch = list(files)
    answers = oracle.ask(data for _, _, data in batch)
    for (category, name, data), docs in zip(batch, answers, strict=True):
        tally.add(category, compare(name, data, docs), data)


def generated(seed: int, count: int) -> list[tuple[str, str, bytes]]:
    r = random.Random(seed)
    out = []
    for i in range(count):
        category, data = generate(r, i)
        out.append((category, f"gen-{seed}-{i}.yaml", data))
    return out
