"""Reads of a few questions of a run, for the app's question screen (one question at a time).

Each read is filtered to the questions asked for (a handful: the one on screen and the next
few the app prefetches), so what it costs follows the screen, not the run. The tables have
the columns of their whole-run counterparts in :mod:`memscope.store.queries`
(``question_table``, ``evidence_table``, ``rounds_table``, ``retrieval_channels``), so the
code drawing them is the same for one question as for a whole run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from memscope.store.queries import QUESTION_COLUMNS
from memscope.store.sql import one

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

ROUND_COLUMNS = (
    "r.round_id, r.session_id, r.position, r.round_order, s.session_order, s.date, "
    "r.user_text, r.assistant_text, r.image_refs, r.image_files, r.image_captions, r.image_ids, "
    "r.audio_refs, r.audio_files, r.audio_captions, r.audio_ids, r.background_audio, r.extra"
)
"""The columns of ``queries.rounds_table``."""


@contextmanager
def one_thread(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """DuckDB on one thread meanwhile: a read of a few questions, made in the background
    while the app draws, then never takes every core from the app's own thread (the
    setting is the database's, so it is put back after)."""
    con.execute("SET threads = 1")
    try:
        yield
    finally:
        con.execute("RESET threads")


def _question_columns(con: duckdb.DuckDBPyConnection, run_id: str) -> str:
    """``queries.question_table``'s detailed columns for ``run_id`` (with its benchmark's own
    per-question attributes where it logs some)."""
    from memscope.adapters.registry import benchmark as spec_of

    found = one(con, "SELECT benchmark FROM runs WHERE run_id = ?", [run_id])
    if found and spec_of(found[0]).own_attributes:
        return QUESTION_COLUMNS + ", p.extra AS prediction_extra"
    return QUESTION_COLUMNS


def question_idx(con: duckdb.DuckDBPyConnection, dataset_id: str, qids: list[str]) -> list[int]:
    """The idx of those of ``qids`` that are questions of the dataset ``dataset_id``: the
    reads below find a run's rows by it (``question_idx``), which lets DuckDB skip the rest
    of a large run rather than match every one of its qids."""
    return [
        int(row[0])
        for row in con.execute(
            "SELECT idx FROM questions WHERE dataset_id = ? AND list_contains(?, qid) ORDER BY idx",
            [dataset_id, qids],
        ).fetchall()
    ]


def question_rows(
    con: duckdb.DuckDBPyConnection, run_id: str, dataset_id: str, idx: list[int]
) -> pa.Table:
    """The rows of ``queries.question_table`` (detailed) of the questions ``idx`` of
    ``run_id`` (whose dataset is ``dataset_id``), by idx."""
    return con.sql(
        f"SELECT {_question_columns(con, run_id)} "
        "FROM (SELECT * FROM questions WHERE dataset_id = $dataset AND list_contains($idx, idx)) q "
        "JOIN (SELECT * FROM predictions WHERE run_id = $run AND list_contains($idx, question_idx)) p "
        "ON p.qid = q.qid JOIN runs r ON r.run_id = p.run_id "
        "ORDER BY q.idx",
        params={"run": run_id, "dataset": dataset_id, "idx": idx},
    ).to_arrow_table()


def matching_row(
    con: duckdb.DuckDBPyConnection, run_id: str, question_key: str, occurrence: int
) -> pa.Table:
    """The row (``queries.question_table``, detailed) of ``run_id`` holding the
    ``occurrence``-th (0-based, by idx) question with key ``question_key``; empty when it
    has none. Pairs questions the way ``compare.pairs.match_questions`` does."""
    return con.sql(
        f"SELECT {_question_columns(con, run_id)} "
        "FROM predictions p JOIN runs r USING (run_id) "
        "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
        "WHERE p.run_id = $run AND q.question_key = $key ORDER BY q.idx LIMIT 1 OFFSET $skip",
        params={"run": run_id, "key": question_key, "skip": occurrence},
    ).to_arrow_table()


def key_occurrence(con: duckdb.DuckDBPyConnection, run_id: str, question_key: str, idx: int) -> int:
    """How many questions of ``run_id`` before idx ``idx`` have the key ``question_key``."""
    row = one(
        con,
        "SELECT count(*) FROM predictions p JOIN runs r USING (run_id) "
        "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
        "WHERE p.run_id = ? AND q.question_key = ? AND q.idx < ?",
        [run_id, question_key, idx],
    )
    return int(row[0]) if row else 0


