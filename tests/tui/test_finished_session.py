"""Issue 15's app points, each on the real app with Pilot: help where you are, the palette,
the queue's mode column and sort, the re-rank scope, the matrix's cell queue, export from
the app and the quit summary, undo / play explaining themselves, and the search dialog."""

from __future__ import annotations

import time
from pathlib import Path

from helpers import ready, settle, shown_text, table_rows

from memscope.engine_jobs.memory_search import EngineStep
from memscope.tui.app import MemscopeApp, make_app
from memscope.tui.messages import SearchFinished
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.help import HelpScreen, legend_table
from memscope.tui.screens.matrix import MatrixScreen
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.screens.queue import QueueScreen
from memscope.tui.screens.search import SearchDialog
from memscope.tui.text import fit, whole_hints
from memscope.tui.widgets.candidates import short_note
from support import notices

REPO = Path(__file__).resolve().parents[2]


def messages(app) -> list[str]:
    return [n.message for n in notices(app)]


def legend_symbols() -> list[str]:
    return [str(cell) for cell in legend_table().columns[0]._cells]


async def test_help_shows_this_screens_keys_first_and_every_symbol(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert isinstance(app.screen, QuestionScreen)
        await pilot.press("question_mark")
        await settle(pilot)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        scopes = [info.scope for info in help_screen.bindings]
        assert scopes[0] == "question" and scopes.index("app") > scopes.index("question")
        assert max(i for i, s in enumerate(scopes) if s == "question") < scopes.index("app")
    for symbol in ("★", "◆", "●", "▲", "○", "▣", "stale", "CODE*"):
        assert symbol in legend_symbols()


async def test_palette_lists_each_action_once_and_finds_export(demo: Path) -> None:
    from memscope.tui.commands import MemscopeCommands

    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        provider = MemscopeCommands(app.screen)
        titles = [str(hit.text) async for hit in provider.discover()]
        assert len(titles) == len(set(titles))
        assert "Go to the matrix" in titles and "Matrix" not in titles
        found = [str(hit.text) async for hit in provider.search("export")]
        assert found and found[0] == "Export labels"
        builtins = [command.title for command in app.get_system_commands(app.screen)]
        assert builtins and all(title.startswith("Textual: ") for title in builtins)
        assert "Textual: Quit" not in builtins  # memscope's own q Quit is listed


def change_queue(app: MemscopeApp, **changes: object) -> None:
    """What the queue keys do: change the session's queue, then ask for the redraw."""
    from memscope.tui.messages import QueueChanged

    assert app.session.change_queue(**changes) is None
    app.post_message(QueueChanged())


async def test_queue_has_a_mode_column_and_sorts_qids_by_number(demo: Path) -> None:
    from memscope.tui.widgets.queue_table import QueueTable

    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        change_queue(app, kind="all", sort="qid")
        await settle(pilot)
        table = app.session.run.table
        qids = [str(table.qids[row]) for row in table_rows(app)]
        assert qids[:3] == ["q1", "q2", "q3"] and qids.index("q10") > qids.index("q9")
        change_queue(app, descending=True)
        assert str(table.qids[table_rows(app)[0]]) == "q47"
        change_queue(app, sort="mode", descending=False)
        await settle(pilot)
        modes = [str(table.mode[row]) for row in table_rows(app)]
        assert modes == sorted(modes) and modes[0] == "mcq" and modes[-1] == "open"
        first = "".join(s.text for s in app.screen.query_one(QueueTable).render_line(0))
        assert " MCQ " in first  # the column shows it
        # The rotation summary tells an MCQ item's four rotations apart from its open twin:
        # in the demo q6 is right in two rotations of four (EM 0.5), q24 in one (EM 0.25).
        queue = app.screen.query_one(QueueTable)
        assert queue._cell("mode", int(table.idx[table.row_of["q6"]]))[0] == "MCQ 2/4"
        assert queue._cell("mode", int(table.idx[table.row_of["q24"]]))[0] == "MCQ 1/4"
        open_rows = [
            int(table.idx[row]) for row in table_rows(app) if str(table.mode[row]) == "open"
        ]
        assert queue._cell("mode", open_rows[0])[0] == "open"


async def test_the_rerank_scope_is_shown_toggled_and_remembered(demo: Path) -> None:
    run = str(demo / "runs" / "srag_v")
    app = make_app(OpenRequest([run], annotator="alice", question="q37"))
    async with app.run_test(size=(160, 48)) as pilot:
        await ready(pilot)
        screen = app.screen
        params = screen.query_one("#rerank-params")
        assert "carries over" in str(params.content)
        await pilot.press("left_square_bracket", "g")
        await settle(pilot)
        assert app.session.view.scope == "question"
        assert "this question only" in str(params.content)
        await pilot.press("j")
        await settle(pilot)
        assert app.session.view.alpha == 1.0  # the next question opens in the run's order
        await pilot.press("q")
        await settle(pilot)
    again = make_app(OpenRequest([run], annotator="alice"))
    async with again.run_test(size=(160, 48)) as pilot:
        await ready(pilot)
        assert again.session.view.scope == "question"


async def test_a_matrix_cell_opens_all_its_questions_failing_first_and_esc_returns(
    demo: Path,
) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("m")
        await settle(pilot)
        matrix = app.screen
        assert isinstance(matrix, MatrixScreen)
        legend = shown_text(matrix.query_one("#matrix-legend"))
        assert "does not apply here" in legend  # the failing queue vs the whole-run grid
        await pilot.press("enter")  # the cursor starts on X1 × Y1
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        assert app.session.spec.kind == "all" and app.session.spec.cell == "X1_Y1"
        correct = [app.session.run.table.correct[row] for row in table_rows(app)]
        assert len(correct) == 4 and correct == sorted(correct) and correct[0] == 0.0
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MatrixScreen)
        assert app.session.spec.kind == "failing" and app.session.spec.cell is None


