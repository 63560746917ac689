"""The run-level re-rank read and computed in chunks of questions (issue 30) gives the
numbers of the whole-run read and computation it replaced, bit for bit: on a run with
questions without retrievals, pools of different widths (the widest a Y2 question's), an
unknown round, an unranked set, recomputed scores and Y1/Y2 questions between the Y3
ones, read and re-ranked a few questions at a time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.analysis.arrays import PAD
from memscope.analysis.bootstrap import DEFAULT_SEED, paired_delta
from memscope.analysis.evidence import (
    EvidenceSet,
    latest_clue,
    latest_miss_causes,
    temporal_authority,
)
from memscope.analysis.rerank import recency_order
from memscope.store import Store, queries
from memscope.usecases.rerun.pool import BASELINE_ALPHA, TEMPORAL, pool_of, rows_of
from memscope.usecases.rerun.run_rerank import _alpha_list, rerun_run
from memscope.usecases.runs import session_io
from memscope.usecases.runs.compact_evidence import origin_flags
from memscope.usecases.runs.declared import latest_match
from memscope.usecases.runs.ingest import effective_k, ingest_dir
from memscope.usecases.runs.loading import RunData, evidence_from_table, load_run
from memscope.usecases.runs.run_info import RunInfo

SESSIONS = {
    "S1": ["S1:1", "S1:2", "S1:3", "S1:4"],
    "S2": ["S2:1", "S2:2", "S2:3", "S2:4"],
    "S3": ["S3:1", "S3:2", "S3:3"],
    "S4": ["S4:1", "S4:2"],
}
# (Y level, clue rounds, source sessions, retrieved rounds or None for no retrieval)
QUESTIONS: list[tuple[str, list[str], list[str], list[str] | None]] = [
    ("Y3", ["S1:2", "S3:2"], ["S1", "S3"], ["S1:2", "S2:1", "S3:2", "S1:1", "S2:2", "S3:3"]),
    ("Y1", ["S1:1"], ["S1"], ["S2:1", "S1:1"]),
    ("Y3", ["S2:2", "S2:3"], ["S2"], ["S1:1", "S2:2", "S2:3"]),
    ("Y3", ["S1:3", "S4:1"], ["S1", "S4"], None),
    (
        "Y2",
        ["S2:4"],
        ["S2"],
        ["S1:1", "S1:2", "S1:3", "S1:4", "S2:1", "S2:2", "S2:3", "S2:4", "S3:1"],
    ),
    (
        "Y3",
        ["S3:1", "S4:2"],
        ["S3", "S4"],
        ["S4:2", "S1:4", "S3:1", "S2:4", "S3:3", "S1:3", "S4:1"],
    ),
    ("Y3", [], ["S1"], ["S1:1"]),
    ("Y3", ["S1:2", "S3:2"], ["S1", "S3"], ["S9:1", "S3:2", "S1:2"]),
    ("Y1", ["S2:1"], ["S2"], []),
    ("Y3", ["S2:1", "S4:1"], ["S2", "S4"], ["S2:1", "S4:1", "S1:1", "S1:2"]),
    ("Y3", ["S1:4", "S3:3"], ["S1", "S3"], ["S3:3", "S1:4"]),
    ("Y2", ["S1:1"], ["S1"], ["S1:1"]),
    ("Y3", ["S1:1", "S4:2"], ["S1", "S4"], ["S1:1", "S2:1", "S3:1", "S4:1", "S4:2"]),
    ("Y3", ["S2:4", "S3:1"], ["S2", "S3"], ["S3:1", "S2:4", "S2:1"]),
]
RECOMPUTED_IDX = 6
"""Its ranks 6 and 7, unscored in the log, get scores recomputed by the memory engine."""
UNRANKED_IDX = 10
"""Its retrieved rounds lose their ranks: an unranked set."""


def _run_dir(
    tmp_path: Path, levels: list[str] | None = None, answered: list[int] | None = None
) -> Path:
    qas, rows = [], []
    for idx, (y, clue, sessions, _) in enumerate(QUESTIONS, start=1):
        level = levels[idx - 1] if levels else y
        qas.append(qa(f"Question {idx}?", "an answer", [["X1"], [level]], clue, sessions))
    data = dialog(SESSIONS, qas)
    for idx, (_, _, _, seed) in enumerate(QUESTIONS, start=1):
        if answered is not None and idx not in answered:
            continue
        scores = None if seed is None else [round(0.95 - 0.07 * i, 4) for i in range(len(seed))]
        rows.append(open_row(idx, data, seed=seed, scores=scores))
    return write_run(tmp_path / "runs" / "mixed", data, rows)


def _ingested(
    store: Store,
    tmp_path: Path,
    levels: list[str] | None = None,
    answered: list[int] | None = None,
) -> str:
    run_id = ingest_dir(store, _run_dir(tmp_path, levels, answered), ReadOptions()).run_id
    with store.write() as con:
        qid_of = dict(con.execute("SELECT idx, qid FROM questions").fetchall())
        con.execute(
            "UPDATE retrievals SET origin = 'recomputed', score = 0.5 + 0.01 * rank "
            "WHERE run_id = ? AND qid = ? AND rank >= 6",
            [run_id, qid_of[RECOMPUTED_IDX]],
        )
        con.execute(
            "UPDATE retrievals SET rank = NULL WHERE run_id = ? AND qid = ?",
            [run_id, qid_of[UNRANKED_IDX]],
        )
    return run_id


@pytest.fixture
def mixed(store: Store, tmp_path: Path) -> str:
    return _ingested(store, tmp_path)


def _whole_y3_read(store: Store, run_id: str) -> RunData:
    """The read the chunks replaced: every Y3 question's evidence table at once, padded to
    the run's pool width (the longest retrieval of any question)."""
    with store.read() as con:
        run = RunInfo.from_row(queries.get_run(con, run_id))
        table = queries.evidence_table(con, run_id, y="Y3")
        width = con.execute(
            "SELECT coalesce(max(n), 0) FROM "
            "(SELECT count(*) AS n FROM retrievals WHERE run_id = ? GROUP BY qid)",
            [run_id],
        ).fetchone()[0]
        n_rounds = queries.dataset_round_count(con, run.dataset_id)
    evidence, scores = evidence_from_table(table, latest_match(run.benchmark))
    extra = width - evidence.ranked_pos.shape[1]
    rows = evidence.n
    padded = EvidenceSet(
        ranked_pos=np.hstack([evidence.ranked_pos, np.full((rows, extra), PAD)]),
        ranked_session=np.hstack([evidence.ranked_session, np.full((rows, extra), PAD)]),
        gold_pos=evidence.gold_pos,
        source_sessions=evidence.source_sessions,
        has_ranking=evidence.has_ranking,
        asks_latest=evidence.asks_latest,
    )
    scores = np.hstack([scores, np.full((rows, width - scores.shape[1]), np.nan)])
    return RunData(run, table.select(["qid", "y"]), table, padded, scores, n_rounds)


