"""Open a demo run's question in the app headless, as the packaging tests' subprocesses do.

    python headless_open.py RUN_DIR QID [--no-engine]

Drives the real app with Textual's ``run_test`` in whatever environment runs it (a fresh
venv with only memscope's wheel, say) and needs nothing but memscope. With ``--no-engine``
it also presses ``s`` and ``i`` and checks that each says, in one notification, what to
install, and opens nothing. Prints one line and exits 0, or raises.
"""

from __future__ import annotations

import asyncio
import sys

from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.question import QuestionScreen

TIMEOUT_S = 60.0


async def main(run: str, qid: str, no_engine: bool) -> None:
    app = make_app(OpenRequest([run], question=qid, annotator="packaging-test"))
    async with app.run_test(size=(140, 42), notifications=True) as pilot:
        waited = 0.0
        while not (app.session.is_open and isinstance(app.screen, QuestionScreen)):
            await pilot.pause(0.05)
            waited += 0.05
            assert waited < TIMEOUT_S, f"the app did not open {qid}: {type(app.screen).__name__}"
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.session.qid == qid, app.session.qid
        screen = app.screen
        if no_engine:
            screen.selected_round = screen.selected_round or "D1:1"  # `i` needs a round
            for key in ("s", "i"):
                before = {id(note) for note in app._notifications}
                await pilot.press(key)
                await pilot.pause()
                assert app.screen is screen, f"{key} opened {type(app.screen).__name__}"
                said = [note.message for note in app._notifications if id(note) not in before]
                assert len(said) == 1 and "pip install 'memscope-triage[engine]'" in said[0], said
                assert "\n" not in said[0], said
    print(f"opened {qid} of {run}")


if __name__ == "__main__":
    arguments = [value for value in sys.argv[1:] if not value.startswith("--")]
    asyncio.run(main(arguments[0], arguments[1], "--no-engine" in sys.argv))
