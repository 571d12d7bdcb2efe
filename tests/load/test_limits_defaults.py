"""The default limits as a user meets them (each equals the CLI flag's documented default): the last value
accepted, the first one refused, and the message that names the flag."""

from __future__ import annotations

from pathlib import Path

from kubectl_testbench.load.builder import build
from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.load.sources import Source, SourceError, read_bytes
from kubectl_testbench.validate.engine import validate_text
from tests.validate.helpers import VALID


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth + "\n"


def test_default_depth_is_256_levels() -> None:
    assert build(_nested(256)).error is None
    error = build(_nested(257)).error
    assert error is not None
    assert (error.rule, error.message, error.mark) == (
        "yaml/too-deep", "nesting deeper than 256 levels (raise with --max-depth)", (1, 257))


def test_default_file_size_is_16_mib(tmp_path: Path) -> None:
    exact = tmp_path / "exact.yaml"
    exact.write_bytes(b"#" * (16 * 1024 * 1024))
    assert len(read_bytes(Source(str(exact)), DEFAULT_LIMITS)) == 16 * 1024 * 1024
    over = tmp_path / "over.yaml"
    over.write_bytes(b"#" * (16 * 1024 * 1024 + 1))
    try:
        read_bytes(Source(str(over)), DEFAULT_LIMITS)
    except SourceError as err:
        assert (err.path, err.rule, err.message) == (
            str(over), "input/too-large", "larger than the 16 MiB limit (raise with --max-file-size)")
    else:
        raise AssertionError("a file over 16 MiB was read")


def test_default_node_limit_is_a_million() -> None:
    # a flow sequence of n scalars is n + 3 events (sequence start and end, document end)
    assert build("[" + "0," * (1_000_000 - 4) + "0]").error is None
    error = build("[" + "0," * (1_000_000 - 3) + "0]").error
    assert error is not None
    assert (error.rule, error.message) == (
        "yaml/too-many-nodes", "more than 1000000 nodes in one document (raise with --max-nodes)")


def test_default_alias_budget_is_100000_nodes_beyond_ten_times_the_document() -> None:
    anchor = "a: &x [" + ",".join(["0"] * 999) + "]\n"  # 1,000 nodes with the sequence itself
    fits = build(anchor + "b: [" + ",".join(["*x"] * 100) + "]\n")
    assert fits.error is None
    refused = build(anchor + "b: [" + ",".join(["*x"] * 200) + "]\n")
    assert refused.error is not None
    assert (refused.error.rule, refused.error.message) == (
        "yaml/alias-limit", "alias expansion exceeds the limit (100000 nodes beyond 10x the document; "
        "a billion-laughs document?)")


def test_default_findings_are_200_per_document_and_the_rest_are_counted() -> None:
    def unknown(count: int) -> list[tuple[str, str]]:
        text = VALID + "".join(f"  unknown{i:03}: 1\n" for i in range(count))
        return [(d.rule, d.message) for d in validate_text(text, "t.yaml").diagnostics]

    exact = unknown(200)
    assert len(exact) == 200 and {rule for rule, _ in exact} == {"schema/unknown-field"}
    over = unknown(202)
    assert len(over) == 201
    assert over[0] == ("validate/too-many-findings", "2 more findings (2 errors) not shown")


def test_default_limits_are_the_cli_defaults() -> None:
    from kubectl_testbench.cli.common import limits_from

    assert limits_from(16, 256) == Limits() == DEFAULT_LIMITS
