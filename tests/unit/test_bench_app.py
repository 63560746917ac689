"""The app benchmark's own machinery: streamed runs, the cache, the memory limit, the figures.

The measurements themselves run in tests/cli/test_benchmark_run_all.py (the smoke suite);
these check the parts a wrong number would come from, quickly.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_app  # noqa: E402  (benchmarks/ is not a package)
import common  # noqa: E402
from generate_run import generate  # noqa: E402


def test_a_streamed_run_is_whole_valid_json(tmp_path: Path) -> None:
    run_dir = generate(tmp_path / "run", 40)
    dialog_path = tmp_path / "run" / "data" / "dialog" / "Bench_Task.json"
    text = dialog_path.read_text()
    dialog = json.loads(text)
    # the same bytes json.dumps writes for the whole document: runs cached before stay valid
    assert text == json.dumps(dialog)
    assert [qa["question"].split(":")[0] for qa in dialog["human-annotated QAs"]] == [
        f"Question {i}" for i in range(1, 41)
    ]
    rows = [json.loads(line) for line in (run_dir / "predictions.jsonl").read_text().splitlines()]
    assert [row["idx"] for row in rows] == list(range(1, 41))
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["num_qas"] == 40 and metrics["method_runtime"] == rows[-1]["method_runtime"]
    assert not list(tmp_path.rglob("*.partial"))


def test_the_cache_keeps_a_run_and_redoes_an_interrupted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common, "WORK", tmp_path)
    run_dir = common.generated_run(30)
    seconds = common.generation_seconds(30)
    assert seconds is not None and seconds > 0
    predictions = run_dir / "predictions.jsonl"
    predictions.write_text("kept\n")
    assert common.generated_run(30) == run_dir and predictions.read_text() == "kept\n"
    # an interrupted generation leaves only a partial file: not taken for a run
    predictions.unlink()
    (run_dir / "predictions.jsonl.partial").write_text("half")
    common.generated_run(30)
    assert len(predictions.read_text().splitlines()) == 30
    assert common.generation_seconds(31) is None


def test_a_child_past_the_memory_limit_is_stopped_and_says_so() -> None:
    grow = "import time\nblock = bytearray(400 * 1024 * 1024)\ntime.sleep(30)\n"
    stopped = bench_app.run_limited([sys.executable, "-c", grow], {}, limit_mib=150, timeout_s=60)
    assert stopped.over_limit and stopped.returncode != 0 and stopped.peak_mib > 150
    fine = "print('READY', flush=True)\nprint('{\"x\": 1}')\n"
    done = bench_app.run_limited([sys.executable, "-c", fine], {}, limit_mib=150)
    assert not done.over_limit and done.returncode == 0 and done.ready_s is not None
    assert bench_app.measured("fine", done) == {"x": 1}
    with pytest.raises(bench_app.OverLimit):
        bench_app.measured("grow", stopped)


def test_a_run_that_does_not_open_within_the_limit_is_a_missed_peak() -> None:
    result = bench_app.SizeResult(
        1_000_000,
        1,
        {"generate_s": 300.0, "ingest_s": 60.0, "ingest_peak_mib": 3000.0},
        [],
        [],
        [],
        [],
        over_limit=bench_app.OverLimit("start", 6200.0),
    )
    figures = {f.id: f for f in bench_app.size_figures(result, presses=100, limit_mib=6144)}
    peak = figures["app.1000000.memory.peak"]
    assert peak.value == 6200.0 and peak.met is False and peak.target is not None
    assert peak.target.bound == 400.0
    assert "did not open within the 6,144 MiB limit" in peak.note
    assert figures["app.1000000.prepare.ingest"].value == 60.0
    assert "app.1000000.start.ratio" not in figures  # nothing measured, nothing claimed


def test_into_replaces_only_the_sizes_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from figures import Figure, dump, read_document, script_document

    def app_figure(key: str, size: int, value: float) -> Figure:
        return Figure(key, group="app", name=key, value=value, unit="ms", size=size)

    before = script_document(
        "bench_app.py",
        ["--repeat", "3"],  # the default sizes: 3,000, 50,000 and 1,000,000
        "2026-12-06T02:07:43Z",
        [
            app_figure("app.3000.start.memscope", 3000, 1.0),
            app_figure("app.1000000.start.memscope", 1_000_000, 2.0),
            app_figure("app.start.memscope", 50_000, 3.0),  # a record from before issue 30
        ],
    )
    other = script_document("bench_report.py", [], "2026-12-06T00:00:00Z", [])
    before["scripts"] += other["scripts"]
    path = tmp_path / "figures.json"
    path.write_text(dump(before))
    into = ["bench_app.py", "--questions", "3000", "--into", str(path)]
    monkeypatch.setattr(sys, "argv", into)
    parser = bench_app.build_parser()
    bench_app.write_into(path, [app_figure("app.3000.start.memscope", 3000, 9.0)], [3000], parser)
    after = read_document(path)
    values = {record["id"]: record["value"] for record in after["figures"]}
    assert values == {"app.3000.start.memscope": 9.0, "app.1000000.start.memscope": 2.0}
    entries = [(entry["script"], entry["argv"]) for entry in after["scripts"]]
    assert ("bench_app.py", ["--repeat", "3"]) in entries  # still measured the 1,000,000
    assert ("bench_app.py", ["--questions", "3000"]) in entries
    assert ("bench_report.py", []) in entries
    # measuring every size the old entry measured retires it
    monkeypatch.setattr(sys, "argv", ["bench_app.py", "--into", str(path)])
    sizes = [3000, 50_000, 1_000_000]
    bench_app.write_into(path, [app_figure("app.3000.start.memscope", 3000, 5.0)], sizes, parser)
    entries = [(e["script"], e["argv"]) for e in read_document(path)["scripts"]]
    assert entries == [("bench_report.py", []), ("bench_app.py", [])]
