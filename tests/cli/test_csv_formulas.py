"""Issue 41 item 12: every CSV memscope writes defuses formula-like text cells (a leading
``'`` before ``=``, ``+``, ``-``, ``@``, tab or CR), as ``export-labels`` does; numbers stay numbers."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.cli import app
from memscope.store import Store
from memscope.usecases.labels.verdicts import record_verdict
from memscope.usecases.runs.ingest import ingest_dir

FORMULA = "=HYPERLINK(x)"


def _ingest(tmp_path: Path, store: Store, name: str) -> str:
    data = dialog(
        {"D1": ["D1:1"]},
        [qa(f"Question {i}?", "gold", [["X1"], ["Y1"]], ["D1:1"], ["D1"]) for i in range(1, 7)],
    )
    rows = [open_row(i, data, judge=float(i % 2), seed=["D1:1"]) for i in range(1, 7)]
    return ingest_dir(
        store, write_run(tmp_path / "runs" / name, data, rows, top_k=1), ReadOptions()
    ).run_id


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def test_table_csv_defuses_a_formula_run_id(tmp_path: Path, store: Store) -> None:
    run_id = _ingest(tmp_path, store, FORMULA)
    assert run_id.startswith("=")
    result = CliRunner().invoke(app, ["table", run_id, "-f", "csv"])
    assert result.exit_code == 0, result.output
    cells = _cells(result.stdout)
    assert not [cell for cell in cells if cell.startswith(("=", "+", "@", "\t", "\r"))], cells
    assert "'" + FORMULA in cells


def test_audit_raters_csv_defuses_annotators(tmp_path: Path, store: Store) -> None:
    run_id = _ingest(tmp_path, store, "plain")
    for who in ("=evil", "-evil", "alice"):
        for qid in ("q1", "q2", "q3"):
            record_verdict(store, run_id, qid, "correct", annotator=who)
    result = CliRunner().invoke(app, ["audit", run_id, "--raters", "-f", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))
    names = {cell for row in rows[1:] for cell in row[:2]}
    assert {"'=evil", "'-evil", "alice"} <= names, rows
    assert not any(name.startswith(("=", "-")) for name in names)
    numbers = [row[2] for row in rows[1:]]
    assert all(number.isdigit() for number in numbers)  # numbers are left as numbers