async def test_export_from_the_app_and_the_summary_on_quit(demo: Path) -> None:
    from memscope.tui.export_action import quit_summary

    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(pilot)
        assert quit_summary(app).endswith("labelled 0 · 0 notes · exported: no")
        await pilot.press("enter")  # accept SEL-STALE
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        box = app.screen.query_one("#export-path")
        assert box.value.endswith("labels-srag_v.csv")
        assert Path(box.value).parent == app.store.path.resolve().parent  # beside the store
        target = demo / "out.jsonl"
        box.value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert target.read_text().count("\n") == 1 and '"qid":"q37"' in target.read_text()
        assert any("Exported 1 label row(s)" in m for m in messages(app))
        assert quit_summary(app) == f"srag_v: labelled 1 · 0 notes · exported: {target}"


async def test_undo_and_play_say_why_they_do_nothing(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await ready(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert any(m.startswith("Nothing to undo on q37") for m in messages(app))
        # q37 has no audio: `p` is off (and out of the footer), so it plays nothing.
        assert app.screen.check_action("play", ()) is False
        await pilot.press("p")
        await settle(pilot)
        assert not any("playing" in m.lower() for m in messages(app))
        await pilot.press("enter", "u")  # a label, then its undo: no "nothing to undo"
        await settle(pilot)
        assert sum(m.startswith("Nothing to undo") for m in messages(app)) == 1


async def test_search_keeps_early_keys_and_times_the_model_load(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        SearchDialog.model_loaded = False
        dialog = SearchDialog("Search the memory bank", ask=True)
        app.push_screen(dialog)
        await pilot.press(*"compost")  # typed at once, while the dialog opens
        assert dialog.query_one("#search-input").value == "compost"
        status = dialog.query_one("#search-status")
        assert "loads the text model" in shown_text(status)
        # As a search's worker reports it (tests/tui/test_search_unlocked.py runs real ones).
        dialog.show_step(EngineStep("loading all-MiniLM-L6-v2", time.monotonic() - 4.2).line())
        assert shown_text(status) == "loading all-MiniLM-L6-v2 … 4 s"
        dialog.show_results(SearchFinished("t", [{"round_id": "D9:9", "score": 0.5, "text": "x"}]))
        await settle(pilot)
        assert shown_text(status) == "1 hit(s)" and SearchDialog.model_loaded
        await pilot.press("escape")


def test_text_is_cut_with_a_mark_and_hints_whole() -> None:
    assert fit("What lot number is printed", 14) == "What lot…"
    assert fit("short", 10) == "short"
    assert fit("abcdefghijklmnop", 6) == "abcde…"
    assert (
        whole_hints(["? all keys", "⏎ open", "f failing/all/unlabelled"], 20)
        == "? all keys  ⏎ open"
    )
    note = short_note(
        "5 of 10 candidates have scores; ranks 6–10 keep their order; "
        "`memscope recompute RUN` can recompute the missing similarities with the memory "
        "engine to re-rank the whole pool"
    )
    assert "`memscope recompute RUN` can recompute the missing similarities" in note
