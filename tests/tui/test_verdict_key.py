"""The verdict key on the question screen, driven with Pilot on the demo run ``srag_v``:
``v`` cycles the person's verdict on the answer (correct → wrong → unsure → none), saved
to the store apart from the label, shown in the label bar once committed, undone with
``u``, listed in help and the palette, and counted in the quit summary."""

from __future__ import annotations

from pathlib import Path

from helpers import ready, settle, shown_text

from memscope.store import Store
from memscope.tui.app import make_app
from memscope.tui.commands import MemscopeCommands
from memscope.tui.export_action import quit_summary
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.widgets.label_bar import LabelBar
from memscope.usecases.labels.events import current_labels
from memscope.usecases.labels.verdicts import current_verdicts, verdict_history


def stored_verdict(store: Store, qid: str) -> str | None:
    found = current_verdicts(store, "srag_v", annotator="alice").get(qid)
    return found.verdict if found is not None else None


async def test_v_cycles_the_stored_verdict_and_u_undoes_it(demo: Path, store: Store) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and app.session.qid == "q37"
        bar = screen.query_one(LabelBar)
        assert "verdict" not in shown_text(bar)

        await pilot.press("v")
        await settle(pilot)
        assert stored_verdict(store, "q37") == "correct"
        assert "verdict correct" in shown_text(bar) and "saved ✓" in shown_text(bar)
        assert "q37" not in current_labels(store, "srag_v", annotator="alice")
        assert quit_summary(app) == "srag_v: labelled 0 · 0 notes · 1 verdict · exported: no"

        await pilot.press("v")
        await settle(pilot)
        assert stored_verdict(store, "q37") == "wrong"
        assert "verdict wrong" in shown_text(bar)

        await pilot.press("u")
        await settle(pilot)
        assert stored_verdict(store, "q37") == "correct"
        assert [event.action for event in verdict_history(store, "srag_v", "q37")] == [
            "set",
            "set",
            "undo",
        ]

        await pilot.press("v", "v", "v")  # wrong, unsure, none
        await settle(pilot)
        assert stored_verdict(store, "q37") is None
        assert "verdict" not in shown_text(bar)
        assert quit_summary(app) == "srag_v: labelled 0 · 0 notes · exported: no"

        # The label and its undo are untouched by the verdict.
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        assert current_labels(store, "srag_v", annotator="alice")["q37"].codes == ("SEL-STALE",)
        assert "SEL-STALE" in shown_text(bar) and "verdict correct" in shown_text(bar)
        await pilot.press("u", "u")  # the verdict, then the label
        await settle(pilot)
        assert stored_verdict(store, "q37") is None
        assert "q37" not in current_labels(store, "srag_v", annotator="alice")


async def test_the_verdict_key_is_in_help_and_the_palette(demo: Path) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert "question.verdict" in app.binding_catalogue()
        provider = MemscopeCommands(app.screen)
        hits = {str(hit.text): hit.help async for hit in provider.discover()}
        title = "Verdict on the answer: correct/wrong/unsure/none"
        assert title in hits and "question.verdict" in str(hits[title])
