"""Stratified sample plans: allocation, order, inclusion probabilities, persistence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memscope.analysis.sampling import allocate, sample_order, stratum_spread
from memscope.errors import InputError
from memscope.store import Store
from memscope.usecases.labels.sample import (
    failures,
    load_sample,
    open_sample,
    plan_sample,
    sample_progress,
)

RUN = Path(__file__).resolve().parents[2] / "runs" / "srag_v"


def test_proportional_allocation_with_a_minimum_per_stratum() -> None:
    sizes = {"A": 100, "B": 50, "C": 3, "D": 1}
    counts = allocate(sizes, 30)
    assert sum(counts.values()) == 30
    assert counts["D"] == 1 and counts["C"] >= 2
    assert counts["A"] > counts["B"] > counts["C"]
    assert allocate(sizes, 1000) == sizes  # capped at every stratum's size
    small = allocate(sizes, 3)
    assert small == {"A": 2, "B": 1, "C": 0, "D": 0}  # too few for a minimum: proportional


def test_neyman_allocation_follows_the_spread() -> None:
    sizes = {"A": 100, "B": 100}
    counts = allocate(sizes, 40, method="neyman", spreads={"A": 0.8, "B": 0.2})
    assert sum(counts.values()) == 40 and counts["A"] > counts["B"] >= 2
    assert stratum_spread(["X", "X", "X"]) == 0.0
    assert stratum_spread(["X", "Y"]) == pytest.approx(np.sqrt(0.5))


def test_sample_order_is_seeded_planned_first_and_interleaved() -> None:
    strata = ["A"] * 60 + ["B"] * 30 + ["C"] * 10
    items, counts = sample_order(strata, 20, seed=3)
    again, _ = sample_order(strata, 20, seed=3)
    other, _ = sample_order(strata, 20, seed=4)
    assert [i.row for i in items] == [i.row for i in again]
    assert [i.row for i in items] != [i.row for i in other]
    assert sorted(i.row for i in items) == list(range(100))
    planned = [i for i in items if i.planned]
    assert len(planned) == 20 and all(i.planned for i in items[:20])
    assert counts == {"A": 12, "B": 6, "C": 2}
    for item in items:
        assert item.inclusion_probability == pytest.approx(
            counts[item.stratum] / strata.count(item.stratum)
        )
    # Any prefix of the plan stays near the planned shares: the first 10 hold about half of each.
    first = [i.stratum for i in items[:10]]
    assert 5 <= first.count("A") <= 7 and 2 <= first.count("B") <= 4


def test_plan_is_stored_and_resumed(store: Store, ingested_store) -> None:
    run_id = ingested_store(RUN)[0]
    found = failures(store, run_id)
    assert len(found) == 17
    plan = plan_sample(store, run_id, seed=11, strata="y", sample_size=9)
    assert plan.per_stratum == {
        "Y1": {"failures": 7, "planned": 4},
        "Y2": {"failures": 4, "planned": 2},
        "Y3": {"failures": 6, "planned": 3},
    }
    stored = load_sample(store, run_id)
    assert stored is not None and stored.qids == plan.qids and stored.seed == 11
    same, new = open_sample(store, run_id, seed=11)
    assert not new and same.qids == plan.qids
    redrawn, new = open_sample(store, run_id, strata="cell")
    assert new and redrawn.seed == 11 and redrawn.sample_size == 9 and redrawn.strata == "cell"
    assert "9 of 17 failures planned" in redrawn.describe()
    first = redrawn.qids[0]
    text = sample_progress(redrawn, {first}, first)
    stratum = redrawn.stratum_of[first]
    size = sum(1 for q in redrawn.planned if redrawn.stratum_of[q] == stratum)
    assert text == f"sample: 1 of 9 planned · stratum {stratum} 1/{size}"
    with pytest.raises(InputError, match="unknown strata"):
        plan_sample(store, run_id, strata="task")


def test_sample_options_need_the_sample_queue() -> None:
    from typer.testing import CliRunner

    from memscope.cli import app as cli

    result = CliRunner().invoke(cli, ["open", str(RUN), "--seed", "3"])
    assert result.exit_code == 1 and "--seed go(es) with --queue sample" in result.output
    shown = CliRunner().invoke(cli, ["sample", str(RUN), "--sample-size", "0"])
    assert shown.exit_code == 2 and "'--sample-size': 0 is not in the range" in shown.output
