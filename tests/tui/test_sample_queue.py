"""The sampled queue in the app: plan order, the status bar's progress, resuming."""

from __future__ import annotations

from pathlib import Path

from helpers import ready, settle, table_rows

from memscope.store import Store
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.widgets.status_bar import status_view_text
from memscope.usecases.labels.sample import load_sample, open_sample

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "runs" / "srag_v"


async def test_sampled_queue_follows_the_plan_and_counts_progress(
    store: Store, ingested_store
) -> None:
    run_id = ingested_store(RUN)[0]
    plan, new = open_sample(store, run_id, seed=7, sample_size=10)
    assert new and len(plan.planned) == 10
    app = make_app(OpenRequest([str(RUN)], annotator="alice", queue="sample"))
    async with app.run_test() as pilot:
        await ready(pilot)
        state = app.session
        shown = [str(state.run.table.qids[row]) for row in table_rows(app)]
        assert shown == plan.qids  # every failure, planned first, in plan order
        first = plan.qids[0]
        stratum = plan.stratum_of[first]
        in_stratum = sum(1 for q in plan.planned if plan.stratum_of[q] == stratum)
        status = status_view_text(app.session.status_view(with_question=False)).plain
        assert f"sample: 0 of 10 planned · stratum {stratum} 0/{in_stratum}" in status
        await pilot.press("enter")  # open the first question
        await settle(pilot)
        await pilot.press("enter")  # accept its suggestion
        await settle(pilot)
        status = status_view_text(app.session.status_view(with_question=True)).plain
        assert f"sample: 1 of 10 planned · stratum {stratum} 1/{in_stratum}" in status
    # Opening again keeps the stored plan (same seed, same order).
    again, new_again = open_sample(store, run_id)
    assert not new_again and again.qids == plan.qids
    assert load_sample(store, run_id).seed == 7
