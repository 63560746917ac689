"""LoCoMo's run writer (``adapters.locomo.native_run``) and the reader of what it writes: a
retrieval-only run file in upstream's format (``<key>_prediction_context``, ``<key>_recall``,
no ``<key>_prediction``), on invented conversations; the engine's records built by hand, no
model (tests/engine/test_engine_locomo.py runs the real engine)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from builders_locomo import layout, run_output, small_dataset, write_json
from memscope.adapters.base import ReadOptions
from memscope.adapters.locomo.dataset import read_locomo_dataset
from memscope.adapters.locomo.native_run import open_run, run_key, upstream_recall
from memscope.adapters.locomo.run import looks_like_run_file, read_locomo_runs
from memscope.adapters.registry import benchmark
from memscope.errors import EngineError
from memscope.records import EngineCandidate, EngineRetrieval, EngineRetriever, EngineRunPlan

KEY = "memscope-all-MiniLM-L6-v2_dialog_top_2"


@pytest.mark.parametrize(
    ("evidence", "context", "recall"),
    [
        (["D1:2"], ["D1:2", "D1:1"], 1.0),
        (["D1:2", "D2:1", "D3:1"], ["D2:1", "D1:1"], 0.333),  # rounded to 3, as written
        (["D2:2; D3:1"], ["D2:2", "D3:1"], 0.0),  # upstream reads the entry as written
        (["(D1:3)"], ["D1:3"], 0.0),
        (["D1:2", "D1:2"], ["D1:2"], 1.0),  # a repeated entry counts each time
        ([], ["D1:1"], 1.0),  # no evidence: upstream's 1
        (None, ["D1:1"], 1.0),
        (["D1:2"], [], 0.0),
    ],
)
def test_recall_is_upstreams_share_of_evidence_entries_in_the_context(
    evidence: object, context: list[str], recall: float
) -> None:
    assert upstream_recall(evidence, context) == recall


def retriever(method: str = "srag_t", label: str = "all-MiniLM-L6-v2", k: int = 2):
    return EngineRetriever(
        method=method,
        backend="dense_text",
        modality="text_only",
        corpus="round_text",
        uses_images=False,
        weights={},
        top_k=k,
        pool_size=4,
        corpus_size=11,
        text_model=label,
        text_model_id="sentence-transformers@x",
        text_model_label=label,
    )


def test_the_key_names_the_text_model_and_parses_as_upstreams() -> None:
    from memscope.adapters.locomo.run import parse_key

    assert run_key(retriever()) == KEY
    assert run_key(retriever("dualmem", "my model/v2", 5)) == (
        "memscope-dualmem-my-model-v2_dialog_top_5"
    )
    parsed = parse_key(run_key(retriever(k=10)))
    assert (parsed.model, parsed.rag_mode, parsed.top_k) == (
        "memscope-all-MiniLM-L6-v2",
        "dialog",
        10,
    )


def plan_for(path: Path, **changes: object) -> EngineRunPlan:
    fields: dict[str, object] = {
        "dataset_id": "locomo-x",
        "benchmark": "locomo",
        "task": path.stem,
        "source_path": str(path),
        "content_hash": hashlib.sha256(path.read_bytes()).hexdigest(),
        "media_root": None,
        "n_dataset_questions": 9,
        "mode": "open",
        "retriever": retriever(),
    }
    return EngineRunPlan(**(fields | changes))  # type: ignore[arg-type]


def retrieval(qid: str, round_ids: list[str]) -> EngineRetrieval:
    pool = [
        EngineCandidate(rank, rid, 1.0 / rank, 1.0 / rank, None)
        for rank, rid in enumerate(round_ids, start=1)
    ]
    return EngineRetrieval(
        qid=qid,
        idx=0,
        question="",
        gold=None,
        mode="open",
        x_labels=[],
        y_labels=[],
        clue_ids=[],
        source_sessions=[],
        pool=pool,
        history_round_ids=round_ids[:2],
        history_turns=2,
    )


def test_the_writer_writes_upstreams_format_with_the_contexts_in_rank_order(
    tmp_path: Path,
) -> None:
    source = write_json(tmp_path / "data" / "locomo10.json", small_dataset())
    out = tmp_path / "runs" / "minilm"
    with open_run(plan_for(source), out, overwrite=False) as sink:
        sink.add(retrieval("conv-a:q3", ["conv-a:D3:1", "conv-a:D2:2", "conv-a:D1:1"]))
        sink.add(retrieval("conv-a:q1", ["conv-a:D1:1", "conv-a:D1:2"]))
    assert sink.path == out / f"locomo10_qa_{KEY}.json"
    assert json.loads((out / "memscope_sources.json").read_text()) == {
        "dataset": str(source.resolve())
    }
    written = json.loads(sink.path.read_text())
    assert [sample["sample_id"] for sample in written] == ["conv-a"]  # only what was retrieved
    items = written[0]["qa"]
    original = small_dataset()[0]["qa"]
    assert len(items) == len(original)
    for position, (item, given) in enumerate(zip(items, original, strict=True), start=1):
        added = {name: value for name, value in item.items() if name not in given}
        assert {name: item[name] for name in given} == given  # copied as written
        assert not any(name.endswith("_prediction") for name in item)
        if position == 1:
            assert added == {f"{KEY}_prediction_context": ["D1:1", "D1:2"], f"{KEY}_recall": 1.0}
        elif position == 3:  # top k = 2, in rank order; evidence "D2:2; D3:1" as written
            assert added == {f"{KEY}_prediction_context": ["D3:1", "D2:2"], f"{KEY}_recall": 0.0}
        else:
            assert added == {}
    assert looks_like_run_file(sink.path)


def test_an_existing_run_a_changed_dataset_and_another_folders_dataset_are_refused(
    tmp_path: Path,
) -> None:
    source = write_json(tmp_path / "data" / "locomo10.json", small_dataset())
    out = tmp_path / "out"
    with open_run(plan_for(source), out, overwrite=False) as sink:
        sink.add(retrieval("conv-b:q1", ["conv-b:D1:1"]))
    with pytest.raises(EngineError, match="already holds this run"):
        open_run(plan_for(source), out, overwrite=False)
    open_run(plan_for(source), out, overwrite=True)  # allowed: nothing written until the end
    with pytest.raises(EngineError, match="changed since the store read it"):
        open_run(plan_for(source, content_hash="0" * 64), tmp_path / "elsewhere", overwrite=False)
    other = write_json(tmp_path / "other" / "locomo10.json", small_dataset()[:1])
    with pytest.raises(EngineError, match="names another dataset"):
        open_run(plan_for(other), out, overwrite=True)
    with pytest.raises(EngineError, match="does not know the dataset's file"):
        open_run(plan_for(source, source_path=None), tmp_path / "x", overwrite=False)


def test_an_interrupted_run_leaves_the_previous_file_untouched(tmp_path: Path) -> None:
    source = write_json(tmp_path / "data" / "locomo10.json", small_dataset())
    out = tmp_path / "out"
    with open_run(plan_for(source), out, overwrite=False) as sink:
        sink.add(retrieval("conv-b:q1", ["conv-b:D1:1"]))
    before = sink.path.read_bytes()
    with pytest.raises(KeyboardInterrupt), open_run(plan_for(source), out, overwrite=True) as again:
        again.add(retrieval("conv-a:q1", ["conv-a:D1:2"]))
        raise KeyboardInterrupt
    assert sink.path.read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == [
        "locomo10_qa_" + KEY + ".json",
        "memscope_sources.json",
    ]


def test_a_turn_of_another_conversation_is_refused_not_written_as_a_dia_id(
    tmp_path: Path,
) -> None:
    """``D1:2`` names a turn in both conversations: written, it would read back as conv-b's."""
    source = write_json(tmp_path / "data" / "locomo10.json", small_dataset())
    sink = open_run(plan_for(source), tmp_path / "out", overwrite=False)
    with pytest.raises(EngineError, match="no turn of its own conversation"):
        sink.add(retrieval("conv-b:q2", ["conv-b:D1:1", "conv-a:D1:2"]))


