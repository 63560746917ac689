"""Keys by binding id (remapping, bad config, help, command palette) and the other screens:
matrix → cell queue, runs → comparison mode, the queue's kinds and sorting, a small terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ready, settle, shown_text, table_rows
from textual.widgets import DataTable

from memscope.config import load_config
from memscope.errors import ConfigError, InputError
from memscope.tui.app import binding_catalogue, make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.help import HelpScreen
from memscope.tui.screens.matrix import MatrixScreen
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.screens.queue import QueueScreen
from memscope.tui.screens.runs import RunsScreen
from memscope.tui.widgets.answer_panel import AnswerPanel
from memscope.tui.widgets.queue_table import QueueTable
from support import notices


def write_config(home: Path, text: str) -> Path:
    path = home / "config.toml"
    path.write_text(text)
    return path


async def test_keys_remap_by_binding_id(demo: Path, isolated_env: Path) -> None:
    write_config(
        isolated_env,
        '[keys]\n"question.next" = "f6,J"\n"question.code.RET-MISS" = "r"\n"app.runs" = "R"\n',
    )
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q3"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("j")  # no longer bound
        await settle(pilot)
        assert app.session.qid == "q3"
        await pilot.press("J")
        await settle(pilot)
        assert app.session.qid != "q3"
        await pilot.press("r")  # RET-MISS now, not the runs screen
        await settle(pilot)
        assert isinstance(app.screen, QuestionScreen)
        assert app.session.run.labels[app.session.qid].codes == ("RET-MISS",)
        assert "r RET-MISS" in shown_text(app.screen.query_one("#label-bar"))
        assert app.keys.keys_for("question.next") == "f6 / J"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ('[keys]\n"question.nxt" = "n"\n', "unknown binding id in keys.'question.nxt'"),
        ('[keys]\n"question.next" = "ctrl+frobnicate"\n', "'ctrl+frobnicate' is not a key name"),
    ],
)
def test_bad_key_config_names_file_and_key(isolated_env: Path, config: str, message: str) -> None:
    path = write_config(isolated_env, config)
    with pytest.raises(ConfigError) as raised:
        make_app(OpenRequest(["x"]))
    assert message in str(raised.value) and str(path) in str(raised.value)
    if "nxt" in config:
        assert "question.next" in str(raised.value)  # the nearest id is suggested


def test_bad_queue_or_cell_options() -> None:
    with pytest.raises(InputError, match="unknown queue"):
        make_app(OpenRequest(["x"], queue="broken"))
    with pytest.raises(InputError, match="not a cell"):
        make_app(OpenRequest(["x"], cell="X9"))


async def test_help_and_palette_list_every_binding(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice"))
    catalogue = binding_catalogue(app.session.taxonomy, {})
    assert {
        "question.next",
        "question.accept",
        "question.alpha_up",
        "question.caption",
        "question.audio",
        "question.code.SEL-STALE",
        "queue.filter",
        "matrix.open",
        "runs.mark",
        "app.help",
    } <= set(catalogue)
    async with app.run_test(size=(120, 60)) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        from rich.console import Console

        console = Console(width=200, record=True)
        console.print(app.screen.query_one("#help-table").content)
        listed = console.export_text()
        missing = [binding_id for binding_id in catalogue if binding_id not in listed]
        assert missing == []
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)

        from memscope.tui.commands import MemscopeCommands

        provider = MemscopeCommands(app.screen)
        titles = [hit.text async for hit in provider.discover()]
        assert {
            "Filter",
            "Failing/all/unlabelled",
            "Go to the matrix",
            "Show every key (help)",
        } <= set(map(str, titles))


async def test_queue_kinds_sort_and_bad_filter(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        failing = len(app.session.rows)
        await pilot.press("f")
        await settle(pilot)
        assert app.session.spec.kind == "all" and len(app.session.rows) > failing
        await pilot.press("s", "s", "s", "s", "s", "s")  # idx → … → score
        await settle(pilot)
        assert app.session.spec.sort == "score"
        scores = app.session.run.table.score[table_rows(app)]
        assert list(scores) == sorted(scores)
        await pilot.press("slash")
        for char in "nonsense:1":
            await pilot.press(char)
        await pilot.press("enter")
        await settle(pilot)
        assert any("unknown filter field" in n.message for n in notices(app))
        assert app.session.spec.text == ""  # the bad filter was not applied
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.query_one(QueueTable).has_focus


async def test_matrix_opens_the_queue_of_a_cell(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("m")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MatrixScreen)
        table = screen.query_one(DataTable)
        assert table.row_count == 4
        assert "n=" in str(table.get_cell_at((0, 1)))
        await pilot.press("m")  # next metric
        await settle(pilot)
        assert screen.metric.key == "judge"
        await pilot.press("down", "down", "down", "right", "right")  # X4 row, Y3 column
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        assert app.session.spec.cell == "X4_Y3"
        assert all(app.session.run.table.cell[r] == "X4_Y3" for r in table_rows(app))


async def test_runs_screen_opens_comparison_mode(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_t")], annotator="alice"))
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        from memscope.adapters import ReadOptions
        from memscope.usecases.runs.ingest import ingest_dir

        ingest_dir(app.store, demo / "runs" / "srag_v", ReadOptions())
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        ids = [run["run_id"] for run in screen.runs]
        assert {"srag_t", "srag_v"} <= set(ids)
        table = screen.query_one(DataTable)
        table.move_cursor(row=ids.index("srag_t"))
        await pilot.press("space")
        table.move_cursor(row=ids.index("srag_v"))
        await pilot.press("space")
        await pilot.press("enter")
        await ready(pilot)
        session = app.session.run
        assert (session.run_id, session.other_run_id) == ("srag_t", "srag_v")
        assert app.screen.query_one(QueueTable).compare
        await pilot.press("enter")
        await settle(pilot)
        text = str(app.screen.query_one(AnswerPanel).query_one("#answer-text").content)
        assert "srag_v: " in text
        await pilot.press("m")
        await settle(pilot)
        assert any(metric.key == "delta" for metric in app.screen.metrics)


async def test_next_question_redraws_the_panes_in_place(demo: Path) -> None:
    """`j` draws the next question into the widgets already there: nothing is mounted or
    removed (the footer's keys included: recomposing them cost more than the rest of a
    step), and the answer pane shows the new question."""
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, QuestionScreen)

        def mounted() -> list[int]:
            # Image pixels are mounted once, when a preview first shows a decoded image.
            return [id(w) for w in screen.query("*") if not w.has_class("image-pixels")]

        before, keys = mounted(), [id(w) for w in screen.query("FooterKey")]
        await pilot.press("j")
        await settle(pilot)
        assert app.session.qid != "q37"
        assert [id(w) for w in screen.query("FooterKey")] == keys
        assert mounted() == before
        answer = screen.query_one(AnswerPanel).query_one("#answer-text")
        assert screen.detail is not None and screen.detail.question in str(answer.content)


async def test_small_terminal_stacks_the_panes(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.has_class("-narrow")
        for widget_id in ("#answer", "#timeline", "#round", "#candidates", "#label-bar"):
            assert screen.query_one(widget_id).size.width >= 70, widget_id
        await pilot.press("right_square_bracket", "left_square_bracket", "c", "j", "k")
        await settle(pilot)
        assert app.session.qid == "q37" and app.session.caption_mode
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        assert app.screen.query_one(QueueTable).size.height >= 10


def test_config_keys_section_is_what_make_app_reads(isolated_env: Path) -> None:
    write_config(isolated_env, '[keys]\n"question.next" = "J"\n')
    assert load_config().keys == {"question.next": "J"}


async def test_loaded_run_is_kept_out_of_the_collectors_scans(
    demo: Path, isolated_env: Path
) -> None:
    """Full collections walking a big loaded run stalled one keypress in ten (benchmarks/):
    once loaded, the run's objects sit in the frozen generation."""
    import gc

    gc.unfreeze()
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q3"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.session.run.suggestions_ready
        assert gc.get_freeze_count() > 0
    gc.unfreeze()
