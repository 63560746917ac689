"""``memscope table``: rows are systems over tasks, per-run numbers equal ``report``'s, Δ equals
``compare``'s, grouped rows equal a hand computation; mixed benchmarks are refused; the
upstream check."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.cli import app

runner = CliRunner()
REPO = Path(__file__).parents[2]
DEMO = REPO / "runs"

SESSIONS = {"D1": ["D1:1", "D1:2"], "D2": ["D2:1", "D2:2"]}
POINTS = {
    "garden": [("X1", "Y1"), ("X2", "Y1"), ("X2", "Y3"), ("X4", "Y2"), ("X1", "Y3")],
    "kitchen": [("X1", "Y2"), ("X2", "Y1"), ("X4", "Y1"), ("X4", "Y3")],
}
METHODS = ("semantic_rag_text_only", "full_context_multimodal")
# EM and judge per (task, method), one per question.
EM = {
    ("garden", METHODS[0]): [1, 0, 0, 1, 0],
    ("garden", METHODS[1]): [1, 1, 0, 1, 1],
    ("kitchen", METHODS[0]): [0, 1, 0, 0],
    ("kitchen", METHODS[1]): [1, 1, 1, 0],
}
JUDGE = {
    ("garden", METHODS[0]): [1.0, 0.25, 0.0, 0.75, 0.5],
    ("garden", METHODS[1]): [1.0, 1.0, 0.25, 1.0, 0.75],
    ("kitchen", METHODS[0]): [0.0, 1.0, 0.5, 0.0],
    ("kitchen", METHODS[1]): [1.0, 0.75, 1.0, 0.25],
}


def invoke(*args: str):
    return runner.invoke(app, list(args))


def table_json(*args: str) -> dict:
    result = invoke("table", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    """A MemEye sweep as the runner lays it out: runs/<task>/<ts>_<model>_<method>/,
    two tasks × two methods."""
    root = tmp_path / "sweep" / "runs"
    for t, (task, points) in enumerate(POINTS.items()):
        questions = [
            qa(f"{task} question {i}?", f"answer {i}", [[x], [y]], ["D1:1"], ["D1"])
            for i, (x, y) in enumerate(points)
        ]
        data = dialog(SESSIONS, questions)
        for m, method in enumerate(METHODS):
            rows = [
                open_row(i + 1, data, em=float(em), judge=judge, seed=["D1:1", "D2:2"])
                for i, (em, judge) in enumerate(
                    zip(EM[(task, method)], JUDGE[(task, method)], strict=True)
                )
            ]
            run_dir = write_run(
                root / task / f"2026010{t}_12000{m}_test_model_{method}",
                data,
                rows,
                method=method,
                dialog_path=root.parent / "data" / "dialog" / f"{task}.json",
                modality="multimodal" if "multimodal" in method else "text_only",
            )
            metrics = json.loads((run_dir / "metrics.json").read_text())
            metrics["task_name"] = task
            (run_dir / "metrics.json").write_text(json.dumps(metrics))
    return root


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def test_grouped_rows_pool_questions_of_all_tasks(sweep: Path) -> None:
    table = table_json(str(sweep))
    assert table["group"] == ["model", "method", "mode"]
    assert [row["label"] for row in table["rows"]] == list(METHODS)  # model and mode are shared
    for row, method in zip(table["rows"], METHODS, strict=True):
        assert row["n_questions"] == 9
        assert len(row["runs"]) == 2 and row["tasks"] == ["garden", "kitchen"]
        # Hand computation over the pooled questions.
        pooled = [
            (x, y, em)
            for task in POINTS
            for (x, y), em in zip(POINTS[task], EM[(task, method)], strict=True)
        ]
        for level in ("X1", "X2", "X4"):
            values = [em for x, _, em in pooled if x == level]
            assert row["cells"][f"x:{level}"]["value"] == pytest.approx(_mean(values))
            assert row["cells"][f"x:{level}"]["n"] == len(values)
        for level in ("Y1", "Y2", "Y3"):
            values = [em for _, y, em in pooled if y == level]
            assert row["cells"][f"y:{level}"]["value"] == pytest.approx(_mean(values))
        assert row["cells"]["all"]["value"] == pytest.approx(_mean([em for *_, em in pooled]))
        cells = {}
        for x, y, em in pooled:
            cells.setdefault(f"{x}_{y}", []).append(em)
        assert row["cells"]["macro"]["value"] == pytest.approx(
            _mean([_mean(v) for v in cells.values()])
        )
    assert "x:X3" not in {c["key"] for c in table["columns"]}  # no question on X3


def test_average_over_tasks_is_the_mean_of_task_values(sweep: Path) -> None:
    table = table_json(str(sweep), "--average", "tasks", "--metric", "judge")
    for row, method in zip(table["rows"], METHODS, strict=True):
        per_task = {task: JUDGE[(task, method)] for task in POINTS}
        assert row["cells"]["all"]["value"] == pytest.approx(
            _mean([_mean(v) for v in per_task.values()])
        )
        x1 = [
            _mean([j for (x, _), j in zip(POINTS[task], per_task[task], strict=True) if x == "X1"])
            for task in POINTS
        ]
        assert row["cells"]["x:X1"]["value"] == pytest.approx(_mean(x1))
        assert row["cells"]["x:X1"]["n"] == 3


def test_per_run_rows_equal_report_json(sweep: Path) -> None:
    table = table_json(str(sweep), "--per-run")
    judged = table_json(str(sweep), "--per-run", "--metric", "judge")
    assert len(table["rows"]) == 4
    for row, judge_row in zip(table["rows"], judged["rows"], strict=True):
        result = invoke("report", row["runs"][0], "--format", "json")
        assert result.exit_code == 0, result.output
        answer = json.loads(result.stdout)["answer"]
        for level, group in answer["by_x"].items():
            assert row["cells"][f"x:{level}"]["value"] == group["em"]
            assert row["cells"][f"x:{level}"]["n"] == group["n"]
            assert judge_row["cells"][f"x:{level}"]["value"] == group["judge"]
            assert judge_row["cells"][f"x:{level}"]["n"] == group["n_judge"]
        for level, group in answer["by_y"].items():
            assert row["cells"][f"y:{level}"]["value"] == group["em"]
        assert row["cells"]["all"]["value"] == answer["overall"]["em"]
        assert row["cells"]["all"]["n"] == answer["overall"]["n"]
        assert row["cells"]["macro"]["value"] == pytest.approx(answer["macro"]["em"])
        assert judge_row["cells"]["macro"]["value"] == pytest.approx(answer["macro"]["judge"])


def test_demo_baseline_delta_equals_compare() -> None:
    runs = [str(DEMO / name) for name in ("srag_t", "srag_v", "fc_v", "qonly")]
    table = table_json(*runs, "--per-run", "--metric", "score", "--baseline", "srag_t")
    assert table["baseline"] == "srag_t"
    base = next(row for row in table["rows"] if row["label"] == "srag_t")
    assert all("delta" not in cell for cell in base["cells"].values())
    for row in table["rows"]:
        if row["label"] == "srag_t":
            continue
        result = invoke("compare", "srag_t", row["label"], "--format", "json")
        assert result.exit_code == 0, result.output
        delta = json.loads(result.stdout)["delta"]
        pairs = [("all", delta["overall"])]
        pairs += [(f"x:{k}", v) for k, v in delta["by_x"].items()]
        pairs += [(f"y:{k}", v) for k, v in delta["by_y"].items()]
        assert len(pairs) == 8
        for key, group in pairs:
            cell = row["cells"][key]
            assert (cell["delta"], cell["delta_low"], cell["delta_high"], cell["delta_n"]) == (
                group["delta"],
                group["ci_low"],
                group["ci_high"],
                group["n"],
            ), key
            assert cell["significant"] == (group["ci_low"] > 0 or group["ci_high"] < 0)
            assert cell["value"] - base["cells"][key]["value"] == pytest.approx(group["delta"])
    assert any(c["significant"] for r in table["rows"] for c in r["cells"].values() if "delta" in c)


def test_pooled_delta_matches_questions_across_tasks(sweep: Path) -> None:
    table = table_json(str(sweep), "--metric", "judge", "--baseline", METHODS[0])
    row = table["rows"][1]
    differences = [
        b - a
        for task in POINTS
        for a, b in zip(JUDGE[(task, METHODS[0])], JUDGE[(task, METHODS[1])], strict=True)
    ]
    assert row["cells"]["all"]["delta"] == pytest.approx(_mean(differences))
    assert row["cells"]["all"]["delta_n"] == 9
    assert (
        row["cells"]["all"]["delta_low"]
        <= row["cells"]["all"]["delta"]
        <= row["cells"]["all"]["delta_high"]
    )


def test_dmv_per_run_with_intervals_equals_report() -> None:
    table = table_json(str(DEMO / "dmv_f2_demo"), "--per-run", "--ci", "--by", "reach,bank")
    assert table["params"]["clustered"] and table["params"]["resamples"] == 1000
    assert [row["label"] for row in table["rows"]] == [
        "dmv_f2_demo:DualMem-a75",
        "dmv_f2_demo:TextOnly",
        "dmv_f2_demo:NoMemory",
    ]
    for row in table["rows"]:
        result = invoke("report", row["label"], "--format", "json")
        tsr = json.loads(result.stdout)["tsr"]
        overall = row["cells"]["all"]
        assert (overall["value"], overall["ci_low"], overall["ci_high"], overall["n"]) == (
            tsr["overall"],
            tsr["ci_low"],
            tsr["ci_high"],
            tsr["n"],
        )
        for axis, section in (("reach", "by_reach"), ("bank", "by_bank_size")):
            assert tsr[section]
            for level, group in tsr[section].items():
                cell = row["cells"][f"{axis}:{level}"]
                assert (cell["value"], cell["ci_low"], cell["ci_high"], cell["n"]) == (
                    group["tsr"],
                    group["ci_low"],
                    group["ci_high"],
                    group["n"],
                )
    # Rows are systems: the default table has one row per system, the same numbers.
    grouped = table_json(str(DEMO / "dmv_f2_demo"))
    assert [row["label"] for row in grouped["rows"]] == ["DualMem-a75", "TextOnly", "NoMemory"]
    assert grouped["rows"][0]["cells"]["all"]["value"] == table["rows"][0]["cells"]["all"]["value"]


def test_cuemem_per_run_equals_report() -> None:
    table = table_json(str(DEMO / "cue_mm"), str(DEMO / "cue_text"), "--per-run")
    by_task = table_json(
        str(DEMO / "cue_mm"), str(DEMO / "cue_text"), "--per-run", "--by", "task,evidence"
    )
    for row, task_row in zip(table["rows"], by_task["rows"], strict=True):
        result = invoke("report", row["label"], "--format", "json")
        cue = json.loads(result.stdout)["cue"]
        for task, entry in cue["by_task"].items():
            for setting in ("explicit", "implicit"):
                cell = row["cells"].get(f"cell:{task}/{setting}")
                if entry[setting] is None:
                    assert cell is None or cell["value"] is None
                    continue
                assert cell["value"] == entry[setting]
                assert cell["n"] == entry[f"n_{setting}"]
        assert row["cells"]["memory_avg_explicit"]["value"] == pytest.approx(
            cue["memory_avg"]["explicit"]
        )
        assert row["cells"]["memory_avg_implicit"]["value"] == pytest.approx(
            cue["memory_avg"]["implicit"]
        )
        assert row["cells"]["ei_gap"]["value"] == pytest.approx(cue["ei_gap"])
        assert {c.split(":")[0] for c in task_row["cells"]} >= {"task", "evidence", "all"}
    assert [
        row["label"] for row in table_json(str(DEMO / "cue_mm"), str(DEMO / "cue_text"))["rows"]
    ] == [
        "cue_mm",
        "gpt-5.4-mini · NaiveRAG",
    ]


def test_cuemem_rows_show_the_papers_names_and_answer_to_either() -> None:
    runs = (str(DEMO / "cue_mm"), str(DEMO / "cue_text"))
    table = table_json(*runs)
    row = table["rows"][1]
    assert row["label"] == "gpt-5.4-mini · NaiveRAG"  # LTMemory, as the paper calls it
    assert row["group"] == {"model": "gpt-5.4-mini", "method": "LTMemory"}  # the raw value
    assert row["display_group"] == {"model": "gpt-5.4-mini", "method": "NaiveRAG"}
    # --baseline and --label take the label as shown or as the raw fields give it.
    for name in ("gpt-5.4-mini · NaiveRAG", "gpt-5.4-mini · LTMemory"):
        based = table_json(*runs, "--baseline", name)
        assert based["baseline"] == "gpt-5.4-mini · NaiveRAG"
        assert based["rows"][0]["cells"]["all"]["delta"] == pytest.approx(0.875 - 0.5)
        renamed = table_json(*runs, "--label", f"{name}=RAG (text)")
        assert renamed["rows"][1]["label"] == "RAG (text)"
    result = invoke("table", *runs, "--baseline", "LTMemory")
    assert result.exit_code == 1
    assert "Rows: cue_mm, gpt-5.4-mini · NaiveRAG." in " ".join(result.stderr.split())
    per_run = table_json(*runs, "--per-run")  # a run's own id, no display name
    assert [r["label"] for r in per_run["rows"]] == ["cue_mm:p0", "cue_text:history_with_qa_p0"]


def test_runs_of_different_benchmarks_are_refused() -> None:
    result = invoke("table", str(DEMO / "srag_t"), str(DEMO / "dmv_f2_demo"))
    assert result.exit_code == 1
    message = " ".join(result.stderr.split())
    assert "MemEye: srag_t" in message
    assert (
        "DMV-Bench: dmv_f2_demo:DualMem-a75, dmv_f2_demo:TextOnly, dmv_f2_demo:NoMemory" in message
    )
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--by", "reach"), "--by reach: MemEye tables have the axes x, y, cell, task"),
        (("--metric", "bleu"), "--metric bleu: not a metric"),
        (("--group", "colour"), "--group colour"),
        (("--label", "nolabel"), "expected OLD=NEW"),
        (("--label", "zzz=a"), "--label zzz=…: no row is labelled so"),
        (("--baseline", "zzz"), "--baseline zzz: no row is labelled so"),
        (("--average", "cells"), "--average cells"),
    ],
)
def test_bad_options_get_one_message(args: tuple[str, ...], expected: str) -> None:
    result = invoke("table", str(DEMO / "srag_t"), str(DEMO / "qonly"), *args)
    assert result.exit_code == 1, result.output
    assert expected in " ".join(result.stderr.split())
    assert "Traceback" not in result.output


def test_labels_rename_rows_and_out_writes_the_file(tmp_path: Path) -> None:
    out = tmp_path / "table.csv"
    result = invoke(
        "table",
        str(DEMO / "srag_t"),
        str(DEMO / "qonly"),
        "--label",
        "question_only=Q only",
        "--format",
        "csv",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    rows = list(csv.DictReader(out.open()))
    assert [row["system"] for row in rows] == ["semantic_rag_text_only", "Q only"]
    assert float(rows[1]["all"]) == pytest.approx(0.144, abs=5e-4)
    missing = invoke(
        "table", str(DEMO / "qonly"), "-f", "csv", "--out", str(tmp_path / "no" / "t.csv")
    )
    assert missing.exit_code == 1 and "does not exist" in missing.stderr


def test_best_value_per_column_is_marked() -> None:
    table = table_json(*(str(DEMO / n) for n in ("srag_t", "fc_v", "qonly")))
    for column in table["columns"]:
        values = [row["cells"][column["key"]]["value"] for row in table["rows"]]
        best = [row["cells"][column["key"]]["best"] for row in table["rows"]]
        assert best == [v == max(values) for v in values]


def write_matrix_summary(sweep: Path, task: str, wrong: bool) -> None:
    runs = sorted((sweep / task).glob("2026*"))
    folder = sweep / task / "matrices" / "20260102_000000"
    folder.mkdir(parents=True)
    with (folder / "summary.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "task_name",
                "model_name",
                "method_name",
                "mode",
                "num_qas_run",
                "em",
                "judge",
                "run_dir",
            ]
        )
        for run_dir in runs:
            method = run_dir.name.split("_test_model_")[1]
            em = np.mean(EM[(task, method)]) + (0.1 if wrong and method == METHODS[1] else 0.0)
            judge = np.mean(JUDGE[(task, method)])
            writer.writerow(
                [
                    task,
                    "test_model",
                    method,
                    "open",
                    len(EM[(task, method)]),
                    f"{em:.4f}",
                    f"{judge:.4f}",
                    f"runs/{task}/{run_dir.name}",
                ]
            )


def test_check_upstream_memeye_summary(sweep: Path) -> None:
    write_matrix_summary(sweep, "garden", wrong=False)
    table = table_json(str(sweep), "--check-upstream")
    assert table["upstream"]["n_disagreeing"] == 0
    assert table["upstream"]["n_runs_checked"] == 2
    assert len(table["upstream"]["runs_without_summary"]) == 2  # the kitchen runs
    write_matrix_summary(sweep, "kitchen", wrong=True)
    result = invoke("table", str(sweep), "--check-upstream", "-f", "markdown")
    assert result.exit_code == 0
    text = " ".join(result.stderr.split())
    assert "1 of 12 values differ" in text
    assert "full_context_multimodal em: upstream 0.85 vs memscope 0.7500" in text


def test_check_upstream_dmv_summary() -> None:
    result = invoke("table", str(DEMO / "dmv_f2_demo"), "--check-upstream", "-f", "csv")
    assert result.exit_code == 0
    assert "all 15 values of 3 run(s) agree" in result.stderr


def test_task_average_interval_of_one_task_equals_the_pooled_one(sweep: Path) -> None:
    """Resampling each task apart and averaging: with one task per row it is the plain
    percentile interval of that task's questions."""
    args = (str(sweep), "--group", "method,task", "--ci", "--metric", "judge")
    macro = table_json(*args, "--average", "tasks")
    micro = table_json(*args)
    assert len(macro["rows"]) == 4
    for a, b in zip(macro["rows"], micro["rows"], strict=True):
        for key in ("all", "x:X1", "y:Y1"):
            cell_a, cell_b = a["cells"][key], b["cells"][key]
            assert (cell_a["value"], cell_a["ci_low"], cell_a["ci_high"]) == pytest.approx(
                (cell_b["value"], cell_b["ci_low"], cell_b["ci_high"])
            )
    pooled = table_json(str(sweep), "--ci", "--average", "tasks")
    for row in pooled["rows"]:
        cell = row["cells"]["all"]
        assert cell["ci_low"] <= cell["value"] <= cell["ci_high"]


