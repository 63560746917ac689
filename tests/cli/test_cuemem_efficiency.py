"""CUE-Mem's ``<stem>_efficiency.json`` in the cost metrics (issue 38 item 6): the QA
phase's time over the answers it completed is every answer's latency, so ``table --metric
latency`` and ``report``'s cost line show it; a run without the file says it records none."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from builders_cuemem import efficiency_json, history, qa, rq12_row, text_turn, write_json
from memscope.cli import app

runner = CliRunner()


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def bench(tmp_path: Path) -> Path:
    """Two RQ1/RQ2 runs of one profile: LTMemory timed (4 answers in 10 s), FUMemory not."""
    qas = [
        qa("0-A-0", "pref_text", "explicit", "B", ["D00:00"]),
        qa("0-A-1", "pref_text", "implicit", "A", ["D00:00"]),
        qa("0-B-2", "entity_text", "Relationship", "C", ["D00:00"]),
        qa("0-B-3", "entity_text", "Items", "D", ["D00:00"]),
    ]
    data = history({"D00": [text_turn("D00:00")]}, qas)
    root = tmp_path / "bench"
    write_json(data, root / "data" / "dialog" / "base" / "history_with_qa_p0.json")
    for memory, timed in (("LTMemory", True), ("FUMemory", False)):
        run_dir = root / "result" / "base" / "gpt-5.4-mini" / memory
        write_json([rq12_row(e, "B") for e in qas], run_dir / "history_with_qa_p0_results.json")
        if timed:
            write_json(
                efficiency_json(4, 10.0, memory_name=memory),
                run_dir / "history_with_qa_p0_efficiency.json",
            )
    return root / "result"


def test_the_efficiency_file_is_the_runs_latency(tmp_path: Path) -> None:
    runs = bench(tmp_path)
    invoke("ingest", str(runs))
    table = json.loads(invoke("table", str(runs), "--metric", "latency", "-f", "json"))
    cells = {row["label"]: row["cells"]["all"] for row in table["rows"]}
    timed, untimed = cells["NaiveRAG"], cells["Full Memory"]  # LTMemory, FUMemory
    # 10 s for 4 answers: each answer 2500 ms; one number per run, so median = p95.
    assert timed["value"] == 2500.0 and timed["p95"] == 2500.0 and timed["n"] == 4
    assert untimed["value"] is None

    runs_list = json.loads(invoke("runs", "-f", "json"))
    ids = {r["method"]: r["run_id"] for r in runs_list}
    report = invoke("report", ids["LTMemory"])
    assert "Cost: latency median 2500 ms, p95 2500 ms (n 4) · tokens not recorded" in report
    cost = json.loads(invoke("report", ids["LTMemory"], "-f", "json"))["cost"]
    assert cost == {"latency_ms": {"median": 2500.0, "p95": 2500.0, "n": 4}, "tokens": None}
    assert "Cost:" not in invoke("report", ids["FUMemory"])


def test_a_zero_time_is_not_a_latency(tmp_path: Path) -> None:
    """A file written without timing (0 s for every answer) records no latency."""
    runs = bench(tmp_path)
    timed = runs / "base" / "gpt-5.4-mini" / "LTMemory" / "history_with_qa_p0_efficiency.json"
    write_json(efficiency_json(4, 0.0), timed)
    invoke("ingest", str(runs))
    table = json.loads(invoke("table", str(runs), "--metric", "latency", "-f", "json"))
    assert all(row["cells"]["all"]["value"] is None for row in table["rows"])
