"""run --local's session outside a run: which output directories may be replaced, the dataset's shape for
progress counts, execution ids, and what a prepared run and a failed step report."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from kubectl_testbench import layout
from kubectl_testbench.local.execute import StepResult
from kubectl_testbench.local.session import (
    MARKER,
    Outcome,
    Prepared,
    PrepareError,
    StepFailed,
    check_output_dir,
    dataset_shape,
    execution_id,
)
from kubectl_testbench.local.steps import LocalStep


def refused(path: Path) -> str:
    with pytest.raises(PrepareError) as err:
        check_output_dir(path)
    return str(err.value)


def test_which_output_directories_may_be_replaced(tmp_path: Path) -> None:
    check_output_dir(tmp_path / "new")  # not there yet
    empty = tmp_path / "empty"
    empty.mkdir()
    check_output_dir(empty)
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / MARKER).write_text("")
    (earlier / "data").mkdir()
    check_output_dir(earlier)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    assert refused(foreign) == (f"--output-dir {foreign}: exists and is not the output of an earlier run --local "
                                f"(no {MARKER}); choose another directory or empty it")
    (foreign / MARKER).mkdir()  # a directory by the marker's name is not the marker
    assert "is not the output of an earlier run" in refused(foreign)
    afile = tmp_path / "file"
    afile.write_text("x")
    assert refused(afile) == f"--output-dir {afile}: exists and is not a directory"
    link = tmp_path / "link"
    link.symlink_to(earlier)
    assert refused(link) == f"--output-dir {link}: exists and is not a directory"


def test_the_datasets_shape_is_steps_per_scenario_or_nothing(tmp_path: Path) -> None:
    dataset = tmp_path / layout.DATASET_PATH.lstrip("/")
    assert dataset_shape(tmp_path) == []
    dataset.parent.mkdir(parents=True)
    for text, shape in (('{"scenarios": [{"steps": [{}, {}]}, {"steps": []}, {}]}', [2, 0, 0]),
                        ('{"scenarios": null}', []), ("{}", []), ("not json", []), ("[1]", []),
                        ('{"scenarios": [1]}', []), ('{"scenarios": [{"steps": 3}]}', [])):
        dataset.write_text(text, encoding="utf-8")
        assert dataset_shape(tmp_path) == shape, text


@pytest.mark.usefixtures("ascii_locale")
def test_the_dataset_is_read_as_utf_8_whatever_the_locale(tmp_path: Path) -> None:
    dataset = tmp_path / layout.DATASET_PATH.lstrip("/")
    dataset.parent.mkdir(parents=True)
    dataset.write_bytes('{"scenarios": [{"name": "Wetter in München", "steps": [{"input": "☂?"}]}]}'.encode())
    assert dataset_shape(tmp_path) == [1]


def test_execution_ids_are_testkube_shaped_and_start_with_the_time() -> None:
    before = int(time.time())
    first, second = execution_id(), execution_id()
    assert re.fullmatch(r"[0-9a-f]{24}", first) and first != second
    assert before <= int(first[:8], 16) <= int(time.time())


def test_a_prepared_run_names_its_agent_and_judge() -> None:
    run = LocalStep("run", ("-m", "testbench.run", "http://127.0.0.1:8000", "exp"))
    evaluate = LocalStep("evaluate", ("-m", "testbench.evaluate", "exp"), {"OPENAI_BASE_URL": "http://j/v1"})
    prepared = Prepared("ns/exp", "exp-ns-workflow", [run, evaluate])
    assert (prepared.agent_url, prepared.judge_url) == ("http://127.0.0.1:8000", "http://j/v1")
    assert Prepared("ns/exp", "w", [run]).judge_url is None
    assert Prepared("ns/exp", "w", [run, LocalStep("evaluate", ("-m", "testbench.evaluate"))]).judge_url is None
    outcome = Outcome(Path("/out"), [])
    assert outcome.evaluated == Path("/out/data/experiments/evaluated_experiment.json")
    assert outcome.report == Path("/out/data/results/evaluation_report.html")


def test_a_failed_step_says_which_of_how_many_and_how() -> None:
    step = LocalStep("evaluate", ("-m", "testbench.evaluate"))
    assert str(StepFailed(StepResult(step, 3, "", 1.0), 2, 4)) == "step 2/4 evaluate exited 3"
    timed_out = StepFailed(StepResult(step, -9, "", 1.0, timed_out=True), 4, 4)
    assert str(timed_out) == "step 4/4 evaluate timed out" and timed_out.result.returncode == -9
    assert PrepareError("m", ["a", "b"]).details == ["a", "b"] and PrepareError("m").details == []
