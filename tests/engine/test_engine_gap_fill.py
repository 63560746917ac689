"""Filling the gaps of logged MemEye runs with recomputed scores, checked against real logs.

The two upstream semantic_rag_text_only runs were produced by the unmodified MemEye
runner with the real all-MiniLM-L6-v2; the engine, with the packaged copy of that model,
must reproduce their logged scores and seed order.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from engine.engine_helpers import read_jsonl, upstream_rag_runs
from memscope.adapters import ReadOptions
from memscope.cli import app
from memscope.engine_jobs.gap_fill import fill_gaps, undo_gap_fill
from memscope.errors import EngineError
from memscope.store import queries
from memscope.store.recomputed import recompute_state, run_retrievals
from memscope.usecases.runs.ingest import ingest_paths

TOLERANCE = 1e-5
"""Recomputed vs logged: float32 embeddings on other hardware differ by about 3e-7 here."""
runner = CliRunner()


def ingest(store, path: Path) -> str:
    outcomes, failures = ingest_paths(store, [path], ReadOptions())
    assert not failures, failures
    return outcomes[0].run_id


def rows_by_question(store, run_id: str) -> dict[str, list[tuple]]:
    with store.read() as con:
        found = run_retrievals(con, run_id)
    grouped: dict[str, list[tuple]] = {}
    for row in found:
        grouped.setdefault(row[0], []).append(row)
    return grouped


@pytest.mark.parametrize("run_dir", upstream_rag_runs(), ids=lambda p: p.name[-30:])
def test_requery_reproduces_the_logged_seed_order_and_scores(
    run_dir: Path, seeded_store, minilm
) -> None:
    store = seeded_store
    from memscope.engine_jobs.engine import requery_pool

    run_id = ingest(store, run_dir)
    fresh = requery_pool(store, run_id).to_pylist()
    assert {row["origin"] for row in fresh} == {"requery"}
    for logged in read_jsonl(run_dir / "predictions.jsonl"):
        runtime = logged["method_runtime"]
        mine = [row for row in fresh if row["qid"] == f"q{logged['idx']}"]
        assert len(mine) == 11  # 3 x top_k (15) capped by the 11-round corpus
        assert [row["round_id"] for row in mine[:5]] == runtime["seed_round_ids"]
        score = {row["round_id"]: row["score"] for row in mine}
        for candidate in runtime["top_candidates"]:
            assert score[candidate["round_id"]] == pytest.approx(candidate["score"], abs=TOLERANCE)


def test_gap_fill_of_a_fully_scored_top_k_extends_the_pool(seeded_store, minilm) -> None:
    store = seeded_store
    run_dir = upstream_rag_runs()[0]
    run_id = ingest(store, run_dir)
    before = rows_by_question(store, run_id)
    summary = fill_gaps(store, run_id)
    assert summary.method == "srag_t" and summary.pool_size == 15
    assert summary.n_filled == 0 and summary.n_extended == 6 * 6
    assert summary.max_deviation is not None and summary.max_deviation < TOLERANCE
    assert summary.seed_order_agreement == 1.0
    after = rows_by_question(store, run_id)
    for qid, rows in after.items():
        assert rows[:5] == before[qid]  # the logged rows are untouched
        assert [row[1] for row in rows] == list(range(1, 12))
        assert {row[6] for row in rows[5:]} == {"recomputed"}
        scores = [row[3] for row in rows[5:]]
        assert scores == sorted(scores, reverse=True) and all(s is not None for s in scores)


def test_gap_fill_fills_unlogged_scores_with_the_values_memeye_would_log(
    upstream_copy: Path, seeded_store, minilm
) -> None:
    store = seeded_store
    """Drop the logged scores of ranks 4-5; the recomputation must restore them."""
    run_dir = next(
        p
        for p in (upstream_copy / "runs" / "kitchen_renovation").iterdir()
        if p.name == upstream_rag_runs()[0].name
    )
    rows = read_jsonl(run_dir / "predictions.jsonl")
    removed = {}
    for row in rows:
        removed[f"q{row['idx']}"] = row["method_runtime"]["top_candidates"][3:]
        row["method_runtime"]["top_candidates"] = row["method_runtime"]["top_candidates"][:3]
    (run_dir / "predictions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    run_id = ingest(store, run_dir)
    summary = fill_gaps(store, run_id)
    assert summary.n_filled == 2 * len(rows)
    for qid, found in rows_by_question(store, run_id).items():
        assert [row[6] for row in found[:5]] == ["logged"] * 3 + ["recomputed"] * 2
        for row, candidate in zip(found[3:5], removed[qid], strict=True):
            assert row[2] == candidate["round_id"]
            assert row[3] == pytest.approx(candidate["score"], abs=TOLERANCE)
            assert row[4] == pytest.approx(candidate["text_dense_score"], abs=TOLERANCE)


def test_gap_fill_is_repeatable_and_undoable(seeded_store, minilm) -> None:
    store = seeded_store
    run_id = ingest(store, upstream_rag_runs()[1])
    logged = rows_by_question(store, run_id)
    first = fill_gaps(store, run_id)
    filled = rows_by_question(store, run_id)
    second = fill_gaps(store, run_id)
    assert rows_by_question(store, run_id) == filled
    assert (second.n_filled, second.n_extended) == (first.n_filled, first.n_extended)
    with store.read() as con:
        assert recompute_state(con, run_id)["pool_size"] == 15
    assert undo_gap_fill(store, run_id)
    assert rows_by_question(store, run_id) == logged
    assert not undo_gap_fill(store, run_id)


def test_recomputed_scores_reach_the_evidence_the_diagnosis_reads(seeded_store, minilm) -> None:
    store = seeded_store
    run_id = ingest(store, upstream_rag_runs()[0])
    fill_gaps(store, run_id, pool=20)
    with store.read() as con:
        evidence = queries.evidence_table(con, run_id).to_pylist()
    for row in evidence:
        assert len(row["scores"]) == 11 and None not in row["scores"]
        assert row["origins"] == ["logged"] * 5 + ["recomputed"] * 6


def _fake_run(
    tmp_path: Path, *, method: str = "semantic_rag_text_only", runtime_extra: dict | None = None
) -> Path:
    sessions = {"D1": ["D1:1", "D1:2", "D1:3"], "D2": ["D2:1", "D2:2", "D2:3"]}
    data = dialog(
        sessions,
        [qa("What did the user say first?", "hello", [["X1"], ["Y1"]], ["D1:1"])],
        images={"D1:2": ["image/x.png"]},
    )
    seed = ["D2:3", "D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    row = open_row(1, data, seed=seed, scores=[0.9, 0.8, 0.7, 0.6, 0.5, 0.4])  # invented scores
    if runtime_extra:
        row["method_runtime"] |= runtime_extra
    return write_run(
        tmp_path / "runs" / "task" / "fake",
        data,
        [row],
        method=method,
        top_k=6,
        runtime=row["method_runtime"],
    )


def test_gap_fill_refuses_scores_it_cannot_reproduce(tmp_path: Path, seeded_store, minilm) -> None:
    store = seeded_store
    run_id = ingest(store, _fake_run(tmp_path))
    before = rows_by_question(store, run_id)
    with pytest.raises(EngineError, match="not the run's retriever"):
        fill_gaps(store, run_id)
    assert rows_by_question(store, run_id) == before  # nothing written
    forced = fill_gaps(store, run_id, force=True)
    assert forced.max_deviation > 0.1


def test_gap_fill_of_srag_v_without_siglip_fills_text_scores_only(
    tmp_path: Path, seeded_store, minilm
) -> None:
    store = seeded_store
    from memscope.engine.models import resolve_image_model

    try:
        resolve_image_model(None, None)
        pytest.skip("SigLIP-2 weights are on this machine")
    except EngineError:
        pass
    extra = {
        "retrieval_backend": "dense_multimodal",
        "method_modality": "multimodal",
        "multimodal_embedding_model": "siglip2-base-patch16-384",
        "text_dense_weight": 0.5,
        "image_dense_weight": 0.5,
    }
    run_dir = _fake_run(tmp_path, method="semantic_rag_multimodal", runtime_extra=extra)
    rows = read_jsonl(run_dir / "predictions.jsonl")
    for candidate in rows[0]["method_runtime"][
        "top_candidates"
    ]:  # a multimodal log has no text score we could check
        candidate.pop("text_dense_score")
    (run_dir / "predictions.jsonl").write_text(json.dumps(rows[0]) + "\n")
    run_id = ingest(store, run_dir)
    summary = fill_gaps(store, run_id)
    assert summary.n_extended == 0 and summary.image_model is None
    assert any("image scores were not recomputed" in note for note in summary.notes)
    found = rows_by_question(store, run_id)["q1"]
    assert all(row[4] is not None for row in found)  # text scores recomputed
    assert [row[3] for row in found[5:]] == [
        None
    ]  # rank 6 had no logged fused score; none invented


def test_cli_recompute_prints_a_summary_and_undoes(seeded_store, minilm) -> None:
    run_dir = upstream_rag_runs()[0]
    result = runner.invoke(app, ["recompute", str(run_dir)])
    assert result.exit_code == 0, result.output
    assert "36 candidates added below the logged ranks" in result.stdout
    assert "top-k order reproduced for 100% of questions" in result.stdout
    result = runner.invoke(app, ["recompute", str(run_dir), "--format", "json"])
    assert json.loads(result.stdout)["n_extended"] == 36
    result = runner.invoke(app, ["recompute", str(run_dir), "--undo"])
    assert result.exit_code == 0 and "restored" in result.output


def test_cli_recompute_of_a_run_without_ranking_is_one_error(seeded_store) -> None:
    from engine.engine_helpers import UPSTREAM_RUNS

    full_context = next(p for p in UPSTREAM_RUNS.iterdir() if "full_context" in p.name)
    result = runner.invoke(app, ["recompute", str(full_context)])
    assert result.exit_code == 1
    assert "nothing to fill" in result.output and "Traceback" not in result.output


def test_requery_of_some_questions_and_of_a_run_that_did_not_retrieve(seeded_store, minilm) -> None:
    from engine.engine_helpers import UPSTREAM_RUNS
    from memscope.engine_jobs.engine import requery_pool

    rag = ingest(seeded_store, upstream_rag_runs()[0])
    subset = requery_pool(seeded_store, rag, ["q2", "q5"], pool=20).to_pylist()
    assert {row["qid"] for row in subset} == {"q2", "q5"}
    assert [row["rank"] for row in subset if row["qid"] == "q2"] == list(range(1, 12))
    full_context = ingest(
        seeded_store, next(p for p in UPSTREAM_RUNS.iterdir() if "full_context_text_only" in p.name)
    )
    with pytest.raises(EngineError, match="Name the retriever"):
        requery_pool(seeded_store, full_context)
    assert requery_pool(seeded_store, full_context, ["q1"], method="srag_t").num_rows == 11


def test_rerun_requery_reranks_a_fully_scored_engine_pool(seeded_store, minilm) -> None:
    """`memscope rerun --requery`: the pool comes from the engine (3 x top_k, every candidate
    scored), so the whole pool is re-ranked instead of the logged top five."""
    store = seeded_store
    run_id = ingest(store, upstream_rag_runs()[0])
    result = runner.invoke(
        app,
        [
            "rerun",
            "--run",
            run_id,
            "--question",
            "q1",
            "--alpha",
            "0.5",
            "--requery",
            "--format",
            "json",
            "--db",
            str(store.path),
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    candidates = payload["before"]["candidates"]
    assert len(candidates) == 11 and all(row["sim"] is not None for row in candidates)
    assert {row["origin"] for row in candidates} == {"requery"}
    assert sorted(payload["after"]["ranking"]) == sorted(payload["before"]["ranking"])
    with store.read() as con:  # nothing is written to the run's retrievals
        assert {
            row[0] for row in con.execute("SELECT DISTINCT origin FROM retrievals").fetchall()
        } <= {"logged", "recomputed"}


def test_rerun_requery_says_consistently_what_it_stored(seeded_store, minilm) -> None:
    """The candidates are not stored (the run's retrievals stay), the rerun is: the output
    says both without contradicting itself, and the stored rerun is marked re-retrieved."""
    from memscope.usecases.rerun.saved import get_rerun

    store = seeded_store
    run_id = ingest(store, upstream_rag_runs()[0])
    args = ["rerun", run_id, "--alpha", "0.5", "--requery", "--db", str(store.path)]
    result = runner.invoke(app, [*args, "--question", "q1"])
    assert result.exit_code == 0, result.output
    assert "(not stored)" not in result.stderr
    assert "for this rerun (the run's logged retrievals are unchanged)" in result.stderr
    stored = re.search(r"stored as rerun (\d+) \(over the re-retrieved candidates\)", result.stderr)
    assert stored, result.stderr
    assert get_rerun(store, int(stored.group(1)))["params"]["requery"] is True
    logged = runner.invoke(app, ["rerun", run_id, "--alpha", "0.5", "--db", str(store.path)])
    assert logged.exit_code == 0, logged.output
    assert "re-retrieved" not in logged.stderr
    plain = re.search(r"stored as rerun (\d+)$", logged.stderr.strip())
    assert plain, logged.stderr
    assert "requery" not in get_rerun(store, int(plain.group(1)))["params"]
