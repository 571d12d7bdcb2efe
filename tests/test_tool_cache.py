"""tests/tool_cache.install_once: a tool directory appears whole or not at all, and is installed once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tool_cache import install_once


def test_installs_once_then_finds_it(tmp_path: Path) -> None:
    calls: list[Path] = []

    def install(directory: Path) -> str | None:
        calls.append(directory)
        (directory / "bin").write_text("x")
        return None

    root = tmp_path / "cache" / "tool-1"
    assert install_once(root, "bin", install) == root
    assert install_once(root, "bin", install) == root
    assert len(calls) == 1 and calls[0] != root and (root / "bin").read_text() == "x"
    assert [p.name for p in root.parent.iterdir()] == ["tool-1"]


@pytest.mark.parametrize(("result", "reason"), [("network down", "network down"),
                                                (None, "the install did not produce bin")])
def test_a_failed_install_leaves_nothing(tmp_path: Path, result: str | None, reason: str) -> None:
    def install(directory: Path) -> str | None:
        (directory / "half").write_text("x")
        return result

    root = tmp_path / "cache" / "tool-1"
    assert install_once(root, "bin", install) == reason
    assert list(root.parent.iterdir()) == []


def test_an_interrupted_install_leaves_nothing(tmp_path: Path) -> None:
    def install(directory: Path) -> str | None:
        (directory / "half").write_text("x")
        raise KeyboardInterrupt

    root = tmp_path / "cache" / "tool-1"
    with pytest.raises(KeyboardInterrupt):
        install_once(root, "bin", install)
    assert list(root.parent.iterdir()) == []
