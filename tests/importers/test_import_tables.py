"""Tables of RAGAS rows: csv (quoted newlines, delimiters, v0.1 names), json layouts, parquet."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from importer_helpers import pos, run, scenarios, steps, warnings_of

from kubectl_testbench.integrations.importers import ImportInputError, ImportOptions, import_dataset

SINGLE = "csv/single.csv"
MULTI = "csv/multiturn.csv"


def test_csv_one_scenario_per_row() -> None:
    result = run("csv", SINGLE)
    assert scenarios(result) == [
        {"name": "single-1", "steps": [{
            "input": "What is the capital of France?",
            "reference": {"response": "Paris is the capital of France.",
                          "retrievedContexts": ["Paris is the capital and largest city of France."]},  # JSON list
            "customValues": {"category": "geography"},
            "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]},
        {"name": "single-2", "steps": [{
            "input": "Summarize the refund policy.",
            "reference": {"response": "Refunds within 30 days.\nReceipt required.",  # a quoted newline
                          # a Python list literal, as pandas writes list cells
                          "retrievedContexts": ["Refunds are accepted within 30 days.", "A receipt is required."]},
            "customValues": {"category": "policy"},
            "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]},
        {"name": "single-4", "steps": [{
            "input": "Who wrote Faust?",
            "reference": {"retrievedContexts": ["Goethe wrote Faust in two parts."]},  # plain text: one context
            "customValues": {"category": "literature"},
            "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}]}]},
    ]
    assert warnings_of(result) == [
        (SINGLE, 1, 4, 'column "category" is kept in customValues; no metric reads it'),
        (SINGLE, 1, 5, 'column "response" is not carried over: the agent\'s answer is produced at run time, a recorded '
                       "one is not a reference"),
        (SINGLE, 5, 1, "row 3 has no user_input: skipped"),  # line 5: row 2 spans lines 3-4
    ]


def test_csv_scenario_and_step_columns_group_turns() -> None:
    result = run("csv", MULTI)
    assert [s["name"] for s in scenarios(result)] == ["weather", "booking"]
    assert steps(result, 0) == [
        {"input": "What's the weather in Berlin?",
         "reference": {"response": "It is sunny.", "toolCalls": [{"name": "get_weather", "args": {"city": "Berlin"}}],
                       "topics": ["weather", "travel"]},
         "customValues": {"id": "w-1"},
         "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}, {"metricName": "ToolCallAccuracy"},
                     {"metricName": "TopicAdherence"}]},
        {"input": "And tomorrow?",
         "reference": {"response": "Rain is expected tomorrow.",
                       "toolCalls": [{"name": "get_forecast", "args": {"city": "Berlin", "days": 1}}],
                       "topics": ["weather"]},
         "customValues": {"id": "w-2"},
         "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}, {"metricName": "ToolCallAccuracy"},
                     {"metricName": "TopicAdherence"}]},
    ]
    assert [s["input"] for s in steps(result, 1)] == ["Book a table for two.", "At 8pm please.", "Thanks!"]
    assert warnings_of(result) == [
        (MULTI, 1, 7, 'column "id" is kept in customValues: scenario names come from the "scenario" column'),
        (MULTI, 4, 1, 'scenario "booking" repeats a step number: rows with the same step keep their order in the '
                      "file"),
        (MULTI, 6, 2, 'step "x" is not a whole number: the row keeps its place in the file'),
    ]


def test_csv_semicolons_and_ragas_v01_column_names() -> None:
    result = run("csv", "csv/v01.csv")
    assert scenarios(result) == [{"name": "v01-1", "steps": [{
        "input": "How tall is the Eiffel Tower?",
        "reference": {"response": "About 330 metres.", "retrievedContexts": ["The Eiffel Tower is 330 m tall."]},
        "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]}]
    assert warnings_of(result) == [("csv/v01.csv", 1, 4, 'column "answer" is not carried over: the agent\'s answer is '
                                                         "produced at run time, a recorded one is not a reference "
                                                         "(RAGAS v0.1 'answer' is the system's response; the expected "
                                                         "answer is 'ground_truth')")]


def test_csv_without_user_input_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("question_text,reference\nhi,there\n", encoding="utf-8")
    with pytest.raises(ImportInputError) as err:
        import_dataset("csv", [str(path)], ImportOptions(name="x", agent="a"))
    assert err.value.message == ("has no user_input column (or question, query, input, prompt); columns: "
                                 "question_text, reference")


def test_csv_extra_cells_are_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("user_input\nhi,surprise\n", encoding="utf-8")
    with pytest.raises(ImportInputError) as err:
        import_dataset("csv", [str(path)], ImportOptions(name="x", agent="a"))
    assert (err.value.line, err.value.col, err.value.message) == (2, 2, "row 1 has 2 cells but the header names 1 "
                                                                        "columns")


def test_json_records_jsonl_and_pandas_layouts() -> None:
    records = "json/records.json"
    result = run("json", records, "json/rows.jsonl", "json/columns.json", "json/split.json")
    assert [s["name"] for s in scenarios(result)] == ["records-1", "records-2", "greeting", "columns-1", "columns-2",
                                                      "split-1"]
    assert steps(result, 0) == [{"input": "What is RAG?",
                                 "reference": {"response": "Retrieval-augmented generation.",
                                               "retrievedContexts": ["RAG combines retrieval with generation.",
                                                                     "It grounds answers in documents."]},
                                 "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]
    # metrics named by the row; AnswerAccuracy lacks a reference here, which is reported at the row
    assert steps(result, 1) == [{"input": "Define ROUGE.", "reference": {"topics": ["metrics"]},
                                 "customValues": {"difficulty": "easy"},
                                 "metrics": [{"metricName": "AnswerAccuracy", "threshold": 0.4}]}]
    assert [(s["input"], s.get("reference")) for s in steps(result, 2)] == [
        ("Hi!", None), ("How are you?", {"response": "Fine, thanks."})]
    assert [s["steps"][0]["reference"]["response"] for s in scenarios(result)[3:]] == [
        "First answer.", "Second answer.", "Split answer."]
    assert warnings_of(result) == [
        (records, *pos(records, "{", after="[\n", occurrence=2),
         "AnswerAccuracy needs reference.response, which this step does not have"),
        (records, *pos(records, '["AnswerAccuracy=0.4"'), 'metric not carried over: "NoSuchMetric" cannot be used: '
                                                          "agentic-layer-testbench 0.10.0 has no metric of that name "
                                                          "in ragas.metrics.collections (kubectl testbench explain "
                                                          "metrics lists those that score)"),
        (records, *pos(records, '"difficulty"'), 'column "difficulty" is kept in customValues; no metric reads it'),
    ]


def test_json_experiment_file_is_refused_with_a_hint() -> None:
    with pytest.raises(ImportInputError) as err:
        import_dataset("json", ["json/experiment.json"], ImportOptions(name="x", agent="a"))
    assert err.value.message.startswith("is already a Testbench dataset file (it has scenarios): check it with "
                                        "kubectl testbench dataset validate json/experiment.json, upload it with "
                                        "kubectl testbench dataset push")


def _write_parquet(path: Path) -> None:
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed: pip install 'kubectl-testbench[parquet]'")
    import pyarrow.parquet as pq

    table = pa.table({
        "scenario": ["rag", "rag", None],
        "step": [2, 1, None],
        "user_input": ["And the second?", "What is the first law?", "Standalone question"],
        "reference": ["Second answer.", None, None],
        "retrieved_contexts": [["ctx a", "ctx b"], [], None],
        "score": [0.5, 0.75, 1.0],
    })
    pq.write_table(table, str(path))


def test_parquet_rows_with_list_columns(tmp_path: Path) -> None:
    path = tmp_path / "rows.parquet"
    _write_parquet(path)
    result = run("parquet", str(path))
    assert scenarios(result) == [
        {"name": "rag", "steps": [
            {"input": "What is the first law?", "customValues": {"score": 0.75},
             "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}]},
            {"input": "And the second?",
             "reference": {"response": "Second answer.", "retrievedContexts": ["ctx a", "ctx b"]},
             "customValues": {"score": 0.5},
             "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]},
        {"name": "rows-3", "steps": [{"input": "Standalone question", "customValues": {"score": 1.0},
                                      "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}]}]},
    ]
    # parquet has no lines: the warning names the column
    assert [(w.line, w.field, w.message) for w in result.warnings] == [
        (0, "score", 'column "score" is kept in customValues; no metric reads it')]


def test_parquet_without_pyarrow_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "rows.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now raises ImportError
    with pytest.raises(ImportInputError) as err:
        import_dataset("parquet", [str(path)], ImportOptions(name="x", agent="a"))
    assert str(err.value) == ("reading parquet needs pyarrow: pip install pyarrow (the parquet extra of "
                              "kubectl-testbench)")


def test_unreadable_parquet_is_an_input_error(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow", reason="pyarrow is not installed: pip install 'kubectl-testbench[parquet]'")
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(ImportInputError) as err:
        import_dataset("parquet", [str(path)], ImportOptions(name="x", agent="a"))
    assert err.value.message.startswith("is not a readable parquet file")


def test_csv_repeated_column_names_are_kept_apart(tmp_path: Path) -> None:
    path = tmp_path / "dup.csv"
    path.write_text("user_input,reference,reference\r\nhi,first,second\r\n", encoding="utf-8-sig")  # Excel style
    result = run("csv", str(path))
    assert steps(result) == [{"input": "hi", "reference": {"response": "first"},
                              "customValues": {"reference.1": "second"},
                              "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]
    assert [(w.line, w.col, w.message) for w in result.warnings] == [
        (1, 3, 'column "reference.1" is kept in customValues; no metric reads it')]
