"""Hostile and odd input (issue 12): nothing reaches the terminal raw, one bad record never
sinks a run, nothing comes from the network, no label is ever dropped, exports are safe.

One test (or group) per class of the issue; the broken-run cases of classes 3 and 8 are
also in ``CASES`` below, in the style of test_broken_runs.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.cli import app
from memscope.errors import MemscopeError
from memscope.store import Store
from memscope.store.sql import rows, scalar
from memscope.tui.widgets.status_bar import status_view_text
from support import notices

runner = CliRunner()
HOSTILE = "x\x1b]52;c;SGVsbG8=\x07\x1b[31mred\x9b2J\u202egnp.\u2066\x00\r"
"""An OSC 52 clipboard write, a colour, a C1 CSI, a bidi override and isolate, NUL, CR."""
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\x00", "\r")
VENV_BIN = Path(sys.executable).parent


def assert_clean(text: str) -> None:
    """No control or bidi character of the hostile string reached the output raw."""
    found = [ascii(char) for char in RAW if char in text]
    assert not found, f"raw {found} in {text!r}"


def dataset() -> dict:
    return dialog(
        {"D1": ["D1:1", "D1:2"], "D2": ["D2:1"]},
        [
            qa(f"Question {i}?", f"answer {i}", [["X1"], ["Y1"]], ["D1:1"], ["D1"])
            for i in range(1, 4)
        ],
    )


def good_run(root: Path, name: str = "run") -> Path:
    data = dataset()
    return write_run(
        root / "runs" / name,
        data,
        [open_row(i, data, seed=["D1:1", "D2:1"], scores=[0.9, 0.4]) for i in (1, 2, 3)],
    )


def invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


# -- 1. terminal escapes ---------------------------------------------------------------------


def _error_classes() -> list[type]:
    from memscope.errors import MemscopeError

    found, todo = [], [MemscopeError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return found


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda cls: cls.__name__)
def test_every_error_message_is_sanitised(cls: type) -> None:
    from memscope.cli.common import fail, stderr

    error = cls(f"what {HOSTILE}", where=f"where {HOSTILE}", fix=f"fix {HOSTILE}")
    assert_clean(error.message)
    assert_clean(str(error))
    with stderr.capture() as captured:
        fail(error)
    assert_clean(captured.get())
    assert "\\x1b]52" in captured.get()  # shown as a visible escape, not dropped


def test_every_cli_echo_path_is_sanitised() -> None:
    from rich.table import Table
    from rich.text import Text

    from memscope.cli.common import echo, stderr, stdout, warn
    from memscope.records import Notice

    table = Table(title=HOSTILE)
    table.add_column(HOSTILE)
    table.add_row(Text(HOSTILE))
    for console, emit in (
        (stderr, lambda: warn(Notice(HOSTILE, HOSTILE, (HOSTILE,)))),
        (stderr, lambda: warn(HOSTILE)),
        (stdout, lambda: echo(HOSTILE)),
        (stderr, lambda: echo(HOSTILE, err=True)),
        (stdout, lambda: stdout.print(table)),
        (stdout, lambda: stdout.print(HOSTILE, markup=False)),
        (stderr, lambda: stderr.print(Text.assemble("ingested ", (HOSTILE, "bold")))),
    ):
        with console.capture() as captured:
            emit()
        assert_clean(captured.get())


def test_hostile_names_never_reach_the_terminal(tmp_path: Path) -> None:
    run_dir = good_run(tmp_path, f"run{HOSTILE.replace(chr(0), '').replace('/', '')}")
    outputs = [
        invoke("ingest", str(run_dir)),
        invoke("ingest", str(tmp_path / f"missing{HOSTILE.replace(chr(0), '')}")),
        invoke("runs"),
        invoke("report", "-f", "json"),
        invoke(f"ingset{HOSTILE.replace(chr(0), '')}"),  # "No such command …"
        invoke("report", f"--frmat{HOSTILE.replace(chr(0), '')}"),  # "No such option …"
        invoke(
            "label",
            run_dir.name,
            "--question",
            "q1",
            "--code",
            "SEL-STALE",
            "--annotator",
            HOSTILE.replace(chr(0), ""),
            "--note",
            HOSTILE.replace(chr(0), ""),
        ),
        invoke("export-labels", "--format", "csv"),
        invoke("export-labels", "--format", "jsonl"),
    ]
    assert outputs[0].exit_code == 0 and outputs[6].exit_code == 0, outputs[6].output
    for result in outputs:
        assert_clean(result.stderr)
        # Stdout is a pipe here: exported data keeps its exact bytes; on a terminal the
        # same bytes are sanitised (write_stdout), checked below.
    assert "No such command" in outputs[4].stderr


def test_exported_data_on_a_terminal_is_sanitised(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from memscope.cli import common

    class FakeTerminal(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.buffer = io.BytesIO()

        def isatty(self) -> bool:
            return True

    terminal = FakeTerminal()
    monkeypatch.setattr(common.sys, "stdout", terminal)
    common.write_stdout(f"run_id,note\nr,{HOSTILE}\n".encode())
    assert_clean(terminal.buffer.getvalue().decode())


async def test_app_notifications_are_sanitised(store_path: Path) -> None:
    from memscope.tui.app import make_app
    from memscope.tui.open_request import OpenRequest

    app_instance = make_app(OpenRequest([], annotator="alice"))
    async with app_instance.run_test(size=(100, 30), notifications=True) as pilot:
        app_instance.notify(HOSTILE, title=HOSTILE, markup=False)
        await pilot.pause()
        shown = [(n.message, n.title) for n in notices(app_instance)]
    assert shown
    for message, title in shown:
        assert_clean(message)
        assert_clean(title)


# -- 2. non-finite numbers ---------------------------------------------------------------


finite_or_not = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([np.nan, np.inf, -np.inf, 0.0, 1.0]),
)


@settings(max_examples=300, deadline=None)
@given(
    sims=hnp.arrays(
        np.float64, st.tuples(st.integers(1, 6), st.integers(0, 8)), elements=finite_or_not
    ),
    alpha=st.floats(0, 1),
    lam=st.floats(0, 5),
    data=st.data(),
)
def test_recency_order_is_a_permutation_whatever_the_numbers(
    sims: np.ndarray, alpha: float, lam: float, data: st.DataObject
) -> None:
    from memscope.analysis.rerank import recency_order

    ages = data.draw(hnp.arrays(np.float64, sims.shape, elements=finite_or_not))
    valid = data.draw(hnp.arrays(np.bool_, sims.shape))
    order = recency_order(sims, ages, valid, alpha, lam)
    for row, original in zip(order, range(sims.shape[0]), strict=True):
        assert sorted(row.tolist()) == list(range(sims.shape[1])), (original, row)
        # A candidate that cannot be scored keeps its slot.
        for slot in range(sims.shape[1]):
            if not (valid[original, slot] and np.isfinite(sims[original, slot])):
                assert row[slot] == slot


def test_non_finite_scores_are_missing_and_metrics_refused(
    tmp_path: Path, store_path: Path
) -> None:
    run_dir = good_run(tmp_path)
    path = run_dir / "predictions.jsonl"
    lines = path.read_text().splitlines()
    lines[0] = lines[0].replace("0.9", "Infinity").replace("0.4", "NaN")
    lines[1] = lines[1].replace("0.9", "-Infinity")
    lines[2] = lines[2].replace('"f1": 0.0', '"f1": NaN')
    path.write_text("\n".join(lines) + "\n")
    result = invoke("ingest", str(run_dir))
    assert result.exit_code == 0, result.output
    assert "6 retrieval score(s) are not finite numbers" in result.stderr
    assert 'predictions.jsonl:3: field "f1" must be a finite number' in result.stderr
    with Store(store_path).read() as con:
        assert scalar(con, "SELECT count(*) FROM retrievals WHERE NOT isfinite(score)") == 0
        assert scalar(con, "SELECT count(*) FROM retrievals WHERE score IS NULL") == 3
        ranked = rows(con, "SELECT qid, list(round_id ORDER BY rank) FROM retrievals GROUP BY qid")
    assert {qid: ids for qid, ids in ranked} == {"q1": ["D1:1", "D2:1"], "q2": ["D1:1", "D2:1"]}
    for question in ("q1", "q2"):  # the re-ranked pool is the logged pool, once each
        rerun = invoke("rerun", "--run", "run", "-q", question, "-a", "0.5", "-f", "json")
        assert rerun.exit_code == 0, rerun.output
        assert "NaN" not in rerun.stdout and "Infinity" not in rerun.stdout
        shown = json.loads(rerun.stdout)
        assert sorted(shown["after"]["ranking"]) == sorted(shown["before"]["ranking"])


# -- 3 and 8. one bad record never sinks a run; encodings and ids ----------------------------

DEEP = "[" * 5000 + "]" * 5000


def _dialog_path(run_dir: Path) -> Path:
    return run_dir.parent / "data" / "dialog" / "Task.json"


def _edit_dialog(run_dir: Path, change) -> None:
    path = _dialog_path(run_dir)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _deep_field(run_dir: Path, field: str) -> None:
    path = run_dir / "predictions.jsonl"
    lines = path.read_text().splitlines()
    row = json.loads(lines[1])
    row[field] = "DEEP"
    lines[1] = json.dumps(row).replace('"DEEP"', DEEP)
    path.write_text("\n".join(lines) + "\n")


def _deep_round(run_dir: Path) -> None:
    _edit_dialog(
        run_dir,
        lambda d: d["multi_session_dialogues"][0]["dialogues"][1].__setitem__("user", "DEEP"),
    )
    path = _dialog_path(run_dir)
    path.write_text(path.read_text().replace('"DEEP"', DEEP))


def _huge_integer_in_round(run_dir: Path) -> None:
    path = _dialog_path(run_dir)
    text = path.read_text().replace('"user text of D2:1"', str(10**40))
    path.write_text(
        text.replace('"multi_session_dialogues"', '"x": ' + DEEP + ', "multi_session_dialogues"')
    )


def _bom(name: str):
    def change(run_dir: Path) -> None:
        path = run_dir / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())

    return change


# (name, breaker, expected message, questions ingested)
CASES = [
    (
        "deeply nested pred",
        lambda d: _deep_field(d, "pred"),
        'predictions.jsonl:2: field "pred" must be a string, got array; line skipped',
        2,
    ),
    (
        "deeply nested unknown field",
        lambda d: _deep_field(d, "extra"),
        None,
        3,
    ),
    (
        "idx beyond 64 bits",
        lambda d: (d / "predictions.jsonl").write_text(
            (d / "predictions.jsonl")
            .read_text()
            .replace('"idx": 2', '"idx": 99999999999999999999999')
        ),
        'predictions.jsonl:2: field "idx" must be a positive integer',
        2,
    ),
    (
        "deeply nested dialog round",
        _deep_round,
        "1 round(s) skipped: nested too deeply or holding numbers too large to read (e.g. round D1:2 of session D1)",
        3,
    ),
    (
        "integer beyond 64 bits in a round",
        _huge_integer_in_round,
        None,
        3,
    ),
    (
        "label overflowing 32 bits",
        lambda d: _edit_dialog(
            d,
            lambda data: data["human-annotated QAs"][1].__setitem__(
                "point", [["X99999999999"], ["Y1"]]
            ),
        ),
        "1 question(s) have an X/Y label with more than 9 digits; the label is ignored (e.g. q2)",
        3,
    ),
    ("BOM in config.json", _bom("config.json"), None, 3),
    ("BOM in metrics.json", _bom("metrics.json"), None, 3),
    (
        "whitespace-only round id",
        lambda d: _edit_dialog(
            d,
            lambda data: data["multi_session_dialogues"][0]["dialogues"][1].__setitem__(
                "round", "  "
            ),
        ),
        "1 round id(s) are only whitespace; those rounds are named by session and position instead (e.g. session D1 round 2)",
        3,
    ),
]


@pytest.mark.parametrize(
    ("name", "breaker", "expected", "n_questions"), CASES, ids=[c[0] for c in CASES]
)
def test_one_bad_record_never_sinks_the_run(
    tmp_path: Path, store_path: Path, name: str, breaker, expected: str | None, n_questions: int
) -> None:
    run_dir = good_run(tmp_path)
    breaker(run_dir)
    result = invoke("ingest", str(run_dir))
    assert result.exit_code == 0, result.output
    assert "error:" not in result.stderr
    if expected:
        assert expected in result.stderr, result.stderr
    with Store(store_path).read() as con:
        assert scalar(con, "SELECT count(*) FROM predictions") == n_questions


def test_strict_refuses_a_deeply_nested_line(tmp_path: Path, store_path: Path) -> None:
    run_dir = good_run(tmp_path)
    _deep_field(run_dir, "pred")
    result = invoke("ingest", "--strict", str(run_dir))
    assert result.exit_code == 1 and "nothing was ingested (--strict)" in result.stderr
    assert result.stderr.count("error:") == 1


def test_strict_refuses_a_skipped_dialog_round(tmp_path: Path, store_path: Path) -> None:
    run_dir = good_run(tmp_path)
    _deep_round(run_dir)
    result = invoke("ingest", "--strict", str(run_dir))
    assert result.exit_code == 1, result.output
    assert (
        "1 round(s) skipped" in result.stderr and "nothing was ingested (--strict)" in result.stderr
    )
    assert result.stderr.count("error:") == 1
    with Store(store_path).read() as con:
        assert scalar(con, "SELECT count(*) FROM rounds") == 0


def test_round_ids_with_whitespace_keep_their_clue_links(tmp_path: Path, store_path: Path) -> None:
    run_dir = good_run(tmp_path)
    _edit_dialog(
        run_dir,
        lambda d: d["multi_session_dialogues"][0]["dialogues"][0].__setitem__("round", " D1:1\t"),
    )
    result = invoke("ingest", str(run_dir))
    assert result.exit_code == 0 and "name no round" not in result.stderr, result.stderr
    with Store(store_path).read() as con:
        assert scalar(con, "SELECT count(*) FROM rounds WHERE round_id = 'D1:1'") == 1
        assert scalar(con, "SELECT count(*) FROM questions WHERE clue_rounds = ['D1:1']") == 3


# -- 4. interrupts, commit errors, unreadable files -------------------------------------------


def _memscope(*args: str, env: dict[str, str] | None = None, **kwargs):
    return subprocess.Popen(
        [str(VENV_BIN / "memscope"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src"), **(env or {})},
        **kwargs,
    )


def _hear_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_during_ingest_says_interrupted(tmp_path: Path) -> None:
    sessions = {f"D{s}": [f"D{s}:{r}" for r in range(1, 21)] for s in range(1, 21)}
    questions = [qa(f"Q{i}?", f"a{i}", [["X1"], ["Y1"]], ["D1:1"], ["D1"]) for i in range(1, 4001)]
    data = dialog(sessions, questions)
    run_dir = write_run(
        tmp_path / "runs" / "big",
        data,
        [open_row(i, data, seed=[f"D{j}:1" for j in range(1, 11)]) for i in range(1, 4001)],
    )
    interrupted = 0
    # The ingest runs for a few tenths of a second once the store exists (less on a fast
    # machine, and a busy one may deliver the signal late): a few tries, until one lands.
    for delay in (0.0, 0.05, 0.1, 0.2, 0.3, 0.6, 1.0):
        if interrupted:
            break
        db = tmp_path / f"store-{delay}.duckdb"
        # Ctrl-C reaches the command even where this test runs in the background (a shell
        # starts background jobs with SIGINT ignored, and children inherit that).
        process = _memscope("ingest", "--db", str(db), str(run_dir), preexec_fn=_hear_sigint)
        deadline = time.monotonic() + 60
        while not db.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # the command is running once it creates the store
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
        assert "Traceback" not in err and "internal error" not in err, err
        if process.returncode != 0:  # it may have finished first on a fast machine
            assert process.returncode == 130, (process.returncode, err)
            assert err.strip().endswith("interrupted"), err
            interrupted += 1
    assert interrupted, "no ingest was still running when Ctrl-C came"


def test_ctrl_c_during_start_up_prints_no_traceback() -> None:
    # What the memscope script does, with Ctrl-C arriving while the commands load.
    code = (
        "import sys; sys.argv[0] = 'memscope'; import memscope; "
        "import memscope.cli.app; raise KeyboardInterrupt"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")},
        timeout=120,
    )
    assert done.stderr == "interrupted\n", done.stderr
    assert done.returncode != 0


def test_a_failed_commit_reports_its_own_cause() -> None:
    from memscope.store.attached import connect_offline
    from memscope.store.connection import rollback_quietly

    con = connect_offline()
    con.begin()
    con.commit()
    rollback_quietly(con)  # "no transaction is active" must not replace the real error
    con.close()


def test_unreadable_file_and_unwritable_export_give_one_message(
    tmp_path: Path, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memscope.adapters import files

    run_dir = good_run(tmp_path)
    real_open = files.open_regular

    def refuse(path):
        if Path(path).name == "predictions.jsonl":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path)

    with monkeypatch.context() as patch:  # undo only this patch, not the test's isolation
        patch.setattr(files, "open_regular", refuse)
        result = invoke("ingest", str(run_dir))
    assert result.exit_code == 1
    assert "cannot read predictions.jsonl: Permission denied" in result.stderr
    assert result.stderr.count("error:") == 1
    assert invoke("ingest", str(run_dir)).exit_code == 0
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    result = invoke("export-labels", "--out", str(blocked / "labels.csv"))
    assert result.exit_code == 1 and result.stderr.count("error:") == 1, result.output


def test_out_to_proc_self_fd_1_writes_through(tmp_path: Path, store_path: Path) -> None:
    run_dir = good_run(tmp_path)
    assert invoke("ingest", str(run_dir)).exit_code == 0
    assert invoke("label", "run", "-q", "q1", "--code", "SEL-STALE").exit_code == 0
    process = _memscope(
        "export-labels", "--format", "csv", "--out", "/proc/self/fd/1", "--db", str(store_path)
    )
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert out.startswith("run_id,") and "SEL-STALE" in out
    assert "exported 1 label row(s)" in err


def test_a_folder_walk_says_which_folder_it_could_not_read(
    tmp_path: Path, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good_run(tmp_path, "a")
    locked = good_run(tmp_path, "b")
    real_scandir = os.scandir

    def scandir(path=".", *args):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path, *args)

    monkeypatch.setattr(os, "scandir", scandir)
    result = invoke("ingest", str(tmp_path / "runs"))
    assert result.exit_code == 1
    # Listed in the summary of folders that could not be read as runs (issue 38).
    assert f"{locked}: cannot read this folder (Permission denied); any run in it was skipped" in (
        result.stderr.replace("\n", "")
    ), result.stderr
    assert "ingested a" in result.stderr


# -- 5. nothing from the network -----------------------------------------------------------


def test_a_sqlite_store_gets_one_message_and_no_extension(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    home = tmp_path / "fresh-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    sqlite_file = tmp_path / "other.db"
    connection = sqlite3.connect(sqlite_file)
    connection.execute("CREATE TABLE t (a)")
    connection.commit()
    connection.close()
    for args in (["runs"], ["ingest", str(good_run(tmp_path))], ["export-labels"]):
        result = invoke(*args, "--db", str(sqlite_file))
        assert result.exit_code == 1
        assert "this file is a SQLite database, not a memscope store" in result.stderr
        assert result.stderr.count("error:") == 1
    assert not (home / ".duckdb").exists()
    assert list(home.iterdir()) == []


def test_every_connection_is_offline(store: Store) -> None:
    with store.read() as con:
        settings_now = dict(
            rows(
                con,
                "SELECT name, value FROM duckdb_settings() WHERE name IN "
                "('autoinstall_known_extensions', 'autoload_known_extensions')",
            )
        )
    assert settings_now == {
        "autoinstall_known_extensions": "false",
        "autoload_known_extensions": "false",
    }
    src = Path(__file__).parents[2] / "src" / "memscope"
    connects = [
        str(path.relative_to(src))
        for path in src.rglob("*.py")
        if "duckdb.connect(" in path.read_text()
    ]
    assert connects == ["store/attached.py"]  # the one place, with the offline config


# -- 6. a label is never dropped -------------------------------------------------------------


HOLDER = """
import duckdb, sys, time
deadline = time.monotonic() + 120  # the other side may still hold it for a while
while True:
    try:
        c = duckdb.connect(sys.argv[1])
        break
    except duckdb.IOException:
        if time.monotonic() > deadline:
            sys.exit('the holder never got the store')
        time.sleep(0.05)