def _whole_run_rerun(
    data: RunData, alphas: list[float], *, lam: float, k: int | None, pool: int | None
) -> dict[str, Any]:
    """The whole-run computation ``rerun_run`` did before it went by chunks (its results
    part, for 200 resamples): every question's pools, orders and metrics at once."""
    cutoff = effective_k(data.run, k)
    whole = pool_of(
        data.evidence,
        data.scores,
        origin_flags(data.evidence_table, data.evidence.ranked_pos.shape[1]),
        data.n_rounds,
        pool,
    )
    rows = np.flatnonzero(data.evidence.asks_latest & (latest_clue(data.evidence) != PAD))
    ev = rows_of(whole.evidence, rows)
    sims, ages, valid = whole.sims[rows], whole.ages[rows], whole.valid[rows]
    base = temporal_authority(ev, cutoff)
    results = []
    for alpha in _alpha_list(alphas):
        reordered = ev
        if alpha != BASELINE_ALPHA:
            reordered = ev.reordered(recency_order(sims, ages, valid, alpha, lam))
        values = temporal_authority(reordered, cutoff)
        entry: dict[str, Any] = {"alpha": alpha}
        for name in TEMPORAL:
            defined = values[name][~np.isnan(values[name])]
            entry[name] = float(defined.mean()) if defined.size else None
        entry["latest_miss_causes"] = latest_miss_causes(reordered, cutoff)
        entry["delta"] = {
            name: {
                key: value
                for key, value in paired_delta(
                    base[name], values[name], resamples=200, seed=DEFAULT_SEED
                )
                .as_dict()
                .items()
                if key != "n"
            }
            for name in TEMPORAL
        }
        results.append(entry)
    scored = valid & ~np.isnan(sims) & ~np.isnan(ages)
    return {
        "n": len(rows),
        "results": results,
        "candidates": int(valid.sum()),
        "scored": int(scored.sum()),
        "recomputed": int((whole.recomputed[rows] & scored).sum()),
        "pool_size": int(ev.ranked_pos.shape[1]),
    }


