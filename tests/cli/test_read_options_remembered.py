"""Issue 38 item 8: a run ingested with ``--dataset`` (or a benchmark's own read option) is
remembered by the store: ``table DIR``, ``report DIR`` and ``label DIR`` afterwards work
without the flag, for every benchmark."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import builders_cuemem as cue
import builders_locomo as loco
from builders import dialog, open_row, qa, write_run
from builders_dmv import DATA as DMV_DATA
from builders_dmv import probes, write_f2_run
from memscope.cli import app

runner = CliRunner()


def invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output, result.output
    return result


def _locomo(tmp_path: Path) -> tuple[Path, list[str]]:
    data = loco.small_dataset()
    dataset = loco.write_json(tmp_path / "elsewhere" / "my_locomo.json", data)
    answers = {"conv-a": {"q1": {"m_prediction": "Porto", "m_f1": 1.0}, "q2": {"m_f1": 0.0}}}
    run_file = loco.write_json(
        tmp_path / "a" / "b" / "c" / "d" / "e" / "f" / "run" / "out.json",
        loco.run_output(data, answers),
    )
    images = tmp_path / "images"
    images.mkdir()
    return run_file.parent, ["--dataset", str(dataset), "--images", str(images)]


def _memeye(tmp_path: Path) -> tuple[Path, list[str]]:
    data = dialog(
        {"D1": ["D1:1"]},
        [qa(f"Question {i}?", "gold", [["X1"], ["Y1"]], ["D1:1"], ["D1"]) for i in range(1, 5)],
    )
    rows = [open_row(i, data, judge=float(i % 2), seed=["D1:1"]) for i in range(1, 5)]
    recorded = tmp_path / "recorded" / "Task.json"
    run_dir = write_run(tmp_path / "runs" / "memeye", data, rows, top_k=1, dialog_path=recorded)
    moved = tmp_path / "moved"
    recorded.parent.rename(moved)  # the path the run recorded no longer exists
    return run_dir, ["--dataset", str(moved / "Task.json")]


def _cuemem(tmp_path: Path) -> tuple[Path, list[str]]:
    data = cue.history(
        {"D00": [cue.text_turn("D00:00"), cue.text_turn("D00:01")]},
        [cue.qa("0-A-0", "pref_text", "explicit", "B", ["D00:00"])],
    )
    history = cue.write_json(data, tmp_path / "elsewhere" / "history_with_qa_p0.json")
    run_dir = tmp_path / "results" / "MM"
    cue.write_json(
        [cue.rq3_row(entry, "B", []) for entry in data["human-annotated QAs"]],
        run_dir / "p0_results.json",
    )
    return run_dir, ["--dataset", str(history)]


def _dmv(tmp_path: Path) -> tuple[Path, list[str]]:
    run_dir = write_f2_run(tmp_path / "lonely" / "f2_out", {"TextOnly": probes(False)})
    registry = tmp_path / "registry"
    registry.mkdir()
    shutil.copy(DMV_DATA / "cue_registry.json", registry / "cue_registry.json")
    return run_dir, ["--dmv-registry", str(registry)]


@pytest.mark.parametrize("make", [_locomo, _memeye, _cuemem, _dmv], ids=lambda f: f.__name__[1:])
def test_a_directory_ingested_with_its_flags_works_without_them(tmp_path: Path, make) -> None:
    run_dir, flags = make(tmp_path)
    if make is not _dmv:  # DMV-Bench reads without a registry; the others need the flag
        assert invoke("ingest", str(run_dir)).exit_code != 0
    ingested = invoke("ingest", str(run_dir), *flags)
    assert ingested.exit_code == 0, ingested.output
    for command in (["table", str(run_dir)], ["report", str(run_dir)]):
        done = invoke(*command)
        assert done.exit_code == 0, (command, done.output)
        assert "cannot find" not in done.output and "--dataset" not in done.output
    runs = invoke("runs", "-f", "json")
    assert runs.exit_code == 0
    before = runs.stdout
    labelled = invoke("label", str(run_dir), "-q", "q1", "--code", "RET-MISS")
    if make is _locomo:
        labelled = invoke("label", str(run_dir), "-q", "conv-a:q1", "--code", "RET-MISS")
    assert labelled.exit_code == 0, labelled.output
    assert invoke("runs", "-f", "json").stdout == before  # the same run, not a new one
    if make is _dmv:  # the registry was used again: its categories are there
        assert invoke("ingest", str(run_dir), "--verify").exit_code == 0


@pytest.fixture
def longmemeval() -> Iterator[None]:
    """LongMemEval registered beside the installed benchmarks (builders_longmemeval)."""
    from builders_longmemeval import registered

    yield from registered()


def test_a_longmemeval_run_ingested_with_its_flags_works_without_them(
    tmp_path: Path, longmemeval: None
) -> None:
    """LongMemEval (added after the four above): its --dataset and --lme-retrieval-log are
    remembered as the others' are, --check-upstream included (it found no log outside
    upstream's layout)."""
    from builders_longmemeval import generator

    tree = generator().write_demo(tmp_path / "LongMemEval")
    run_dir = tree / "generation_logs" / "flat-bm25-turn" / "gpt-4o-mini" / "con"
    data, logs = tmp_path / "elsewhere" / "data", tmp_path / "elsewhere" / "logs"
    data.parent.mkdir()
    (tree / "data").rename(data)
    (tree / "retrieval_logs" / "flat-bm25" / "turn").rename(logs)
    assert invoke("ingest", str(run_dir)).exit_code != 0
    ingested = invoke(
        "ingest", str(run_dir), "--dataset", str(data), "--lme-retrieval-log", str(logs)
    )
    assert ingested.exit_code == 0, ingested.output
    for command in (["table", str(run_dir)], ["report", str(run_dir)]):
        done = invoke(*command)
        assert done.exit_code == 0, (command, done.output)
        assert "cannot find" not in done.output and "--dataset" not in done.output
    # --check-upstream finds the retrieval log's own metrics where the store remembers it.
    checked = invoke("table", str(run_dir), "--check-upstream", "-f", "json")
    upstream = json.loads(checked.stdout)["upstream"]
    assert upstream["checks"] and upstream["n_disagreeing"] == 0, upstream
    # Read again without the flags: the remembered retrieval log still gives the ranking.
    again = invoke("ingest", str(run_dir), "--reread")
    assert again.exit_code == 0 and "was not found" not in again.output, again.output
    (run,) = json.loads(invoke("runs", "-f", "json").stdout)
    assert run["retrieval_kind"] == "ranked"