print('ready', flush=True)
sys.stdin.readline()
"""


def _hold_store(path: Path) -> subprocess.Popen:
    """Another process holding the store for writing until released."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
    return holder


def _release(holder: subprocess.Popen) -> None:
    assert holder.stdin is not None
    holder.stdin.write("\n")
    holder.stdin.flush()
    holder.wait(timeout=30)


def test_labels_wait_for_a_busy_store_and_are_never_dropped(
    tmp_path: Path, store_path: Path
) -> None:
    from memscope.triage.label_queue import (
        LabelFailed,
        LabelOp,
        LabelQueue,
        LabelSaved,
        LabelsWaiting,
    )
    from memscope.usecases.labels.events import current_labels
    from memscope.usecases.labels.journal import LabelJournal

    assert invoke("ingest", str(good_run(tmp_path))).exit_code == 0
    store = Store(store_path, wait_s=0.2)
    journal = LabelJournal(store_path)
    queue = LabelQueue(linger_s=0.05, journal=journal, retry_s=0.1)
    posted: list[object] = []
    holder = _hold_store(store_path)
    try:
        queue.push(LabelOp("set", "run", "q1", "alice", codes=("SEL-STALE",), primary="SEL-STALE"))
        queue.push(LabelOp("set", "run", "q2", "alice", codes=("SEL-STALE",), primary="SEL-STALE"))
        assert len(journal.pending()) == 2  # durable before any write is tried
        writer = threading.Thread(target=queue.write_pending, args=(store, posted.append))
        writer.start()
        time.sleep(1.5)  # far longer than the lock wait
        assert any(isinstance(m, LabelsWaiting) and m.count == 2 for m in posted)
        assert not any(isinstance(m, LabelFailed) for m in posted)
        assert queue.pending_count() == 2 and len(journal.pending()) == 2
    finally:
        _release(holder)
    writer.join(timeout=30)
    assert not writer.is_alive()
    saved = [m for m in posted if isinstance(m, LabelSaved)]
    assert [m.qid for m in saved] == ["q1", "q2"]
    assert journal.pending() == [] and not journal.path.exists()
    assert set(current_labels(Store(store_path), "run", annotator="alice")) == {"q1", "q2"}


