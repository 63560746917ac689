"""Hostile label input (issue 25): times with offsets (item 3), a malformed pending-label
journal (item 12), wrongly typed fields of an import file (item 14), and a large import:
one transaction, a progress line only on a terminal (item 18).

Every case runs the real commands (Typer's runner, or a process where the issue is about
one) on real DuckDB files in the test's temp dir.
"""

from __future__ import annotations

import csv
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.cli import app
from memscope.store import Store
from memscope.store.attached import connect_offline
from memscope.store.sql import scalar
from memscope.usecases.labels.events import current_labels, label_history
from memscope.usecases.labels.journal import LabelJournal, LabelOp

runner = CliRunner()
VENV_BIN = Path(sys.executable).parent


def invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def small_run(root: Path) -> Path:
    data = dialog(
        {"D1": ["D1:1", "D1:2"], "D2": ["D2:1"]},
        [
            qa(f"Question {i}?", f"answer {i}", [["X1"], ["Y1"]], ["D1:1"], ["D1"])
            for i in (1, 2, 3)
        ],
    )
    rows = [open_row(i, data, seed=["D1:1", "D2:1"], scores=[0.9, 0.4]) for i in (1, 2, 3)]
    return write_run(root / "runs" / "run", data, rows)


@pytest.fixture
def ingested(tmp_path: Path, store_path: Path) -> Store:
    assert invoke("ingest", str(small_run(tmp_path))).exit_code == 0
    return Store(store_path)


def event(qid: str, codes, when, *, action: str = "set", annotator: str = "alice", **extra):
    return {
        "run_id": "run",
        "qid": qid,
        "codes": codes,
        "annotator": annotator,
        "action": action,
        "created_at": when,
        **extra,
    }


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


# -- item 3: instants -------------------------------------------------------------------------


def test_an_offset_is_applied_so_the_later_instant_wins(tmp_path: Path, ingested: Store) -> None:
    # 10:00+05:00 is 05:00Z: earlier than 06:00Z, however it is written.
    path = write_jsonl(
        tmp_path / "offsets.jsonl",
        [
            event("q1", ["RET-MISS"], "2026-03-01T06:00:00Z"),
            event("q1", ["SEL-STALE"], "2026-03-01T10:00:00+05:00"),
        ],
    )
    assert invoke("import-labels", str(path)).exit_code == 0
    assert current_labels(ingested, "run", annotator="alice")["q1"].codes == ("RET-MISS",)
    times = sorted(e.created_at for e in label_history(ingested, "run"))
    assert times == [datetime(2026, 3, 1, 5, 0), datetime(2026, 3, 1, 6, 0)]  # UTC


def test_an_earlier_event_imported_later_does_not_win(tmp_path: Path, ingested: Store) -> None:
    later = write_jsonl(tmp_path / "later.jsonl", [event("q2", ["USE-EVID"], "2026-03-01T06:00Z")])
    earlier = write_jsonl(
        tmp_path / "earlier.jsonl", [event("q2", ["RET-PART"], "2026-03-01T10:00:00+05:00")]
    )
    assert invoke("import-labels", str(later)).exit_code == 0
    assert invoke("import-labels", str(earlier)).exit_code == 0  # arrives last, happened first
    assert current_labels(ingested, "run", annotator="alice")["q2"].codes == ("USE-EVID",)
    # A label made here now is stamped after both, whatever their clocks said.
    ahead = write_jsonl(
        tmp_path / "ahead.jsonl",
        [event("q3", ["RET-PART"], (datetime.now(UTC) + timedelta(days=1)).isoformat())],
    )
    assert invoke("import-labels", str(ahead)).exit_code == 0
    assert (
        invoke("label", "run", "-q", "q3", "--code", "USE-EVID", "--annotator", "alice").exit_code
        == 0
    )
    assert current_labels(ingested, "run", annotator="alice")["q3"].codes == ("USE-EVID",)


def test_a_time_without_an_offset_is_utc(tmp_path: Path, ingested: Store) -> None:
    path = write_jsonl(tmp_path / "naive.jsonl", [event("q1", ["RET-MISS"], "2026-03-01 06:00:00")])
    assert invoke("import-labels", str(path)).exit_code == 0
    assert [e.created_at for e in label_history(ingested, "run")] == [datetime(2026, 3, 1, 6, 0)]


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_exports_write_utc_with_an_explicit_zone_and_import_back_unchanged(
    tmp_path: Path, ingested: Store, fmt: str
) -> None:
    source = write_jsonl(
        tmp_path / "in.jsonl", [event("q1", ["RET-MISS"], "2026-03-01T10:00+05:00")]
    )
    assert invoke("import-labels", str(source)).exit_code == 0
    out = tmp_path / f"out.{fmt}"
    assert invoke("export-labels", "--history", "--format", fmt, "--out", str(out)).exit_code == 0
    if fmt == "parquet":
        con = connect_offline()
        try:
            (kind,) = con.execute(
                "SELECT typeof(created_at) FROM read_parquet(?)", [str(out)]
            ).fetchone()
        finally:
            con.close()
        assert kind == "TIMESTAMP WITH TIME ZONE"
    else:
        text = out.read_text()
        (row,) = (
            [json.loads(line) for line in text.splitlines()]
            if fmt == "jsonl"
            else list(csv.DictReader(text.splitlines()))
        )
        assert row["created_at"] == "2026-03-01T05:00:00.000000Z"
    again = invoke("import-labels", str(out))
    assert again.exit_code == 0 and "imported 0 event(s), skipped 1 already present" in again.stderr


