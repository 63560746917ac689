"""A memscope app in its own process, for tests that need a second app or a hard kill.

    python app_process.py RUN_DIR ANNOTATOR QID KEYS...

Opens RUN_DIR on question QID (headless, via Pilot), prints ``READY <read-only reason>``,
presses KEYS one at a time, prints ``SAVED <qid> <codes>`` each time the app receives a
LabelWritten message with LabelSaved (the label is committed and the screen now shows it as saved), prints
``DONE`` and then waits to be killed.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


async def main(run_dir: str, annotator: str, qid: str, keys: list[str]) -> None:
    from helpers import ready, settle

    from memscope.triage.label_queue import LabelSaved
    from memscope.tui.app import make_app
    from memscope.tui.messages import LabelWritten
    from memscope.tui.open_request import OpenRequest
    from memscope.tui.widgets.image_preview import ImagePreview

    ImagePreview.renderer = None

    def hook(message: object) -> None:
        if isinstance(message, LabelWritten) and isinstance(message.event, LabelSaved):
            codes = ",".join(getattr(message.event.label, "codes", ()) or ())
            print(f"SAVED {message.event.qid} {codes}", flush=True)

    app = make_app(OpenRequest([run_dir], annotator=annotator, question=qid))
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await ready(pilot)
        print(f"READY {app.session.read_only_reason or ''}", flush=True)
        for key in keys:
            await pilot.press(key)
            await pilot.pause(0.02)
        await settle(pilot)
        print("DONE", flush=True)
        while True:
            await asyncio.sleep(0.5)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]))
