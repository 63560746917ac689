"""Reading and writing the app's remembered queue position (table ``app_state``).

One row per (run, annotator): the question the annotator was on, the queue it was in
(the queue spec as JSON) and the view parameters (alpha, lambda, K), so re-opening the
run resumes there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memscope.store.sql import one

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class AppState:
    """Where one annotator stopped in one run."""

    run_id: str
    annotator: str
    qid: str | None
    queue: dict[str, Any] = field(default_factory=dict)
    view: dict[str, Any] = field(default_factory=dict)


def load_app_state(con: duckdb.DuckDBPyConnection, run_id: str, annotator: str) -> AppState | None:
    """The remembered state, or None when this annotator never opened this run."""
    row = one(
        con,
        "SELECT qid, queue, view FROM app_state WHERE run_id = ? AND annotator = ?",
        [run_id, annotator],
    )
    if row is None:
        return None
    return AppState(run_id, annotator, row[0], _json_dict(row[1]), _json_dict(row[2]))


def save_app_state(con: duckdb.DuckDBPyConnection, state: AppState) -> None:
    """Insert or replace the state of (run, annotator)."""
    con.execute(
        "INSERT OR REPLACE INTO app_state VALUES (?, ?, ?, ?, ?, now()::TIMESTAMP)",
        [state.run_id, state.annotator, state.qid, json.dumps(state.queue), json.dumps(state.view)],
    )


def _json_dict(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:  # a hand-edited store: forget the state rather than fail
        return {}
    return value if isinstance(value, dict) else {}