def test_out_json_equals_stdout(sweep: Path, tmp_path: Path) -> None:
    out = tmp_path / "table.json"
    result = invoke("table", str(sweep), "--format", "json", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text()) == table_json(str(sweep))
    refused = invoke("table", str(sweep), "--out", str(out))
    assert refused.exit_code == 1 and "--format markdown" in " ".join(refused.stderr.split())


def test_real_runner_sweep_rows_are_method_by_mode() -> None:
    """The real MemEye runner's output (one task, five methods, each in mcq and open mode)."""
    from support import UPSTREAM_RUNS

    table = table_json(str(UPSTREAM_RUNS.parent))
    labels = [row["label"] for row in table["rows"]]
    assert len(labels) == 10 and len(set(labels)) == 10
    assert "semantic_rag_text_only · mcq" in labels and "question_only · open" in labels
    per_run = table_json(str(UPSTREAM_RUNS.parent), "--per-run")
    assert [row["cells"] for row in table["rows"]] == [row["cells"] for row in per_run["rows"]]


@pytest.mark.parametrize(
    ("runs", "by"),
    [
        (("srag_v", "qonly"), "x,y,cell"),
        (("cue_mm", "cue_text"), "task,evidence,modality,cell"),
        (("dmv_f2_demo",), "reach,bank,position,cell"),
    ],
)
def test_per_run_columns_are_the_registry_axes_of_report(runs: tuple[str, ...], by: str) -> None:
    """The table's columns are the benchmark's axes as ``report``'s ``axes`` section (the
    registry, adapters/axes.py) places the questions: same levels, same values and n."""
    table = table_json(
        *(str(DEMO / run) for run in runs), "--per-run", "--metric", "accuracy", "--by", by
    )
    for row in table["rows"]:
        axes = json.loads(invoke("report", row["label"], "--format", "json").stdout)["axes"]
        compared = 0
        for view in axes["views"]:
            for side, key in (("by_row", view["rows"]), ("by_column", view["columns"])):
                for group in view["correct"][side]:
                    cell = row["cells"][f"{key}:{group['level']}"]
                    assert (cell["value"], cell["n"]) == (group["value"], group["n"])
                    compared += 1
        first = axes["views"][0]
        separator = "_" if table["benchmark"] == "memeye" else "/"
        for group in first["correct"]["cells"]:
            cell = row["cells"][f"cell:{group['row']}{separator}{group['column']}"]
            assert (cell["value"], cell["n"]) == (group["value"], group["n"])
            compared += 1
        shown = {c.split(":", 1)[0] for c in row["cells"] if ":" in c}
        assert shown == set(by.split(",")) and compared > 4


