"""``memscope table --corrected`` (issue 28): the cells of LoCoMo's real Honcho run carry
its accuracy corrected with our verdicts on conversation 26
(``tests/data/verdicts/honcho_conv26.csv``), equal to ``audit``'s PPI++ estimates per
category and overall; without ``--corrected`` nothing changes. The LoCoMo data is read from
the shared samples, never copied; those tests skip where it is absent.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_locomo import shared_locomo
from memscope.cli import app
from memscope.store import Store
from memscope.usecases.labels.audit import audit_run, corrected_accuracy
from memscope.usecases.labels.verdicts import record_verdict
from memscope.usecases.table.corrected import flips, with_delta
from memscope.usecases.table.result import CellDelta, CorrectedCell, TableCell

runner = CliRunner()
RUN = "rsr_0612:honcho"
VERDICTS = Path(__file__).resolve().parents[1] / "data" / "verdicts" / "honcho_conv26.csv"


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def judged(store: Store, ingested_store) -> Store:
    """The Honcho run ingested with our verdicts given."""
    ingested_store(shared_locomo() / "results" / "honcho" / "rsr_0612")
    with VERDICTS.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            record_verdict(store, RUN, row["qid"], row["verdict"], annotator="team")
    return store


def test_each_cell_carries_audits_corrected_accuracy(judged: Store) -> None:
    plain = json.loads(invoke("table", RUN, "--format", "json"))
    data = json.loads(invoke("table", RUN, "--corrected", "--format", "json"))
    assert "corrected" not in plain and data["corrected"] is True
    [row] = data["rows"]
    [plain_row] = plain["rows"]
    for key, cell in row["cells"].items():  # everything else is as without --corrected
        assert {k: v for k, v in cell.items() if k != "corrected"} == plain_row["cells"][key]
        assert "corrected" not in plain_row["cells"][key]
    overall = corrected_accuracy(judged, RUN)
    assert overall is not None
    assert row["cells"]["all"]["corrected"] == {
        # Clipped to [0, 1] as audit reports it (MeanEstimate.as_share).
        "estimate": pytest.approx(overall.as_share[0]),
        "low": pytest.approx(overall.as_share[1]),
        "high": pytest.approx(overall.as_share[2]),
        "n_verdicts": 39,  # one of our 40 verdicts is unsure
        "delta": None,
        "flipped": False,
    }
    audit = audit_run(judged, RUN, by="category")
    for level in audit.levels[1:]:
        found = row["cells"][f"category:{level.level}"]["corrected"]
        assert level.ppi is not None and found["n_verdicts"] == level.n_verdicts > 0
        assert found["estimate"] == pytest.approx(level.ppi.as_share[0])
        assert (found["low"], found["high"]) == pytest.approx(level.ppi.as_share[1:])


def test_every_format_shows_the_corrected_value_and_is_unchanged_without_it(judged: Store) -> None:
    overall = corrected_accuracy(judged, RUN)
    assert overall is not None
    shown = f"corr {overall.estimate:.3f}"
    for fmt in ("markdown", "latex", "table"):
        assert shown not in invoke("table", RUN, "--format", fmt)
        assert shown in invoke("table", RUN, "--corrected", "--format", fmt)
    plain_csv = list(csv.reader(invoke("table", RUN, "--format", "csv").splitlines()))
    header, line = list(
        csv.reader(invoke("table", RUN, "--corrected", "--format", "csv").splitlines())
    )
    assert "all corrected" not in plain_csv[0] and "all corrected_n" in header
    assert float(line[header.index("all corrected")]) == pytest.approx(overall.estimate, abs=1e-6)
    assert line[header.index("all corrected_n")] == "39"
    assert [name for name in header if "corrected" not in name] == plain_csv[0]


def test_a_run_without_verdicts_has_no_corrected_value(store: Store, ingested_store) -> None:
    ingested_store(shared_locomo() / "results" / "honcho" / "rsr_0612")
    data = json.loads(invoke("table", RUN, "--corrected", "--format", "json"))
    cell = data["rows"][0]["cells"]["all"]
    assert cell["corrected"] == {
        "estimate": None,
        "low": None,
        "high": None,
        "n_verdicts": 0,
        "delta": None,
        "flipped": False,
    }
    _caption, body = invoke("table", RUN, "--corrected", "--format", "markdown").split("\n", 1)
    assert "corr" not in body


def test_a_delta_whose_sign_the_correction_flips_is_marked() -> None:
    assert flips(0.05, -0.02) and flips(-0.1, 0.3)
    assert not flips(0.05, 0.01) and not flips(0.0, -0.2) and not flips(None, 0.1)
    row = TableCell(
        0.60,
        100,
        False,
        delta=CellDelta(0.05, 0.01, 0.09, 100, True),
        corrected=CorrectedCell(0.55, 0.45, 0.65, 20),
    )
    base = CorrectedCell(0.58, 0.48, 0.68, 20)
    found = with_delta(row, base)
    assert found.delta == pytest.approx(-0.03) and found.flipped
    kept = with_delta(row, CorrectedCell(0.50, 0.4, 0.6, 20))
    assert kept.delta == pytest.approx(0.05) and not kept.flipped
    assert with_delta(row, CorrectedCell(None, None, None, 0)).delta is None
