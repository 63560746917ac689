"""The question screen on DMV-Bench and CUE-Mem runs: a probe's recall steps (DMV-Bench's
own question panel), and a voice message's waveform, caption view and real playback
(through the ALSA null device)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ready, settle, shown_text

from memscope.adapters.dmv.probe import load_probe
from memscope.media.audio import Player
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.widgets.audio_view import AudioView
from memscope.tui.widgets.question_panel import QuestionPanelView
from memscope.tui.widgets.round_view import RoundView
from memscope.tui.widgets.timeline import Timeline
from memscope.usecases.runs.panel_reads import StoredQuestion


def screen_question(screen: QuestionScreen) -> tuple[str, str]:
    """(run id, qid) of the question on screen."""
    session = screen.session
    assert session.run is not None and session.qid is not None
    return session.run.run_id, session.qid


async def open_first_question(pilot) -> QuestionScreen:
    app = await ready(pilot)
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(app.screen, QuestionScreen)
    return app.screen


async def test_a_dmv_probe_shows_its_target_outcome_and_recall_steps(demo: Path) -> None:
    app = make_app(OpenRequest([f"{demo / 'runs' / 'dmv_f2_demo'}:TextOnly"], annotator="tester"))
    async with app.run_test(size=(130, 40)) as pilot:
        screen = await open_first_question(pilot)
        panel = screen.query_one(QuestionPanelView)
        assert panel.display and not screen.query_one(RoundView).display
        assert panel.blocks is not None, "the probe panel did not load"
        probe = load_probe(StoredQuestion(screen.session.store, "dmv", *screen_question(screen)))
        assert probe.steps
        text = shown_text(screen.query_one("#question-panel-text"))
        assert f"target  {probe.target.url}" in text
        assert ("✓ the target" if probe.correct else "✗ not the target") in text
        assert f"R{probe.steps[0].step}" in text
        if probe.steps[0].target_rank is not None:
            assert f"{probe.steps[0].target_rank}.★{probe.target.url_hash}" in text


async def test_a_voice_message_shows_its_waveform_caption_and_plays(demo: Path) -> None:
    if not Player().available()[0]:
        pytest.skip("no audio output here: " + Player().available()[1])
    app = make_app(OpenRequest([f"{demo / 'runs' / 'cue_mm'}:p0"], annotator="tester", queue="all"))
    async with app.run_test(size=(130, 40)) as pilot:
        screen = await open_first_question(pilot)
        voiced = None
        for _ in range(
            len(app.session.rows)
        ):  # the first question whose timeline has a voice message
            voiced = next(
                (entry for entry in screen.entries if entry.kind == "round" and entry.has_audio),
                None,
            )
            if voiced is not None:
                break
            await pilot.press("j")
            await settle(pilot)
        assert voiced is not None, (
            "no question of the CUE-Mem demo has a voice message in its timeline"
        )
        assert screen.query_one(Timeline).select_round(voiced.round_id)
        await settle(pilot)
        view = next(view for view in screen.query(AudioView) if view.display)
        assert view.clip is not None and view.clip.duration_s > 0
        assert view.status == "ready"  # PortAudio found an output device (ALSA's null sink)
        assert len(view.query_one("#audio-wave").data) > 0  # the waveform sparkline

        await pilot.press("p")  # real playback into ALSA's null device (faster than real time)
        await settle(pilot)
        assert screen.player is not None  # the question screen owns the player
        screen.player.wait(10)
        assert screen.player.outcome == "finished"
        await settle(pilot)
        assert view.status == "ready"  # back from "playing" once the clip finished

        await pilot.press("c")  # what a textualised memory heard instead
        await settle(pilot)
        note = shown_text(screen.query_one("#round-media-note"))
        assert "caption view" in note
        detail = screen.query_one(RoundView).detail
        assert any(item.caption and item.caption in note for item in detail.audio)