# --- reading a retrieval-only run ---------------------------------------------------------


def retrieval_only_file(tmp_path: Path, field: str = "_prediction_context") -> Path:
    """conv-a's first three questions retrieved (the third's context names an unknown turn),
    conv-b left out; the dataset in LoCoMo's layout."""
    answers = {
        "conv-a": {
            "q1": {f"{KEY}{field}": ["D1:2", "D1:1"], f"{KEY}_recall": 1.0},
            "q2": {f"{KEY}{field}": ["D3:2", "D2:1"], f"{KEY}_recall": 1.0},
            "q3": {f"{KEY}{field}": ["D2:2", "D9:9"], f"{KEY}_recall": 0.0},
        }
    }
    return layout(tmp_path, small_dataset(), run_output(small_dataset(), answers))


@pytest.mark.parametrize("field", ["_prediction_context", "_context"])
def test_a_key_with_contexts_and_no_prediction_is_an_ungraded_retrieval_run(
    tmp_path: Path, field: str
) -> None:
    folder = retrieval_only_file(tmp_path, field)
    [record] = read_locomo_runs(folder, ReadOptions())
    assert record.run_id == f"model:{KEY}" and record.retrieval_kind == "ranked"
    assert (record.model, record.method, record.top_k) == (
        "memscope-all-MiniLM-L6-v2",
        "rag_dialog",
        2,
    )
    assert record.config["retrieval_only"] is True and record.config["unanswered_qids"] == []
    rows = record.predictions.to_pylist()
    assert [row["qid"] for row in rows] == ["conv-a:q1", "conv-a:q2", "conv-a:q3"]
    assert all(row["pred"] is None and row["f1"] is None and row["judge"] is None for row in rows)
    assert [json.loads(row["extra"])["recall"] for row in rows] == [1.0, 1.0, 0.0]
    ranks = [(r["qid"], r["rank"], r["round_id"]) for r in record.retrievals.to_pylist()]
    assert ranks[:2] == [("conv-a:q1", 1, "conv-a:D1:2"), ("conv-a:q1", 2, "conv-a:D1:1")]
    assert ("conv-a:q3", 2, "D9:9") in ranks  # an unknown turn is kept as written
    said = " | ".join(notice.what for notice in record.notices)
    assert "retrieval-only run" in said and "no answer is graded" in said
    assert "4 question(s) of the file's conversations have no" in said  # q4..q7: not retrieved
    assert "counted as 0" not in said  # nothing is scored as an unanswered question


