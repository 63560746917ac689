"""LongMemEval built in (issue 40), on an invented tree in upstream's exact formats
(``scripts/demo/make_longmemeval_demo.py``): ``table --by type`` gives
``print_qa_metrics.py``'s numbers, re-implemented here from upstream's code (commit
9e0b455), and ``--check-upstream`` finds memscope's retrieval metrics equal to each
retrieval log's own, for every question."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from builders_longmemeval import generator, registered
from memscope.cli import app

runner = CliRunner()
GRADED = {
    "flat-bm25-turn/gpt-4o-mini/con:s-top10-20250102-0930@gpt-4o": "longmemeval_s.json",
    "full-history-session/gpt-4o-mini/con:s-top50-20250102-1000@gpt-4o": "longmemeval_s.json",
    "full-history-session/gpt-4o-mini/con:oracle-top50-20250102-1015@gpt-4o": "longmemeval_oracle.json",
}
UNGRADED = "flat-bm25-session/llama-3.1-8b-instruct/direct:s-top5-20250103-1100"
TYPES = (
    "single-session-user",
    "single-session-preference",
    "single-session-assistant",
    "multi-session",
    "temporal-reasoning",
    "knowledge-update",
)


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(autouse=True)
def _longmemeval() -> Iterator[None]:
    yield from registered()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return generator().write_demo(tmp_path / "LongMemEval")


@pytest.fixture
def ingested(tree: Path) -> Path:
    invoke("ingest", str(tree / "generation_logs"))
    return tree


def print_qa_metrics(eval_file: Path, ref_file: Path) -> dict[str, float]:
    """print_qa_metrics.py's numbers, unrounded: per type, task-averaged, overall and
    abstention accuracy (re-implemented from upstream's script)."""
    lines = [json.loads(line) for line in eval_file.read_text().splitlines() if line.strip()]
    ref = {entry["question_id"]: entry for entry in json.loads(ref_file.read_text())}
    per_type: dict[str, list[int]] = {t: [] for t in TYPES}
    abstention: list[int] = []
    for entry in lines:
        label = 1 if entry["autoeval_label"]["label"] else 0
        per_type[ref[entry["question_id"]]["question_type"]].append(label)
        if "_abs" in entry["question_id"]:
            abstention.append(label)
    found = {t: float(np.mean(v)) for t, v in per_type.items()}
    found["task_avg"] = float(np.mean([np.mean(v) for v in per_type.values()]))
    found["overall"] = float(np.mean([x for v in per_type.values() for x in v]))
    found["abstention"] = float(np.mean(abstention))
    return found


def eval_file(tree: Path, run_id: str) -> Path:
    prefix, _, rest = run_id.partition(":")
    variant, k, stamp = rest.split("@")[0].split("-", 2)
    folder = tree / "generation_logs" / prefix
    (found,) = folder.glob(
        f"longmemeval_{variant}.json*_testlog_{k}context_*_{stamp}.eval-results-gpt-4o"
    )
    return found


@pytest.mark.parametrize("run_id", sorted(GRADED))
def test_table_by_type_is_print_qa_metrics(ingested: Path, run_id: str) -> None:
    expected = print_qa_metrics(eval_file(ingested, run_id), ingested / "data" / GRADED[run_id])
    table = json.loads(invoke("table", run_id, "--by", "type", "--format", "json"))
    (row,) = table["rows"]
    cells = {key: cell["value"] for key, cell in row["cells"].items()}
    for qtype in TYPES:
        assert cells[f"type:{qtype}"] == pytest.approx(expected[qtype], abs=1e-9), qtype
    assert cells["task_avg"] == pytest.approx(expected["task_avg"], abs=1e-9)
    assert cells["all"] == pytest.approx(expected["overall"], abs=1e-9)
    assert cells["abstention"] == pytest.approx(expected["abstention"], abs=1e-9)
    by_abstention = json.loads(invoke("table", run_id, "--by", "abstention", "--format", "json"))
    (row,) = by_abstention["rows"]
    assert row["cells"]["abstention:yes"]["value"] == pytest.approx(
        expected["abstention"], abs=1e-9
    )


def test_check_upstream_agrees_for_every_question(ingested: Path) -> None:
    for run_id, questions, granularities in (
        ("flat-bm25-turn/gpt-4o-mini/con:s-top10-20250102-0930@gpt-4o", 28, 2),
        (UNGRADED, 28, 1),
    ):
        result = runner.invoke(app, ["table", run_id, "--check-upstream"])
        assert result.exit_code == 0, result.output
        values = questions * granularities * 18  # 6 k x 3 measures
        assert f"all {values} values of 1 run(s) agree" in result.output


def test_check_upstream_names_a_disagreement(ingested: Path) -> None:
    log = ingested / "retrieval_logs/flat-bm25/turn/longmemeval_s.json_retrievallog_turn_flat-bm25"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    rows[0]["retrieval_results"]["metrics"]["turn"]["ndcg_any@5"] += 0.25
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = runner.invoke(
        app,
        [
            "table",
            "flat-bm25-turn/gpt-4o-mini/con:s-top10-20250102-0930@gpt-4o",
            "--check-upstream",
        ],
    )
    assert f"{rows[0]['question_id']} turn ndcg_any@5" in result.output


def test_runs_identity_and_context_kinds(ingested: Path) -> None:
    listed = json.loads(invoke("runs", "--format", "json"))
    runs = {run["run_id"]: run for run in (listed["runs"] if isinstance(listed, dict) else listed)}
    assert set(runs) == {*GRADED, UNGRADED}
    turn = runs["flat-bm25-turn/gpt-4o-mini/con:s-top10-20250102-0930@gpt-4o"]
    assert (turn["model"], turn["top_k"], turn["retrieval_kind"]) == ("gpt-4o-mini", 10, "ranked")
    full = runs["full-history-session/gpt-4o-mini/con:s-top50-20250102-1000@gpt-4o"]
    oracle = runs["full-history-session/gpt-4o-mini/con:oracle-top50-20250102-1015@gpt-4o"]
    assert (full["base_method"], oracle["base_method"]) == ("full_context", "clue_only_context")
    assert full["retrieval_kind"] == oracle["retrieval_kind"] == "context"


def test_ungraded_run_has_no_accuracy(ingested: Path) -> None:
    table = json.loads(invoke("table", UNGRADED, "--by", "type", "--format", "json"))
    (row,) = table["rows"]
    assert row["cells"]["all"]["value"] is None


def test_dataset_from_option_or_sources_file(tree: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (tree / "data").rename(elsewhere)
    run_dir = tree / "generation_logs/full-history-session/gpt-4o-mini/con"
    result = runner.invoke(app, ["ingest", str(run_dir)])
    assert result.exit_code != 0
    assert "cannot find the run's dataset longmemeval_" in result.output
    assert "Traceback" not in result.output
    invoke("ingest", str(run_dir), "--dataset", str(elsewhere))
    (run_dir / "memscope_sources.json").write_text(json.dumps({"dataset": str(elsewhere)}))
    invoke("ingest", str(run_dir), "--reread")


def test_shared_sessions_are_stored_once(tree: Path) -> None:
    from memscope.adapters.longmemeval.dataset import read_dataset

    path = tree / "data" / "longmemeval_s.json"
    entries = json.loads(path.read_text())
    dataset = read_dataset(path)
    written = [sid for entry in entries for sid in entry["haystack_session_ids"]]
    assert len(written) > len(set(written))  # the generator shares filler sessions
    assert len(dataset.record.sessions) == len(set(written))
    for entry in entries:
        question = dataset.questions[entry["question_id"]]
        assert question.extra["haystack"] == entry["haystack_session_ids"]
        marked = {
            f"{sid}_{n}"
            for sid, turns in zip(
                entry["haystack_session_ids"], entry["haystack_sessions"], strict=True
            )
            for n, turn in enumerate(turns, start=1)
            if turn.get("has_answer") and turn["role"] == "user"
        }
        assert marked <= set(question.clue_rounds)


def test_unchanged_folder_of_runs_is_not_read_again(ingested: Path, tmp_path: Path) -> None:
    """A folder of several runs (stored as <dir>#<file>) whose files kept their stats is
    unchanged without being read: the dataset may even be gone; a new run file there
    makes it read again."""
    run_dir = ingested / "generation_logs/full-history-session/gpt-4o-mini/con"
    (ingested / "data").rename(tmp_path / "moved")
    again = runner.invoke(app, ["ingest", str(run_dir)])
    assert again.exit_code == 0, again.output
    assert sum(line.startswith("unchanged ") for line in again.output.splitlines()) == 2
    (run_dir / "notes.txt").write_text("a file no run names")
    changed = runner.invoke(app, ["ingest", str(run_dir)])
    assert changed.exit_code != 0 and "cannot find the run's dataset" in changed.output


def test_compare_pairs_the_s_run_with_the_oracle_run(ingested: Path) -> None:
    result = runner.invoke(
        app,
        [
            "compare",
            "full-history-session/gpt-4o-mini/con:s-top50-20250102-1000@gpt-4o",
            "full-history-session/gpt-4o-mini/con:oracle-top50-20250102-1015@gpt-4o",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "28 questions matched (A 28, B 28)" in " ".join(result.output.split())
