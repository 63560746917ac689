"""Is the grader right? ``memscope audit`` end to end on LoCoMo's real Honcho run (issue 28).

The verdicts are our own: we read conversation 26 and judged the 40 answers that
``memscope sample rsr_0612:honcho --for verdicts --n 40`` draws
(``tests/data/verdicts/honcho_conv26.csv``; EVAL-GOLD in a note marks a gold answer that is
itself wrong). The LoCoMo data is CC BY-NC: read from the shared samples, never copied;
the test skips where it is absent.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from builders_locomo import shared_locomo
from memscope.cli import app
from memscope.store import Store
from memscope.usecases.labels.verdicts import record_verdict
from reference import cohen_kappa_score, ppi

pytestmark = pytest.mark.reference  # tests/reference.py
runner = CliRunner()
RUN = "rsr_0612:honcho"
VERDICTS = Path(__file__).resolve().parents[1] / "data" / "verdicts" / "honcho_conv26.csv"
CATEGORIES = ["multi_hop", "temporal", "open_domain", "single_hop", "adversarial"]


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def our_verdicts() -> list[dict[str, str]]:
    with VERDICTS.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def judged(store: Store, ingested_store) -> dict[str, dict[str, object]]:
    """The Honcho run ingested, the verdict sample drawn and our verdicts given."""
    ingested_store(shared_locomo() / "results" / "honcho" / "rsr_0612")
    sample = json.loads(invoke("sample", RUN, "--for", "verdicts", "--n", "40", "--format", "json"))
    rows = our_verdicts()
    # our verdicts are on exactly the answers the sample draws: the audit weights them by it
    assert {item["qid"] for item in sample["queue"]} == {row["qid"] for row in rows}
    first, *rest = rows
    invoke("label", RUN, "-q", first["qid"], "--verdict", first["verdict"], "--annotator", "team")
    for row in rest:
        record_verdict(store, RUN, row["qid"], row["verdict"], annotator="team", note=row["note"])
    return {item["qid"]: item for item in sample["queue"]}


def _judge_scores(root: Path) -> dict[str, float]:
    found = json.loads(
        (root / "results" / "honcho" / "rsr_0612" / "conv-26_qa.json").read_text(encoding="utf-8")
    )[0]["qa"]
    return {f"conv-26:q{n}": float(item["honcho_llm"]) for n, item in enumerate(found, start=1)}


def test_audit_of_the_honcho_judge_against_our_verdicts(judged: dict) -> None:
    root = shared_locomo()
    judge = _judge_scores(root)
    rows = [row for row in our_verdicts() if row["verdict"] != "unsure"]
    people = np.array([1.0 if row["verdict"] == "correct" else 0.0 for row in rows])
    grader = np.array([judge[row["qid"]] for row in rows])

    data = json.loads(invoke("audit", RUN, "--metric", "judge", "--format", "json"))
    agreement = data["agreement"]
    assert agreement["n"] == 39 and data["n_unsure"] == 1 and data["weighted"] is True
    assert agreement["kappa"] == pytest.approx(cohen_kappa_score(people, grader))
    assert agreement["accuracy"] == pytest.approx(float((people == grader).mean()))
    # the judge passed a list missing a pet, and failed two right answers (one where the
    # gold answer itself is wrong: EVAL-GOLD)
    assert {item["qid"] for item in data["disagreements"]} == {
        "conv-26:q40",
        "conv-26:q53",
        "conv-26:q162",
    }
    levels = {level["level"]: level for level in data["levels"]}
    assert list(levels) == ["all", *CATEGORIES]
    assert levels["all"]["n_questions"] == 199 and levels["all"]["n_verdicts"] == 39
    assert levels["all"]["metric_mean"] == pytest.approx(np.mean(list(judge.values())))
    for name in CATEGORIES:
        assert levels[name]["n_verdicts"] >= 2 and levels[name]["ppi"] is not None
        assert 0.0 <= levels[name]["ppi"]["lambda"] <= 1.0
    assert data["stratified"] is not None
    # Accuracies are shares: with a handful of verdicts per level their normal intervals
    # pass 0 or 1, and the JSON reports them within the bounds, as the screen does.
    shares = [data["stratified"]] + [
        level[kind] for level in data["levels"] for kind in ("verdict_only", "ppi")
    ]
    for share in shares:
        assert 0.0 <= share["low"] <= share["estimate"] <= share["high"] <= 1.0, share
    assert any(share["high"] == 1.0 or share["low"] == 0.0 for share in shares)


def test_plugin_variance_is_ppi_pythons_with_the_design_weights(judged: dict) -> None:
    root = shared_locomo()
    judge = _judge_scores(root)
    rows = [row for row in our_verdicts() if row["verdict"] != "unsure"]
    people = np.array([1.0 if row["verdict"] == "correct" else 0.0 for row in rows])
    grader = np.array([judge[row["qid"]] for row in rows])
    weights = np.array([1.0 / judged[row["qid"]]["inclusion_probability"] for row in rows])
    everyone = np.array(list(judge.values()))
    data = json.loads(
        invoke("audit", RUN, "--metric", "judge", "--variance", "plugin", "--format", "json")
    )
    overall = data["levels"][0]["ppi"]
    low, high = np.clip(
        ppi().ppi_mean_ci(people, grader, everyone, alpha=0.05, w=weights), 0.0, 1.0
    )
    assert overall["low"] == pytest.approx(float(np.ravel(low)[0]), abs=1e-12)
    assert overall["high"] == pytest.approx(float(np.ravel(high)[0]), abs=1e-12)


def test_audit_table_and_raters_on_the_honcho_run(judged: dict) -> None:
    shown = invoke("audit", RUN)
    for text in ("sensitivity", "specificity", "kappa", "PPI++", "Temporal", "Adversarial"):
        assert text in shown
    assert "conv-26:q162" in shown and "EVAL-GOLD" in shown
    raters = json.loads(invoke("audit", RUN, "--raters", "--format", "json"))
    assert raters["raters"] == ["judge>=0.5", "f1>=0.5", "team"]
    judge_f1 = raters["pairs"][0]
    assert judge_f1["n"] == 199 and judge_f1["agreement"] == pytest.approx(161 / 199)
    assert raters["krippendorff_alpha"] is not None


def test_the_readme_quotes_the_audit(judged: dict) -> None:
    readme = " ".join(
        (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").split()
    )
    data = json.loads(invoke("audit", RUN, "--format", "json"))
    agreement = data["agreement"]
    overall = data["levels"][0]
    ppi = overall["ppi"]
    quoted = (
        f"agrees with people on {100 * agreement['accuracy']:.0f} % of {agreement['n']} answers "
        f"(one unsure), kappa {agreement['kappa']:.2f}"
    )
    assert quoted in readme
    corrected = (
        f"The judge's {100 * overall['metric_mean']:.1f} % becomes {100 * ppi['estimate']:.1f} % "
        f"[{100 * ppi['low']:.0f}, {100 * ppi['high']:.0f}] corrected"
    )
    assert corrected in readme
