"""What a table of harness runs must say beside its numbers (issue 38).

Memory systems' own harnesses (a benchmark's harness readers) each judge with their own model
and prompt, leave categories out and hold different questions. A table that puts their runs
side by side says so in its caption: which harness made each row, that the judges differ,
that a ``–`` is a category the harness did not evaluate (not a 0), and how the rows'
question sets differ (each cell is over the questions its runs hold; ``compare`` pairs the
shared ones question by question).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memscope.store import Store
    from memscope.usecases.runs.loading import RunData
    from memscope.usecases.table.result import ResultsTable

JUDGE_RUN_METRICS = ("judge_run_1", "judge_run_2", "judge_run_3", "judge_majority")
"""The metrics of a harness that judges each answer several times: each judge run, and
their majority vote."""
JUDGED_METRICS = ("judge", "score", "accuracy", *JUDGE_RUN_METRICS)
COST_METRICS = ("latency", "tokens")
HARNESS_OWN_METRICS = ("harness_f1", "harness_bleu")
"""A harness's own lexical scores, which only some harness files carry."""


def harness_notes(
    store: Store, table: ResultsTable, data: Sequence[RunData], *, shared: bool = False
) -> tuple[str, ...]:
    """The caption notes of ``table`` (none when no row holds a harness run); ``shared``:
    the table is over the shared questions already (``--shared`` has its own note)."""
    from memscope.store.queries import run_configs

    run_ids = [run_id for row in table.rows for run_id in row.runs]
    with store.read() as con:
        configs = run_configs(con, run_ids)
    if not any(config.get("harness") for config in configs.values()):
        return ()
    notes: list[str] = []
    made_by: list[str] = []
    kinds: set[str] = set()
    for row in table.rows:
        titles = sorted({_made_by(configs.get(run_id, {})) for run_id in row.runs})
        kinds.update(titles)
        made_by.append(f"{row.label}: {', '.join(titles)}")
    notes.append("harness — " + "; ".join(made_by))
    if table.metric in JUDGED_METRICS and len(kinds) > 1:
        notes.append(
            "judge scores of different harnesses side by side: their judges (model and "
            "prompt) differ; the benchmark's own F1 (--metric f1) is the one yardstick"
        )
    if any(configs.get(run_id, {}).get("not_evaluated_categories") for run_id in run_ids):
        notes.append("–: a category the harness did not evaluate (not 0)")
    if table.metric in (*COST_METRICS, *JUDGE_RUN_METRICS, *HARNESS_OWN_METRICS):
        silent = [row.label for row in table.rows if row.cells["all"].value is None]
        if silent:
            notes.append(f"no {table.metric} in the files of: {', '.join(silent)}")
    if not shared:
        notes += _question_sets(data)
    return tuple(notes)


def _made_by(config: dict[str, Any]) -> str:
    title = str(config.get("harness_title") or "the benchmark's own evaluation")
    judge = config.get("judge_model")
    return f"{title} (judge {judge})" if judge else title


def _question_sets(data: Sequence[RunData]) -> list[str]:
    """A note when the runs hold different questions: how many each holds beyond the
    shared ones."""
    sets = {part.run_id: {str(q) for q in part.qids} for part in data}
    if len({frozenset(s) for s in sets.values()}) <= 1:
        return []
    shared = set.intersection(*sets.values())
    extra = "; ".join(
        f"{run_id} {len(qids - shared)}" for run_id, qids in sets.items() if qids - shared
    )
    return [
        f"the runs hold different questions: {len(shared)} shared, each cell over its own "
        f"runs' questions (beyond the shared: {extra}); --shared restricts every row to the "
        "shared ones, `memscope compare` pairs them"
    ]
