"""Plain verdict files: ``qid,verdict[,note]`` rows for one run named on the command line.

A verdict file a person writes by hand (or in a spreadsheet) holds what they judged and
nothing else: no run id, no annotator, no time. ``memscope import-labels FILE --run RUN``
gives each row's verdict to that run's question as the annotator's (``--annotator``, else
the configured one), the same events ``memscope label --verdict`` writes. Every row is
checked first - a verdict word, a qid the run has, no qid twice - and a bad row refuses
the file, naming each (up to ten); then all verdicts go in one transaction. A question
that already carries the row's verdict and note for that annotator is left as it is, so
importing the file twice adds nothing.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.errors import InputError
from memscope.usecases.labels.instants import utc_now
from memscope.usecases.labels.replay import replay
from memscope.usecases.labels.targets import require_run, resolve_annotator
from memscope.usecases.labels.verdicts import VerdictEvent, verdict_word

if TYPE_CHECKING:
    from memscope.store import Store

COLUMNS = ("qid", "verdict")
OPTIONAL = ("note",)
MAX_LISTED_ROWS = 10


def _header(path: Path) -> list[str] | None:
    """The first row of a CSV file, stripped (None: not a readable CSV file)."""
    if path.suffix.lower() != ".csv":
        return None
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            first = next(csv.reader(handle), None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return [name.strip() for name in first] if first is not None else None


def is_plain_verdict_file(path: Path) -> bool:
    """Whether ``path`` is a CSV of ``qid,verdict[,note]`` (no run id: the run is given apart)."""
    header = _header(path)
    return (
        header is not None and set(COLUMNS) <= set(header) and set(header) <= {*COLUMNS, *OPTIONAL}
    )


@dataclass(frozen=True)
class PlainImport:
    """What importing one plain verdict file did."""

    file: str
    run_id: str
    annotator: str
    imported: int
    present: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready values."""
        return dict(self.__dict__)


def _rows(path: Path) -> list[dict[str, str]]:
    if not is_plain_verdict_file(path):
        raise InputError(
            "a verdict file for --run has the columns qid, verdict and optionally note",
            where=str(path),
            fix="Write one row per answer judged: qid,verdict[,note] (verdict: correct, "
            "wrong or unsure), or import an export of `memscope export-labels` without --run.",
        )
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        reader.fieldnames = [name.strip() for name in reader.fieldnames or ()]
        return [{k: (v or "").strip() for k, v in row.items() if k} for row in reader]


def import_plain_verdicts(
    store: Store, path: Path, run_id: str, *, annotator: str | None = None
) -> PlainImport:
    """Give the run's questions the file's verdicts (see the module docstring).

    Raises:
        InputError: the file is not ``qid,verdict[,note]``, or has bad rows (each named).
        NotFoundError: the run is not in the store.
    """
    from memscope.store import labels as stored
    from memscope.store.connection import rollback_quietly

    who = resolve_annotator(annotator)
    rows = _rows(path)
    with store.write() as con:
        run = require_run(con, run_id)
        questions = stored.question_index(con, run_id)
        wanted: list[tuple[str, str | None, str | None]] = []
        problems: list[str] = []
        seen: set[str] = set()
        for number, row in enumerate(rows, start=2):  # row 1 is the header
            qid = row.get("qid", "")
            try:
                verdict = verdict_word(row.get("verdict", ""))
            except InputError:
                problems.append(f"row {number}: unknown verdict {row.get('verdict', '')!r}")
                continue
            if qid not in questions:
                problems.append(f"row {number}: the run has no question {qid!r}")
            elif qid in seen:
                problems.append(f"row {number}: {qid} is judged twice")
            else:
                seen.add(qid)
                wanted.append((qid, verdict, row.get("note") or None))
        if problems:
            listed = "\n    ".join(problems[:MAX_LISTED_ROWS])
            more = (
                f"\n    … and {len(problems) - MAX_LISTED_ROWS} more"
                if len(problems) > MAX_LISTED_ROWS
                else ""
            )
            raise InputError(
                f"{len(problems)} bad row(s) in the verdict file; nothing was imported:\n"
                f"    {listed}{more}",
                where=str(path),
                fix="A row is qid,verdict[,note]: a question of the run, and correct, wrong "
                "or unsure (none removes a verdict); correct those rows and import again.",
            )
        history = [
            VerdictEvent.from_row(event)
            for event in stored.verdict_events(con, run_id, annotator=who)
        ]
        stacks = replay(history)
        latest = max((event.created_at for event in history), default=None)
        now = utc_now()
        if latest is not None and now <= latest:  # stamped after every stored event
            now = latest + timedelta(microseconds=1)
        imported = 0
        con.begin()  # every verdict of the file, or (interrupted) none
        try:
            for qid, verdict, note in wanted:
                stack = stacks.get((qid, who), [])
                top = stack[-1] if stack else None
                if verdict is None and (top is None or top.action == "clear"):
                    continue
                if top is not None and (top.action, top.verdict, top.note) == (
                    "set",
                    verdict,
                    note,
                ):
                    continue
                event: dict[str, Any] = {
                    "run_id": run_id,
                    "run_hash": run["run_hash"],
                    "qid": qid,
                    "question_key": questions[qid].get("question_key"),
                    "action": "set" if verdict is not None else "clear",
                    "verdict": verdict,
                    "note": note,
                    "annotator": who,
                    "source": "human",
                    "supersedes": top.event_id if top is not None else None,
                }
                stored.insert_verdict_event(con, event, now)
                imported += 1
        except BaseException:
            rollback_quietly(con)
            raise
        con.commit()
    return PlainImport(
        file=str(path),
        run_id=run_id,
        annotator=who,
        imported=imported,
        present=len(wanted) - imported,
    )
