"""The README's "first five minutes", step by step, on the demo run as a newcomer meets it.

Each numbered step of README.md is driven here (the app with Pilot, the commands with
Typer's runner), and the commands the README shows in code blocks are run as written.
"""

from __future__ import annotations

import re
import shlex
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
from memscope.tui.widgets.label_bar import LabelBar
from memscope.tui.widgets.round_view import RoundView
from memscope.usecases.labels.events import current_labels

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
runner = CliRunner()


def readme_commands() -> list[list[str]]:
    """Every ``memscope ...`` line of the README's shell code blocks, as argv (without memscope)."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", README, flags=re.S):
        for line in block.splitlines():
            line = line.split("#")[0].strip()
            if line.startswith("memscope "):
                commands.append(shlex.split(line)[1:])
    return commands


async def test_first_five_minutes(store: Store, monkeypatch) -> None:
    monkeypatch.chdir(REPO)  # the README's paths are relative to the repository
    assert "./scripts/setup.sh && source .venv/bin/activate && memscope open runs/srag_v/" in README

    # 1. Open a run: the queue of the 17 questions it failed, of 47.
    app = make_app(OpenRequest(["runs/srag_v/"], annotator="newcomer"))
    async with app.run_test(size=(140, 42)) as pilot:
        await ready(pilot)
        assert isinstance(app.screen, QueueScreen)
        assert len(app.session.rows) == 17 and len(app.session.run.table) == 47
        assert "the 17 of 47 questions" in README

        # 2. The matrix: EM per cell; m cycles the metric; esc goes back.
        await pilot.press("m")
        await settle(pilot)
        matrix = app.screen
        assert isinstance(matrix, MatrixScreen) and matrix.metric.title.startswith("EM")
        await pilot.press("m")
        await settle(pilot)
        assert not matrix.metric.title.startswith("EM")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)

        # 3. Filter to Y3, move to q37, open it: the stale clue outranks the latest one.
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
        assert (
            "Where is the compost bin now?"
            in app.session.run.table.question[app.session.run.table.row_of["q37"]]
        )
        before = {row.round_id: row for row in screen.rerun.before.rows}
        assert before["D2:2"].rank == 1 and before["D2:2"].is_stale
        assert before["D5:1"].rank == 2 and before["D5:1"].is_latest
        assert screen.rerun.before.metrics["rank_inversion"] == 1.0

        # 4. Caption vs native.
        await pilot.press("c")
        await settle(pilot)
        round_view = screen.query_one(RoundView)
        assert round_view.caption_mode
        assert "caption view" in shown_text(screen.query_one("#round-media-note"))
        await pilot.press("c")
        await settle(pilot)
        assert not round_view.caption_mode

        # 5. Three presses of [ : alpha 0.7, the latest clue moves to rank 1.
        for _ in range(3):
            await pilot.press("left_square_bracket")
        await settle(pilot)
        assert app.session.view.alpha == 0.7
        assert screen.rerun.after.ranking[:2] == ["D5:1", "D2:2"]
        assert screen.rerun.after.metrics["rank_inversion"] == 0.0

        # 6. Accept the suggestion: SEL-STALE, shown as saved once committed.
        await pilot.press("enter")
        await settle(pilot)
        label = current_labels(store, "srag_v", annotator="newcomer")["q37"]
        assert label.codes == ("SEL-STALE",)
        assert "saved ✓" in shown_text(screen.query_one(LabelBar))
        await pilot.press("q")
        await settle(pilot)

    # 5 (CLI). The same re-rank from the command line, on the run opened last.
    result = runner.invoke(
        cli, ["rerun", "--question", "q37", "--alpha", "0.7", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    import json

    payload = json.loads(result.stdout)
    assert payload["before"]["ranking"][:2] == ["D2:2", "D5:1"] and payload["after"]["ranking"][
        :2
    ] == ["D5:1", "D2:2"]

    # 7. Export: q37 with its code, the annotator and the alpha it was labelled at.
    exported = runner.invoke(cli, ["export-labels", "--format", "csv"])
    assert exported.exit_code == 0, exported.output
    _header, *rows = exported.stdout.strip().splitlines()
    assert (
        len(rows) == 1 and ",q37," in rows[0] and "SEL-STALE" in rows[0] and "newcomer" in rows[0]
    )
    assert '""alpha"": 0.7' in rows[0]


def test_every_command_in_the_readme_runs(store: Store, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    commands = readme_commands()
    assert ["rerun", "--question", "q37", "--alpha", "0.7"] in commands
    assert ["compare", "runs/srag_t/", "runs/srag_v/"] in commands
    assert (
        runner.invoke(cli, ["ingest", "runs/srag_v/"]).exit_code == 0
    )  # as `memscope open` would have
    for argv in commands:
        result = runner.invoke(cli, argv)
        assert result.exit_code == 0, (argv, result.output)
        assert "Traceback" not in result.output
