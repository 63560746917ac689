"""Every interval memscope prints stays within its metric's range (issue 41 item 4, issue 39):
table, compare, report and audit, in their JSON and CSV too."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_locomo import shared_locomo
from memscope.analysis.ppi import MeanEstimate
from memscope.cli import app
from memscope.store import Store
from memscope.usecases.labels.verdicts import record_verdict
from memscope.usecases.table.corrected import corrected_cell

runner = CliRunner()
DEMO = Path(__file__).parents[2] / "runs"
RUN = "rsr_0612:honcho"
VERDICTS = Path(__file__).resolve().parents[1] / "data" / "verdicts" / "honcho_conv26.csv"
LOW_KEYS = ("ci_low", "low", "delta_low")
DELTA_KEYS = ("delta_low", "delta_high")


def _out(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def _intervals(node: object, path: str = "") -> list[tuple[str, float, float, bool]]:
    """Every (where, low, high, is a difference) in a JSON document."""
    found = []
    if isinstance(node, dict):
        for low_key, high_key in (("ci_low", "ci_high"), ("low", "high"), DELTA_KEYS):
            low, high = node.get(low_key), node.get(high_key)
            if isinstance(low, float | int) and isinstance(high, float | int):
                difference = low_key == "delta_low" or ("delta" in node and low_key == "ci_low")
                found.append((f"{path}.{low_key}", float(low), float(high), difference))
        for key, value in node.items():
            found += _intervals(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _intervals(value, f"{path}[{i}]")
    return found


def _assert_in_range(document: object) -> int:
    intervals = _intervals(document)
    for where, low, high, difference in intervals:
        floor = -1.0 if difference else 0.0
        assert floor <= low <= high <= 1.0, (where, low, high)
    return len(intervals)


@pytest.mark.parametrize(
    "args",
    [
        ("table", str(DEMO / "dmv_f2_demo"), "--ci", "--baseline", "NoMemory"),
        (
            "table",
            str(DEMO / "srag_t"),
            str(DEMO / "srag_v"),
            "--ci",
            "--baseline",
            "semantic_rag_text_only",
        ),
        ("table", str(DEMO / "cue_text"), str(DEMO / "cue_mm"), "--ci"),
        ("compare", "dmv_f2_demo:NoMemory", "dmv_f2_demo:DualMem-a75"),
        ("report", "dmv_f2_demo:NoMemory"),
    ],
)
def test_json_intervals_stay_in_range(args: tuple[str, ...]) -> None:
    if args[0] != "table":
        _out("ingest", str(DEMO / "dmv_f2_demo"))
    text = _out(*args, "--format", "json")
    assert _assert_in_range(json.loads(text)) > 0


def test_csv_intervals_stay_in_range() -> None:
    text = _out("table", str(DEMO / "dmv_f2_demo"), "--ci", "--baseline", "NoMemory", "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    checked = 0
    for row in rows:
        for key, value in row.items():
            if not value or not key.endswith(("ci_low", "ci_high", "delta_low", "delta_high")):
                continue
            floor = -1.0 if "delta" in key else 0.0
            assert floor <= float(value) <= 1.0, (key, value)
            checked += 1
    assert checked > 0


def test_a_corrected_cell_is_clipped_as_audit_clips_it() -> None:
    """Issue 39: `corr 0.667 [-0.13, 1.47]` in the table where audit printed it clipped."""
    wide = MeanEstimate(0.667, 0.41, -0.13, 1.47, 1.0, 3, 10)
    cell = corrected_cell(wide, 3)
    assert (cell.estimate, cell.low, cell.high) == wide.as_share == (0.667, 0.0, 1.0)


def test_table_corrected_agrees_with_audit_and_stays_in_range(store: Store, ingested_store) -> None:
    ingested_store(shared_locomo() / "results" / "honcho" / "rsr_0612")
    with VERDICTS.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            record_verdict(store, RUN, row["qid"], row["verdict"], annotator="team")
    table = json.loads(_out("table", RUN, "--corrected", "--format", "json"))
    audit = json.loads(_out("audit", RUN, "--by", "category", "--format", "json"))
    assert _assert_in_range(table) > 0 and _assert_in_range(audit) > 0
    cells = table["rows"][0]["cells"]
    lows = [
        cell["corrected"]["low"] for cell in cells.values() if cell["corrected"]["low"] is not None
    ]
    assert lows and all(0.0 <= low <= 1.0 for low in lows)
