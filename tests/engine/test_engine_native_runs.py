"""Native runs: ``memscope retrieve`` writes the MemEye layout plus retrieval.jsonl, and reads back.

SRAG(T) uses the real packaged MiniLM; SRAG(V) and DualMem use the tiny open_clip with
random weights, so their tests check files and shapes, not which rounds win.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.engine_helpers import KITCHEN, KITCHEN_OPEN, read_jsonl, upstream_rag_runs
from memscope.cli import app

runner = CliRunner()


def retrieve(*args: str) -> object:
    return runner.invoke(app, ["retrieve", *args])


def test_a_retrieval_only_srag_t_run_has_the_memeye_layout(
    tmp_path: Path, seeded_store, minilm
) -> None:
    out = tmp_path / "runs" / "srag_t"
    result = retrieve(
        str(KITCHEN), "--method", "srag_t", "--k", "5", "--pool", "8", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} == {
        "config.json",
        "metrics.json",
        "predictions.jsonl",
        "retrieval.jsonl",
    }
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["method_name"] == "semantic_rag_text_only" and metrics["num_qas_run"] == 6
    assert metrics["memscope"]["status"] == "complete" and metrics["memscope"]["retrieval_only"]
    assert metrics["method_runtime"]["top_k"] == 5 and metrics["summary"]["overall"] == {}
    rows = read_jsonl(out / "predictions.jsonl")
    pools = read_jsonl(out / "retrieval.jsonl")
    assert [row["idx"] for row in rows] == [pool["idx"] for pool in pools] == list(range(1, 7))
    for row, pool in zip(rows, pools, strict=True):
        assert row["pred"] is None and row["em"] is None and row["judge"] is None
        runtime = row["method_runtime"]
        assert len(runtime["seed_round_ids"]) == 5 and len(runtime["top_candidates"]) == 5
        assert pool["qid"] == f"q{row['idx']}"
        assert [entry["rank"] for entry in pool["pool"]] == list(range(1, 9))
        assert [entry["round_id"] for entry in pool["pool"][:5]] == runtime["seed_round_ids"]
        assert all(
            entry["score"] == entry["text_score"] and entry["image_score"] is None
            for entry in pool["pool"]
        )


def test_native_srag_t_reproduces_the_upstream_memeye_run(
    tmp_path: Path, seeded_store, minilm
) -> None:
    """Same dataset, same model, same K: the seeds MemEye logged, question by question."""
    out = tmp_path / "mine"
    assert (
        retrieve(str(KITCHEN), "--method", "srag_t", "--k", "5", "--out", str(out)).exit_code == 0
    )
    upstream = next(
        run
        for run in upstream_rag_runs()
        if json.loads((run / "metrics.json").read_text())["mode"] == "mcq"
    )
    theirs = {
        row["idx"]: row["method_runtime"] for row in read_jsonl(upstream / "predictions.jsonl")
    }
    for row in read_jsonl(out / "predictions.jsonl"):
        assert row["method_runtime"]["seed_round_ids"] == theirs[row["idx"]]["seed_round_ids"]
        for mine, logged in zip(
            row["method_runtime"]["top_candidates"],
            theirs[row["idx"]]["top_candidates"],
            strict=True,
        ):
            assert mine["score"] == pytest.approx(logged["score"], abs=1e-5)


def test_a_native_run_loads_back_through_ingest_and_report(
    tmp_path: Path, seeded_store, minilm
) -> None:
    out = tmp_path / "runs" / "native"
    assert (
        retrieve(
            str(KITCHEN_OPEN), "--method", "srag_t", "--k", "3", "--pool", "9", "--out", str(out)
        ).exit_code
        == 0
    )
    ingested = runner.invoke(app, ["ingest", str(out)])
    assert ingested.exit_code == 0, ingested.output
    report = runner.invoke(app, ["report", str(out), "--format", "json"])
    assert report.exit_code == 0, report.output
    data = json.loads(report.stdout)
    assert data["k"] == 3 and data["run"]["retrieval_kind"] == "ranked"
    assert data["answer"]["overall"]["em"] is None and data["retrieval"]["n"] == 6
    assert all(
        len(question["retrieved"]) == 9 for question in data["questions"]
    )  # the whole sidecar pool
    table = runner.invoke(app, ["report", str(out)])
    assert table.exit_code == 0, table.output


def test_retrieve_then_ingest_in_one_command(tmp_path: Path, seeded_store, minilm) -> None:
    from memscope.store import queries

    out = tmp_path / "runs" / "x"
    result = retrieve(
        str(KITCHEN), "--method", "srag_t", "--out", str(out), "--ingest", "--limit", "2"
    )
    assert result.exit_code == 0, result.output
    with seeded_store.read() as con:
        runs = queries.list_runs(con)
    assert [run["n_questions"] for run in runs] == [2]


def test_an_existing_run_is_not_overwritten_by_accident(
    tmp_path: Path, seeded_store, minilm
) -> None:
    out = tmp_path / "run"
    assert (
        retrieve(str(KITCHEN), "--method", "srag_t", "--out", str(out), "--limit", "1").exit_code
        == 0
    )
    again = retrieve(str(KITCHEN), "--method", "srag_t", "--out", str(out), "--limit", "1")
    assert again.exit_code == 1 and "--overwrite" in again.output
    assert (
        retrieve(
            str(KITCHEN), "--method", "srag_t", "--out", str(out), "--limit", "2", "--overwrite"
        ).exit_code
        == 0
    )
    assert len(read_jsonl(out / "predictions.jsonl")) == 2


@pytest.mark.parametrize(("bad", "code"), [(["--k", "0"], 2), (["--k", "5", "--pool", "3"], 1)])
def test_bad_k_or_pool_is_a_usage_message(tmp_path: Path, bad: list[str], code: int) -> None:
    result = retrieve(str(KITCHEN), "--method", "srag_t", "--out", str(tmp_path / "r"), *bad)
    assert result.exit_code == code and "Traceback" not in result.output


def test_srag_v_with_random_weight_clip_writes_both_channels(
    tmp_path: Path, tiny_clip_args: list[str], seeded_store, minilm
) -> None:
    out = tmp_path / "srag_v"
    result = retrieve(
        str(KITCHEN),
        "--method",
        "srag_v",
        "--k",
        "4",
        "--pool",
        "11",
        "--out",
        str(out),
        *tiny_clip_args,
    )
    assert result.exit_code == 0, result.output
    row = read_jsonl(out / "predictions.jsonl")[0]
    runtime = row["method_runtime"]
    assert row["method_name"] == "semantic_rag_multimodal" and runtime["text_dense_weight"] == 0.5
    assert runtime["caption_text_included"] is False
    pool = read_jsonl(out / "retrieval.jsonl")[0]["pool"]
    assert len(pool) == 11
    for entry in pool:  # score = 0.5 text + 0.5 image, image floored at 0 (MemEye)
        assert entry["score"] == pytest.approx(
            0.5 * entry["text_score"] + 0.5 * entry["image_score"]
        )
        assert entry["image_score"] >= 0.0
    assert all("best_image_path" in candidate for candidate in runtime["top_candidates"])


def test_dualmem_with_random_weight_clip_fuses_normalised_channels(
    tmp_path: Path, tiny_clip_args: list[str], seeded_store, minilm
) -> None:
    out = tmp_path / "dualmem"
    result = retrieve(
        str(KITCHEN),
        "--method",
        "dualmem",
        "--visual-weight",
        "0.75",
        "--pool",
        "11",
        "--out",
        str(out),
        *tiny_clip_args,
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "metrics.json").read_text())
    assert (
        metrics["method_name"] == "dualmem__multimodal"
        and metrics["method_runtime"]["visual_weight"] == 0.75
    )
    for line in read_jsonl(out / "retrieval.jsonl"):
        scores = [entry["score"] for entry in line["pool"]]
        assert scores == sorted(scores, reverse=True)
        assert all(0.0 <= score <= 1.0 for score in scores)
        assert any(entry["image_score"] is None for entry in line["pool"])  # rounds without images
    ingested = runner.invoke(app, ["ingest", str(out)])
    assert ingested.exit_code == 0, ingested.output


def test_srag_v_without_an_image_model_is_one_message(tmp_path: Path, seeded_store, minilm) -> None:
    from memscope.engine.models import resolve_image_model
    from memscope.errors import EngineError

    try:
        resolve_image_model(None, None)
        pytest.skip("SigLIP-2 weights are on this machine")
    except EngineError:
        pass
    result = retrieve(str(KITCHEN), "--method", "srag_v", "--out", str(tmp_path / "v"))
    assert result.exit_code == 1
    assert result.output.count("error:") == 1 and "--image-pretrained" in result.output
    assert not (tmp_path / "v").exists()


def test_a_native_run_records_its_models_so_it_can_be_recomputed(
    tmp_path: Path, tiny_clip_args: list[str], seeded_store, minilm
) -> None:
    """Random-weight open_clip: the run names its models so that recompute finds them again."""
    from memscope.engine_jobs.gap_fill import fill_gaps

    out = tmp_path / "srag_v"
    result = retrieve(
        str(KITCHEN),
        "--method",
        "srag_v",
        "--k",
        "3",
        "--pool",
        "4",
        "--out",
        str(out),
        "--ingest",
        *tiny_clip_args,
    )
    assert result.exit_code == 0, result.output
    runtime = json.loads((out / "metrics.json").read_text())["method_runtime"]
    assert runtime["text_embedding_model"] == "all-MiniLM-L6-v2"
    assert runtime["multimodal_embedding_model"] == tiny_clip_args[1]
    assert runtime["multimodal_embedding_pretrained"] == tiny_clip_args[3]
    summary = fill_gaps(seeded_store, "srag_v")
    assert summary.method == "srag_v" and summary.image_model is not None
    assert summary.max_deviation < 1e-5 and summary.n_filled == 0
    assert summary.n_extended == 6 * (9 - 4)  # pool 4 extended to 3 x k = 9
