"""The small-sample cluster intervals (analysis/clustered.py) against scipy and statsmodels,
and their use in ``table``, ``report`` and ``compare`` on the DMV-Bench demo (issue 41)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from memscope.analysis.clustered import (
    MIN_CLUSTERS,
    difference_interval,
    mean_interval,
    share_interval,
    t_quantile,
)
from memscope.cli import app
from reference import proportion_confint, scipy_stats, statsmodels_api

pytestmark = pytest.mark.reference  # tests/reference.py

DEMO = Path(__file__).parents[2] / "runs" / "dmv_f2_demo"
runner = CliRunner()


@pytest.mark.parametrize("df", [1, 2, 3, 5, 6, 11, 29, 30, 64])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_t_quantile_is_scipys(df: int, level: float) -> None:
    assert t_quantile(level, df) == pytest.approx(
        scipy_stats().t.ppf((1 + level) / 2, df), rel=1e-9
    )


def _clustered(seed: int, groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    sizes = 1 + rng.poisson(12, groups)
    cluster = np.repeat(np.arange(groups), sizes)
    effect = rng.normal(0, 0.8, groups)[cluster]
    a = (rng.normal(size=cluster.size) + effect > 0.3).astype(float)
    b = (rng.normal(size=cluster.size) + effect > -0.4).astype(float)
    return a, b, cluster


@pytest.mark.parametrize("groups", [6, 12, 30])
def test_difference_interval_is_statsmodels_cluster_robust_t(groups: int) -> None:
    a, b, cluster = _clustered(groups, groups)
    d = b - a
    fit = (
        statsmodels_api()
        .OLS(d, np.ones_like(d))
        .fit(cov_type="cluster", cov_kwds={"groups": cluster}, use_t=True)
    )
    low, high = fit.conf_int(alpha=0.05)[0]
    found = difference_interval(d, cluster, level=0.95)
    assert found.mean == pytest.approx(fit.params[0])
    assert (found.ci_low, found.ci_high) == (pytest.approx(low), pytest.approx(high))
    assert found.n_clusters == groups and found.approximate == (groups < MIN_CLUSTERS)


def test_share_interval_is_wilson_at_the_design_effect() -> None:
    a, _, cluster = _clustered(3, 8)
    found = share_interval(a, cluster, level=0.95)
    n, p = a.size, a.mean()
    sums = np.bincount(cluster, weights=a)
    counts = np.bincount(cluster)
    robust = 8 / 7 * ((sums - p * counts) ** 2).sum() / n**2
    effective = n / max(1.0, robust / (p * (1 - p) / n))
    z = scipy_stats().t.ppf(0.975, 7)
    centre = (p + z**2 / (2 * effective)) / (1 + z**2 / effective)
    half = (
        z / (1 + z**2 / effective) * math.sqrt(p * (1 - p) / effective + z**2 / (4 * effective**2))
    )
    assert (found.ci_low, found.ci_high) == (
        pytest.approx(centre - half),
        pytest.approx(centre + half),
    )


def test_without_clustering_the_share_interval_is_at_least_wilson() -> None:
    # Independent questions, one per cluster: the design effect is G/(G-1) and t > z, so
    # the interval holds Wilson's (statsmodels) and lies in [0, 1] even at 0 successes.
    for successes in (0, 3, 60):
        values = np.zeros(60)
        values[:successes] = 1
        found = share_interval(values, np.arange(60), level=0.95)
        low, high = proportion_confint(successes, 60, alpha=0.05, method="wilson")
        assert 0.0 <= found.ci_low <= low + 1e-12 and high - 1e-12 <= found.ci_high <= 1.0


def test_one_cluster_gives_no_interval_and_values_beyond_one_stay_in_their_range() -> None:
    found = share_interval(np.array([1.0, 0.0, 1.0]), np.array(["t", "t", "t"]), level=0.95)
    assert found.mean == pytest.approx(2 / 3) and found.ci_low is None and found.n_clusters == 1
    ranks = np.array([1.0, 5.0, 2.0, 9.0, 3.0, 4.0])
    found = mean_interval(ranks, np.array([0, 0, 1, 1, 2, 2]), level=0.95)
    assert 1.0 <= found.ci_low <= found.mean <= found.ci_high <= 9.0


def _json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_table_delta_uses_trunks_as_compare_does() -> None:
    table = _json("table", str(DEMO), "--ci", "--baseline", "TextOnly")
    rows = {row["label"]: row for row in table["rows"]}
    overall = rows["DualMem-a75"]["cells"]["all"]
    compared = _json("compare", "dmv_f2_demo:TextOnly", "dmv_f2_demo:DualMem-a75")
    # The † is compare's trunk sign-flip test: p = 0.0625 over 6 trunks, not significant.
    assert overall["delta_p"] == compared["significance"]["p_value"] == pytest.approx(0.0625)
    assert overall["significant"] is False
    assert (overall["delta_low"], overall["delta_high"]) == (
        compared["delta"]["overall"]["ci_low"],
        compared["delta"]["overall"]["ci_high"],
    )
    assert overall["n_clusters"] == 6 and overall["approximate"] is True
    # NoMemory 8/117: the interval holds even the Wilson interval that ignores the trunks.
    nomemory = rows["NoMemory"]["cells"]["all"]
    low, high = proportion_confint(8, 117, alpha=0.05, method="wilson")
    assert nomemory["ci_low"] <= low and nomemory["ci_high"] >= high


def test_every_output_says_the_interval_is_approximate() -> None:
    for args in (
        ("table", str(DEMO), "--ci", "--baseline", "TextOnly"),
        ("table", str(DEMO), "--ci", "-f", "markdown"),
        ("table", str(DEMO), "--ci", "-f", "latex"),
        ("report", "dmv_f2_demo:NoMemory"),
        ("compare", "dmv_f2_demo:TextOnly", "dmv_f2_demo:DualMem-a75"),
    ):
        result = runner.invoke(app, list(args), terminal_width=200)
        assert result.exit_code == 0, result.output
        assert "6 clusters: interval approximate" in " ".join(result.output.split()), args
    csv_text = runner.invoke(app, ["table", str(DEMO), "--ci", "-f", "csv"]).stdout
    header, first = csv_text.splitlines()[:2]
    fields = dict(zip(header.split(","), first.split(","), strict=True))
    assert fields["all n_clusters"] == "6" and fields["all approximate"] == "1"
    report = _json("report", "dmv_f2_demo:NoMemory")["tsr"]
    assert report["approximate"] is True and report["n_trunks"] == 6


def test_a_mean_over_tasks_with_intervals_is_refused_over_clusters() -> None:
    result = runner.invoke(app, ["table", str(DEMO), "--ci", "--average", "tasks"])
    assert result.exit_code == 1
    assert "intervals are over its clusters" in " ".join(result.output.split())
