"""``benchmarks/run_all.py --smoke --json FILE`` end to end: every script, tiny sizes.

The smoke suite measures nothing worth quoting; this checks the plumbing: every script
runs, writes its figures as records that follow the schema, run_all collects them into
one document, and the rendered tables show every record. The engine's script loads the
real MiniLM, so it has its own (slow) test.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from figures import read_document  # noqa: E402  (benchmarks/ is not a package)
from render_table import render_everything  # noqa: E402


def run_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *options: str) -> dict:
    # generated runs go to this test's folder, not benchmarks/_work
    monkeypatch.setenv("MEMSCOPE_BENCH_WORK", str(tmp_path / "work"))
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "run_all.py"), "--smoke", "--json", str(out), *options],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"figures written to {out}" in done.stdout
    return read_document(out)  # checks the schema, and that each "met" follows its target


def assert_rendered(document: dict) -> None:
    tables = render_everything(document)
    for record in document["figures"]:
        assert record["name"].replace("|", "\\|") in tables, record["id"]


SMOKE_PARTS = {
    "stores": ("ingest", "sweep"),
    "reads": ("report", "rerun", "labels", "import_labels", "longmemeval", "ppi_coverage"),
    "app": ("app",),
}
"""The smoke suite (every script but the engine's) in three parts of about equal time, so
that test workers run them side by side; together they are every script."""


def test_the_smoke_parts_are_every_script_but_the_engines() -> None:
    from run_all import SUITES, script_name

    names = [script_name(script) for script in SUITES["smoke"]]
    parts = [name for part in SMOKE_PARTS.values() for name in part]
    assert sorted(parts) == sorted({name for name in names if name != "engine"})


def smoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, part: str) -> dict:
    """One part of the smoke suite through run_all, checked as the whole suite would be:
    its scripts in the suite's order, their records in the schema, every one rendered."""
    from run_all import SUITES, script_name

    document = run_all(tmp_path, monkeypatch, "--only", *SMOKE_PARTS[part])
    assert document["suite"] == "smoke" and document["source"] == "measured"
    in_order = [
        f"bench_{name}.py"
        for name in (script_name(script) for script in SUITES["smoke"])
        if name in SMOKE_PARTS[part]
    ]
    assert [entry["script"] for entry in document["scripts"]] == in_order
    assert all("--figures" not in entry["argv"] for entry in document["scripts"])
    assert_rendered(document)
    return {record["id"]: record for record in document["figures"]}


def test_the_smoke_stores_part_writes_its_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    by_id = smoke(tmp_path, monkeypatch, "stores")
    assert {record["group"] for record in by_id.values()} == {"ingest", "sweep"}
    sweep = by_id["sweep.ratio.table.16"]
    assert sweep["value"] == pytest.approx(
        by_id["sweep.table.16"]["value"] / by_id["sweep.query.16"]["value"]
    )
    assert sweep["target"] == {"op": "<=", "value": 4.0} and sweep["baseline"]
    # issue 27's target is for 5,000 tiny runs; 20 of them are timed without one
    tiny = by_id["sweep.tiny.ingest.20"]
    assert tiny["target"] is None and tiny["value"] > 0
    assert by_id["sweep.tiny.ratio.20"]["value"] == pytest.approx(
        tiny["value"] / by_id["sweep.tiny.read_json.20"]["value"]
    )
    ratio = by_id["ingest.ratio.100"]
    assert ratio["value"] == pytest.approx(
        by_id["ingest.memscope.100"]["value"] / by_id["ingest.read_json.100"]["value"]
    )
    assert ratio["baseline"] and ratio["target"] == {"op": "<=", "value": 2.0}


def test_the_smoke_reads_part_writes_its_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    by_id = smoke(tmp_path, monkeypatch, "reads")
    assert {record["group"] for record in by_id.values()} == {
        "report",
        "rerun",
        "labels",
        "import_labels",
        "longmemeval",
        "coverage",
    }
    assert by_id["labels.next.p95"]["unit"] == "ms"
    assert by_id["rerun.rerun_run"]["target"] == {"op": "<", "value": 1.0}


def test_the_smoke_app_part_writes_its_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = smoke(tmp_path, monkeypatch, "app")
    assert {record["group"] for record in app.values()} == {"app"}
    # issue 30's app targets, per run size, with Textual's floor measured beside them
    assert app["app.100.next.first_repaint.vs_floor"]["target"] == {"op": "<=", "value": 1.0}
    assert app["app.100.next.first_repaint.vs_floor"]["value"] == pytest.approx(
        app["app.100.next.first_repaint.p95"]["value"] / app["app.100.floor.p95"]["value"]
    )
    assert app["app.100.next.settled.p95"]["target"] == {"op": "<", "value": 100.0}
    assert app["app.100.start.ratio"]["target"] == {"op": "<=", "value": 3.0}
    assert app["app.100.cold.ratio"]["target"] == {"op": "<=", "value": 2.5}
    assert app["app.100.floor.p95"]["value"] > 0 and app["app.100.floor.p95"]["target"] is None
    # memory by part: imports < the peak, and no peak target below 50,000 questions
    memory = {key.split(".")[-1]: r["value"] for key, r in app.items() if ".memory." in key}
    assert set(memory) == {"imports", "queue", "loaded", "question", "peak"}
    assert 0 < memory["imports"] < memory["question"] <= memory["peak"]
    assert app["app.100.memory.peak"]["target"] is None
    assert app["app.100.prepare.ingest"]["value"] > 0
    # a scroll step of the queue, timed like j (the smoke queue is only a few pages long)
    assert app["app.100.queue.page.settled.p95"]["value"] > 0
    assert app["app.100.queue.page.settled.p95"]["target"] is None
    assert all(record["size"] == 100 for record in app.values())


@pytest.mark.slow
def test_the_engine_smoke_writes_its_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Looked up, not imported: importing it would load torch into this worker for nothing.
    if importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip("the engine extra is not installed")
    document = run_all(tmp_path, monkeypatch, "--only", "engine")
    by_id = {record["id"]: record for record in document["figures"]}
    assert set(by_id) == {
        "engine.text.cpu.memscope_per_s",
        "engine.text.cpu.library_per_s",
        "engine.text.cpu.ratio",
        "engine.search.bank_1000.queries_1",
    }
    assert by_id["engine.text.cpu.ratio"]["target"] == {"op": ">=", "value": 0.95}
    assert by_id["engine.search.bank_1000.queries_1"]["context"]["same_ids"] == 1.0
    assert_rendered(document)
