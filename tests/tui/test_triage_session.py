"""A whole triage session on the demo run ``srag_v``, driven key by key with Pilot.

Open, filter the queue, move through questions, toggle the caption view, lower alpha and
check the re-ranked order against the re-ranking code, accept the suggestion, toggle
codes, undo, write a note, quit; re-open and resume where it stopped; export the labels
with the CLI afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import ready, settle, shown_text, table_rows
from typer.testing import CliRunner

from memscope.cli import app as cli
from memscope.store import Store
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.screens.queue import QueueScreen
from memscope.tui.widgets.candidates import CandidatesPanel
from memscope.tui.widgets.image_preview import ImagePreview
from memscope.tui.widgets.label_bar import LabelBar
from memscope.tui.widgets.round_view import RoundView
from memscope.usecases.labels.events import current_labels
from memscope.usecases.rerun.question_rerank import rerun_question
from memscope.usecases.runs.loading import load_run


async def type_text(pilot, text: str) -> None:
    for char in text:
        await pilot.press(char if char != " " else "space")


async def test_full_triage_session(demo: Path, store: Store, tmp_path: Path) -> None:
    run_dir = demo / "runs" / "srag_v"
    app = make_app(OpenRequest([str(run_dir)], annotator="alice"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert isinstance(app.screen, QueueScreen)
        assert app.session.spec.kind == "failing"
        failing = len(app.session.rows)
        assert failing > 0

        # Filter the queue to the Y3 failures, then to words of one question.
        await pilot.press("slash")
        await type_text(pilot, "y:Y3")
        await pilot.press("enter")
        await settle(pilot)
        y3_rows = [str(app.session.run.table.qids[r]) for r in table_rows(app)]
        assert 0 < len(y3_rows) < failing
        assert all(app.session.run.table.y[r] == "Y3" for r in table_rows(app))
        assert "q37" in y3_rows

        # Move down the queue to q37 and open it.
        for _ in range(y3_rows.index("q37")):
            await pilot.press("j")
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        assert app.session.qid == "q37"

        # Caption vs native: the round's image gives way to its caption and back.
        round_view = screen.query_one(RoundView)
        assert round_view.detail is not None and round_view.detail.images
        await pilot.press("c")
        await settle(pilot)
        assert round_view.caption_mode
        assert "caption view" in shown_text(screen.query_one("#round-media-note"))
        assert round_view.detail.images[0].caption in shown_text(
            screen.query_one("#round-media-note")
        )
        assert not any(preview.display for preview in round_view.query(ImagePreview))
        await pilot.press("c")
        await settle(pilot)
        assert not round_view.caption_mode
        assert round_view.query(ImagePreview).first().state in ("shown", "loading")

        # Lower alpha to 0.3: the candidate table follows the re-ranking code exactly.
        for _ in range(7):
            await pilot.press("left_square_bracket")
        await settle(pilot)
        assert app.session.view.alpha == 0.3
        expected = rerun_question(load_run(store, "srag_v"), "q37", alpha=0.3, k=app.session.view.k)
        assert [c.round_id for c in screen.candidates] == expected.after.ranking
        assert expected.after.ranking != expected.before.ranking
        metrics_line = shown_text(screen.query_one(CandidatesPanel).query_one("#rerank-question"))
        assert "Rank-Inv 1→0" in metrics_line

        # Accept the suggestion (SEL-STALE), then toggle codes and undo.
        await pilot.press("enter")
        await settle(pilot)
        label = current_labels(store, "srag_v", annotator="alice")["q37"]
        assert label.codes == ("SEL-STALE",) and label.source == "human"
        assert label.params["accepted_from"] == "rank-inversion"
        assert label.params["alpha"] == 0.3
        assert "saved ✓" in shown_text(screen.query_one(LabelBar))

        await pilot.press("4")  # RET-PART joins
        await settle(pilot)
        assert current_labels(store, "srag_v", annotator="alice")["q37"].codes == (
            "SEL-STALE",
            "RET-PART",
        )
        await pilot.press("6")  # SEL-STALE leaves
        await settle(pilot)
        assert current_labels(store, "srag_v", annotator="alice")["q37"].codes == ("RET-PART",)
        await pilot.press("u")
        await settle(pilot)
        assert current_labels(store, "srag_v", annotator="alice")["q37"].codes == (
            "SEL-STALE",
            "RET-PART",
        )
        assert (
            app.session.run.table.label[app.session.run.table.row_of["q37"]] == "SEL-STALE RET-PART"
        )

        # A note goes with the label.
        await pilot.press("n")
        await type_text(pilot, "bin moved")
        await pilot.press("enter")
        await settle(pilot)
        assert current_labels(store, "srag_v", annotator="alice")["q37"].note == "bin moved"

        # Next question, then quit.
        await pilot.press("j")
        await settle(pilot)
        next_qid = app.session.qid
        assert next_qid == y3_rows[y3_rows.index("q37") + 1]
        await pilot.press("q")

    # Re-open: the same queue, the same question, on the question screen.
    again = make_app(OpenRequest([str(run_dir)], annotator="alice"))
    async with again.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert again.session.qid == next_qid
        assert again.session.spec.text == "y:Y3"
        assert isinstance(again.screen, QuestionScreen)
        assert again.session.run.labels["q37"].codes == ("SEL-STALE", "RET-PART")

    # Another annotator starts fresh.
    other = make_app(OpenRequest([str(run_dir)], annotator="bob"))
    async with other.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert isinstance(other.screen, QueueScreen)
        assert other.session.spec.text == ""
        assert "q37" not in other.session.run.labels

    # The labels export afterwards with the CLI.
    out = tmp_path / "labels.jsonl"
    result = CliRunner().invoke(
        cli, ["export-labels", "--run", "srag_v", "--format", "jsonl", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    exported = next(row for row in rows if row["qid"] == "q37")
    assert exported["codes"] == ["SEL-STALE", "RET-PART"]
    assert exported["annotator"] == "alice"
    assert exported["note"] == "bin moved"
