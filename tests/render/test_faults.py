"""Faults while writing: a full disk or an interrupt never leaves a half-written output directory."""

from __future__ import annotations

import builtins
import errno
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli, run_process

FIXTURES = Path(__file__).parent / "fixtures"


def _snapshot(directory: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(directory.iterdir())}


@pytest.fixture()
def rendered(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    assert run_cli("render", str(FIXTURES / "url-triggered.yaml"), "--output-dir", str(out)).exit_code == 0
    return out


def test_disk_full_midway_keeps_the_old_directory(rendered: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _snapshot(rendered)
    real_open = builtins.open
    calls = {"n": 0}

    def failing_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if "w" in mode and ".out.new-" in str(file):
            calls["n"] += 1
            if calls["n"] == 2:
                raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", failing_open)
    result = run_cli("render", str(FIXTURES), "--output-dir", str(rendered))
    monkeypatch.undo()
    assert result.exit_code == 1
    assert "No space left on device" in result.output and "Traceback" not in result.output
    assert _snapshot(rendered) == before
    assert [p.name for p in rendered.parent.iterdir()] == ["out"], "no staging directory left behind"


def test_interrupt_midway_keeps_the_old_directory(rendered: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kubectl_testbench.render import compile as compile_module

    before = _snapshot(rendered)
    real = compile_module.render_experiment
    calls = {"n": 0}

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(compile_module, "render_experiment", interrupted)
    result = run_cli("render", "-j", "1", str(FIXTURES), "--output-dir", str(rendered))
    assert result.exit_code != 0
    assert _snapshot(rendered) == before
    assert [p.name for p in rendered.parent.iterdir()] == ["out"]


def test_unreadable_file_among_readable_ones_fails_without_output(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.yaml").write_text((FIXTURES / "url-triggered.yaml").read_text())
    locked = src / "locked.yaml"
    locked.write_text((FIXTURES / "s3-scheduled.yaml").read_text())
    locked.chmod(0)
    out = tmp_path / "out"
    proc = run_process("render", str(src), "--output-dir", str(out), unprivileged=True)
    assert proc.returncode == 2 and b"input/unreadable" in proc.stdout + proc.stderr and not out.exists()
