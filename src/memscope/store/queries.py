"""Named, parameterised reads of the store, returning plain values or Arrow tables.

The front ends reach these through the use cases; nothing else writes SQL for reading.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memscope.store.sql import one, rows

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

RUN_COLUMNS = (
    "run_id",
    "benchmark",
    "dataset_id",
    "path",
    "content_hash",
    "task",
    "model",
    "method",
    "base_method",
    "modality",
    "mode",
    "top_k",
    "retrieval_kind",
    "n_questions",
    "ingested_at",
    "opened_at",
)


def _run_dict(row: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(RUN_COLUMNS, row, strict=True))


def list_runs(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every ingested run with its headline answer scores (mean EM, mean judge)."""
    columns = ", ".join(f"r.{name}" for name in RUN_COLUMNS)
    found = rows(
        con,
        f"SELECT {columns}, avg(p.em), avg(p.judge), count(p.judge), "
        # The harness that wrote a run (mem0 evals.py, Zep …), where one did.
        "json_extract_string(r.config, '$.harness_title') "
        "FROM runs r LEFT JOIN predictions p USING (run_id) "
        f"GROUP BY ALL ORDER BY r.ingested_at, r.run_id",
    )
    result = []
    for row in found:
        run = _run_dict(row[: len(RUN_COLUMNS)])
        run["em"], run["judge"], run["n_judged"], run["harness"] = row[len(RUN_COLUMNS) :]
        result.append(run)
    return result


def run_ids(con: duckdb.DuckDBPyConnection) -> list[str]:
    """All run ids, sorted."""
    return [row[0] for row in rows(con, "SELECT run_id FROM runs ORDER BY run_id")]


def get_run(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any] | None:
    """One run's stored description, or None."""
    row = one(con, f"SELECT {', '.join(RUN_COLUMNS)} FROM runs WHERE run_id = ?", [run_id])
    return _run_dict(row) if row else None


def run_id_for_path(con: duckdb.DuckDBPyConnection, path: str) -> str | None:
    """The run ingested from directory ``path``, or None."""
    row = one(con, "SELECT run_id FROM runs WHERE path = ?", [path])
    return row[0] if row else None


