"""Issue 41 items 5 and 6: ``store check --save-labels`` saves everything people made
(labels with notes, verdicts, sample plans) and says what it saved, and it never renames
over anything but a regular file memscope wrote: a FIFO with a reader is written through."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.cli import app

runner = CliRunner()


def invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def _run(tmp_path: Path) -> Path:
    data = dialog(
        {"D1": ["D1:1"]},
        [qa(f"Question {i}?", "gold", [["X1"], ["Y1"]], ["D1:1"], ["D1"]) for i in range(1, 9)],
    )
    rows = [open_row(i, data, judge=float(i % 2), seed=["D1:1"]) for i in range(1, 9)]
    return write_run(tmp_path / "runs" / "run", data, rows, top_k=1)


@pytest.fixture
def made(tmp_path: Path, store_path: Path) -> Path:
    """A store with labels (one with a note), verdicts and a sample plan, then damaged (its
    schema half-made, as an upgrade cut short leaves it)."""
    assert invoke("ingest", str(_run(tmp_path))).exit_code == 0
    assert invoke("label", "run", "-q", "q2", "--code", "RET-MISS", "--note", "n1").exit_code == 0
    assert invoke("label", "run", "-q", "q4", "--verdict", "wrong").exit_code == 0
    assert invoke("label", "run", "-q", "q1", "--verdict", "correct").exit_code == 0
    assert invoke("sample", "run", "--sample-size", "2").exit_code == 0, "sample"
    con = duckdb.connect(str(store_path))
    con.execute("DELETE FROM schema_migrations WHERE version >= 3")
    con.close()
    return store_path


def test_store_check_saves_verdicts_notes_and_sample_plans(made: Path, tmp_path: Path) -> None:
    saved = tmp_path / "saved.jsonl"
    done = invoke("store", "check", "--db", str(made), "--save-labels", str(saved))
    assert done.exit_code == 1  # the store is damaged
    assert "saved 1 label event(s), 2 verdict event(s), 1 sample plan(s)" in done.stderr
    flat = " ".join(done.stdout.split())
    assert f"saved in {saved}: 1 label event(s), 2 verdict event(s), 1 sample plan(s)" in flat
    assert "nothing to save" not in flat
    assert f"import the labels and verdicts there: memscope import-labels {saved}" in flat
    assert "the sample plans are in" in flat
    rows = [json.loads(line) for line in saved.read_text().splitlines()]
    kinds = [row["event_kind"] for row in rows]
    assert kinds.count("label") == 1 and kinds.count("verdict") == 2
    assert kinds.count("sample_plan") == 1 and "sample_item" in kinds
    assert next(row for row in rows if row["event_kind"] == "label")["note"] == "n1"
    # The labels, notes and verdicts come back in a new store.
    fresh = tmp_path / "new.duckdb"
    assert invoke("ingest", str(tmp_path / "runs" / "run"), "--db", str(fresh)).exit_code == 0
    imported = invoke("import-labels", str(saved), "--db", str(fresh))
    assert imported.exit_code == 0, imported.output
    exported = invoke("export-labels", "--db", str(fresh), "--history")
    back = [json.loads(line) for line in exported.stdout.splitlines()]
    assert {(row["event_kind"], row["qid"], row.get("verdict")) for row in back} == {
        ("label", "q2", None),
        ("verdict", "q4", "wrong"),
        ("verdict", "q1", "correct"),
    }
    assert [row["note"] for row in back if row["event_kind"] == "label"] == ["n1"]


def test_a_store_holding_only_verdicts_is_not_called_empty(
    tmp_path: Path, store_path: Path
) -> None:
    assert invoke("ingest", str(_run(tmp_path))).exit_code == 0
    assert invoke("label", "run", "-q", "q1", "--verdict", "correct").exit_code == 0
    con = duckdb.connect(str(store_path))
    con.execute("DELETE FROM schema_migrations WHERE version >= 3")
    con.close()
    done = invoke("store", "check", "--db", str(store_path))
    flat = " ".join(done.stdout.split())
    assert "nothing to save" not in flat and "1 verdict event(s)" in flat, flat


def test_save_labels_writes_through_a_fifo_and_keeps_it(made: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    done = invoke("store", "check", "--db", str(made), "--save-labels", str(fifo))
    reader.join(timeout=30)
    assert done.exit_code == 1 and "saved 1 label event(s)" in done.stderr, done.output
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still the FIFO, not a file renamed over it
    lines = received[0].decode().splitlines()
    assert len(lines) >= 4 and json.loads(lines[0])["event_kind"] == "label"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".pipe.")]


def test_save_labels_refuses_a_fifo_nobody_reads(made: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = invoke("store", "check", "--db", str(made), "--save-labels", str(fifo))
    assert done.exit_code == 1
    assert "--save-labels is a FIFO (named pipe) that no process reads" in " ".join(
        done.stderr.split()
    )
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_save_labels_never_replaces_a_file_memscope_did_not_write(
    made: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "thesis.tex"
    mine.write_text("\\section{Results}\n")
    done = invoke("store", "check", "--db", str(made), "--save-labels", str(mine))
    assert done.exit_code == 1
    assert "--save-labels names a file memscope did not write" in " ".join(done.stderr.split())
    assert mine.read_text() == "\\section{Results}\n"
    # A file an earlier --save-labels wrote is replaced, as is an empty one.
    saved = tmp_path / "saved.jsonl"
    saved.write_text("")
    for _ in range(2):
        done = invoke("store", "check", "--db", str(made), "--save-labels", str(saved))
        assert "saved 1 label event(s)" in done.stderr, done.output
    assert saved.is_file() and len(saved.read_text().splitlines()) >= 4
