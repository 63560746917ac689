"""LoCoMo's real Honcho run in the app (issue 26): the category × evidence age matrix
against ``memscope report``, the queue's columns and a filter in LoCoMo's words, the
question screen with the answer's F1 and judge, a turn without user/assistant roles and an
image that is only a URL. The data is read from the shared samples (CC BY-NC), never copied.
"""

from __future__ import annotations

from helpers import settle, shown_text, table_rows
from test_benchmark_axes import SIZE, cell, filter_queue, header, labels, open_matrix, report_json

from builders_locomo import shared_locomo
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.widgets.answer_panel import AnswerPanel

RUN = "rsr_0612:honcho"


async def test_locomo_matrix_queue_and_question(ingested_store) -> None:
    ingested_store(shared_locomo() / "results" / "honcho" / "rsr_0612")
    report = report_json(RUN)
    app = make_app(OpenRequest([RUN], annotator="tester", queue="all"))
    async with app.run_test(size=SIZE) as pilot:
        _screen, table = await open_matrix(pilot)
        columns, rows = labels(table)
        assert rows == ["Multi-hop", "Temporal", "Open-domain", "Single-hop", "Adversarial"]
        assert columns[-1] == "all" and columns[0] == "0"
        by_row = {r["level"]: r for r in report["axes"]["views"][0]["correct"]["by_row"]}
        # The matrix's first metric is F1; its "all" column is over the same questions.
        assert cell(table, "Temporal", "all").split()[1] == f"n={by_row['temporal']['n']}"

        queue = await filter_queue(pilot, "category:temporal age:>=10")
        assert header(queue)[:3] == ["qid", "category", "age"]
        state = app.session
        axes = state.run.table.axis_labels
        assert len(state.rows) > 0 and set(axes["category"][table_rows(app)].tolist()) == {
            "temporal"
        }
        assert all(n >= 10 for n in state.run.table.axis_numbers["age"][table_rows(app)].tolist())

        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        answer = shown_text(screen.query_one(AnswerPanel).query_one("#answer-text"))
        assert "F1 " in answer and "judge " in answer and "EM " not in answer
        round_text = shown_text(screen.query_one("#round-text"))
        assert "user:" not in round_text and "assistant:" not in round_text
