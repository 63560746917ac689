"""Open the example plugin's run in the app headless and filter its queue by ToyBench's axes.

    python headless_plugin.py RUN_DIR

Drives the real app with Textual's ``run_test`` in the process the packaging test starts
(the plugin on its ``PYTHONPATH``): opens the run's first question, shows the matrix (its
default view must be ToyBench's kind x gap), then filters the queue with ToyBench's own
words. Prints one line per finding and exits 0, or raises.
"""

from __future__ import annotations

import asyncio
import sys

from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.matrix import MatrixScreen
from memscope.tui.screens.question import QuestionScreen

TIMEOUT_S = 60.0


async def main(run: str) -> None:
    app = make_app(OpenRequest([run], question="q1", annotator="packaging-test"))
    async with app.run_test(size=(140, 42)) as pilot:
        waited = 0.0
        while not (app.session.is_open and isinstance(app.screen, QuestionScreen)):
            await pilot.pause(0.05)
            waited += 0.05
            assert waited < TIMEOUT_S, f"the app did not open {run}: {type(app.screen).__name__}"
        await app.workers.wait_for_complete()
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, MatrixScreen), type(app.screen).__name__
        view = app.session.run.table.axes.views[0]
        print(f"matrix {view.rows} x {view.columns}")
        for words in ("kind:update", "kind:fact gap:>=1"):
            notice = app.session.change_queue(kind="all", text=words)
            assert notice is None, notice
            queue = app.session.run.queue  # the queue names its questions by idx
            print(f"{words}: {' '.join(queue.qid_of(int(row)) for row in app.session.rows)}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
