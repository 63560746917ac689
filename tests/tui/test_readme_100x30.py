"""The README's "first five minutes" at 100×30, as test_readme.py walks them at full size:
every step works on a laptop-sized terminal, and what each step promises is on screen
(not below the fold), with ``?`` and ``q`` always in the footer (issue 15)."""

from __future__ import annotations

from pathlib import Path

from helpers import ready, settle, shown_text, table_rows
from typer.testing import CliRunner

from memscope.cli import app as cli
from memscope.store import Store
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.matrix import MatrixScreen
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.screens.queue import QueueScreen
from memscope.tui.widgets.footer import FittingFooter
from memscope.tui.widgets.label_bar import LabelBar
from memscope.tui.widgets.round_view import RoundView
from memscope.usecases.labels.events import current_labels

REPO = Path(__file__).resolve().parents[2]
SIZE = (100, 30)
runner = CliRunner()


def footer_actions(screen) -> set[str]:
    return {key.action for key in screen.query_one(FittingFooter).query("FooterKey")}


def visible(screen, widget) -> bool:
    """Whether ``widget`` lies wholly inside the screen's visible area (not scrolled off)."""
    region, view = widget.region, screen.region
    return region.height > 0 and region.y >= 0 and region.bottom <= view.bottom


async def test_first_five_minutes_at_100x30(store: Store, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    app = make_app(OpenRequest(["runs/srag_v/"], annotator="newcomer"))
    async with app.run_test(size=SIZE) as pilot:
        # 1. The queue of the 17 failed questions.
        await ready(pilot)
        assert isinstance(app.screen, QueueScreen) and len(app.session.rows) == 17
        assert {"help", "quit"} <= footer_actions(app.screen)

        # 2. The matrix, m cycles, M cycles back, esc returns.
        await pilot.press("m")
        await settle(pilot)
        matrix = app.screen
        assert isinstance(matrix, MatrixScreen) and matrix.metric.title.startswith("EM")
        await pilot.press("m")
        await settle(pilot)
        assert not matrix.metric.title.startswith("EM")
        await pilot.press("M")
        await settle(pilot)
        assert matrix.metric.title.startswith("EM")
        assert {"help", "quit"} <= footer_actions(matrix)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)

        # 3. Filter to Y3 and open q37: the stacked screen says so.
        await pilot.press("slash")
        for key in "y:Y3":
            await pilot.press(key)
        await pilot.press("enter")
        await settle(pilot)
        qids = [str(app.session.run.table.qids[row]) for row in table_rows(app)]
        for _ in range(qids.index("q37")):
            await pilot.press("j")
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and app.session.qid == "q37"
        assert screen.has_class("-narrow")
        hint = screen.query_one("#stack-hint")
        assert visible(screen, hint) and "panes stacked" in shown_text(hint)
        assert {"help", "quit"} <= footer_actions(screen)

        # 4. Caption vs native.
        await pilot.press("c")
        await settle(pilot)
        assert screen.query_one(RoundView).caption_mode
        await pilot.press("c")
        await settle(pilot)

        # 5. [ three times: the re-rank panel and its metrics are on screen, not below it.
        params = screen.query_one("#rerank-params")
        assert not visible(screen, params)  # stacked, it starts below the fold …
        for _ in range(3):
            await pilot.press("left_square_bracket")
        await settle(pilot)
        assert app.session.view.alpha == 0.7
        assert screen.rerun.after.ranking[:2] == ["D5:1", "D2:2"]
        metrics = screen.query_one("#rerank-question")
        assert visible(screen, params) and visible(screen, metrics)  # … and [ brings it up
        assert "α=0.7" in str(params.content) and "Rank-Inv 1→0" in shown_text(metrics)
        assert "carries over" in str(params.content)

        # 6. Accept the suggestion: saved ✓, a human decision.
        await pilot.press("enter")
        await settle(pilot)
        label = current_labels(store, "srag_v", annotator="newcomer")["q37"]
        assert label.codes == ("SEL-STALE",) and label.source == "human"
        assert "saved ✓" in shown_text(screen.query_one(LabelBar))
        await pilot.press("q")
        await settle(pilot)

    # 7. Export: q37, at the alpha it was labelled at, accepted from its rule.
    exported = runner.invoke(cli, ["export-labels", "--format", "csv"])
    assert exported.exit_code == 0, exported.output
    _header, *rows = exported.stdout.strip().splitlines()
    assert len(rows) == 1 and ",q37," in rows[0] and ",human," in rows[0]
    assert '""alpha"": 0.7' in rows[0] and "rank-inversion" in rows[0]


async def test_every_screen_keeps_help_and_quit_at_80x24(store: Store, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    app = make_app(OpenRequest(["runs/srag_v/"], annotator="newcomer"))
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        for key in ("m", "escape", "enter", "r"):
            await pilot.press(key)
            await settle(pilot)
            actions = footer_actions(app.screen)
            assert {"help", "quit"} <= actions, (type(app.screen).__name__, actions)
        await pilot.press("escape")
        await settle(pilot)
