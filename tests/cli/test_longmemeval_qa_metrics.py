"""``table --check-upstream`` on a graded LongMemEval run also holds memscope's accuracies
against ``print_qa_metrics.py``'s printed output saved beside the eval-results file
(``<eval-results file>.metrics.txt``): per type (and its number of questions), the
task-averaged, overall and abstention accuracy. The printed text is made here by
upstream's script, re-implemented from its code (commit 9e0b455) down to its ``print``
calls, over the invented tree of ``scripts/demo/make_longmemeval_demo.py``."""

from __future__ import annotations

import io
import json
import warnings
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from builders_longmemeval import generator, registered
from memscope.cli import app

runner = CliRunner()
RUNS = {
    "flat-bm25-turn/gpt-4o-mini/con:s-top10-20250102-0930@gpt-4o": "longmemeval_s.json",
    "full-history-session/gpt-4o-mini/con:oracle-top50-20250102-1015@gpt-4o": "longmemeval_oracle.json",
}


@pytest.fixture(autouse=True)
def _longmemeval() -> Iterator[None]:
    yield from registered()


def print_qa_metrics(in_file: Path, ref_file: Path) -> str:
    """What upstream's print_qa_metrics.py prints (its code, with the judge-model assert)."""
    in_data = [json.loads(line) for line in in_file.read_text().splitlines() if line.strip()]
    ref_data = {x["question_id"]: x for x in json.loads(ref_file.read_text())}
    all_acc: list[int] = []
    task_acc: list[float] = []
    abstention_acc: list[int] = []
    type2acc: dict[str, list[int]] = {
        t: []
        for t in [
            "single-session-user",
            "single-session-preference",
            "single-session-assistant",
            "multi-session",
            "temporal-reasoning",
            "knowledge-update",
        ]
    }
    for entry in in_data:
        ref_entry = ref_data[entry["question_id"]]
        assert entry["autoeval_label"]["model"] == "gpt-4o-2024-08-06"
        type2acc[ref_entry["question_type"]].append(1 if entry["autoeval_label"]["label"] else 0)
        if "_abs" in entry["question_id"]:
            abstention_acc.append(1 if entry["autoeval_label"]["label"] else 0)
    out = io.StringIO()
    with redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # np.mean of an empty list: nan, as upstream prints
        print("\nEvaluation results by task:")
        for k, v in type2acc.items():
            print(f"\t{k}: {round(np.mean(v), 4)} ({len(v)})")
            all_acc += v
            task_acc.append(float(np.mean(v)))
        print("\nTask-averaged Accuracy:", round(np.mean(task_acc), 4))
        print("Overall Accuracy:", round(np.mean(all_acc), 4))
        print("Abstention Accuracy:", round(np.mean(abstention_acc), 4), f"({len(abstention_acc)})")
    return out.getvalue()


def eval_results(tree: Path, run_id: str) -> Path:
    prefix, _, rest = run_id.partition(":")
    variant, k, stamp = rest.split("@")[0].split("-", 2)
    (found,) = (tree / "generation_logs" / prefix).glob(
        f"longmemeval_{variant}.json*_testlog_{k}context_*_{stamp}.eval-results-gpt-4o"
    )
    return found


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The invented tree with print_qa_metrics.py's output saved beside each checked run."""
    root = generator().write_demo(tmp_path / "LongMemEval")
    for run_id, dataset in RUNS.items():
        judged = eval_results(root, run_id)
        printed = print_qa_metrics(judged, root / "data" / dataset)
        judged.with_name(judged.name + ".metrics.txt").write_text(printed, encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(root / "generation_logs")])
    assert result.exit_code == 0, result.output
    return root


def checks(run_id: str) -> list[dict[str, object]]:
    result = runner.invoke(app, ["table", run_id, "--check-upstream", "--format", "json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)["upstream"]["checks"]
    return [check for check in found if str(check["source"]).endswith(".metrics.txt")]


@pytest.mark.parametrize("run_id", sorted(RUNS))
def test_printed_accuracies_agree(tree: Path, run_id: str) -> None:
    found = {check["field"]: check for check in checks(run_id)}
    assert set(found) == {
        *(f"{what} type {t}" for what in ("accuracy", "questions") for t in (
            "single-session-user", "single-session-preference", "single-session-assistant",
            "multi-session", "temporal-reasoning", "knowledge-update",
        )),
        "accuracy task-averaged",
        "accuracy overall",
        "accuracy abstention",
        "questions abstention",
    }  # fmt: skip
    assert all(check["agrees"] for check in found.values()), found
    # memscope's values are the table's, unrounded
    table = json.loads(
        runner.invoke(app, ["table", run_id, "--by", "type", "--format", "json"]).stdout
    )
    (row,) = table["rows"]
    assert found["accuracy task-averaged"]["memscope"] == pytest.approx(
        row["cells"]["task_avg"]["value"], abs=1e-12
    )
    assert found["accuracy overall"]["memscope"] == pytest.approx(
        row["cells"]["all"]["value"], abs=1e-12
    )
    assert found["accuracy abstention"]["memscope"] == pytest.approx(
        row["cells"]["abstention"]["value"], abs=1e-12
    )


def test_a_printed_line_that_disagrees_is_named(tree: Path) -> None:
    run_id = "flat-bm25-turn/gpt-4o-mini/con:s-top10-20250102-0930@gpt-4o"
    printed = eval_results(tree, run_id).with_name(eval_results(tree, run_id).name + ".metrics.txt")
    lines = printed.read_text().splitlines()
    lines = [
        "Overall Accuracy: 0.0123" if line.startswith("Overall Accuracy:") else line
        for line in lines
    ]
    printed.write_text("\n".join(lines) + "\n")
    found = {check["field"]: check for check in checks(run_id)}
    assert found["accuracy overall"]["agrees"] is False
    assert found["accuracy overall"]["upstream"] == 0.0123
    assert all(check["agrees"] for field, check in found.items() if field != "accuracy overall")
    result = runner.invoke(app, ["table", run_id, "--check-upstream"])
    assert "accuracy overall" in result.output


def test_the_printed_output_is_no_run_and_keeps_the_folder_unchanged(tree: Path) -> None:
    folder = tree / "generation_logs/full-history-session/gpt-4o-mini/con"
    again = runner.invoke(app, ["ingest", str(folder)])
    assert again.exit_code == 0, again.output
    assert sum(line.startswith("unchanged ") for line in again.output.splitlines()) == 2
    listed = json.loads(runner.invoke(app, ["runs", "--format", "json"]).stdout)
    runs = listed["runs"] if isinstance(listed, dict) else listed
    assert not any("metrics.txt" in str(run["run_id"]) for run in runs)