def test_labels_left_pending_are_replayed_before_label_commands(
    tmp_path: Path, store_path: Path
) -> None:
    from memscope.usecases.labels.journal import LabelJournal, LabelOp

    assert invoke("ingest", str(good_run(tmp_path))).exit_code == 0
    journal = LabelJournal(store_path)
    journal.add(LabelOp("set", "run", "q3", "alice", codes=("SEL-STALE",), primary="SEL-STALE"))
    with journal.path.open("a") as handle:
        handle.write('{"id": "torn", "op": {"act')  # a crash mid-append
    result = invoke("export-labels", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    assert "saved 1 pending label change(s)" in result.stderr
    exported = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(row["qid"], row["codes"]) for row in exported] == [("q3", ["SEL-STALE"])]
    assert not journal.path.exists()


def test_status_bar_counts_pending_labels() -> None:
    from memscope.tui.widgets.status_bar import status_text

    line = status_text("run", None, "failing", 0, 10, 2, "alice", False, pending=3).plain
    assert "3 label change(s) unsaved" in line
    assert "unsaved" not in status_text("run", None, "failing", 0, 10, 2, "alice", False).plain


# -- 7. exports ----------------------------------------------------------------------------


def _labelled_store(tmp_path: Path, note: str) -> None:
    assert invoke("ingest", str(good_run(tmp_path))).exit_code == 0
    result = invoke("label", "run", "-q", "q1", "--code", "SEL-STALE", "--note", note)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_csv_cells_that_look_like_formulas_are_defused(
    tmp_path: Path, store_path: Path, start: str
) -> None:
    from memscope.store.attached import connect_offline

    note = f'{start}HYPERLINK("http://x")'
    _labelled_store(tmp_path, note)
    out = tmp_path / "labels.csv"
    assert invoke("export-labels", "--format", "csv", "--out", str(out)).exit_code == 0
    got = (
        connect_offline()
        .execute(f"SELECT note FROM read_csv('{out}', allow_quoted_nulls = false)")
        .fetchone()
    )
    assert got == ("'" + note,)
    jsonl = invoke("export-labels", "--format", "jsonl")
    assert json.loads(jsonl.stdout.splitlines()[0])["note"] == note  # jsonl keeps the exact text


