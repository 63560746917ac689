"""Bad data never crashes the app: missing and corrupt images show a placeholder naming the
path, and text from run files (Rich markup, links, ANSI escapes) is shown literally."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import ready, settle, shown_text
from PIL import Image

from builders import dialog, open_row, qa, write_run
from builders_media import bomb_png
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.widgets.answer_panel import AnswerPanel
from memscope.tui.widgets.image_preview import ImagePreview
from memscope.tui.widgets.queue_table import QueueTable
from memscope.tui.widgets.round_view import RoundView
from memscope.tui.widgets.timeline import Timeline
from support import notices

MARKUP = "[bold]loud[/bold] [link=https://evil.example]click[/link] \x1b[31mred\x1b[0m"


def media_run(tmp_path: Path) -> Path:
    """Rounds whose images are fine, deleted after ingest, or a PNG header with garbage."""
    images = {
        "D1:1": ["image/Task/good.png"],
        "D1:2": ["image/Task/gone.png"],
        "D1:3": ["image/Task/broken.png"],
    }
    data = dialog(
        {"D1": ["D1:1", "D1:2", "D1:3"]},
        [
            qa(
                f"Question {MARKUP}?",
                f"gold {MARKUP}",
                [["X3"], ["Y1"]],
                ["D1:1", "D1:2", "D1:3"],
                ["D1"],
            )
        ],
        images,
    )
    data["multi_session_dialogues"][0]["dialogues"][0]["user"] = f"user says {MARKUP}"
    row = open_row(1, data, judge=0.0, seed=["D1:2", "D1:3", "D1:1"])
    row["pred"] = f"pred {MARKUP}"
    row["judge_reasoning"] = f"because {MARKUP}"
    run_dir = write_run(tmp_path / "runs" / "media", data, [row])
    image_dir = tmp_path / "runs" / "data" / "image" / "Task"
    image_dir.mkdir(parents=True)
    Image.new("RGB", (40, 30), (200, 30, 30)).save(image_dir / "good.png")
    Image.new("RGB", (40, 30), (30, 200, 30)).save(image_dir / "gone.png")
    (image_dir / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"this is not image data" * 10)
    return run_dir


async def show_round(pilot, screen: QuestionScreen, round_id: str) -> ImagePreview:
    assert screen.query_one(Timeline).select_round(round_id)
    await settle(pilot)
    return screen.query_one(RoundView).query(ImagePreview).first()


async def test_images_missing_corrupt_and_fine(tmp_path: Path) -> None:
    run_dir = media_run(tmp_path)
    app = make_app(OpenRequest([str(run_dir)], annotator="alice", question="q1"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        (
            tmp_path / "runs" / "data" / "image" / "Task" / "gone.png"
        ).unlink()  # removed after ingest
        screen = app.screen
        assert isinstance(screen, QuestionScreen)

        good = await show_round(pilot, screen, "D1:1")
        assert good.state == "shown"
        assert not screen.query_one("#image-placeholder").display or not shown_text(
            good.query_one("#image-placeholder")
        )

        gone = await show_round(pilot, screen, "D1:2")
        assert gone.state == "missing"
        assert "gone.png" in gone.placeholder_text and "not found" in gone.placeholder_text

        broken = await show_round(pilot, screen, "D1:3")
        assert broken.state == "undecodable"
        assert (
            "broken.png" in broken.placeholder_text and "cannot decode" in broken.placeholder_text
        )

        # Back to a good one: the widget recovers.
        again = await show_round(pilot, screen, "D1:1")
        assert again.state == "shown"


async def test_a_decompression_bomb_shows_a_placeholder_saying_why(tmp_path: Path) -> None:
    """A 140 KiB PNG of 144 megapixels is refused before decoding, naming the file and its size."""
    run_dir = media_run(tmp_path)
    image_dir = tmp_path / "runs" / "data" / "image" / "Task"
    bomb_png(image_dir / "gone.png", 12_000, 12_000)
    app = make_app(OpenRequest([str(run_dir)], annotator="alice", question="q1"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        bomb = await show_round(pilot, screen, "D1:2")
        assert bomb.state == "undecodable"
        text = " ".join(bomb.placeholder_text.split())
        assert "gone.png" in text
        assert "12,000 × 12,000 pixels (144 megapixels)" in text
        assert "decompression bomb" in text
        assert (await show_round(pilot, screen, "D1:1")).state == "shown"


async def test_markup_and_escapes_are_shown_literally(tmp_path: Path) -> None:
    run_dir = media_run(tmp_path)
    app = make_app(OpenRequest([str(run_dir)], annotator="alice"))
    async with app.run_test(size=(160, 40)) as pilot:  # the whole question text in the row
        await ready(pilot)
        table = app.screen.query_one(QueueTable)
        line = "".join(segment.text for segment in table.render_line(0))
        assert "[bold]loud[/bold]" in line and "[link=https://evil.example]" in line
        assert "\x1b" not in line and "\\x1b[31m" in line

        await pilot.press("enter")
        await settle(pilot)
        panel = app.screen.query_one(AnswerPanel).query_one("#answer-text")
        text = panel.content
        plain = str(text)
        for part in (
            "Question [bold]loud[/bold]",
            "gold [bold]loud",
            "pred [bold]loud",
            "because [bold]loud[/bold] [link=https://evil.example]click[/link]",
        ):
            assert part in plain, part
        assert "\x1b" not in plain and "\\x1b[31mred\\x1b[0m" in plain
        assert not any("link" in str(span.style) for span in text.spans)

        screen = app.screen
        assert screen.query_one(Timeline).select_round("D1:1")
        await settle(pilot)
        body = str(screen.query_one("#round-text").content)
        assert "user says [bold]loud[/bold]" in body and "\\x1b[31m" in body

        # A note typed with markup is stored and shown as typed.
        await pilot.press("3")  # RET-MISS, so the label can carry a note
        await settle(pilot)
        await pilot.press("n")
        for char in "[b]x[/b]":
            await pilot.press(char)
        await pilot.press("enter")
        await settle(pilot)
        assert "[b]x[/b]" in str(screen.query_one("#label-bar").content), [
            n.message for n in notices(app)
        ]
    exported = json.dumps(app.session.run.labels["q1"].note)
    assert "[b]x[/b]" in exported
