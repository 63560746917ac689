"""Writes the README's screenshots (docs/*.svg) by driving the app on the demo run.

    .venv/bin/python scripts/screenshots.py

Uses a scratch store, so it never touches yours. Images are drawn with half-blocks.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


async def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["MEMSCOPE_DB"] = str(Path(scratch) / "store.duckdb")
        os.environ["MEMSCOPE_CONFIG"] = str(Path(scratch) / "config.toml")
        os.environ["MEMSCOPE_IMAGE_RENDERER"] = "halfcell"
        sys.path.insert(0, str(ROOT / "tests" / "tui"))
        from helpers import ready, settle  # the tests' waiting helpers

        from memscope.tui.app import make_app
        from memscope.tui.open_request import OpenRequest
        from memscope.tui.widgets.image_preview import ImagePreview, load_renderer

        ImagePreview.renderer = load_renderer()  # memscope open does this before the app starts

        app = make_app(
            OpenRequest([str(ROOT / "runs" / "srag_v")], annotator="demo", question="q37")
        )
        async with app.run_test(size=(140, 42)) as pilot:
            await ready(pilot)
            for _ in range(3):
                await pilot.press("left_square_bracket")
            await settle(pilot)
            app.save_screenshot(filename="question-screen.svg", path=str(ROOT / "docs"))
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("m")
            await settle(pilot)
            app.save_screenshot(filename="matrix-screen.svg", path=str(ROOT / "docs"))
        # A laptop-sized terminal: the panes stack and the re-rank panel comes up on [.
        app = make_app(
            OpenRequest([str(ROOT / "runs" / "srag_v")], annotator="demo", question="q37")
        )
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            for _ in range(3):
                await pilot.press("left_square_bracket")
            await settle(pilot)
            app.save_screenshot(filename="question-screen-100x30.svg", path=str(ROOT / "docs"))
        # Each benchmark on its own axes: CUE-Mem task × evidence, DMV-Bench reach × bank size.
        for ref, name in (
            (f"{ROOT / 'runs' / 'cue_text'}:history_with_qa_p0", "matrix-cuemem.svg"),
            (f"{ROOT / 'runs' / 'dmv_f2_demo'}:TextOnly", "matrix-dmv.svg"),
        ):
            app = make_app(OpenRequest([ref], annotator="demo", queue="all"))
            async with app.run_test(size=(140, 24)) as pilot:
                await ready(pilot)
                await pilot.press("m")
                await settle(pilot)
                app.save_screenshot(filename=name, path=str(ROOT / "docs"))
        await matrix_figure()
    print(
        "wrote docs/question-screen.svg, docs/question-screen-100x30.svg, "
        "docs/matrix-screen.svg, docs/matrix-cuemem.svg, docs/matrix-dmv.svg and "
        "docs/matrix-figure.svg"
    )


async def matrix_figure() -> None:
    """Two DMV-Bench systems compared, f on the matrix: the retention curves (call it
    inside main's scratch environment)."""
    from helpers import ready, settle

    from memscope.tui.app import make_app
    from memscope.tui.open_request import OpenRequest

    runs = [f"{ROOT / 'runs' / 'dmv_f2_demo'}:{system}" for system in ("TextOnly", "DualMem-a75")]
    app = make_app(OpenRequest(runs, annotator="demo", queue="all"))
    async with app.run_test(size=(120, 32)) as pilot:
        await ready(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        app.save_screenshot(filename="matrix-figure.svg", path=str(ROOT / "docs"))


if __name__ == "__main__":
    asyncio.run(main())
