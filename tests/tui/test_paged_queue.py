"""The queue screen as a window onto the store: the rows drawn are read from the store a
screen (and a margin) at a time, scrolling reads the next ones, a label shows in its row
at once, and the run itself is not read to show, filter or sort the queue. A run opens
on its queue's head; the whole queue, counted in the background, replaces it under the
cursor."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from helpers import ready, settle, shown_text, until

from memscope.triage.session import TriageSession, opening
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.screens.queue import QueueScreen
from memscope.tui.widgets.queue_table import QueueTable
from memscope.tui.widgets.status_bar import StatusBar
from memscope.usecases.labels import queue_window


def drawn(table: QueueTable, line: int) -> str:
    return "".join(segment.text for segment in table.render_line(line))


async def test_the_queue_reads_only_the_rows_it_draws(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_window, "PAGE_MARGIN", 0)  # exactly the screen: 47 rows won't fit
    monkeypatch.setattr(opening, "FIRST_SCREEN", 5)  # what the loading worker reads
    monkeypatch.setattr(opening, "HEAD_ROWS", 5)  # … of the queue's head
    monkeypatch.setattr(queue_window, "STEP_MARGIN", 2)  # around the cursor's question
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", queue="all"))
    async with app.run_test(size=(120, 20)) as pilot:
        await ready(pilot)
        assert isinstance(app.screen, QueueScreen)
        session = app.session
        run = session.run
        assert run is not None and len(session.rows) == 47
        table = app.screen.query_one(QueueTable)
        height = table.scrollable_content_region.height
        queue = run.queue
        await app.workers.wait_for_complete()  # the warm-up's reads are in read_first
        await pilot.pause()
        read_first = set(queue._cache)
        assert 0 < len(read_first) < 47
        last = int(session.rows[-1])
        assert last not in read_first
        await pilot.press("end")
        await pilot.pause()
        assert session.position == 46 and session.qid == queue.qid_of(last)
        # The last screen was read when drawn, in one window: its rows, not the ones between.
        line = table.cursor - int(table.scroll_offset.y)
        assert session.qid in drawn(table, line)
        # (Rows read before the jump stay: the first screen, and the next questions the
        # background warm-up read for ``enter``.)
        between = {int(row) for row in session.rows[height + 1 : 46 - height]} - read_first
        assert between and not between & set(queue._cache)

        # Sorting is SQL: the order matches the in-memory table's (read here for the check).
        await pilot.press("s")  # idx -> qid
        await settle(pilot)
        assert session.spec.sort == "qid"
        qids = [queue.qid_of(int(row)) for row in session.rows]
        assert qids == [str(run.table.qids[row]) for row in run.table.select(session.spec)]


async def test_the_queue_opens_on_its_head_and_the_count_follows(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opening, "HEAD_ROWS", 6)
    counting = threading.Event()
    prepare_count = TriageSession.prepare_count

    def held(self: TriageSession, run: object) -> object:
        counting.wait(10)  # the whole queue is counted only when the test says so
        return prepare_count(self, run)  # type: ignore[arg-type]

    monkeypatch.setattr(TriageSession, "prepare_count", held)
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", queue="all"))
    async with app.run_test(size=(120, 20)) as pilot:
        while not (app.session.is_open and isinstance(app.screen, QueueScreen)):
            await pilot.pause(0.05)
        await pilot.pause()
        session = app.session
        assert len(session.rows) == 6 and not session.counted
        status = shown_text(app.screen.query_one(StatusBar))
        assert "counting questions" in status and "47" not in status
        assert not app.screen.query_one("#queue-empty").display
        await pilot.press("j", "j", "j")
        await pilot.pause()
        qid = session.qid
        assert session.position == 3 and qid is not None
        counting.set()
        await settle(pilot)
        assert session.counted and len(session.rows) == 47
        assert session.position == 3 and session.qid == qid  # the cursor stayed on it
        assert "47 questions" in shown_text(app.screen.query_one(StatusBar))
        # The head was the whole queue's beginning, in the same order.
        assert session.rows.tolist() == run_idx_order(app)


def run_idx_order(app: object) -> list[int]:
    """The "all" queue of the app's run, computed in memory from the whole run."""
    run = app.session.run  # type: ignore[attr-defined]
    table = run.table
    return [int(table.idx[row]) for row in table.select(app.session.spec)]  # type: ignore[attr-defined]


async def test_a_label_shows_in_its_row_and_the_progress(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice"))
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        session = app.session
        qid = session.qid
        assert qid is not None and session.progress[0] == 0
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("3")  # RET-MISS
        await settle(pilot)
        assert session.labels.committed(qid) is not None
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        table = app.screen.query_one(QueueTable)
        assert "RET-MISS" in drawn(table, table.cursor - int(table.scroll_offset.y))
        assert session.progress[0] == 1


async def test_a_run_reopens_around_the_remembered_question(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = str(demo / "runs" / "srag_v")
    app = make_app(OpenRequest([run], annotator="alice", queue="all"))
    async with app.run_test(size=(120, 20)) as pilot:
        await ready(pilot)
        for _ in range(20):
            await pilot.press("j")
        await settle(pilot)
        left_on = app.session.qid
        assert app.session.position == 20 and left_on is not None
    # Reopened: the rows around that question are read first, the rest counted after.
    monkeypatch.setattr(opening, "HEAD_ROWS", 6)
    monkeypatch.setattr(queue_window, "HEAD_BEFORE", 2)
    counting = threading.Event()
    prepare_count = TriageSession.prepare_count

    def held(self: TriageSession, run: object) -> object:
        counting.wait(120)  # held until the test has seen the screens before the count
        return prepare_count(self, run)  # type: ignore[arg-type]

    monkeypatch.setattr(TriageSession, "prepare_count", held)
    app = make_app(OpenRequest([run], annotator="alice"))
    async with app.run_test(size=(120, 20)) as pilot:
        while not (app.session.is_open and isinstance(app.screen, QueueScreen)):
            await pilot.pause(0.05)
        await pilot.pause()
        session = app.session
        assert session.qid == left_on and len(session.rows) == 8 and session.position == 2
        assert f"{left_on} …/…" not in shown_text(app.screen.query_one(StatusBar))  # no qid here
        assert "counting questions" in shown_text(app.screen.query_one(StatusBar))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question screen")
        await until(
            pilot,
            lambda: "…/…" in shown_text(app.screen.query_one(StatusBar)),
            "the status bar: its place not yet known",
        )
        assert not session.counted
        counting.set()
        await settle(pilot)
        assert session.counted and len(session.rows) == 47
        assert session.qid == left_on and session.position == 20
        assert f"{left_on} 21/47" in shown_text(app.screen.query_one(StatusBar))