def test_bad_by_names_the_benchmarks_axes_and_aliases_resolve() -> None:
    result = invoke("table", str(DEMO / "dmv_f2_demo"), "--by", "evidence")
    assert result.exit_code == 1
    assert "--by evidence: DMV-Bench tables have the axes reach, bank, position, cell" in " ".join(
        result.stderr.split()
    )
    aliased = table_json(str(DEMO / "dmv_f2_demo"), "--by", "bank_size,pos")
    assert aliased["by"] == ["bank", "position"]


def test_numeric_groups_are_each_runs_unless_the_runs_disagree() -> None:
    from memscope.usecases.runs.axes import numeric_levels
    from memscope.usecases.table.axes import QuestionAxes, axis_levels

    def part(numbers: list[float]) -> QuestionAxes:
        values = np.array(numbers, dtype=float)
        labels, _ = numeric_levels(values)  # each run grouped as report groups it
        return QuestionAxes({"bank": labels}, {"bank": values})

    few = [part([6, 9, 9, 12]), part([6, 12, np.nan])]
    labels, levels = axis_levels("dmv", "bank", few)
    assert levels == ["6", "9", "12"] and labels[1].tolist() == ["6", "12", ""]
    # Twelve bank sizes, spread differently: each run's ranges differ, so the table groups
    # all its probes once (one meaning per column) with the same rule.
    skewed = [part(list(range(1, 13)) + [1] * 30), part(list(range(1, 13)) + [12] * 30)]
    own = [p.labels["bank"][:12].tolist() for p in skewed]  # the numbers 1..12 in each run
    assert own[0] != own[1]
    labels, levels = axis_levels("dmv", "bank", skewed)
    pooled, pooled_levels = numeric_levels(np.concatenate([p.numbers["bank"] for p in skewed]))
    assert levels == pooled_levels
    assert np.concatenate(labels).tolist() == pooled.tolist()
