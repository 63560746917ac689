"""LoCoMo harness outputs through the CLI (issue 38): ingest once with --dataset and the
directory works without it afterwards; the table names each row's harness, says the judges
differ and what a ``–`` means; cost metrics; compare pairs two harnesses' shared questions.
The real files are read from shared/upstream-samples/locomo-harnesses (never copied)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from builders_locomo import shared_locomo, small_dataset, write_json
from builders_locomo_harness import mem0_file, memu_file, shared_harnesses, zep_files
from memscope.cli import app

runner = CliRunner()


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def systems(tmp_path: Path) -> tuple[Path, Path]:
    """Zep's and Memobase's (mem0 harness) outputs over the small dataset, which lies in a
    folder of its own (not in a data/ folder above them)."""
    dataset = write_json(tmp_path / "elsewhere" / "dataset.json", small_dataset())
    grades, responses = zep_files(small_dataset(), judged={"conv-a:q1": False})
    write_json(tmp_path / "runs" / "zep" / "zep_locomo_grades.json", grades)
    write_json(tmp_path / "runs" / "zep" / "zep_locomo_responses.json", responses)
    write_json(
        tmp_path / "runs" / "memobase" / "memobase_results.json",
        mem0_file(small_dataset(), judged={"conv-b:q1": False, "conv-b:q2": False}),
    )
    return tmp_path / "runs", dataset


def test_the_store_remembers_the_dataset_a_run_was_ingested_with(tmp_path: Path) -> None:
    runs, dataset = systems(tmp_path)
    result = runner.invoke(app, ["ingest", str(runs)])
    assert result.exit_code != 0 and "--dataset" in result.output  # not found beside the runs
    invoke("ingest", str(runs), "--dataset", str(dataset))
    for folder in (runs, runs / "zep"):  # afterwards, no flag
        table = json.loads(
            invoke("table", str(folder), "--by", "category", "--metric", "judge", "-f", "json")
        )
        assert table["rows"]
    report = runner.invoke(app, ["report", str(runs / "zep")])
    assert report.exit_code == 0, report.output


def test_the_table_names_harnesses_and_says_their_judges_differ(tmp_path: Path) -> None:
    runs, dataset = systems(tmp_path)
    invoke("ingest", str(runs), "--dataset", str(dataset))
    table = json.loads(
        invoke("table", str(runs), "--by", "category", "--metric", "judge", "-f", "json")
    )
    rows = {row["label"]: row for row in table["rows"]}
    assert rows["zep"]["cells"]["all"] == {"value": 7 / 8, "n": 8, "best": True}
    assert rows["memobase"]["cells"]["all"]["value"] == 6 / 8
    assert "category:adversarial" not in rows["zep"]["cells"]  # not evaluated, never 0
    notes = " · ".join(table["notes"])
    assert "zep: Zep locomo_eval grades" in notes and "memobase: mem0 evals.py" in notes
    assert "their judges (model and prompt) differ" in notes
    assert "a category the harness did not evaluate (not 0)" in notes
    text = invoke("table", str(runs), "--by", "category", "--metric", "judge", "-f", "markdown")
    assert "their judges (model and prompt) differ" in text
    listed = json.loads(invoke("runs", "--format", "json"))
    assert {r["run_id"]: r["harness"] for r in listed} == {
        "zep:zep_locomo_grades": "Zep locomo_eval grades",
        "memobase:memobase_results": "mem0 evals.py",
    }


def test_latency_cells_are_median_and_p95_and_a_run_without_says_so(tmp_path: Path) -> None:
    runs, dataset = systems(tmp_path)
    invoke("ingest", str(runs), "--dataset", str(dataset))
    table = json.loads(invoke("table", str(runs), "--metric", "latency", "-f", "json"))
    rows = {row["label"]: row for row in table["rows"]}
    # Zep's responses: 1000 + 10 × the 0-based position: 0,10,20,30,50,60 (conv-a), 0,10 (conv-b)
    cell = rows["zep"]["cells"]["all"]
    assert cell["value"] == 1015.0 and cell["n"] == 8
    assert abs(cell["p95"] - (1050 + 0.65 * 10)) < 1e-9
    assert rows["memobase"]["cells"]["all"]["value"] is None
    assert any("no latency in the files of: memobase" in note for note in table["notes"])
    # The terminal table shows the p95 its caption names, as markdown does.
    text = invoke("table", str(runs / "zep"), "--metric", "latency")
    assert "(median, p95)" in text and "p95 1056" in text
    latex = invoke("table", str(runs / "zep"), "--metric", "latency", "-f", "latex")
    assert r"1015 {\scriptsize p95 1056}" in latex
    header, line = invoke(
        "table", str(runs / "zep"), "--metric", "latency", "-f", "csv"
    ).splitlines()
    fields = dict(zip(header.split(","), line.split(","), strict=True))
    assert fields["all"] == "1015.000000" and fields["all p95"] == "1056.500000"


def test_compare_pairs_two_harnesses_question_by_question(tmp_path: Path) -> None:
    runs, dataset = systems(tmp_path)
    write_json(runs / "memu" / "result.json", memu_file(small_dataset()))
    invoke("ingest", str(runs), "--dataset", str(dataset))
    out = json.loads(
        invoke("compare", "zep:zep_locomo_grades", "memobase:memobase_results", "--format", "json")
    )
    assert out["matched"] == 8


def test_real_zep_and_memobase_pair_1540_questions() -> None:
    harnesses = shared_harnesses()
    dataset = shared_locomo() / "data" / "locomo10.json"
    invoke(
        "ingest", str(harnesses / "zep"), str(harnesses / "mem0-evals"), "--dataset", str(dataset)
    )
    out = json.loads(
        invoke(
            "compare",
            "zep:zep_locomo_grades",
            "mem0-evals:memobase_eval_0503_3000",
            "--format",
            "json",
        )
    )
    assert out["matched"] == 1540
    (by_category,) = [a for a in out["delta"]["by_axes"] if a["rows"] == "category"][:1]
    deltas = {row["level"]: (row["value"], row["n"]) for row in by_category["delta"]["by_row"]}
    assert {level: n for level, (_v, n) in deltas.items()} == {
        "multi_hop": 282, "temporal": 321, "open_domain": 96, "single_hop": 841
    }  # fmt: skip
    # Δ = Memobase − Zep per category, from both systems' own figures (README).
    assert abs(deltas["temporal"][0] - (0.8037 - 0.6604)) < 1e-3


def test_check_upstream_compares_the_harness_summaries(tmp_path: Path) -> None:
    runs, dataset = systems(tmp_path)
    write_json(
        runs / "memu" / "result.json", memu_file(small_dataset(), judged={"conv-a:q3": False})
    )
    result = runner.invoke(app, ["ingest", str(runs), "--dataset", str(dataset)])
    assert result.exit_code == 0 and "agrees with upstream's summary result.json" in result.stderr
    out = json.loads(invoke("table", str(runs), "--check-upstream", "-f", "json"))
    check = out["upstream"]
    assert check["n_runs_checked"] == 1 and check["n_disagreeing"] == 0
    assert {c["field"] for c in check["checks"]} >= {"overall_accuracy", "category_accuracies.1"}
    assert set(check["runs_without_summary"]) == {
        "zep:zep_locomo_grades",
        "memobase:memobase_results",
    }


def test_compare_metric_f1_uses_locomos_f1_and_judges_of_two_harnesses_are_named(
    tmp_path: Path,
) -> None:
    runs, dataset = systems(tmp_path)
    invoke("ingest", str(runs), "--dataset", str(dataset))
    judged = runner.invoke(
        app, ["compare", "zep:zep_locomo_grades", "memobase:memobase_results", "-f", "json"]
    )
    assert judged.exit_code == 0
    (warning,) = json.loads(judged.stdout)["warnings"]
    assert "different harnesses (Zep locomo_eval grades vs mem0 evals.py)" in warning
    out = json.loads(
        invoke(
            "compare",
            "zep:zep_locomo_grades",
            "memobase:memobase_results",
            "--metric",
            "f1",
            "-f",
            "json",
        )
    )
    assert out["metric"] == {"key": "f1", "label": "F1"}
    assert out["warnings"] == []
    # Both systems answered the gold itself: LoCoMo's F1 is 1 for every answer of both.
    assert out["delta"]["overall"]["score_a"] == 1.0 and out["delta"]["overall"]["delta"] == 0.0
    refused = runner.invoke(
        app, ["compare", "zep:zep_locomo_grades", "memobase:memobase_results", "--metric", "bleu"]
    )
    assert refused.exit_code != 0 and "compare compares f1 or judge" in refused.output


def test_report_names_the_harness_and_what_answers_cost(tmp_path: Path) -> None:
    runs, dataset = systems(tmp_path)
    invoke("ingest", str(runs), "--dataset", str(dataset))
    text = invoke("report", "zep:zep_locomo_grades")
    assert "harness Zep locomo_eval grades" in " ".join(text.split())
    assert "Cost: latency median 1015 ms, p95 1056 ms (n 8) · tokens not recorded" in text
    out = json.loads(invoke("report", "zep:zep_locomo_grades", "--format", "json"))
    assert out["harness"] == "Zep locomo_eval grades"
    assert out["cost"] == {"latency_ms": {"median": 1015.0, "p95": 1056.5, "n": 8}, "tokens": None}
    assert "cost" not in json.loads(invoke("report", "memobase:memobase_results", "-f", "json"))


def test_audit_raters_counts_each_judge_run_as_a_rater(tmp_path: Path) -> None:
    from builders_locomo_harness import evermemos_file

    dataset = write_json(tmp_path / "data" / "locomo10.json", small_dataset())
    folder = tmp_path / "outputs" / "gpt-4o-mini-memu"
    write_json(
        folder / "eval_results.json", evermemos_file(small_dataset(), third_wrong={"conv-a:q1"})
    )
    invoke("ingest", str(folder), "--dataset", str(dataset))
    out = json.loads(invoke("audit", "gpt-4o-mini-memu:eval_results", "--raters", "-f", "json"))
    assert out["raters"][-3:] == ["judge run 1", "judge run 2", "judge run 3"]
    pairs = {(p["first"], p["second"]): p for p in out["pairs"]}
    # The third judge run called conv-a:q1 wrong: 7 of the 8 answers agree with the first.
    assert pairs[("judge run 1", "judge run 3")]["n"] == 8
    assert pairs[("judge run 1", "judge run 3")]["agreement"] == 7 / 8
    assert pairs[("judge run 1", "judge run 2")]["agreement"] == 1.0


def test_mirix_run_files_are_repeats_pooled_in_one_row_with_their_spread(tmp_path: Path) -> None:
    from builders_locomo_harness import mirix_file

    write_json(tmp_path / "data" / "locomo10.json", small_dataset())
    folder = tmp_path / "outputs" / "mirix"
    wrong = [{}, {"conv-a:q1": False}, {"conv-a:q1": False, "conv-a:q2": False}]
    for number, judged in enumerate(wrong, start=1):
        write_json(
            folder / f"evaluation_metrics_run{number}.json",
            mirix_file(small_dataset(), judged=judged),
        )
    invoke("ingest", str(folder))  # the dataset in data/ above: no flag needed
    pooled = json.loads(
        invoke("table", str(folder), "--repeats", "-f", "json", "--metric", "judge")
    )
    (row,) = pooled["rows"]
    assert len(row["runs"]) == 3 and pooled["repeats"] is True
    cell = row["cells"]["all"]
    assert cell["value"] == (8 + 7 + 6) / 24 and cell["n"] == 24
    assert cell["repeats"]["n_runs"] == 3
    assert abs(cell["repeats"]["mean"] - 7 / 8) < 1e-12
    assert abs(cell["repeats"]["sd"] - 1 / 8) < 1e-12  # values 1, 7/8, 6/8
    split = json.loads(invoke("table", str(folder), "--per-run", "-f", "json", "--metric", "judge"))
    assert len(split["rows"]) == 3
    # The terminal table shows the spread its caption explains (m±s×r), not only JSON does.
    text = invoke("table", str(folder), "--repeats", "--metric", "judge")
    assert "m±s×r" in text and "0.875±0.125×3" in text
    # ... and so do the paper formats: LaTeX's cell, CSV's own fields.
    latex = invoke("table", str(folder), "--repeats", "--metric", "judge", "-f", "latex")
    assert r"0.875$\pm$0.125$\times$3" in latex
    csv_text = invoke("table", str(folder), "--repeats", "--metric", "judge", "-f", "csv")
    header, line = csv_text.splitlines()
    fields = dict(zip(header.split(","), line.split(","), strict=True))
    assert fields["all repeats_mean"] == "0.875000" and fields["all repeats_sd"] == "0.125000"
    assert fields["all repeats_runs"] == "3"


def test_a_refused_ingest_leaves_no_new_store_file(tmp_path: Path) -> None:
    write_json(tmp_path / "data" / "locomo10.json", small_dataset())
    folder = tmp_path / "outputs" / "x"
    write_json(
        folder / "mem0_results.json", {"7": mem0_file(small_dataset())["0"]}
    )  # no 8th conversation
    store = tmp_path / "new" / "store.duckdb"
    result = runner.invoke(app, ["ingest", str(folder), "--db", str(store)])
    assert result.exit_code == 1 and "conversation index 7 is not in the dataset" in result.output
    assert not store.exists() and not store.with_name("store.duckdb.wal").exists()


def test_the_harness_own_f1_and_bleu_are_metrics_under_their_own_names(tmp_path: Path) -> None:
    """Issue 38 item 5: ``--metric f1`` is LoCoMo's F1; the harness's own F1 and BLEU stay
    available as ``harness_f1`` and ``harness_bleu``, and a harness that writes none says so."""
    runs, dataset = systems(tmp_path)
    invoke("ingest", str(runs), "--dataset", str(dataset))
    for metric, own in (("harness_f1", 0.25), ("harness_bleu", 0.5)):  # mem0_file's values
        table = json.loads(invoke("table", str(runs), "--metric", metric, "-f", "json"))
        rows = {row["label"]: row["cells"]["all"] for row in table["rows"]}
        assert rows["memobase"]["value"] == own and rows["memobase"]["n"] == 8
        assert rows["zep"]["value"] is None  # Zep's grades carry no lexical score
        assert any(f"no {metric} in the files of: zep" in note for note in table["notes"])
    lexical = json.loads(invoke("table", str(runs), "--metric", "f1", "-f", "json"))
    assert {row["label"]: row["cells"]["all"]["value"] for row in lexical["rows"]}[
        "memobase"
    ] != 0.25  # LoCoMo's own F1, recomputed from the answers


def test_compare_prints_the_delta_per_category(tmp_path: Path) -> None:
    """Issue 38: ``compare`` of two harnesses reports Δ per category on the terminal, not
    only in its JSON (LoCoMo has no X/Y matrix, so nothing per category was printed)."""
    runs, dataset = systems(tmp_path)
    invoke("ingest", str(runs), "--dataset", str(dataset))
    args = ("compare", "zep:zep_locomo_grades", "memobase:memobase_results")
    text = invoke(*args)
    assert "Δ share correct = B − A per category" in text
    by_row = {
        row["level"]: row
        for row in json.loads(invoke(*args, "--format", "json"))["delta"]["by_axes"][0]["delta"][
            "by_row"
        ]
    }
    assert by_row["single_hop"]["value"] == -0.2  # memobase wrong on conv-b:q1, q2 of 5
    labels = {"multi_hop": "Multi-hop", "temporal": "Temporal", "open_domain": "Open-domain"}
    for level, label in {**labels, "single_hop": "Single-hop"}.items():
        (line,) = [line for line in text.splitlines() if f" {label} " in line]
        assert f"{by_row[level]['value']:+.3f}" in line and f" {by_row[level]['n']} " in line
    scored = invoke(*args, "--metric", "f1")
    assert "Δ F1 = B − A per category" in scored


def test_report_gives_a_harness_runs_cost_or_says_it_has_none(tmp_path: Path) -> None:
    """Issue 38 item 6: report shows what a system's answers cost, and a harness run
    without latency or tokens says so (as table --metric latency does)."""
    runs, dataset = systems(tmp_path)
    invoke("ingest", str(runs), "--dataset", str(dataset))
    zep = invoke("report", "zep:zep_locomo_grades")
    assert "Cost: latency median 1015 ms" in zep and "tokens not recorded" in zep
    memobase = invoke("report", "memobase:memobase_results")
    assert "Cost: latency and tokens not recorded in the harness's files" in memobase


def test_shared_puts_every_row_over_the_questions_all_rows_hold(tmp_path: Path) -> None:
    """Zep's file lacks a question memU's holds (conv-b's last): by default each row is over
    its own questions (each equals its harness's overall); --shared drops what not every row
    holds and says how many each row left out."""
    dataset = write_json(tmp_path / "data" / "locomo10.json", small_dataset())
    fewer = small_dataset()
    fewer[1]["qa"] = fewer[1]["qa"][:-1]
    grades, responses = zep_files(fewer)
    write_json(tmp_path / "runs" / "zep" / "zep_locomo_grades.json", grades)
    write_json(tmp_path / "runs" / "zep" / "zep_locomo_responses.json", responses)
    write_json(tmp_path / "runs" / "memu" / "result.json", memu_file(small_dataset()))
    invoke("ingest", str(tmp_path / "runs"), "--dataset", str(dataset))

    def table(*extra: str) -> dict:
        args = ("table", str(tmp_path / "runs"), "--by", "category", "--metric", "judge")
        return json.loads(invoke(*args, *extra, "-f", "json"))

    own = {row["label"]: row for row in table()["rows"]}
    shared_table = table("--shared")
    shared = {row["label"]: row for row in shared_table["rows"]}
    extra = own["memu"]["cells"]["all"]["n"] - own["zep"]["cells"]["all"]["n"]
    assert extra > 0  # memU holds questions Zep's file does not
    assert shared["memu"]["cells"]["all"]["n"] == shared["zep"]["cells"]["all"]["n"]
    assert shared["zep"]["cells"]["all"] == own["zep"]["cells"]["all"]  # Zep lost none
    assert "category:adversarial" not in shared["memu"]["cells"]
    notes = " · ".join(shared_table["notes"])
    n_shared = own["zep"]["cells"]["all"]["n"]
    assert f"over the {n_shared} questions all rows hold (left out: memu {extra})" in notes
    assert "the runs hold different questions" not in notes  # said once, by --shared
    assert "--shared restricts every row" in " · ".join(table()["notes"])
