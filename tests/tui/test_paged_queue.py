"""The queue screen as a window onto the store: the rows drawn are read from the store a
screen (and a margin) at a time, scrolling reads the next ones, a label shows in its row
at once, and the run itself is not read to show, filter or sort the queue."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ready, settle

from memscope.triage import session_service
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.queue import QueueScreen
from memscope.tui.widgets.queue_table import QueueTable
from memscope.usecases.labels import queue_window


def drawn(table: QueueTable, line: int) -> str:
    return "".join(segment.text for segment in table.render_line(line))


async def test_the_queue_reads_only_the_rows_it_draws(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_window, "PAGE_MARGIN", 0)  # exactly the screen: 47 rows won't fit
    monkeypatch.setattr(session_service, "FIRST_SCREEN", 5)  # what the loading worker reads
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
