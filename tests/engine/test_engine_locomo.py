"""The memory engine over LoCoMo: ``memscope retrieve locomo10.json`` writes the run file LoCoMo's
own ``evaluate_qa.py`` writes (``<key>_prediction_context`` in rank order, ``<key>_recall``,
no prediction), ranking each question among its own conversation's turns; ``ingest`` and
``report`` then give Any-Clue@K per category. The real packaged MiniLM throughout; invented
conversations (tests/builders_locomo.py), then one real conversation of the release read
from shared/ (CC BY-NC: copied into the test's temp dir only, never into the repository).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_locomo import shared_locomo, small_dataset, write_json
from memscope.adapters.base import ReadOptions
from memscope.adapters.locomo.dataset import read_locomo_dataset
from memscope.adapters.locomo.native_run import upstream_recall
from memscope.adapters.locomo.run import read_locomo_runs
from memscope.cli import app

runner = CliRunner()
KEY = "memscope-all-MiniLM-L6-v2_dialog_top_{k}"


def invoke(*args: str) -> object:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def retrieve(dataset: Path | str, out: Path, k: int, *extra: str) -> Path:
    """Run ``memscope retrieve`` (SRAG(T)) over a dataset file named ``locomo10.json`` (or a
    dataset id) and return the run file it wrote."""
    invoke("retrieve", str(dataset), "--method", "srag_t", "--k", str(k), "--out", str(out), *extra)
    return out / f"locomo10_qa_{KEY.format(k=k)}.json"


def contexts(run_file: Path, k: int) -> dict[tuple[str, int], list[str]]:
    """``(sample id, 1-based position) -> context`` of every item that has one."""
    field = KEY.format(k=k) + "_prediction_context"
    return {
        (sample["sample_id"], position): item[field]
        for sample in json.loads(run_file.read_text())
        for position, item in enumerate(sample["qa"], start=1)
        if field in item
    }


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    return write_json(tmp_path / "data" / "locomo10.json", small_dataset())


def test_retrieve_writes_upstreams_run_file_ranked_within_each_conversation(
    tmp_path: Path, locomo_file: Path, minilm
) -> None:
    out = tmp_path / "runs" / "minilm"
    run_file = retrieve(locomo_file, out, 2, "--pool", "4")
    assert sorted(p.name for p in out.iterdir()) == sorted([run_file.name, "memscope_sources.json"])
    written = json.loads(run_file.read_text())
    dataset = {sample["sample_id"]: sample for sample in small_dataset()}
    assert [sample["sample_id"] for sample in written] == ["conv-a", "conv-b"]
    key = KEY.format(k=2)
    for sample in written:
        turns = {
            turn["dia_id"]
            for name, value in dataset[sample["sample_id"]]["conversation"].items()
            if isinstance(value, list)
            for turn in value
        }
        for item, given in zip(sample["qa"], dataset[sample["sample_id"]]["qa"], strict=True):
            assert {name: item[name] for name in given} == given
            assert not any(name.endswith("_prediction") for name in item)
            context = item[f"{key}_prediction_context"]
            assert len(context) == 2 and set(context) <= turns
            assert item[f"{key}_recall"] == upstream_recall(item["evidence"], context)
    found = contexts(run_file, 2)
    assert found[("conv-a", 1)][0] == "D1:2"  # "Where did Tomas move?": "I moved to Porto"

    # Each conversation is ranked as if it were alone: conv-b's answers equal those of a
    # dataset holding conv-b only, although conv-a's "I moved to Porto" is the dataset's
    # best match for conv-b's "Where did Tomas move?".
    alone = write_json(tmp_path / "alone" / "locomo10.json", [dataset["conv-b"]])
    alone_contexts = contexts(retrieve(alone, tmp_path / "runs" / "alone", 2), 2)
    assert alone_contexts == {key: value for key, value in found.items() if key[0] == "conv-b"}
    search = invoke(
        "search", str(locomo_file), "Where did Tomas move?", "--k", "1", "--format", "json"
    )
    assert json.loads(search.stdout)["hits"][0]["round_id"] == "conv-a:D1:2"
    # The same from the store (by dataset id): the banks come back from the stored rows.
    dataset_id = read_locomo_dataset(locomo_file).record.dataset_id
    assert contexts(retrieve(dataset_id, tmp_path / "runs" / "by_id", 2), 2) == found

    [record] = read_locomo_runs(out, ReadOptions())  # the dataset named by memscope_sources
    assert record.config["retrieval_only"] is True and record.retrieval_kind == "ranked"
    assert record.predictions.num_rows == 9
    assert set(record.predictions.column("pred").to_pylist()) == {None}
    ranked: dict[str, list[str]] = defaultdict(list)
    for row in record.retrievals.to_pylist():
        ranked[row["qid"]].append(row["round_id"])
    assert ranked["conv-b:q2"] == [f"conv-b:{d}" for d in found[("conv-b", 2)]]


def test_a_retrieved_locomo_run_reports_any_clue_per_category(
    tmp_path: Path, locomo_file: Path, minilm
) -> None:
    out = tmp_path / "runs" / "minilm"
    run_file = retrieve(locomo_file, out, 2, "--ingest")
    report = json.loads(invoke("report", str(out), "--format", "json").stdout)
    assert report["k"] == 2 and report["run"]["retrieval_kind"] == "ranked"
    assert report["answer"]["overall"]["em"] is None
    assert report["answer"]["overall"]["judge"] is None

    # Any-Clue@2 per category from the file's contexts and the dataset's resolved evidence.
    questions = read_locomo_dataset(locomo_file).questions
    hits: dict[str, list[float]] = defaultdict(list)
    for (sample_id, position), context in contexts(run_file, 2).items():
        question = questions[f"{sample_id}:q{position}"]
        if question.clue_rounds:
            retrieved = {f"{sample_id}:{dia_id}" for dia_id in context}
            hits[question.extra["category_name"]].append(
                float(bool(retrieved & set(question.clue_rounds)))
            )
    [category] = [axis for axis in report["retrieval"]["by_axes"] if axis["key"] == "category"]
    reported = {level["label"]: (level["n"], level["any_clue"]) for level in category["levels"]}
    assert reported == {
        name: (len(values), pytest.approx(sum(values) / len(values)))
        for name, values in hits.items()
    }
    assert set(reported) == {"Multi-hop", "Temporal", "Open-domain", "Single-hop", "Adversarial"}

    text = invoke("report", str(out)).output
    assert "Retrieval access @K=2 per category" in text and "Single-hop" in text
    assert "No answer is graded (a retrieval-only run)" in text
    assert "Y3" not in text


def test_index_search_limit_and_refusals_on_a_locomo_dataset(
    tmp_path: Path, locomo_file: Path, minilm
) -> None:
    index = json.loads(invoke("index", str(locomo_file), "--no-images", "--format", "json").stdout)
    assert index["dataset_id"].startswith("locomo-locomo10-")
    kinds = {kind["kind"]: kind["items"] for kind in index["kinds"]}
    # distinct texts: "Where did Tomas move?" is asked three times
    assert kinds["round_text"] == 11 and kinds["question"] == 7
    found = json.loads(
        invoke("search", index["dataset_id"], "flat tyre", "--k", "1", "--format", "json").stdout
    )
    assert found["hits"][0]["round_id"] == "conv-a:D3:1"

    out = tmp_path / "runs" / "three"
    run_file = retrieve(locomo_file, out, 3, "--limit", "3")
    assert sorted(contexts(run_file, 3)) == [("conv-a", 1), ("conv-a", 2), ("conv-a", 3)]
    [record] = read_locomo_runs(out, ReadOptions())
    assert record.predictions.column("qid").to_pylist() == ["conv-a:q1", "conv-a:q2", "conv-a:q3"]

    again = runner.invoke(
        app, ["retrieve", str(locomo_file), "--method", "srag_t", "--k", "3", "--out", str(out)]
    )
    assert again.exit_code == 1 and "already holds this run" in again.output
    answered = runner.invoke(
        app,
        [
            "retrieve",
            str(locomo_file),
            "--method",
            "srag_t",
            "--out",
            str(tmp_path / "answered"),
            "--answer-endpoint",
            "http://127.0.0.1:9/v1",
            "--answer-model",
            "m",
        ],
    )
    assert answered.exit_code != 0 and "retrieval-only" in answered.output
    assert not (tmp_path / "answered").exists()


def test_one_real_conversation_of_the_release(tmp_path: Path, minilm) -> None:
    """conv-26 (19 sessions, 419 turns, 199 QAs) as a dataset of its own, retrieved at k = 10."""
    release = json.loads((shared_locomo() / "data" / "locomo10.json").read_text())
    conversation = write_json(tmp_path / "data" / "locomo10.json", release[:1])
    out = tmp_path / "runs" / "minilm"
    run_file = retrieve(conversation, out, 10, "--ingest")
    [sample] = json.loads(run_file.read_text())
    assert sample["sample_id"] == release[0]["sample_id"] and len(sample["qa"]) == 199
    key = KEY.format(k=10)
    for item in sample["qa"]:
        assert len(item[f"{key}_prediction_context"]) == 10
        assert item[f"{key}_recall"] == upstream_recall(
            item["evidence"], item[f"{key}_prediction_context"]
        )
    report = json.loads(invoke("report", str(out), "--format", "json").stdout)
    [category] = [axis for axis in report["retrieval"]["by_axes"] if axis["key"] == "category"]
    by_name = {level["label"]: level for level in category["levels"]}
    assert set(by_name) == {"Multi-hop", "Temporal", "Open-domain", "Single-hop", "Adversarial"}
    assert sum(level["n"] for level in by_name.values()) == report["retrieval"]["n"]
    # Ten of 419 turns drawn at random find a clue for about 3 % of the questions; MiniLM
    # finds one for most of them.
    assert report["retrieval"]["overall"]["any_clue"] > 0.4
    assert by_name["Single-hop"]["any_clue"] > 0.4
