"""The verdict sample in the app's sampled queue (``memscope open RUN --queue sample --for
verdicts``), driven with Pilot on a real store: the queue is exactly the drawn sample,
passed and failed answers alike, the status bar counts verdicts, and ``v`` stores one."""

from __future__ import annotations

from pathlib import Path

from helpers import ready, settle, table_rows

from memscope.store import Store
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest, SampleRequest
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.widgets.status_bar import status_view_text
from memscope.usecases.labels.verdict_sample import draw_verdict_sample
from memscope.usecases.labels.verdicts import current_verdicts

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "runs" / "srag_v"


async def test_the_verdict_queue_serves_the_verdict_sample_and_v_stores_a_verdict(
    store: Store, ingested_store
) -> None:
    run_id = ingested_store(RUN)[0]
    drawn = draw_verdict_sample(store, run_id, size=12, seed=3)
    outcomes = {stratum.rsplit("·", 1)[1] for stratum in drawn.strata}
    assert outcomes == {"pass", "fail"}  # judge-positive and judge-negative answers both
    request = OpenRequest(
        [str(RUN)], annotator="alice", queue="sample", sample=SampleRequest(purpose="verdicts")
    )
    app = make_app(request)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        state = app.session
        table = state.run.table
        shown = [str(table.qids[row]) for row in table_rows(app)]
        assert shown == drawn.qids  # exactly the sample, in its order
        assert {float(table.correct[row]) for row in table_rows(app)} == {0.0, 1.0}
        status = status_view_text(state.status_view(with_question=False)).plain
        assert f"verdict sample: 0 of {len(drawn.qids)} planned" in status

        await pilot.press("enter")  # open the first sampled question
        await settle(pilot)
        assert isinstance(app.screen, QuestionScreen) and state.qid == drawn.qids[0]
        await pilot.press("v")
        await settle(pilot)
        stored = current_verdicts(store, run_id, annotator="alice")
        assert stored[drawn.qids[0]].verdict == "correct"
        status = status_view_text(state.status_view(with_question=True)).plain
        assert f"verdict sample: 1 of {len(drawn.qids)} planned" in status


async def test_the_failure_sample_stays_the_default_of_the_sampled_queue(
    store: Store, ingested_store
) -> None:
    run_id = ingested_store(RUN)[0]
    draw_verdict_sample(store, run_id, size=12, seed=3)
    app = make_app(OpenRequest([str(RUN)], annotator="alice", queue="sample"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        table = app.session.run.table
        assert all(float(table.correct[row]) == 0.0 for row in table_rows(app))


def test_the_verdict_queue_needs_a_drawn_verdict_sample(store: Store, ingested_store) -> None:
    import pytest

    from memscope.errors import InputError
    from memscope.tui.launch import run_triage_app

    ingested_store(RUN)
    request = OpenRequest([str(RUN)], queue="sample", sample=SampleRequest(purpose="verdicts"))
    with pytest.raises(InputError, match="has no verdict sample") as raised:
        run_triage_app(request)
    assert "memscope sample srag_v --for verdicts" in (raised.value.fix or "")


def test_for_verdicts_goes_with_the_sample_queue_alone() -> None:
    from typer.testing import CliRunner

    from memscope.cli import app as cli

    result = CliRunner().invoke(cli, ["open", str(RUN), "--for", "verdicts"])
    assert result.exit_code == 1 and "--for verdicts goes with --queue sample" in result.output
    mixed = CliRunner().invoke(
        cli, ["open", str(RUN), "--queue", "sample", "--for", "verdicts", "--seed", "3"]
    )
    assert mixed.exit_code == 1 and "not the verdict sample" in mixed.output