def test_empty_note_round_trips_as_empty(tmp_path: Path, store_path: Path) -> None:
    from memscope.store.attached import connect_offline

    _labelled_store(tmp_path, "")
    out = tmp_path / "labels.csv"
    assert invoke("export-labels", "--format", "csv", "--out", str(out)).exit_code == 0
    with Store(store_path).read() as con:
        stored = scalar(con, "SELECT note FROM label_events ORDER BY event_id DESC LIMIT 1")
    got = (
        connect_offline()
        .execute(f"SELECT note FROM read_csv('{out}', allow_quoted_nulls = false)")
        .fetchone()
    )
    assert got == (stored,)


def test_out_that_is_a_symlink_writes_its_target(tmp_path: Path, store_path: Path) -> None:
    _labelled_store(tmp_path, "n")
    target = tmp_path / "real" / "labels.jsonl"
    target.parent.mkdir()
    target.write_text("")  # a file memscope may replace (a foreign one is refused)
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert invoke("export-labels", "--out", str(link)).exit_code == 0
    assert link.is_symlink() and link.resolve() == target
    assert "SEL-STALE" in target.read_text()


def test_a_killed_export_leaves_no_stray_file(tmp_path: Path, store_path: Path) -> None:
    _labelled_store(tmp_path, "n")
    destination = tmp_path / "exports"
    destination.mkdir()
    for sig, delay in ((signal.SIGKILL, 0.4), (signal.SIGTERM, 0.4), (signal.SIGKILL, 0.8)):
        process = _memscope(
            "export-labels",
            "--format",
            "parquet",
            "--out",
            str(destination / "l.parquet"),
            "--db",
            str(store_path),
        )
        time.sleep(delay)
        process.send_signal(sig)
        process.communicate(timeout=60)
        assert [p.name for p in destination.iterdir() if p.name != "l.parquet"] == []


