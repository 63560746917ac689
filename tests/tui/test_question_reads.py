"""The question screen reads one question at a time (issue 30): `j` shows the question the
background prefetch read (no whole-run rounds or channel scores are touched), and what it
shows is what the whole run loaded in memory says of that question."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

from helpers import ready, settle

from memscope.triage.evidence_chain import question_detail
from memscope.triage.loaded_run import LoadedRun, open_session
from memscope.triage.session.questions import PREFETCH_AHEAD, PREFETCH_SOON
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.widgets.answer_panel import AnswerPanel


class WithoutWholeRunEvidence(LoadedRun):
    """A loaded run whose whole-run rounds and channel scores may not be read (the app's
    background load may still set them)."""

    def _refuse(self) -> NoReturn:
        raise AssertionError("the question screen read the whole run's rounds or channels")

    @property  # type: ignore[override]
    def rounds(self) -> Any:
        self._refuse()

    @rounds.setter
    def rounds(self, _value: Any) -> None:
        pass

    @property  # type: ignore[override]
    def channels(self) -> Any:
        self._refuse()

    @channels.setter
    def channels(self, _value: Any) -> None:
        pass


async def test_next_question_comes_from_the_prefetch_not_the_whole_run(demo: Path) -> None:
    request = OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", queue="all")
    app = make_app(replace(request, question="q3"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await settle(pilot)
        session = app.session
        run = session.run
        assert run is not None
        run.__class__ = WithoutWholeRunEvidence
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        whole = open_session(app.store, ["srag_v"], "alice")
        # Past the first prefetch's questions: a later prefetch reads on.
        presses = PREFETCH_AHEAD - PREFETCH_SOON + 3
        assert len(session.rows) > session.position + presses + 1
        for _ in range(presses):
            upcoming = session.upcoming_qids()
            prefetched = session.questions.get((run.opened, upcoming[0]))
            assert prefetched is not None  # read in the background before the key
            await pilot.press("j")
            await settle(pilot)
            assert session.qid == upcoming[0] and screen.question is prefetched
            row = whole.table.row_of[session.qid]
            assert screen.detail == replace(question_detail(whole.data, row), row=0)
            answer = screen.query_one(AnswerPanel).query_one("#answer-text")
            assert screen.detail.question in str(answer.content)
            assert screen.candidates and screen.entries  # its pool and timeline, read alone
        assert len(session.questions) <= session.questions.size


async def test_the_first_question_is_read_in_the_background_before_enter(demo: Path) -> None:
    """Once the queue is drawn, the question at the cursor and the next ones are read off
    the app's thread, so that ``enter`` finds them cached."""
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", queue="all"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await settle(pilot)
        session = app.session
        run = session.run
        assert run is not None and session.current_qid is not None
        cached = session.questions.get((run.opened, session.current_qid))
        assert cached is not None
        assert all(session.questions.get((run.opened, q)) for q in session.upcoming_qids())
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.question is cached