def _same(ours: dict[str, Any], whole: dict[str, Any]) -> None:
    """The chunked result carries the whole-run one's numbers, digit for digit."""
    assert json.dumps(ours["results"]) == json.dumps(whole["results"])
    assert ours["n"] == whole["n"]
    assert ours["scored"]["candidates"] == whole["candidates"]
    assert ours["scored"]["scored"] == whole["scored"]
    assert ours["scored"]["recomputed"] == whole["recomputed"]
    assert ours["scored"]["pool_size"] == whole["pool_size"]


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 1000])
def test_chunked_read_holds_the_whole_reads_evidence(store: Store, mixed: str, chunk: int) -> None:
    ours = session_io.read_rerank_data(store, mixed, chunk=chunk)
    whole = _whole_y3_read(store, mixed)
    assert ours.questions.to_pylist() == whole.questions.to_pylist()
    assert ours.evidence_table.column_names == ["qid", "y"]  # no list kept
    width = whole.evidence.ranked_pos.shape[1]
    assert width == 9  # the Y2 question's pool, wider than any Y3 question's
    for name in ("ranked_pos", "ranked_session", "gold_pos", "source_sessions"):
        narrow, wide = getattr(ours.evidence, name), getattr(whole.evidence, name)
        assert narrow.dtype == np.int8  # 13 rounds in 4 sessions
        assert narrow.shape == wide.shape and (narrow == wide).all(), name
    for name in ("has_ranking", "asks_latest"):
        assert (getattr(ours.evidence, name) == getattr(whole.evidence, name)).all(), name
    assert not ours.evidence.has_ranking.all()  # the unranked set
    scored = ours.scores.shape[1]
    assert scored == 7  # the recomputed ranks 6 and 7; none beyond
    assert np.array_equal(ours.scores, whole.scores[:, :scored], equal_nan=True)
    assert np.isnan(whole.scores[:, scored:]).all()
    assert ours.recomputed is not None
    assert (ours.recomputed == origin_flags(whole.evidence_table, width)).all()
    assert ours.recomputed.sum() == 2
    assert ours.n_rounds == whole.n_rounds == 13


@pytest.mark.parametrize(
    ("alphas", "lam", "k", "pool"),
    [
        ([0.5, 0.0], 0.02, None, None),
        ([1.0], 0.02, 2, None),
        ([0.3, 0.8, 0.3], 0.2, 1, 4),
        ([0.0], 0.05, 3, 100),
    ],
)
def test_chunked_rerun_gives_the_whole_runs_numbers(
    store: Store, mixed: str, alphas: list[float], lam: float, k: int | None, pool: int | None
) -> None:
    whole_data = _whole_y3_read(store, mixed)
    whole = _whole_run_rerun(whole_data, alphas, lam=lam, k=k, pool=pool)
    assert whole["n"] == 9  # the Y3 questions with a gold clue
    assert whole["recomputed"] == (0 if pool == 4 else 2)  # ranks 6 and 7, beyond --pool 4
    params: dict[str, Any] = {"lam": lam, "k": k, "pool": pool, "resamples": 200}
    cli = load_run(store, mixed)  # memscope rerun: every question, with its Arrow lists
    results = []
    for read_chunk, compute_chunk in ((1, 1), (2, 3), (3, 2), (1000, 1000)):
        data = session_io.read_rerank_data(store, mixed, chunk=read_chunk)
        results.append(rerun_run(data, alphas, chunk=compute_chunk, **params))
        results.append(rerun_run(whole_data, alphas, chunk=compute_chunk, **params))
        results.append(rerun_run(cli, alphas, chunk=compute_chunk, **params))
    for result in results:
        _same(result, whole)
        assert result == results[0]  # the notes too


def test_a_run_without_y3_questions_keeps_its_pool_width(store: Store, tmp_path: Path) -> None:
    run_id = _ingested(store, tmp_path, levels=["Y1"] * len(QUESTIONS))
    for chunk in (1, 4, 1000):
        data = session_io.read_rerank_data(store, run_id, chunk=chunk)
        assert data.evidence.ranked_pos.shape == (0, 9)
        result = rerun_run(data, [0.5], resamples=50)
        assert result["n"] == 0 and result["scored"]["pool_size"] == 9
        assert result == rerun_run(_whole_y3_read(store, run_id), [0.5], resamples=50)
        assert result == rerun_run(load_run(store, run_id), [0.5], resamples=50)


@pytest.mark.parametrize(
    ("answered", "n"),
    [([1, 2, 3, 13, 14], 4), ([9], 0)],
    ids=["some questions", "one without retrievals"],
)
def test_a_run_of_part_of_its_dataset(
    store: Store, tmp_path: Path, answered: list[int], n: int
) -> None:
    """Chunks of the dataset's questions that hold nothing of the run are skipped; a run
    with nothing to read still gets its (empty) evidence."""
    run_id = _ingested(store, tmp_path, answered=answered)
    whole = _whole_y3_read(store, run_id)
    for chunk in (1, 2, 1000):
        data = session_io.read_rerank_data(store, run_id, chunk=chunk)
        assert data.questions.to_pylist() == whole.questions.to_pylist()
        assert data.evidence.ranked_pos.shape == whole.evidence.ranked_pos.shape
        result = rerun_run(data, [0.4], resamples=50)
        assert result["n"] == n
        assert result == rerun_run(whole, [0.4], resamples=50)
        assert result == rerun_run(load_run(store, run_id), [0.4], resamples=50)