# -- 9. huge fields ------------------------------------------------------------------------


def test_a_huge_field_is_bounded_for_display() -> None:
    from memscope.tui.text import DISPLAY_LIMIT, clip, plain

    huge = "reasoning " * 5_000_000  # 50 MB
    started = time.monotonic()
    shown = plain(huge + HOSTILE)
    clipped = clip(huge, 40)
    assert time.monotonic() - started < 2.0
    assert len(shown.plain) < DISPLAY_LIMIT + 100
    hidden = len(huge) + len(HOSTILE) - DISPLAY_LIMIT
    assert shown.plain.endswith(f"… {hidden:,} more characters (t: full text)")
    assert len(clipped) == 40 and clipped.endswith("…")
    assert plain(huge, limit=None).plain == huge  # the full text, on demand


async def test_the_app_shows_a_huge_field_cut_and_t_shows_it_whole(
    tmp_path: Path, store_path: Path
) -> None:
    from memscope.tui.app import make_app
    from memscope.tui.open_request import OpenRequest
    from memscope.tui.screens.full_text import FullTextScreen, TextPager

    data = dataset()
    reasoning = "the judge explains " * 1_000_000 + "FINAL WORD"  # 19 MB
    rows_ = [open_row(i, data, seed=["D1:1", "D2:1"], scores=[0.9, 0.4]) for i in (1, 2, 3)]
    rows_[0]["judge_reasoning"] = reasoning
    run_dir = write_run(tmp_path / "runs" / "huge", data, rows_)
    assert invoke("ingest", str(run_dir)).exit_code == 0
    app = make_app(OpenRequest([str(run_dir)], question="q1"))
    async with app.run_test(size=(120, 40)) as pilot:
        # The judge's reasoning comes with the question, read from the store when shown.
        await _until(
            pilot,
            lambda: app.session.is_open and app.session.qid == "q1" and app.session.run is not None,
        )
        await pilot.pause(0.5)
        await pilot.press("t")
        await _until(pilot, lambda: isinstance(app.screen, FullTextScreen))
        await pilot.pause()  # the pager wraps its lines when it first gets its size
        pager = app.screen.query_one(TextPager)
        titles = [pager.line_text(y) for y in range(pager.line_count) if pager.line_text(y)]
        assert any(t.startswith(f"judge reasoning · {len(reasoning):,} characters") for t in titles)
        await pilot.press("G")
        await pilot.pause()
        seen = "".join(pager.line_text(y) for y in range(pager.line_count - 40, pager.line_count))
        assert "FINAL WORD" in seen  # the last characters of the field are reachable
        await pilot.press("escape")
        await _until(pilot, lambda: not isinstance(app.screen, FullTextScreen))


