"""LoCoMo end to end on its real data (issue 26): Honcho's runs, written by LoCoMo's own
``task_eval`` code, through ingest, table, report, compare, suggest, sample, labels,
estimate and export, with upstream's own stats files as the reference numbers.

The data is CC BY-NC: it is read from the shared samples (``builders_locomo.shared_locomo``),
never copied; the tests skip where it is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_locomo import shared_locomo
from memscope.cli import app

runner = CliRunner()
JUDGED = "rsr_0612:honcho"
BASE = "honcho:honcho"
CATEGORIES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def locomo() -> Path:
    return shared_locomo()


@pytest.fixture
def ingested(locomo: Path, ingested_store) -> Path:
    """The store holding both runs of the real results (the base run's folder, then the
    judged run's), as ``memscope ingest results/`` writes it (copied from the session's
    template, tests/shared_inputs.py)."""
    honcho = locomo / "results" / "honcho"
    ingested_store(honcho, honcho / "rsr_0612")
    return locomo


def test_ingest_checks_each_run_against_upstreams_summary(locomo: Path) -> None:
    result = runner.invoke(app, ["ingest", str(locomo / "results")])
    assert result.exit_code == 0, result.output
    assert "agrees with upstream's summary conv-26_qa_f1_stats.json" in result.stderr


def upstream_accuracy(stats_file: Path, key: str = "honcho") -> dict[str, float]:
    """Upstream's accuracy per category: cum_accuracy_by_category / category_counts."""
    entry = json.loads(stats_file.read_text(encoding="utf-8"))[key]
    counts, sums = entry["category_counts"], entry["cum_accuracy_by_category"]
    return {CATEGORIES[int(c)]: sums.get(c, 0) / counts[c] for c in counts}


@pytest.mark.parametrize(("metric", "stats"), [("judge", "llm"), ("f1", "f1")])
def test_table_by_category_is_upstreams_accuracy(ingested: Path, metric: str, stats: str) -> None:
    expected = upstream_accuracy(
        ingested / "results/honcho/rsr_0612" / f"conv-26_qa_{stats}_stats.json"
    )
    table = json.loads(
        invoke("table", JUDGED, "--by", "category", "--metric", metric, "--format", "json")
    )
    (row,) = table["rows"]
    found = {
        column.removeprefix("category:"): cell["value"]
        for column, cell in row["cells"].items()
        if column.startswith("category:")
    }
    assert found.keys() == expected.keys()
    for category, value in expected.items():
        assert round(found[category], 3) == round(value, 3), category


def test_check_upstream_agrees(ingested: Path) -> None:
    result = runner.invoke(app, ["table", JUDGED, "--by", "category", "--check-upstream"])
    assert result.exit_code == 0, result.output
    assert "all 20 values of 1 run(s) agree with the benchmark's own summary" in result.output


def test_report_suggest_sample_labels_estimate_and_export(ingested: Path, tmp_path: Path) -> None:
    report = json.loads(invoke("report", JUDGED, "--format", "json"))
    assert report["axes"]["benchmark"] == "locomo"
    view = report["axes"]["views"][0]
    assert (view["rows"], view["columns"]) == ("category", "age")
    by_row = {row["level"]: row for row in view["correct"]["by_row"]}
    assert by_row["temporal"]["n"] == 37 and round(by_row["temporal"]["value"], 3) == 0.595
    assert "by category" not in invoke("report", JUDGED)  # the table heads say it instead
    invoke("suggest", JUDGED)
    sampled = invoke("sample", JUDGED, "--strata", "category", "--sample-size", "10")
    assert "temporal" in sampled
    failing = [q["qid"] for q in report["questions"] if q["correct"] is False][:3]
    for qid in failing:
        invoke("label", JUDGED, "--question", qid, "--code", "RET-MISS")
    estimate = json.loads(invoke("estimate", JUDGED, "--by", "category", "--format", "json"))
    assert estimate["by"] == "category" and estimate["n_labelled"] == len(failing)
    assert set(estimate["strata"]) <= set(CATEGORIES.values())
    out = tmp_path / "labels.jsonl"
    invoke("export-labels", JUDGED, "--format", "jsonl", "--out", str(out))
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["qid"] for r in rows) == sorted(failing)
    assert all(
        set(json.loads(r["axes"]) if isinstance(r["axes"], str) else r["axes"])
        == {"category", "age", "modality"}
        for r in rows
    )


def test_compare_the_judged_run_with_the_base_run_on_their_shared_questions(
    ingested: Path,
) -> None:
    result = json.loads(invoke("compare", BASE, JUDGED, "--format", "json", "--resamples", "200"))
    assert result["matched"] == 199 and result["n_a"] == 1986
    views = {(v["rows"], v["columns"]) for v in result["delta"]["by_axes"]}
    assert ("category", "age") in views
