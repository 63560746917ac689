"""``memscope estimate``: labels-only and PPI++ prevalence per failure code, on fixed data and the demo."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from memscope.analysis.ppi import agresti_pseudo, labels_only_mean, ppi_mean
from memscope.cli import app as cli
from memscope.store import Store
from memscope.usecases.labels.estimate import compute_estimates, estimate_run
from memscope.usecases.labels.events import record_label
from memscope.usecases.labels.sample import Failures, failures, plan_sample

RUN = Path(__file__).resolve().parents[2] / "runs" / "srag_v"
runner = CliRunner()


def _failures(y_levels: list[str], suggested: list[str]) -> Failures:
    n = len(y_levels)
    return Failures(
        run_id="r",
        run_hash="h",
        qids=[f"q{i}" for i in range(n)],
        x=["X1"] * n,
        y=y_levels,
        cell=[f"X1{y}" for y in y_levels],
        suggested=suggested,
    )


def test_per_stratum_estimates_are_the_ppi_of_that_stratum() -> None:
    ys = ["Y1"] * 6 + ["Y3"] * 4
    suggested = ["A", "A", "B", "A", "B", "B", "A", "A", "B", "B"]
    found = _failures(ys, suggested)
    labelled = {"q0": "A", "q1": "B", "q2": "B", "q6": "A", "q7": "A", "q8": "A"}
    result = compute_estimates(found, labelled, by="y", codes=["A", "B"])
    y1 = result.per_stratum["Y1"]["A"]
    assert (y1.n_labelled, y1.n_failures, y1.n_with_code) == (3, 6, 1)
    expected = ppi_mean(
        np.array([1.0, 0.0, 0.0]),
        np.array([1.0, 1.0, 0.0]),
        np.array([1.0, 0.0, 0.0]),  # the rule on Y1's unlabelled failures q3-q5
        pseudo=agresti_pseudo(),  # the adjusted variance, at the default 95 %
    )
    assert y1.ppi.estimate == pytest.approx(expected.estimate)
    assert y1.ppi.ci_high == pytest.approx(expected.ci_high)
    plugin = compute_estimates(found, labelled, by="y", codes=["A", "B"], pseudo=0.0)
    plain = ppi_mean(np.array([1.0, 0.0, 0.0]), np.array([1.0, 1.0, 0.0]), np.array([1.0, 0, 0]))
    assert plugin.per_stratum["Y1"]["A"].ppi.ci_high == pytest.approx(plain.ci_high)
    assert plain.ci_high < expected.ci_high
    assert y1.labels.estimate == pytest.approx(1 / 3)
    # Overall: strata combined by their share of the failures (6/10 and 4/10).
    y3 = result.per_stratum["Y3"]["A"]
    overall = result.overall["A"]
    assert result.overall_method == "stratified"
    assert overall.labels.estimate == pytest.approx(0.6 * (1 / 3) + 0.4 * 1.0)
    assert overall.ppi.estimate == pytest.approx(0.6 * y1.ppi.estimate + 0.4 * y3.ppi.estimate)
    assert result.rule_agreement == pytest.approx(4 / 6)
    assert any("no sample plan" in note for note in result.notes)


def test_a_stratum_where_labels_and_rules_always_agree_still_has_a_width() -> None:
    # Y2: six labels, none B, and the rule never says B there: zero disagreements and
    # zero spread. The plug-in interval would be [0, 0]; the estimate's is not.
    ys = ["Y1"] * 6 + ["Y2"] * 10
    suggested = ["A", "B", "B", "A", "B", "A"] + ["A"] * 10
    found = _failures(ys, suggested)
    labelled = {f"q{i}": "A" for i in (0, 3, 6, 7, 8, 9, 10, 11)} | {"q1": "B"}
    result = compute_estimates(found, labelled, by="y", codes=["A", "B"])
    y2 = result.per_stratum["Y2"]["B"]
    assert (y2.n_labelled, y2.n_with_code) == (6, 0)
    for found_estimate in (y2.labels, y2.ppi):
        assert found_estimate.estimate == 0.0
        assert found_estimate.ci_high > 0.2  # about the Agresti-Coull upper end for 0 of 6
    plain = ppi_mean(np.zeros(6), np.zeros(6), np.zeros(4))
    assert plain.ci_high == 0.0


def test_a_stratum_with_one_label_pools_the_overall() -> None:
    found = _failures(["Y1"] * 5 + ["Y2"] * 5, ["A"] * 10)
    result = compute_estimates(found, {"q0": "A", "q1": "A", "q5": "A"}, by="y", codes=["A"])
    assert result.overall_method == "pooled"
    assert result.per_stratum["Y2"]["A"].labels is None
    assert result.overall["A"].labels.estimate == pytest.approx(1.0)


def test_sample_plan_weights_labels_by_their_design_stratum() -> None:
    found = _failures(["Y1"] * 8, ["A"] * 4 + ["B"] * 4)

    class Plan:  # two design strata by suggested code, one Y stratum to report
        strata, seed = "code", 1
        stratum_of = {f"q{i}": ("A" if i < 4 else "B") for i in range(8)}

    # 2 of 4 labelled in stratum A (weight 2), 1 of 4 in B (weight 4).
    labelled = {"q0": "A", "q1": "B", "q4": "B"}
    result = compute_estimates(found, labelled, by="y", plan=Plan(), codes=["A"])
    weighted = labels_only_mean(np.array([1.0, 0.0, 0.0]), w=np.array([2.0, 2.0, 4.0]))
    assert result.overall["A"].labels.estimate == pytest.approx(weighted.estimate)  # 0.25
    assert weighted.estimate == pytest.approx(0.25)


def test_estimate_on_the_demo_run(store: Store, ingested_store) -> None:
    run_id = ingested_store(RUN)[0]
    plan = plan_sample(store, run_id, seed=7, strata="y", sample_size=9)
    found = failures(store, run_id)
    suggested = dict(zip(found.qids, found.suggested, strict=True))
    planned = [qid for qid in plan.qids if qid in plan.planned]
    for index, qid in enumerate(planned):
        code = suggested[qid] if index % 3 else "USE-EVID"  # people overrule a third
        record_label(store, run_id, qid, codes=[code], annotator="alice")
    result = estimate_run(store, run_id, by="y").to_json()
    assert result["n_labelled"] == 9 and result["n_failures"] == 17
    assert result["design"].startswith("sample plan: y strata, seed 7")
    for entry in result["codes"].values():
        for side in ("labels_only", "ppi"):
            value = entry["overall"][side]
            assert 0.0 <= value["ci_low"] <= value["estimate"] <= value["ci_high"] <= 1.0
    shares = sum(entry["overall"]["labels_only"]["estimate"] for entry in result["codes"].values())
    assert shares == pytest.approx(1.0)  # primary codes: the shares add up
    cli_result = runner.invoke(cli, ["estimate", run_id, "--format", "json", "--by", "cell"])
    assert cli_result.exit_code == 0, cli_result.output
    assert json.loads(cli_result.stdout)["by"] == "cell"
    table = runner.invoke(cli, ["estimate", run_id])
    assert table.exit_code == 0 and "PPI++" in table.output and "9 of 17 failures" in table.output
    nobody = runner.invoke(cli, ["estimate", run_id, "--annotator", "zoe"])
    assert nobody.exit_code == 1 and "no failure of run srag_v is labelled by zoe" in nobody.output
    bad = runner.invoke(cli, ["estimate", run_id, "--by", "task"])
    assert bad.exit_code == 1 and "cannot estimate by 'task'" in bad.output