async def _until(pilot, condition, timeout: float = 30.0) -> None:
    waited = 0.0
    while not condition():
        await pilot.pause(0.05)
        waited += 0.05
        if waited > timeout:
            raise AssertionError("condition not reached")


async def test_the_app_keeps_a_label_while_the_store_is_held(
    tmp_path: Path, store_path: Path
) -> None:
    from memscope.tui.app import make_app
    from memscope.tui.open_request import OpenRequest
    from memscope.usecases.labels.events import current_labels
    from memscope.usecases.labels.journal import LabelJournal

    run_dir = good_run(tmp_path)
    assert invoke("ingest", str(run_dir)).exit_code == 0
    labeller = make_app(OpenRequest([str(run_dir)], annotator="alice", question="q1"))
    async with labeller.run_test(size=(120, 40), notifications=True) as pilot:
        await _until(pilot, lambda: labeller.session.is_open and labeller.session.qid == "q1")
        await labeller.workers.wait_for_complete()
        await pilot.pause(1.5)  # the app lets go of the store after its last use
        holder = _hold_store(store_path)
        try:
            await pilot.press("3")
            await _until(pilot, lambda: labeller.session.labels.queue.waiting is not None)
            await pilot.pause(1.0)  # longer than the lock wait (0.5 s in tests)
            assert labeller.session.labels.pending_total() == 1
            assert len(LabelJournal(store_path).pending()) == 1
            assert (
                "1 label change(s) unsaved"
                in status_view_text(labeller.session.status_view(with_question=True)).plain
            )
            messages = [n.message for n in notices(labeller)]
            assert not any("NOT SAVED" in m for m in messages), messages
            await labeller.action_quit()  # asks instead of quitting or dropping the label
            await pilot.pause()
            assert labeller.is_running
            assert any(n.title == "Quit with labels pending?" for n in notices(labeller))
        finally:
            _release(holder)
        await _until(pilot, lambda: labeller.session.labels.pending_total() == 0)
    await labeller.workers.wait_for_complete()
    # The writer thread may linger on the store a moment after the app closed (longer on a
    # loaded machine).
    deadline = time.monotonic() + 60
    while True:
        try:
            labelled = set(current_labels(Store(store_path), "run", annotator="alice"))
            break
        except MemscopeError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    assert labelled == {"q1"}
    assert LabelJournal(store_path).pending() == []


