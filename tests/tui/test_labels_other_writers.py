"""The app's labels and other writers (issue 25, item 5): a note keeps an accepted
suggestion's provenance, and a label the CLI writes while the app is open is built on, not
overwritten, when the app's (stale) view of it is edited; the app shows what the store holds.
A journal left with bad lines is set aside at the app's start (item 12)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import ready, settle
from typer.testing import CliRunner

from memscope.cli import app as cli
from memscope.store import Store
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.dialogs import NoteDialog
from memscope.usecases.labels.events import current_labels
from memscope.usecases.labels.export import export_labels
from memscope.usecases.labels.journal import LabelJournal
from support import notices

VENV_MEMSCOPE = Path(sys.executable).parent / "memscope"


def _exported(store: Store, run_id: str) -> dict[tuple[str, str], dict]:
    content = export_labels(store, run_id, fmt="jsonl").content
    assert content is not None
    rows = [json.loads(line) for line in content.decode().splitlines()]
    return {(row["qid"], row["annotator"]): row for row in rows}


async def _note(pilot, text: str) -> None:
    await pilot.press("n")
    await settle(pilot)
    assert isinstance(pilot.app.screen, NoteDialog)
    await pilot.press("ctrl+a", "ctrl+k", *text, "enter")  # replace what the dialog holds
    await settle(pilot)


async def test_a_note_after_accepting_keeps_accepted_from(demo: Path, store: Store) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("enter")  # accept SEL-STALE (rank-inversion)
        await settle(pilot)
        await _note(pilot, "stale clue won")
        await settle(pilot)
    row = _exported(store, "srag_v")[("q37", "alice")]
    assert row["codes"] == ["SEL-STALE"] and row["note"] == "stale clue won"
    assert row["accepted_from"] == "rank-inversion"
    assert row["accepted_suggestion"]["code"] == "SEL-STALE"


async def test_a_cli_label_between_two_keypresses_is_built_on(demo: Path, store: Store) -> None:
    app = make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", question="q37"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        await pilot.press("6")  # SEL-STALE, saved
        await settle(pilot)
        assert app.session.run.labels["q37"].codes == ("SEL-STALE",)
        await pilot.pause(1.5)  # the label writer lets go of the store a second after
        # Another process relabels q37 for alice while the app still shows SEL-STALE.
        done = subprocess.run(
            [
                str(VENV_MEMSCOPE),
                "label",
                "srag_v",
                "-q",
                "q37",
                "--code",
                "RET-MISS",
                "--annotator",
                "alice",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert app.session.run.labels["q37"].codes == ("SEL-STALE",)  # the app's view is stale
        await pilot.press("8")  # add USE-EVID to the label as it is now
        await settle(pilot)
        stored = current_labels(store, "srag_v", annotator="alice")["q37"]
        assert stored.codes == ("RET-MISS", "USE-EVID")  # the CLI's code survived
        assert app.session.run.labels["q37"].codes == ("RET-MISS", "USE-EVID")  # shown as stored
        assert any(n.title == "Label changed elsewhere" for n in notices(app))
        # A note now changes the note only, on the label as stored.
        await pilot.pause(1.5)
        relabelled = CliRunner().invoke(
            cli, ["label", "srag_v", "-q", "q37", "--code", "RET-PART", "--annotator", "alice"]
        )
        assert relabelled.exit_code == 0, relabelled.output
        await _note(pilot, "checked")
    stored = current_labels(store, "srag_v", annotator="alice")["q37"]
    assert (stored.codes, stored.note) == (("RET-PART",), "checked")


async def test_the_app_sets_bad_journal_lines_aside_at_start(demo: Path, store: Store) -> None:
    run_dir = demo / "runs" / "srag_v"
    from memscope.adapters import ReadOptions
    from memscope.usecases.runs.ingest import ingest_dir

    ingest_dir(store, run_dir, ReadOptions())
    journal = LabelJournal(store.path)
    journal.path.write_text(
        '{"id": "a", "op": {"action": "relabel", "run_id": "srag_v", "qid": "q3", "annotator": "alice"}}\n'
        '{"id": "b", "op": {"action": "set", "run_id": "srag_v", "qid": "q4", "annotator": "alice",'
        ' "codes": ["USE-EVID"]}}\n'
    )
    app = make_app(OpenRequest([str(run_dir)], annotator="alice", question="q4"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        await settle(pilot)
        messages = [n.message for n in notices(app)]
        assert any("set aside" in m and "line 1" in m and "relabel" in m for m in messages), (
            messages
        )
    assert current_labels(store, "srag_v", annotator="alice")["q4"].codes == ("USE-EVID",)
    rejected = [json.loads(line) for line in journal.rejected_path.read_text().splitlines()]
    assert [(r["line"], "relabel" in r["reason"]) for r in rejected] == [(1, True)]
    assert not journal.path.exists()