def test_a_key_with_predictions_keeps_upstreams_rule_beside_a_retrieval_only_key(
    tmp_path: Path,
) -> None:
    answers = {
        "conv-a": {
            "q1": {
                "gpt-4_dialog_top_2_prediction": "Porto",
                "gpt-4_dialog_top_2_f1": 1.0,
                "gpt-4_dialog_top_2_prediction_context": ["D1:2"],
                f"{KEY}_prediction_context": ["D1:2", "D1:1"],
            },
            "q2": {f"{KEY}_prediction_context": ["D2:1", "D1:1"]},
        }
    }
    folder = layout(tmp_path, small_dataset(), run_output(small_dataset(), answers))
    records = {record.config["key"]: record for record in read_locomo_runs(folder, ReadOptions())}
    assert set(records) == {"gpt-4_dialog_top_2", KEY}
    answered = records["gpt-4_dialog_top_2"]
    assert "retrieval_only" not in answered.config
    assert answered.predictions.num_rows == 7  # every item: unanswered ones score 0
    assert sorted(answered.predictions.column("f1").to_pylist()) == [0.0] * 6 + [1.0]
    assert records[KEY].predictions.num_rows == 2


def test_memscope_sources_names_the_dataset_of_a_run_folder_elsewhere(tmp_path: Path) -> None:
    dataset = write_json(tmp_path / "far" / "away" / "locomo10.json", small_dataset())
    answers = {"conv-b": {"q1": {f"{KEY}_prediction_context": ["D1:1"]}}}
    folder = tmp_path / "runs" / "minilm"
    write_json(folder / "out.json", run_output(small_dataset(), answers))
    write_json(folder / "memscope_sources.json", {"dataset": str(dataset)})
    [record] = read_locomo_runs(folder, ReadOptions())
    assert record.config["dataset_file"] == str(dataset.resolve())
    assert record.predictions.column("qid").to_pylist() == ["conv-b:q1"]


def test_the_spec_reads_the_dataset_with_each_conversation_its_own_memory(
    tmp_path: Path,
) -> None:
    spec = benchmark("locomo")
    source = write_json(tmp_path / "locomo10.json", small_dataset())
    assert spec.dataset_reader is not None and spec.run_writer is not None
    assert spec.dataset_reader.sniff(source) and not spec.run_writer.answers
    assert not benchmark("memeye").dataset_reader.sniff(source)  # type: ignore[union-attr]
    record = spec.dataset_reader.read(source, None)
    assert record.dataset_id == read_locomo_dataset(source).record.dataset_id
    bank = spec.dataset_reader.memory_bank
    assert bank == "sample_id"
    assert {r.extra[bank] for r in record.rounds} == {q.extra[bank] for q in record.questions}