async def test_a_store_held_while_the_run_completes_costs_a_notice_not_the_session(
    tmp_path: Path, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app's background step after the first paint (the queue's count, the failure
    suggestions) meets a store another process holds for writing: it says so in a notice,
    the label bar's repaint (which reads the question's suggestion on the app's thread)
    does not crash the app, no worker failed, the question stays on screen and a label
    waits for the store instead of being lost."""
    from memscope.triage.session import TriageSession
    from memscope.tui.app import make_app
    from memscope.tui.open_request import OpenRequest

    run_dir = good_run(tmp_path)
    assert invoke("ingest", str(run_dir)).exit_code == 0
    go_on = threading.Event()
    prepare_count = TriageSession.prepare_count

    def held_back(self: TriageSession, run: object) -> object:
        go_on.wait(120)  # until the other process holds the store
        return prepare_count(self, run)  # type: ignore[arg-type]

    monkeypatch.setattr(TriageSession, "prepare_count", held_back)
    labeller = make_app(OpenRequest([str(run_dir)], annotator="alice", question="q1"))
    async with labeller.run_test(size=(120, 40), notifications=True) as pilot:
        await _until(pilot, lambda: labeller.session.is_open and labeller.session.qid == "q1")
        await pilot.pause(1.5)  # the app lets go of the store after its last use
        holder = _hold_store(store_path)
        try:
            go_on.set()
            await _until(
                pilot,
                lambda: any(
                    "Suggestions could not be loaded: the store is in use" in n.message
                    for n in notices(labeller)
                ),
                timeout=120,
            )
            await pilot.pause()  # the label bar repaints, reading the question's suggestion
            failed = [w.name for w in labeller.workers if w.state.name == "ERROR"]
            assert not failed
            assert labeller.is_running and labeller.session.qid == "q1"
            await pilot.press("3")
            await _until(pilot, lambda: labeller.session.labels.pending_total() == 1)
        finally:
            _release(holder)
        await _until(pilot, lambda: labeller.session.labels.pending_total() == 0, timeout=120)