def test_times_are_utc_whatever_the_machine_zone(tmp_path: Path, store_path: Path) -> None:
    """DuckDB's session zone is the machine's: now()::TIMESTAMP was local time before."""
    env = dict(os.environ, TZ="Asia/Kolkata")  # UTC+05:30
    memscope = str(VENV_BIN / "memscope")
    run_dir = small_run(tmp_path)
    for args in (["ingest", str(run_dir)], ["label", "run", "-q", "q1", "--code", "RET-MISS"]):
        done = subprocess.run(
            [memscope, *args], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
    now = datetime.now(UTC).replace(tzinfo=None)
    listed = subprocess.run(
        [memscope, "runs", "--format", "json"], env=env, capture_output=True, text=True, timeout=120
    )
    (run,) = json.loads(listed.stdout)
    ingested_at = datetime.fromisoformat(run["ingested_at"].removesuffix("Z"))
    assert run["ingested_at"].endswith("Z") and abs(ingested_at - now) < timedelta(minutes=5)
    (labelled,) = label_history(Store(store_path), "run")
    assert abs(labelled.created_at - now) < timedelta(minutes=5)


# -- item 12: a malformed label journal -------------------------------------------------------

GOOD = {"action": "set", "run_id": "run", "qid": "q2", "annotator": "alice", "codes": ["USE-EVID"]}
BAD_LINES = [
    (
        '{"id": "p1", "op": {"action": "set", "run_id": "run", "qid": "q1", "annotator": "alice", '
        '"codes": ["RET-MISS"], "params": "alpha=0.7"}}',
        "params must be an object",
    ),
    (
        '{"id": "p2", "op": {"action": "relabel", "run_id": "run", "qid": "q1", "annotator": "alice"}}',
        'unknown action "relabel"',
    ),
    ('{"id": "p3", "op": {"action": "set", "run_', "not a JSON line (truncated?)"),
    (
        '{"id": "p4", "op": {"action": "set", "run_id": 7, "qid": "q1", "annotator": "alice", '
        '"codes": ["RET-MISS"]}}',
        "run_id must be non-empty text",
    ),
    (
        '{"id": "p5", "op": {"action": "set", "run_id": "run", "qid": "q1", "annotator": "alice", '
        '"codes": 5}}',
        "codes must be a list of code names",
    ),
    (
        '{"id": "p6", "op": {"action": "add", "run_id": "run", "qid": "q1", "annotator": "alice", '
        '"codes": []}}',
        "the action 'add' needs at least one code",
    ),
    (
        '{"id": "p7", "op": {"action": "note", "run_id": "run", "qid": "q1", "annotator": "alice", '
        '"note": {"x": 1}}}',
        "note must be text or null",
    ),
    ('["not", "an", "entry"]', "not a journal entry"),
    ('{"done": 12}', "done must name a change id"),
    ('{"id": 5, "op": {}}', "id must be non-empty text"),
]


def _journal_with_bad_lines(store_path: Path) -> LabelJournal:
    journal = LabelJournal(store_path)
    lines = [line for line, _ in BAD_LINES]
    lines.insert(3, json.dumps({"id": "good", "op": GOOD}))
    journal.path.write_text("\n".join(lines) + "\n")
    return journal


@pytest.mark.parametrize(
    "command", [["export-labels"], ["label", "run", "-q", "q3", "--code", "RET-PART"]]
)
def test_bad_journal_lines_are_set_aside_and_the_rest_replayed(
    ingested: Store, store_path: Path, command: list[str]
) -> None:
    journal = _journal_with_bad_lines(store_path)
    result = invoke(*command)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == len(BAD_LINES)  # one message per bad line
    numbers = [n for n in range(1, len(BAD_LINES) + 2) if n != 4]  # line 4 is the good one
    for line_no, (_, reason), warning in zip(numbers, BAD_LINES, warnings, strict=True):
        assert f"{journal.path}:{line_no}: " in warning and reason in warning, warning
        assert str(journal.rejected_path) in warning
    assert "saved 1 pending label change(s)" in result.stderr
    assert current_labels(ingested, "run", annotator="alice")["q2"].codes == ("USE-EVID",)
    assert "q1" not in current_labels(ingested, "run", annotator="alice")
    kept = [json.loads(line) for line in journal.rejected_path.read_text().splitlines()]
    assert [entry["line"] for entry in kept] == numbers
    assert [entry["text"] for entry in kept] == [line for line, _ in BAD_LINES]  # nothing lost
    assert not journal.path.exists()
    assert "warning" not in invoke("export-labels").stderr  # said once, not at every command


def test_bad_lines_beside_pending_changes_are_reported_once(
    ingested: Store, store_path: Path
) -> None:
    """Bad lines in a journal that still holds a change the busy store could not take are
    marked, so the next command neither repeats the warning nor loses the change."""
    journal = LabelJournal(store_path)
    journal.path.write_text('{"id": "x", "op": {"action": "relabel"}}\n')
    pending = journal.add(LabelOp("set", "run", "q1", "alice", codes=("RET-MISS",)))
    assert [entry.line for entry in journal.quarantine()] == [1]
    assert journal.quarantine() == [] and journal.pending() == [pending]
    assert "warning" not in invoke("export-labels").stderr
    assert current_labels(ingested, "run", annotator="alice")["q1"].codes == ("RET-MISS",)


def test_a_change_the_store_refuses_is_kept_in_the_rejected_file(
    ingested: Store, store_path: Path
) -> None:
    journal = LabelJournal(store_path)
    journal.add(LabelOp("set", "no-such-run", "q1", "alice", codes=("RET-MISS",)))
    result = invoke("export-labels")
    assert result.exit_code == 0 and "was refused: no run 'no-such-run'" in result.stderr
    (kept,) = [json.loads(line) for line in journal.rejected_path.read_text().splitlines()]
    assert json.loads(kept["text"])["op"]["run_id"] == "no-such-run"


# -- item 14: wrongly typed fields of an import file -------------------------------------------

TYPED_ROWS = [
    ({"codes": 5}, 'field "codes" must be a list of code names'),
    ({"codes": [1, 2]}, 'field "codes" must hold code names (text)'),
    ({"codes": ["RET-MISS", None]}, 'field "codes" must hold code names (text)'),
    ({"codes": []}, "a label needs at least one code"),
    ({"codes": {"a": 1}}, 'field "codes" must be a list of code names'),
    ({"qid": 3}, 'field "qid" must be text, got number 3'),
    ({"run_id": ["run"]}, 'field "run_id" must be text'),
    ({"annotator": 18446744073709551615}, 'field "annotator" must be text'),
    ({"note": {"text": "x"}}, 'field "note" must be text'),
    ({"action": "relabel"}, "unknown action relabel"),
    ({"source": "robot"}, "unknown source robot"),
    ({"created_at": 1767225600}, "the time must be ISO 8601 text"),
    ({"created_at": "yesterday"}, 'unreadable time "yesterday"'),
    ({"created_at": "99999-01-01T00:00:00Z"}, "time out of range"),
    ({"primary_code": "USE-EVID"}, "the primary code USE-EVID is not among the codes"),
]


@pytest.mark.parametrize(("change", "expected"), TYPED_ROWS, ids=[e for _, e in TYPED_ROWS])
def test_a_wrongly_typed_field_is_named_with_its_row_and_nothing_is_imported(
    tmp_path: Path, ingested: Store, change: dict, expected: str
) -> None:
    rows = [event(f"q{i}", ["RET-MISS"], f"2026-03-01T0{i}:00:00Z") for i in (1, 2, 3)]
    rows[1] |= change
    path = write_jsonl(tmp_path / "typed.jsonl", rows)
    result = invoke("import-labels", str(path))
    assert result.exit_code == 1, result.output
    assert result.stderr.count("error:") == 1
    assert f"{path}: row 2: {expected}" in " ".join(result.stderr.split()), result.stderr
    assert "nothing was imported" in result.stderr
    assert label_history(ingested, "run") == []


def test_every_bad_row_is_named_up_to_ten(tmp_path: Path, ingested: Store) -> None:
    rows = [event("q1", [i], "2026-03-01T06:00:00Z") for i in range(12)]
    path = write_jsonl(tmp_path / "ints.jsonl", rows)
    result = invoke("import-labels", str(path))
    assert result.exit_code == 1
    text = " ".join(result.stderr.split())
    assert "12 bad row(s)" in text and "row 10:" in text and "row 11:" not in text
    assert "… and 2 more" in text


def test_parquet_codes_of_integers_are_bad_rows(tmp_path: Path, ingested: Store) -> None:
    path = tmp_path / "ints.parquet"
    con = connect_offline()
    try:
        con.execute(
            "COPY (SELECT 'run' AS run_id, 'q1' AS qid, [1, 2] AS codes, 'alice' AS annotator, "
            "'set' AS action, TIMESTAMP '2026-03-01 06:00' AS created_at) TO ? (FORMAT parquet)",
            [str(path)],
        )
    finally:
        con.close()
    result = invoke("import-labels", str(path))
    assert result.exit_code == 1 and 'row 1: field "codes" must hold code names' in result.stderr


def test_csv_codes_are_names_joined_and_defused_cells_restored(
    tmp_path: Path, ingested: Store
) -> None:
    path = tmp_path / "labels.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["run_id", "qid", "codes", "annotator", "note", "labelled_at", "event_id"])
        writer.writerow(
            ["run", "q1", "RET-MISS;USE-EVID", "alice", "'=1+1", "2026-03-01 06:00", "x"]
        )
    assert invoke("import-labels", str(path)).exit_code == 0
    label = current_labels(ingested, "run", annotator="alice")["q1"]
    assert (label.codes, label.primary, label.note) == (
        ("RET-MISS", "USE-EVID"),
        "RET-MISS",
        "=1+1",
    )


# -- item 18: a large import --------------------------------------------------------------------

LARGE = 200_000


def _large_file(tmp_path: Path, rows: int = LARGE) -> Path:
    """``rows`` label events over the run's three questions, written by DuckDB."""
    path = tmp_path / "large.jsonl"
    con = connect_offline()
    try:
        con.execute(
            "COPY (SELECT 'run' AS run_id, 'q' || (i % 3 + 1) AS qid, ['RET-MISS'] AS codes, "
            "'annotator' || (i // 3) AS annotator, 'set' AS action, "
            "strftime(TIMESTAMP '2026-01-01' + to_microseconds(i), '%Y-%m-%dT%H:%M:%S.%fZ') AS created_at, "
            "i AS event_id, 'uid' || i AS event_uid FROM range(?) t(i)) TO ? (FORMAT json)",
            [rows, str(path)],
        )
    finally:
        con.close()
    return path


def _events(store_path: Path) -> int:
    con = connect_offline(str(store_path), read_only=True)
    try:
        return int(scalar(con, "SELECT count(*) FROM label_events"))
    finally:
        con.close()


def _wait_until_reading(process: subprocess.Popen, source: Path) -> None:
    """Until the process has ``source`` open (DuckDB reads it) or has ended."""
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        try:
            names = [
                os.readlink(f"/proc/{process.pid}/fd/{fd}")
                for fd in os.listdir(f"/proc/{process.pid}/fd")
            ]
        except OSError:
            names = []
        if str(source) in names:
            return
        time.sleep(0.01)


def test_a_large_import_is_one_transaction_even_when_interrupted(
    tmp_path: Path, ingested: Store, store_path: Path
) -> None:
    source = _large_file(tmp_path)
    process = subprocess.Popen(
        [str(VENV_BIN / "memscope"), "import-labels", str(source)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_until_reading(process, source)  # inside the import (or done): all or nothing
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert "Traceback" not in err
    assert process.returncode in (0, 130), err
    assert _events(store_path) in (0, LARGE)
    if process.returncode == 130:
        assert _events(store_path) == 0 and "interrupted" in err
    # A bad last row refuses the whole file: nothing of the good rows before it is written.
    with source.open("a") as handle:
        handle.write(json.dumps(event("q1", 5, "2026-03-01T06:00:00Z")) + "\n")
    before = _events(store_path)
    bad = invoke("import-labels", str(source))
    assert bad.exit_code == 1 and f"row {LARGE + 1}:" in bad.stderr
    assert _events(store_path) == before


def test_the_progress_line_shows_on_a_terminal_only(tmp_path: Path, ingested: Store) -> None:
    source = _large_file(tmp_path, 20_000)
    piped = subprocess.run(
        [str(VENV_BIN / "memscope"), "import-labels", str(source)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert piped.returncode == 0, piped.stderr
    assert "import-labels:" not in piped.stderr and "\r" not in piped.stderr
    again = tmp_path / "again.jsonl"  # new ids: the same rows would all be present already
    again.write_text(source.read_text().replace('"uid', '"again'))
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [str(VENV_BIN / "memscope"), "import-labels", str(again)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
        env=dict(os.environ, TERM="xterm-256color", COLUMNS="100"),
    )
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the process closed its end
            break
        if not chunk:
            break
        seen += chunk
    assert process.wait(timeout=60) == 0
    os.close(leader)
    assert b"import-labels:" in seen and b"imported 20000 event(s)" in seen