def run_config(
    con: duckdb.DuckDBPyConnection, run_id: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A run's (masked) config.json and metrics.json."""
    row = one(con, "SELECT config, metrics FROM runs WHERE run_id = ?", [run_id])
    if not row:
        return {}, {}
    return json.loads(row[0] or "{}"), json.loads(row[1] or "{}")


def last_run_id(con: duckdb.DuckDBPyConnection) -> str | None:
    """The run opened or ingested most recently."""
    row = one(
        con,
        "SELECT run_id FROM runs ORDER BY greatest(coalesce(opened_at, ingested_at), ingested_at) DESC, run_id LIMIT 1",
    )
    return row[0] if row else None


def mark_opened(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Record that the user opened ``run_id`` now (it becomes the default run)."""
    con.execute("UPDATE runs SET opened_at = now()::TIMESTAMP WHERE run_id = ?", [run_id])


def dataset_round_count(con: duckdb.DuckDBPyConnection, dataset_id: str) -> int:
    """N, the number of rounds in a dataset (positions run 1..N)."""
    row = one(con, "SELECT count(*) FROM rounds WHERE dataset_id = ?", [dataset_id])
    return int(row[0]) if row else 0


def history_positions(
    con: duckdb.DuckDBPyConnection,
    dataset_id: str,
    key: str,
    qids: list[str] | None = None,
) -> dict[str, list[int]]:
    """Per question of a dataset (or only ``qids``), the ascending positions of the rounds
    of the sessions its ``extra`` attribute ``key`` lists (its own history); questions
    without one are absent."""
    only = "" if qids is None else " AND list_contains($qids, q.qid)"
    params: dict[str, Any] = {"dataset": dataset_id, "path": f'$."{key}"[*]'}
    if qids is not None:
        params["qids"] = qids
    found = rows(
        con,
        "SELECT q.qid, list(DISTINCT r.position ORDER BY r.position) "
        "FROM questions q, unnest(json_extract_string(q.extra, $path)) AS h(sid) "
        "JOIN rounds r ON r.dataset_id = q.dataset_id AND r.session_id = h.sid "
        f"WHERE q.dataset_id = $dataset{only} GROUP BY q.qid",
        params,
    )
    return {str(qid): [int(p) for p in positions] for qid, positions in found}


def shared_history_positions(
    con: duckdb.DuckDBPyConnection,
    dataset_id: str,
    key: str,
    qids: list[str] | None = None,
) -> dict[str, list[int]]:
    """Per question of a dataset (or only ``qids``), the ascending positions of the rounds
    whose ``extra`` attribute ``key`` equals the question's (one conversation of several);
    questions without the attribute are absent."""
    only = "" if qids is None else " AND list_contains($qids, q.qid)"
    params: dict[str, Any] = {"dataset": dataset_id, "path": f'$."{key}"'}
    if qids is not None:
        params["qids"] = qids
    found = rows(
        con,
        "SELECT q.qid, list(r.position ORDER BY r.position) FROM questions q "
        "JOIN rounds r ON r.dataset_id = q.dataset_id "
        "AND json_extract_string(r.extra, $path) = json_extract_string(q.extra, $path) "
        f"WHERE q.dataset_id = $dataset{only} GROUP BY q.qid",
        params,
    )
    return {str(qid): [int(p) for p in positions] for qid, positions in found}


N_ROTATIONS = "coalesce(json_array_length(p.rotations), 0)::INTEGER AS n_rotations"
"""How many MCQ rotations a prediction has (0 for open and single-options questions)."""
QUESTION_COLUMNS = (
    "p.qid, q.idx, q.question_key, q.task, q.x, q.y, q.x_labels, q.y_labels, p.mode, "
    "q.question, coalesce(q.gold, p.gold) AS gold, p.pred, p.choice, p.em, p.judge, p.f1, p.judge_reasoning, "
    "p.rotations, p.position_bias, q.options, q.clue_ids, q.clue_rounds, q.source_sessions, q.extra, "
    f"p.bleu_1, p.latency_ms, p.total_tokens, {N_ROTATIONS}"
)
SCORE_COLUMNS = (
    "p.qid, q.idx, q.question_key, q.task, q.x, q.y, p.mode, p.em, p.judge, p.f1, q.extra, q.question, "
    f"p.bleu_1, p.latency_ms, p.total_tokens, {N_ROTATIONS}"
)
"""What run-level summaries and the triage queue need; skips the answers, options and
rotations (most of the bytes)."""


def question_table(con: duckdb.DuckDBPyConnection, run_id: str, *, detail: bool = True) -> pa.Table:
    """Per question of a run, by idx: identity, axes, gold, the prediction and its scores.

    ``detail=False`` reads only :data:`SCORE_COLUMNS`. A run whose benchmark logs
    attributes of its own per question (``Benchmark.own_attributes``: DMV-Bench's bank size
    and recall-step facts) adds them as ``prediction_extra``.
    """
    from memscope.adapters.registry import benchmark as spec_of

    columns = QUESTION_COLUMNS if detail else SCORE_COLUMNS
    found = one(con, "SELECT benchmark FROM runs WHERE run_id = ?", [run_id])
    if found and spec_of(found[0]).own_attributes:
        columns += ", p.extra AS prediction_extra"
    return con.sql(
        f"SELECT {columns} "
        "FROM predictions p JOIN runs r USING (run_id) "
        "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
        "WHERE p.run_id = ? ORDER BY q.idx",
        params=[run_id],
    ).to_arrow_table()


def evidence_table(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    retrieved: pa.Table | None = None,
    *,
    y: str | None = None,
) -> pa.Table:
    """Per question (ordered by idx like :func:`question_table`): retrieved rounds in rank
    order with positions, sessions and scores; gold clue positions; source session orders.
    ``ranked_session_ids`` and ``gold_ids`` name the rounds' sessions and the gold rounds.

    The four inputs are read flat and joined with Arrow: DuckDB's grouped, ordered list
    aggregation over every retrieval of a large run is many times slower. ``retrieved``
    (``qid, rank, round_id, score, origin``) replaces the stored retrievals, e.g. a pool
    the memory engine re-retrieved. ``y`` keeps only the questions at that Y level (the
    run-level re-ranking reads its Y3 questions alone).
    """
    from memscope.store.evidence import assemble_evidence
    from memscope.store.evidence_reads import EvidenceSource

    source = EvidenceSource.of(con, run_id, y)
    if retrieved is None:
        retrieved = source.retrieved(con)
    return assemble_evidence(source.questions(con), source.rounds, source.sessions, retrieved)


def rounds_table(con: duckdb.DuckDBPyConnection, dataset_id: str) -> pa.Table:
    """Every round of a dataset in dialogue order, with media and session date."""
    return con.sql(
        "SELECT r.round_id, r.session_id, r.position, r.round_order, s.session_order, s.date, "
        "r.user_text, r.assistant_text, r.image_refs, r.image_files, r.image_captions, r.image_ids, "
        "r.audio_refs, r.audio_files, r.audio_captions, r.audio_ids, r.background_audio, r.extra "
        "FROM rounds r JOIN sessions s USING (dataset_id, session_id) WHERE r.dataset_id = ? ORDER BY r.position",
        params=[dataset_id],
    ).to_arrow_table()


def retrieval_channels(con: duckdb.DuckDBPyConnection, run_id: str) -> pa.Table:
    """Per retrieved round of a run: its per-channel scores (text, image), by qid then rank.

    Only rows with at least one channel score; the app's candidate table joins them to
    the ranking by (qid, round_id).
    """
    return con.sql(
        "SELECT qid, round_id, text_score, image_score FROM retrievals "
        "WHERE run_id = ? AND (text_score IS NOT NULL OR image_score IS NOT NULL) ORDER BY qid, rank NULLS LAST",
        params=[run_id],
    ).to_arrow_table()


def run_configs(con: duckdb.DuckDBPyConnection, run_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Run id -> its stored ``config`` (as read from its files), for the runs named."""
    if not run_ids:
        return {}
    found = rows(con, "SELECT run_id, config FROM runs WHERE list_contains(?, run_id)", [run_ids])
    return {run_id: (json.loads(config) if config else {}) for run_id, config in found}


def judge_runs(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, list[float]]:
    """qid -> each judge run's verdict (``extra.judgments``: EverMemOS / MemOS judge every
    answer several times), for the questions that carry them."""
    found = rows(
        con,
        "SELECT qid, json_extract_string(extra, '$.judgments') FROM predictions "
        "WHERE run_id = ? AND json_extract_string(extra, '$.judgments') IS NOT NULL",
        [run_id],
    )
    judged: dict[str, list[float]] = {}
    for qid, text in found:
        values = json.loads(text)
        if isinstance(values, list):
            judged[str(qid)] = [float(v) for v in values if isinstance(v, (int, float))]
    return judged
