"""DMV-Bench metrics on hand-computed examples: TSR, the trunk-cluster bootstrap, the
trunk-level sign-flip test, strata; and the report / compare / CLI that show them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from builders_dmv import DATA, probes, write_f2_run
from memscope.adapters import ReadOptions
from memscope.analysis.cluster_rates import (
    bin_labels,
    cluster_bootstrap_groups,
    sign_flip_test,
    tsr,
)
from memscope.cli import app
from memscope.store import Store
from memscope.usecases.compare.pairs import compare_runs
from memscope.usecases.report.build import build_report
from memscope.usecases.runs.ingest import ingest_dir_runs
from memscope.usecases.runs.loading import load_run

REPO = Path(__file__).resolve().parents[2]
DEMO_RUN = REPO / "runs" / "dmv_f2_demo"


def test_tsr_is_the_mean_success() -> None:
    assert tsr(np.array([1, 0, 1, 1.0])) == 0.75
    assert tsr(np.array([np.nan, 1.0])) == 1.0
    assert tsr(np.array([])) is None


def test_cluster_bootstrap_resamples_whole_trunks() -> None:
    # Trunk A: two successes; trunk B: one failure. Drawing two trunks gives AA (1.0, p=1/4),
    # AB/BA (2/3, p=1/2) or BB (0.0, p=1/4): the 2.5% and 97.5% percentiles are 0 and 1.
    success = np.array([1.0, 1.0, 0.0])
    trunks = np.array(["A", "A", "B"])
    groups = np.array(["all"] * 3)
    result = cluster_bootstrap_groups(success, trunks, groups, ["all"], resamples=2000, seed=1)[
        "all"
    ]
    assert (result.n, result.n_trunks) == (3, 2)
    assert result.tsr == pytest.approx(2 / 3)
    assert (result.ci_low, result.ci_high) == (0.0, 1.0)
    # One trunk: every resample is the trunk itself.
    single = cluster_bootstrap_groups(success[:2], trunks[:2], groups[:2], ["all"])["all"]
    assert (single.tsr, single.ci_low, single.ci_high) == (1.0, 1.0, 1.0)


def test_cluster_bootstrap_groups_share_draws_and_skip_empty_resamples() -> None:
    success = np.array([1.0, 0.0, 1.0, 1.0, np.nan])
    trunks = np.array(["t1", "t1", "t2", "t3", "t3"])
    reach = np.array(["1", "2", "1", "1", "2"])
    groups = cluster_bootstrap_groups(
        success, trunks, reach, ["1", "2", "3"], resamples=500, seed=7
    )
    assert set(groups) == {"1", "2"}  # reach 3 has no probe; the NaN probe is ignored
    assert (groups["2"].n, groups["2"].tsr, groups["2"].n_trunks) == (1, 0.0, 1)
    # Reach 2 exists only in trunk t1: resamples without t1 are left out, so its interval is [0, 0].
    assert (groups["2"].ci_low, groups["2"].ci_high) == (0.0, 0.0)
    again = cluster_bootstrap_groups(success, trunks, reach, ["1", "2", "3"], resamples=500, seed=7)
    assert again == groups  # reproducible for a seed


def test_sign_flip_test_enumerates_all_patterns_by_hand() -> None:
    # Per-trunk sums of (a - b): t1 = +2, t2 = +1, t3 = -1; T = 2 / 4 = 0.5. Of the eight
    # sign patterns, |s1*2 + s2*1 - s3*1| >= 2 for six: p = 6/8.
    a = np.array([1, 1, 1, 0.0])
    b = np.array([0, 0, 0, 1.0])
    trunks = np.array(["t1", "t1", "t2", "t3"])
    result = sign_flip_test(a, b, trunks, permutations=1000)
    assert result.exact and result.permutations == 8
    assert (result.n, result.n_trunks, result.difference, result.p_value) == (4, 3, 0.5, 0.75)
    assert (result.tsr_a, result.tsr_b) == (0.75, 0.25)
    nothing = sign_flip_test(a, a, trunks)
    assert (nothing.difference, nothing.p_value) == (0.0, 1.0)


def test_sign_flip_test_samples_when_there_are_many_trunks() -> None:
    # Eleven trunks, each one success better in A: only the two all-equal sign patterns
    # (of 2048) reach |T|, so almost no draw does; p = (1 + hits) / (1 + 1000).
    a = np.ones(11)
    b = np.zeros(11)
    trunks = np.array([f"t{i}" for i in range(11)])
    result = sign_flip_test(a, b, trunks, permutations=1000, seed=3)
    assert not result.exact and result.permutations == 1000
    assert 1 / 1001 <= result.p_value < 0.01
    assert sign_flip_test(a, b, trunks, permutations=1000, seed=3) == result


def test_strata_bins() -> None:
    labels, levels = bin_labels(np.array([3, 5, 3, np.nan]))
    assert levels == ["3", "5"] and list(labels) == ["3", "5", "3", ""]
    many = np.arange(1, 101, dtype=float)
    labels, levels = bin_labels(many, max_bins=4)
    assert len(levels) == 4 and levels[0].startswith("1-") and levels[-1].endswith("-100")
    assert all(label in levels for label in labels)


# --- the report, compare and the CLI ----------------------------------------------------


@pytest.fixture
def ingested(store: Store, tmp_path: Path) -> list[str]:
    data = tmp_path / "DMV-Bench" / "data" / "vismem_diag_v2"
    data.mkdir(parents=True)
    shutil.copy(DATA / "cue_registry.json", data / "cue_registry.json")
    shutil.copy(DATA / "seed_v2.json", data / "seed_v2.json")
    run = write_f2_run(
        tmp_path / "DMV-Bench" / "results" / "f2" / "run",
        {"DualMem-a75": probes(True), "TextOnly": probes(False)},
        bank_sizes={
            "f2_chain_d3_s0007": {1: 7, 2: 9},
            "f2_chain_d2_s0007": {1: 7},
            "f2_chain_d3_s0008": {1: 8},
        },
    )
    return [o.run_id for o in ingest_dir_runs(store, run, ReadOptions())]


def test_report_tsr_section_by_hand(store: Store, ingested: list[str]) -> None:
    report = build_report(load_run(store, ingested[0]))
    section = report["tsr"]
    # DualMem-a75 by qid: q1 1 (reach 1), q2 1 (r1), q3 0 (r1), q4 1 (r1), q5 0 (r2), q6 1 (r1; trunk s0008).
    assert {"n", "overall", "ci_low", "ci_high", "by_reach"} <= set(section)
    assert (section["n"], section["overall"], section["n_trunks"], section["resamples"]) == (
        6,
        4 / 6,
        2,
        1000,
    )
    assert set(section["by_reach"]) == {"1", "2"}
    assert section["by_reach"]["1"]["n"] == 5 and section["by_reach"]["1"]["tsr"] == pytest.approx(
        0.8
    )
    assert set(section["by_reach"]["1"]) == {
        "n",
        "tsr",
        "ci_low",
        "ci_high",
        "n_trunks",
        "approximate",
    }
    # One probe in one trunk: no interval (a spread needs two clusters), said approximate.
    assert section["by_reach"]["2"] == {
        "n": 1,
        "tsr": 0.0,
        "ci_low": None,
        "ci_high": None,
        "n_trunks": 1,
        "approximate": True,
    }
    assert {k: v["n"] for k, v in section["by_bank_size"].items()} == {"7": 3, "8": 1, "9": 2}
    assert {k: v["n"] for k, v in section["by_encoding_position"].items()} == {"1": 5, "2": 1}
    for group in section["by_reach"].values():
        if group["n_trunks"] > 1:
            assert group["ci_low"] <= group["tsr"] <= group["ci_high"]
    assert report["k"] == 5 and report["answer"]["overall"]["em"] == pytest.approx(4 / 6)


def test_compare_uses_the_trunk_sign_flip_test(store: Store, ingested: list[str]) -> None:
    result = compare_runs(store, ingested[1], ingested[0])
    significance = result["significance"]
    # Only q2 differs (TextOnly wrong, DualMem right), in trunk s0007; trunk s0008 is tied.
    assert significance["test"] == "trunk sign-flip permutation (two-sided)"
    assert (significance["n"], significance["n_trunks"], significance["exact"]) == (6, 2, True)
    assert significance["difference"] == pytest.approx(1 / 6)
    assert significance["tsr_a"] == pytest.approx(3 / 6) and significance["tsr_b"] == pytest.approx(
        4 / 6
    )
    assert significance["p_value"] == 1.0


def test_cli_ingest_and_report_on_the_demo_run() -> None:
    runner = CliRunner()
    ingested = runner.invoke(app, ["ingest", str(DEMO_RUN)])
    assert ingested.exit_code == 0, ingested.output
    table = runner.invoke(app, ["report", f"{DEMO_RUN}:DualMem-a75"])
    assert table.exit_code == 0, table.output
    assert "Retention curve: TSR by reach" in table.output and "95% CI" in table.output
    assert "█" in table.output  # the bars
    as_json = runner.invoke(app, ["report", "dmv_f2_demo:TextOnly", "--format", "json"])
    assert as_json.exit_code == 0
    report = json.loads(as_json.stdout)
    assert {"run", "k", "answer", "retrieval", "tsr"} <= set(report)
    assert set(report["tsr"]["by_reach"]) == {"1", "2", "3"}
    assert report["tsr"]["n"] == 117 and report["tsr"]["n_trunks"] == 6


def test_cli_names_the_runs_of_a_multi_system_directory() -> None:
    result = CliRunner().invoke(app, ["report", str(DEMO_RUN)])
    assert result.exit_code == 1
    assert (
        "this directory holds 3 runs: dmv_f2_demo:DualMem-a75, dmv_f2_demo:TextOnly, dmv_f2_demo:NoMemory"
        in " ".join(result.output.split())
    )


def test_cli_dmv_registry_option(tmp_path: Path) -> None:
    run = write_f2_run(tmp_path / "f2", {"TextOnly": probes(False)})
    runner = CliRunner()
    result = runner.invoke(
        app, ["report", f"{run}:TextOnly", "--dmv-registry", str(DATA), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    questions = json.loads(result.stdout)["tsr"]
    assert questions["n"] == 6
    missing = runner.invoke(app, ["ingest", str(run), "--dmv-registry", str(tmp_path / "none")])
    assert missing.exit_code == 1 and "--dmv-registry names no cue registry" in missing.output


def test_text_plots_for_the_retention_curve() -> None:
    from memscope.textplot import bar, sparkline

    assert bar(0.5, 4) == "██" and bar(0.5, 1) == "▌" and bar(None, 4) == "" and bar(2.0, 2) == "██"
    assert sparkline([0.0, 0.5, 1.0, None]) == "▁▅█ "
    assert sparkline([2.0, 4.0], minimum=None, maximum=None) == "▁█"


def test_the_probe_view_for_the_app(store: Store, ingested: list[str]) -> None:
    from builders_dmv import HASHES
    from memscope.adapters.dmv.probe import load_probe
    from memscope.usecases.runs.panel_reads import StoredQuestion

    red, blue, green = HASHES[:3]
    view = load_probe(StoredQuestion(store, "dmv", ingested[0], "q2"))
    assert (
        view.probe_id,
        view.task_id,
        view.trunk,
        view.reach,
        view.bank_size,
        view.encoding_position,
    ) == ("s1_r1_p00", "f2_chain_d3_s0007", "s0007", 1, 7, 1)
    assert view.correct and view.final_url == f"/product/{red}" and view.final.url_hash == red
    assert (
        view.target.name == "Lumen Chair 01"
        and view.target.description == "incidental cue: a red wool scarf"
    )
    assert view.target.image_file is None  # no catalogue images here: the app shows the description
    assert [
        (s.step, [p.url_hash for p in s.retrieved], s.target_rank, s.action) for s in view.steps
    ] == [(1, [red, blue], 1, "click"), (2, [red, green], 1, "add_to_wishlist")]
    # TextOnly: the blue scarf, never retrieved
    missed = load_probe(StoredQuestion(store, "dmv", ingested[1], "q3"))
    assert not missed.correct and missed.steps[0].target_rank is None
    from memscope.errors import NotFoundError

    with pytest.raises(NotFoundError):
        load_probe(StoredQuestion(store, "dmv", ingested[0], "q99"))


def test_a_panel_reads_only_its_own_declared_detail_tables(
    store: Store, ingested: list[str]
) -> None:
    """``PanelQuestion.detail_rows``: the question's rows of a declared table (no
    ``run_id``); any other name (memscope's own tables, another benchmark's) is refused
    before it reaches the SQL."""
    from memscope.errors import PluginError
    from memscope.usecases.runs.panel_reads import StoredQuestion

    question = StoredQuestion(store, "dmv", ingested[0], "q2")
    rows = question.detail_rows("dmv_recall_steps")
    assert [row["step"] for row in rows] == [1, 2] and "run_id" not in rows[0]
    for table in ("predictions", "cue_retrieved_items", 'x"; DROP TABLE runs; --'):
        with pytest.raises(PluginError, match="none of its detail tables"):
            question.detail_rows(table)


def test_the_matrix_reads_target_seen_from_the_runs_own_attribute(
    store: Store, ingested: list[str]
) -> None:
    """The matrix's "target seen in any step" is the run's own attribute (``own:NAME``),
    counted over the same probes as the report's ``tsr.recall.seen_any_step``: no store
    query reads DMV-Bench's recall-step table for it (issue 39, item 2)."""
    from memscope.triage.triage_matrix import OWN_METRIC, own_values
    from memscope.usecases.benchmarks import spec_of
    from memscope.usecases.runs import session_io

    key = "own:target_seen_any_step"
    assert key in dict(spec_of("dmv").axes.metrics)
    for run_id in ingested:
        data = session_io.read_run_columns(store, run_id, evidence=False)
        values = own_values(data, key.removeprefix(OWN_METRIC))
        recall = build_report(load_run(store, run_id))["tsr"]["recall"]
        assert int((~np.isnan(values)).sum()) == recall["n_seen_any_step"] > 0
        assert float(np.nanmean(values)) == pytest.approx(recall["seen_any_step"])


def test_cli_strict_refuses_a_bad_row_in_one_message(tmp_path: Path) -> None:
    run = write_f2_run(tmp_path / "f2", {"TextOnly": probes(False)})
    csv_path = run / "f2_per_probe.csv"
    csv_path.write_text(
        csv_path.read_text() + "TextOnly,f2_chain_d3_s0007,s1_r1_p09,1,0,1,2,/product/x,,1\n"
    )
    runner = CliRunner()
    lenient = runner.invoke(app, ["ingest", str(run)])
    assert (
        lenient.exit_code == 0 and "correct must be 0 or 1, got '2'; row skipped" in lenient.output
    )
    strict = runner.invoke(
        app, ["ingest", str(tmp_path / "f2"), "--strict", "--db", str(tmp_path / "other.duckdb")]
    )
    assert strict.exit_code == 1
    assert "1 bad row(s) in f2_per_probe.csv; nothing was ingested (--strict)" in " ".join(
        strict.output.split()
    )
    assert "Traceback" not in strict.output