def question_evidence(
    con: duckdb.DuckDBPyConnection, run_id: str, dataset_id: str, idx: list[int]
) -> pa.Table:
    """The rows of ``queries.evidence_table`` for the questions ``idx`` of ``run_id``
    (ordered by idx), assembled from the retrievals, clue rounds and sessions of those
    questions only."""
    from memscope.store.evidence import assemble_evidence

    questions = con.sql(
        "SELECT p.qid, q.y, q.clue_rounds, q.source_sessions "
        "FROM (SELECT * FROM questions WHERE dataset_id = $dataset AND list_contains($idx, idx)) q "
        "JOIN (SELECT * FROM predictions WHERE run_id = $run AND list_contains($idx, question_idx)) p "
        "ON p.qid = q.qid ORDER BY q.idx",
        params={"run": run_id, "dataset": dataset_id, "idx": idx},
    ).to_arrow_table()
    qids = questions.column("qid").to_pylist()
    retrieved = con.sql(
        "SELECT qid, rank, round_id, score, origin FROM retrievals "
        "WHERE run_id = $run AND list_contains($qids, qid)",
        params={"run": run_id, "qids": qids},
    ).to_arrow_table()
    round_ids = sorted(
        {str(r) for r in retrieved.column("round_id").to_pylist() if r is not None}
        | {
            str(r)
            for clues in questions.column("clue_rounds").to_pylist()
            for r in clues or ()
            if r is not None
        }
    )
    session_ids = sorted(
        {
            str(s)
            for sources in questions.column("source_sessions").to_pylist()
            for s in sources or ()
            if s is not None
        }
    )
    rounds = con.sql(
        "SELECT r.round_id, r.position, s.session_order, r.session_id FROM rounds r "
        "JOIN sessions s USING (dataset_id, session_id) "
        "WHERE r.dataset_id = $dataset AND list_contains($ids, r.round_id)",
        params={"dataset": dataset_id, "ids": round_ids},
    ).to_arrow_table()
    sessions = con.sql(
        "SELECT session_id, session_order FROM sessions "
        "WHERE dataset_id = $dataset AND list_contains($ids, session_id)",
        params={"dataset": dataset_id, "ids": session_ids},
    ).to_arrow_table()
    return assemble_evidence(questions, rounds, sessions, retrieved)


def rounds_at(
    con: duckdb.DuckDBPyConnection,
    dataset_id: str,
    *,
    positions: list[int] | None = None,
    round_ids: list[str] | None = None,
) -> pa.Table:
    """The rows of ``queries.rounds_table`` at dialogue ``positions`` or with ``round_ids``
    (either or both), in dialogue order."""
    return con.sql(
        f"SELECT {ROUND_COLUMNS} FROM rounds r JOIN sessions s USING (dataset_id, session_id) "
        "WHERE r.dataset_id = $dataset "
        "AND (list_contains($positions, r.position) OR list_contains($ids, r.round_id)) "
        "ORDER BY r.position",
        params={"dataset": dataset_id, "positions": positions or [], "ids": round_ids or []},
    ).to_arrow_table()


def session_spans(
    con: duckdb.DuckDBPyConnection, dataset_id: str
) -> list[tuple[str, str | None, int, int, int]]:
    """Every session of a dataset that holds rounds: (session id, date, its first round's
    position, how many rounds it holds, its last round's position). One scan of the
    dataset's rounds, read once per run where each question lists its own haystack: a
    question's haystack is then looked up, never joined per question."""
    found = con.execute(
        "SELECT r.session_id, any_value(s.date), min(r.position), count(DISTINCT r.position), "
        "max(r.position) FROM rounds r JOIN sessions s USING (dataset_id, session_id) "
        "WHERE r.dataset_id = $dataset GROUP BY r.session_id",
        {"dataset": dataset_id},
    ).fetchall()
    return [(str(sid), date, int(a), int(n), int(b)) for sid, date, a, n, b in found]


def question_channels(con: duckdb.DuckDBPyConnection, run_id: str, qids: list[str]) -> pa.Table:
    """The rows of ``queries.retrieval_channels`` for ``qids`` of ``run_id``."""
    return con.sql(
        "SELECT qid, round_id, text_score, image_score FROM retrievals "
        "WHERE run_id = $run AND list_contains($qids, qid) "
        "AND (text_score IS NOT NULL OR image_score IS NOT NULL) ORDER BY qid, rank NULLS LAST",
        params={"run": run_id, "qids": qids},
    ).to_arrow_table()
