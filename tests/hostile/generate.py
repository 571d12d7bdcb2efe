"""Generators for hostile cases that cannot be committed as files (size, FIFOs, symlinks, stdin).

Each returns (arguments after the command, stdin bytes or None).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

VALID = (Path(__file__).parent / "corpus" / "crlf.yaml").read_bytes().replace(b"\r\n", b"\n").decode()

Generator = Callable[[Path], tuple[list[str], bytes | None]]
GENERATORS: dict[str, Generator] = {}


def generator(fn: Generator) -> Generator:
    GENERATORS[fn.__name__] = fn
    return fn


def _file(tmp: Path, name: str, content: str | bytes) -> Path:
    path = tmp / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


@generator
def deep_flow(tmp: Path) -> tuple[list[str], bytes | None]:
    return [str(_file(tmp, "deep.yaml", "[" * 100_000 + "]" * 100_000))], None


@generator
def deep_flow_1001(tmp: Path) -> tuple[list[str], bytes | None]:
    """Closed, and past the 1,000 levels where PyYAML 6.0.4's libyaml stops scanning on its own."""
    return [str(_file(tmp, "deep-1001.yaml", "[" * 1001 + "]" * 1001 + "\n"))], None


@generator
def deep_block_1100(tmp: Path) -> tuple[list[str], bytes | None]:
    text = "a:\n" + "".join("  " * i + "b:\n" for i in range(1, 1100))
    return [str(_file(tmp, "deep-block-1100.yaml", text))], None


@generator
def deep_block(tmp: Path) -> tuple[list[str], bytes | None]:
    text = "".join("  " * i + f"k{i}:\n" for i in range(300)) + "  " * 300 + "leaf\n"
    return [str(_file(tmp, "deep-block.yaml", text))], None


@generator
def too_large(tmp: Path) -> tuple[list[str], bytes | None]:
    padding = ("# " + "x" * 1000 + "\n") * (17 * 1024)
    return [str(_file(tmp, "large.yaml", VALID + padding))], None


@generator
def huge_scalar(tmp: Path) -> tuple[list[str], bytes | None]:
    return [str(_file(tmp, "huge.yaml", VALID.replace("input: Hello", "input: " + "x" * (5 * 1024 * 1024))))], None


@generator
def many_nodes(tmp: Path) -> tuple[list[str], bytes | None]:
    flow = "[" + ",".join(["0"] * 1_100_000) + "]"
    step = "            - input: Hello\n"
    text = VALID.replace(step, f"{step}              customValues: {flow}\n")
    return [str(_file(tmp, "nodes.yaml", text))], None


@generator
def many_unknown_fields(tmp: Path) -> tuple[list[str], bytes | None]:
    fields = "".join(f"  unknown{i}: {i}\n" for i in range(100_000))
    return [str(_file(tmp, "unknown.yaml", VALID + fields))], None


@generator
def many_empty_documents(tmp: Path) -> tuple[list[str], bytes | None]:
    return [str(_file(tmp, "empties.yaml", "---\n" * 100_000 + VALID))], None


@generator
def symlink_loop(tmp: Path) -> tuple[list[str], bytes | None]:
    root = tmp / "tree"
    (root / "a").mkdir(parents=True)
    (root / "a" / "loop").symlink_to(root, target_is_directory=True)
    _file(root / "a", "exp.yaml", VALID)
    return [str(root)], None


@generator
def fifo_in_directory(tmp: Path) -> tuple[list[str], bytes | None]:
    root = tmp / "tree"
    root.mkdir()
    os.mkfifo(root / "blocks-forever.yaml")
    _file(root, "exp.yaml", VALID)
    return [str(root)], None


@generator
def fifo_explicit(tmp: Path) -> tuple[list[str], bytes | None]:
    os.mkfifo(tmp / "pipe.yaml")
    return [str(tmp / "pipe.yaml")], None


@generator
def dev_zero(tmp: Path) -> tuple[list[str], bytes | None]:
    return ["/dev/zero"], None


@generator
def dangling_symlink(tmp: Path) -> tuple[list[str], bytes | None]:
    root = tmp / "tree"
    root.mkdir()
    (root / "gone.yaml").symlink_to(tmp / "nowhere.yaml")
    _file(root, "exp.yaml", VALID)
    return [str(root)], None


@generator
def stdin_binary(tmp: Path) -> tuple[list[str], bytes | None]:
    return ["-"], b"\x00\x01\x02binary"


@generator
def stdin_empty(tmp: Path) -> tuple[list[str], bytes | None]:
    return ["-"], b""


@generator
def output_dir_under_file(tmp: Path) -> tuple[list[str], bytes | None]:
    blocker = _file(tmp, "blocker", "x")
    return [str(_file(tmp, "exp.yaml", VALID)), "--output-dir", str(blocker / "out")], None


@generator
def output_dir_with_subdir(tmp: Path) -> tuple[list[str], bytes | None]:
    out = tmp / "out"
    (out / "nested").mkdir(parents=True)
    return [str(_file(tmp, "exp.yaml", VALID)), "--output-dir", str(out)], None


@generator
def output_file_is_dir(tmp: Path) -> tuple[list[str], bytes | None]:
    return ["x", "--agent", "a", "--output-file", str(tmp)], None


@generator
def many_findings(tmp: Path) -> tuple[list[str], bytes | None]:
    """300 Experiments with 250 findings each (the first 200 of each reported): 60,300 findings for one run.

    The findings are cheap to find (a list where a metric name belongs), so the run's cost is the report's."""
    metric = "                - metricName: AgentGoalAccuracyWithoutReference\n"
    documents = [VALID.replace("name: hostile", f"name: hostile-{i}")
                 .replace(metric, "".join(f"                - metricName: [{j}]\n" for j in range(250)))
                 for i in range(300)]
    return [str(_file(tmp, "many-findings.yaml", "---\n".join(documents)))], None


def _not_utf8_name(tmp: Path, text: str) -> tuple[list[str], bytes | None]:
    """A file whose name holds the byte 0xff (no UTF-8), found by walking its directory."""
    root = tmp / "tree"
    root.mkdir()
    (root / os.fsdecode(b"bad\xff.yaml")).write_text(text)
    return [str(root)], None


@generator
def not_utf8_name_valid(tmp: Path) -> tuple[list[str], bytes | None]:
    return _not_utf8_name(tmp, VALID)


@generator
def not_utf8_name_invalid(tmp: Path) -> tuple[list[str], bytes | None]:
    return _not_utf8_name(tmp, VALID.replace("name: agent\n", "name: Agent_X\n"))
