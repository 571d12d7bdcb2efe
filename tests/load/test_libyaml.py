"""load/libyaml: libyaml's own nesting limit never decides what a user is told, whichever PyYAML is installed.

The tests that need a libyaml with the limit (PyYAML >= 6.0.4) fake one where the installed PyYAML has none,
so both branches run on every version; tests/load/test_pyyaml_versions.py runs the real 6.0.3 and 6.0.4.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kubectl_testbench.load import libyaml
from kubectl_testbench.load.builder import build
from kubectl_testbench.load.limits import Limits
from kubectl_testbench.validate.spans import span_tree


class _RefusingLoader(yaml.SafeLoader):
    """A libyaml that stops at 1,000 levels in its scanner, as PyYAML 6.0.4's does, before any event."""

    def get_event(self) -> Any:
        if self.get_mark().buffer.count("[") > 1000 or self.get_mark().buffer.count("  b:") > 1000:
            raise yaml.scanner.ScannerError("while increasing flow level", None,
                                            "exceeded maximum nesting depth", self.get_mark())
        return super().get_event()


@pytest.fixture(params=["installed", "refusing"])
def loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs with the installed libyaml, and once more with one that has 6.0.4's nesting limit."""
    if request.param == "refusing":
        monkeypatch.setattr(libyaml, "FastLoader", _RefusingLoader)
    return str(request.param)


def _flow(depth: int) -> str:
    return "[" * depth + "]" * depth


def _block(depth: int) -> str:
    return "a:\n" + "".join("  " * i + "b:\n" for i in range(1, depth))


def test_refused_nesting_is_only_libyaml_s_own_limit() -> None:
    mark = yaml.Mark("<text>", 0, 0, 1000, "", 0)
    assert libyaml.refused_nesting(yaml.scanner.ScannerError("while increasing flow level", mark,
                                                             "exceeded maximum nesting depth", mark))
    assert not libyaml.refused_nesting(yaml.scanner.ScannerError("while parsing a flow sequence", mark,
                                                                 "did not find expected ',' or ']'", mark))
    assert not libyaml.refused_nesting(ValueError("exceeded maximum nesting depth"))


def test_a_closed_list_past_1000_levels_is_too_deep_at_our_limit(loader: str) -> None:
    result = build(_flow(1001))
    assert result.error is not None
    assert (result.error.rule, result.error.message, result.error.mark) == (
        "yaml/too-deep", "nesting deeper than 256 levels (raise with --max-depth)", (1, 257))
    assert result.error.context is None  # no syntax error, so no "opened at ... is not closed" hint


def test_a_hundred_thousand_levels_stop_at_the_limit(loader: str) -> None:
    result = build(_flow(100_000), limits=Limits(max_depth=64))
    assert result.error is not None
    assert (result.error.rule, result.error.mark) == ("yaml/too-deep", (1, 65))


def test_a_raised_limit_reads_what_libyaml_refuses(loader: str) -> None:
    result = build(_flow(1001), limits=Limits(max_depth=2000))
    assert result.error is None
    depth, node = 0, result.data
    while node:
        node, depth = node[0], depth + 1
    assert (depth, node) == (1000, [])  # 1,000 steps down to the innermost of 1,001 lists
    block = build(_block(1100), limits=Limits(max_depth=2000))
    assert block.error is None and block.data is not None and "b" in block.data["a"]


def test_block_nesting_past_1000_levels_is_too_deep_at_our_limit(loader: str) -> None:
    result = build(_block(1100))
    assert result.error is not None
    assert (result.error.rule, result.error.mark) == ("yaml/too-deep", (257, 513))


def test_an_unclosed_list_still_reads_as_unclosed(loader: str) -> None:
    result = build("a: [1, 2\nb: 3\n")
    assert result.error is not None and result.error.rule == "yaml/syntax"
    assert result.error.context == (1, 4)


def test_remarks_of_the_refused_reading_are_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(libyaml, "FastLoader", _RefusingLoader)
    result = build("a: yes\nb: " + _flow(1001) + "\n", limits=Limits(max_depth=2000))
    assert result.error is None
    assert [r.rule for r in result.remarks] == ["yaml/yaml11-boolean"]


def test_spans_read_past_1000_levels(loader: str) -> None:
    root = span_tree(_flow(1001))
    assert root is not None and root.kind == "seq" and root.flow
    assert (root.start, root.end) == (0, 2002)


def test_other_errors_come_from_the_first_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    readings: list[str] = []

    def read(loader: Any) -> None:
        readings.append(type(loader).__name__)
        raise yaml.scanner.ScannerError(None, None, "something else", None)

    with pytest.raises(yaml.scanner.ScannerError, match="something else"):
        libyaml.read_with("a: 1\n", read)
    assert readings == [libyaml.FastLoader.__name__]


def test_the_pure_parser_reads_again_after_a_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(libyaml, "FastLoader", _RefusingLoader)
    readings: list[str] = []

    def read(loader: Any) -> int:
        readings.append(type(loader).__name__)
        libyaml.consume_events(loader)
        return len(readings)

    assert libyaml.read_with(_flow(1001), read) == 2
    assert readings == ["_RefusingLoader", "SafeLoader"]
