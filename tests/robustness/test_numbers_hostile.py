"""Numbers from the command line and from files (issue 25, item 14): every integer option
has a stated range and a value outside it is a usage error naming it; an integer field of a
run file that no column can hold (or that would take forever to count to) is that record
skipped with its place, never a raw DuckDB error, an overflow or a hang.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from builders_dmv import DATA, probes, write_f2_run
from memscope.cli import app
from memscope.cli.number_options import COUNT_MAX, RANK_MAX, RESAMPLES_MAX, SEED_MAX
from memscope.store import Store
from memscope.store.sql import rows, scalar

runner = CliRunner()
VENV_BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
HUGE = 18446744073709551615  # 2**64 - 1: a UBIGINT to DuckDB, beyond BIGINT


def invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def _integer_options() -> list[tuple[str, object]]:
    found = []

    def walk(command, path: list[str]) -> None:
        for name, sub in (getattr(command, "commands", None) or {}).items():
            walk(sub, [*path, name])
        if getattr(command, "commands", None):
            return
        for param in command.params:
            if "Int" in type(param.type).__name__:
                found.append((" ".join([*path, param.opts[0]]), param.type))

    walk(typer.main.get_command(app), [])
    return found


def test_every_integer_option_of_every_command_has_a_range() -> None:
    options = _integer_options()
    assert len(options) >= 20  # seeds, K, pools, sizes, resamples, threads, batches …
    unbounded = [
        name
        for name, kind in options
        if getattr(kind, "min", None) is None or getattr(kind, "max", None) is None
    ]
    assert unbounded == []


RUN = str(REPO / "runs" / "srag_v")
OUT_OF_RANGE = [
    (["sample", RUN, "--seed", "-1"], "--seed", "-1"),
    (["sample", RUN, "--seed", "99999999999999999999999"], "--seed", "99999999999999999999999"),
    (["sample", RUN, "--sample-size", "0"], "--sample-size", "0"),
    (["sample", RUN, "--sample-size", str(COUNT_MAX + 1)], "--sample-size", str(COUNT_MAX + 1)),
    (["open", RUN, "--queue", "sample", "--seed", "-5"], "--seed", "-5"),
    (["compare", RUN, RUN, "--resamples", "0"], "--resamples", "0"),
    (
        ["compare", RUN, RUN, "--resamples", str(RESAMPLES_MAX + 1)],
        "--resamples",
        str(RESAMPLES_MAX + 1),
    ),
    (["compare", RUN, RUN, "--seed", str(SEED_MAX + 1)], "--seed", str(SEED_MAX + 1)),
    (["rerun", "--alpha", "0.5", "--k", "0"], "--k", "0"),
    (["rerun", "--alpha", "0.5", "--pool", str(RANK_MAX + 1)], "--pool", str(RANK_MAX + 1)),
    (["table", RUN, "--seed", "-1"], "--seed", "-1"),
    (["table", RUN, "--k", "-3"], "--k", "-3"),
    (["report", RUN, "--k", "99999999999999999999"], "--k", "99999999999999999999"),
    (["index", "x", "--threads", "0"], "--threads", "0"),
    (
        ["index", "x", "--batch-size", "99999999999999999999"],
        "--batch-size",
        "99999999999999999999",
    ),
    (["retrieve", "x", "--limit", "0"], "--limit", "0"),
    (["retrieve", "x", "--k", "-1"], "--k", "-1"),
    (["search", "x", "words", "--k", "0"], "--k", "0"),
]


@pytest.mark.parametrize(
    ("args", "option", "value"),
    OUT_OF_RANGE,
    ids=[" ".join(c[0][:1] + c[0][-2:]) for c in OUT_OF_RANGE],
)
def test_an_integer_out_of_range_is_a_usage_error_stating_the_range(
    args: list[str], option: str, value: str
) -> None:
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.replace("│", " ").split())
    assert f"Invalid value for '{option}': {value} is not in the range" in text, text


def test_the_largest_seed_is_kept_by_the_store(store_path: Path) -> None:
    result = invoke("sample", RUN, "--sample-size", "3", "--seed", str(SEED_MAX))
    assert result.exit_code == 0, result.output
    assert f"(seed {SEED_MAX})" in result.stderr
    with Store(store_path).read() as con:
        assert scalar(con, "SELECT seed FROM sample_plans") == SEED_MAX


# -- integers in run files ----------------------------------------------------------------------


def _memeye_run(root: Path) -> Path:
    data = dialog(
        {"D1": ["D1:1", "D1:2"], "D2": ["D2:1"]},
        [
            qa(f"Question {i}?", f"answer {i}", [["X1"], ["Y1"]], ["D1:1"], ["D1"])
            for i in (1, 2, 3)
        ],
    )
    rows_ = [open_row(i, data, seed=["D1:1", "D2:1"], scores=[0.9, 0.4]) for i in (1, 2, 3)]
    return write_run(root / "runs" / "run", data, rows_)


@pytest.mark.parametrize("idx", [HUGE, 2**63, -1, 0, 10**30])
def test_a_memeye_idx_no_column_holds_skips_that_line(
    tmp_path: Path, store_path: Path, idx: int
) -> None:
    run_dir = _memeye_run(tmp_path)
    path = run_dir / "predictions.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"idx": 2', f'"idx": {idx}')
    path.write_text("\n".join(lines) + "\n")
    result = invoke("ingest", str(run_dir))
    assert result.exit_code == 0, result.output
    assert "Conversion Error" not in result.output and "CAST" not in result.output
    assert 'predictions.jsonl:2: field "idx" must be a positive integer' in result.stderr
    with Store(store_path).read() as con:
        assert [r[0] for r in rows(con, "SELECT qid FROM predictions ORDER BY qid")] == ["q1", "q3"]


def _dmv_checkout(root: Path) -> Path:
    data = root / "DMV-Bench" / "data" / "vismem_diag_v2"
    data.mkdir(parents=True)
    shutil.copy(DATA / "cue_registry.json", data / "cue_registry.json")
    shutil.copy(DATA / "seed_v2.json", data / "seed_v2.json")
    return root / "DMV-Bench"


BANKS = {
    "f2_chain_d3_s0007": {0: 4, 1: 7, 2: 9},
    "f2_chain_d2_s0007": {0: 4, 1: 7},
    "f2_chain_d3_s0008": {0: 5, 1: 8, 2: 10},
}


def _dmv_run(root: Path) -> Path:
    return write_f2_run(
        _dmv_checkout(root) / "results" / "f2" / "huge",
        {"DualMem-a75": probes(True)},
        depths={"f2_chain_d3_s0007": 3, "f2_chain_d2_s0007": 2, "f2_chain_d3_s0008": 3},
        bank_sizes=BANKS,
    )


def _csv_cell(run_dir: Path, column: str, value: str) -> None:
    path = run_dir / "f2_per_probe.csv"
    lines = path.read_text().splitlines()
    at = lines[0].split(",").index(column)
    cells = lines[1].split(",")
    cells[at] = value
    lines[1] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")


def _in_logs(run_dir: Path, old: str, new: str) -> None:
    for log in (run_dir / "logs").rglob("*.log"):
        log.write_text(log.read_text().replace(old, new, 1))


def _ingest_process(run_dir: Path, store_path: Path) -> subprocess.CompletedProcess:
    # A process with a timeout: a huge session number used to count to it (a hang).
    return subprocess.run(
        [str(VENV_BIN / "memscope"), "ingest", str(run_dir), "--db", str(store_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


DMV_CASES = [
    (
        "at_session",
        lambda d: _csv_cell(d, "at_session", str(HUGE)),
        "at_session must lie in 0..10000",
        5,
    ),
    (
        "target_session",
        lambda d: _csv_cell(d, "target_session", str(10**40)),
        "target_session must lie in 0..10000",
        5,
    ),
    ("reach", lambda d: _csv_cell(d, "reach", str(HUGE)), "reach must lie in 0..10000", 5),
    (
        "vlm_calls",
        lambda d: _csv_cell(d, "vlm_calls", str(HUGE)),
        "vlm_calls must lie in 0..2147483647",
        5,
    ),
    (
        "recall step",
        lambda d: _in_logs(d, "R1/8", f"R{HUGE}/8"),
        "a recall step numbered above 2147483647",
        6,
    ),
    (
        "bank size",
        lambda d: _in_logs(d, "size=4", f"size={HUGE}"),
        "a replay line with a number above",
        6,
    ),
    ("chain depth", lambda d: _in_logs(d, " D=3 ", f" D={HUGE} "), "line with a number above", 6),
    (
        "task id",
        lambda d: (d / "f2_per_probe.csv").write_text(
            (d / "f2_per_probe.csv")
            .read_text()
            .replace("f2_chain_d3_s0007", f"f2_chain_d{HUGE}_s{HUGE}{HUGE}", 1)
        ),
        None,
        6,
    ),
]


@pytest.mark.parametrize(
    ("name", "change", "expected", "probes_kept"), DMV_CASES, ids=[c[0] for c in DMV_CASES]
)
def test_a_dmv_integer_out_of_range_is_that_row_or_line(
    tmp_path: Path, store_path: Path, name: str, change, expected: str | None, probes_kept: int
) -> None:
    run_dir = _dmv_run(tmp_path)
    change(run_dir)
    done = _ingest_process(run_dir, store_path)
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    if expected:
        assert expected in done.stderr, done.stderr
    with Store(store_path).read() as con:
        assert scalar(con, "SELECT count(*) FROM predictions") == probes_kept


def test_a_cuemem_item_rank_beyond_32_bits_is_no_rank(tmp_path: Path, store_path: Path) -> None:
    source = REPO / "runs" / "cue_mm"
    run_dir = tmp_path / "runs" / "cue_mm"
    shutil.copytree(source, run_dir)
    sources = json.loads((run_dir / "memscope_sources.json").read_text())
    sources = {
        key: str((source / value).resolve()) if isinstance(value, str) else value
        for key, value in sources.items()
    }
    (run_dir / "memscope_sources.json").write_text(json.dumps(sources))
    results = json.loads((run_dir / "p0_results.json").read_text())
    results[0]["retrieved_items"][0]["items"][0]["rank"] = HUGE
    (run_dir / "p0_results.json").write_text(json.dumps(results))
    result = invoke("ingest", str(run_dir))
    assert result.exit_code == 0, result.output
    with Store(store_path).read() as con:
        assert scalar(con, "SELECT count(*) FROM cue_retrieved_items WHERE item_rank IS NULL") >= 1
