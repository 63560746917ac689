"""Benchmark axes (adapters/*_axes.py, usecases/runs/axes.py): the filter words of each
benchmark, numeric comparisons, clear errors for another benchmark's words, and the
report's ``axes`` section against the benchmark's own tables."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memscope.adapters.registry import benchmark
from memscope.errors import InputError, PluginError
from memscope.store import Store
from memscope.usecases.labels.queue import QueueSpec, TriageTable, parse_filter
from memscope.usecases.report.build import build_report
from memscope.usecases.runs.loading import load_run

RUNS = Path(__file__).resolve().parents[2] / "runs"


@pytest.fixture
def runs(store: Store, ingested_store) -> dict[str, TriageTable]:
    if not (RUNS / "srag_v").is_dir():
        pytest.skip("the demo runs are not in this checkout")
    ingested_store(*(RUNS / name for name in ("srag_v", "cue_text", "dmv_f2_demo")))
    tables = {}
    for name, run_id in (
        ("srag_v", "srag_v"),
        ("cue_text", "cue_text:history_with_qa_p0"),
        ("dmv_f2_demo", "dmv_f2_demo:TextOnly"),
    ):
        tables[name] = TriageTable(load_run(store, run_id))
    return tables


def selected(table: TriageTable, text: str) -> np.ndarray:
    return table.select(QueueSpec(kind="all", text=text))


def test_each_benchmark_has_its_own_axes() -> None:
    assert [a.key for a in benchmark("memeye").axes.axes] == ["x", "y"]
    assert [a.key for a in benchmark("cuemem").axes.axes] == ["task", "evidence", "modality"]
    assert [a.key for a in benchmark("dmv").axes.axes] == ["reach", "bank", "position"]
    # No benchmark, or an unknown one, is an error: never a silent fallback to MemEye's axes.
    for missing in (None, "no-such-bench"):
        with pytest.raises(PluginError):
            benchmark(missing)
    cue = benchmark("cuemem").axes
    assert cue.require("task").match("rec").value == "personalized_recommendation"
    assert cue.require("task").match("Answer Refusal").value == "answer_refusal"
    assert cue.axis("explicitness") is cue.require("evidence")


def test_cuemem_filters_speak_task_evidence_and_modality(runs: dict[str, TriageTable]) -> None:
    table = runs["cue_text"]
    rows = selected(table, "task:rec evidence:implicit")
    assert len(rows) == 2
    assert set(table.axis_labels["task"][rows]) == {"personalized_recommendation"}
    images = selected(table, "modality:image")
    assert len(images) and set(table.axis_labels["modality"][images]) == {"image"}
    assert len(selected(table, "modality:img")) == len(images)
    with pytest.raises(InputError, match="not a task"):
        selected(table, "task:cooking")
    with pytest.raises(InputError, match="not an axis of CUE-Mem"):
        selected(table, "reach:2")


def test_dmv_filters_compare_numbers(runs: dict[str, TriageTable]) -> None:
    table = runs["dmv_f2_demo"]
    bank = table.axis_numbers["bank"]
    reach = table.axis_numbers["reach"]
    assert len(selected(table, "bank:>=9")) == int((bank >= 9).sum()) < len(table)
    assert len(selected(table, "bank:6-9")) == int(((bank >= 6) & (bank <= 9)).sum())
    assert len(selected(table, "reach:2 bank:<12")) == int(((reach == 2) & (bank < 12)).sum())
    assert len(selected(table, "bank_size:12")) == int((bank == 12).sum())
    with pytest.raises(InputError, match="not a number or a comparison"):
        selected(table, "reach:far")
    with pytest.raises(InputError, match="not an axis of DMV-Bench"):
        selected(table, "x:X4")


def test_memeye_keeps_x_and_y(runs: dict[str, TriageTable]) -> None:
    table = runs["srag_v"]
    assert len(selected(table, "y:Y3")) == int((table.y == "Y3").sum())
    with pytest.raises(InputError, match="not an axis of MemEye"):
        selected(table, "evidence:implicit")
    with pytest.raises(InputError, match="unknown filter field"):
        parse_filter("colour:red")


def test_report_axes_match_the_benchmarks_own_tables(store: Store, runs) -> None:
    cue = build_report(load_run(store, "cue_text:history_with_qa_p0"), include_questions=False)
    cells = {(c["row"], c["column"]): c for c in cue["axes"]["views"][0]["correct"]["cells"]}
    for task, entry in cue["cue"]["by_task"].items():
        for setting in ("explicit", "implicit"):
            if entry[f"n_{setting}"]:
                assert cells[(task, setting)]["value"] == pytest.approx(entry[setting])
                assert cells[(task, setting)]["n"] == entry[f"n_{setting}"]
    dmv = build_report(load_run(store, "dmv_f2_demo:TextOnly"), include_questions=False)
    view = dmv["axes"]["views"][0]["correct"]
    by_row = {group["level"]: group for group in view["by_row"]}
    by_column = {group["level"]: group for group in view["by_column"]}
    assert list(by_row) == list(dmv["tsr"]["by_reach"])
    for reach, group in dmv["tsr"]["by_reach"].items():
        assert by_row[reach]["value"] == pytest.approx(group["tsr"])
        assert by_row[reach]["n"] == group["n"]
    for bank, group in dmv["tsr"]["by_bank_size"].items():
        assert by_column[bank]["value"] == pytest.approx(group["tsr"])
