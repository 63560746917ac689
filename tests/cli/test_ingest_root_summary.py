"""Issue 41 item 10 and issue 38 item 8: ``ingest ROOT`` names, in one summary, every folder
below ROOT it could not read as a run (a ``predictions.jsonl`` that is a folder, a FIFO),
with why, and counts it among the failures; a refused ingest leaves no new store file."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

import builders_locomo as loco
from builders import dialog, open_row, qa, write_run
from memscope.cli import app

runner = CliRunner()


def _run(run_dir: Path) -> Path:
    data = dialog(
        {"D1": ["D1:1"]},
        [qa(f"Question {i}?", "gold", [["X1"], ["Y1"]], ["D1:1"], ["D1"]) for i in range(1, 4)],
    )
    rows = [open_row(i, data, judge=float(i % 2), seed=["D1:1"]) for i in range(1, 4)]
    return write_run(run_dir, data, rows, top_k=1)


def _broken(run_dir: Path, kind: str) -> Path:
    _run(run_dir)
    predictions = run_dir / "predictions.jsonl"
    predictions.unlink()
    if kind == "folder":
        predictions.mkdir()
    else:
        os.mkfifo(predictions)
    return run_dir


def test_ingest_root_names_the_runs_it_could_not_read_in_one_summary(
    tmp_path: Path, store_path: Path
) -> None:
    root = tmp_path / "root"
    for n in range(3):
        _run(root / f"good{n}")
    folder = _broken(root / "bad_folder", "folder")
    fifo = _broken(root / "bad_fifo", "fifo")
    done = runner.invoke(app, ["ingest", str(root)])
    assert done.exit_code == 1, done.output
    text = " ".join(done.stderr.split())
    assert "2 folder(s) could not be read as runs:" in text
    assert f"{folder}: predictions.jsonl is a folder, not a regular file" in text
    assert f"{fifo}: predictions.jsonl is a FIFO" in text
    assert "2 run(s) could not be ingested" in text
    assert text.count("ingested ") >= 3  # the good runs went in
    assert text.count("error:") == 1  # one summary, not one error per folder


def test_a_large_tree_is_summarised_not_listed_line_by_line(
    tmp_path: Path, store_path: Path
) -> None:
    root = tmp_path / "root"
    _run(root / "good")
    for n in range(25):
        _broken(root / f"bad{n:02d}", "folder")
    done = runner.invoke(app, ["ingest", str(root)])
    assert done.exit_code == 1
    text = " ".join(done.stderr.split())
    assert "25 folder(s) could not be read as runs:" in text
    assert "… and 5 more: 5 × predictions.jsonl is a folder, not a regular file" in text
    assert "25 run(s) could not be ingested" in text


def test_a_refused_ingest_leaves_no_new_store_file(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _broken(root / "bad", "folder")
    (tmp_path / "empty").mkdir()
    data = loco.small_dataset()
    no_dataset = loco.write_json(  # a LoCoMo run whose dataset cannot be found: refused
        tmp_path / "l" / "a" / "b" / "c" / "d" / "e" / "run" / "out.json",
        loco.run_output(data, {"conv-a": {"q1": {"m_prediction": "Porto"}}}),
    ).parent
    db = tmp_path / "fresh" / "memscope.duckdb"
    targets = (no_dataset, tmp_path / "l", root, root / "bad", tmp_path / "empty", tmp_path / "x")
    for target in targets:
        done = runner.invoke(app, ["ingest", str(target), "--db", str(db)])
        assert done.exit_code != 0, done.output
        assert not db.exists() and not db.with_name(db.name + ".wal").exists()
        assert not db.parent.exists(), list(db.parent.iterdir())
    # A store that was there before stays, as does a store a good run went into.
    good = _run(tmp_path / "good")
    assert runner.invoke(app, ["ingest", str(good), "--db", str(db)]).exit_code == 0
    assert runner.invoke(app, ["ingest", str(root), "--db", str(db)]).exit_code == 1
    assert db.exists()
