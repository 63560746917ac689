"""LoCoMo results as memory systems' own harnesses write them (issue 38): each family
recognised by content, joined to the dataset by its own rule, scored on LoCoMo's F1, its own
summary checked; then the real files of shared/upstream-samples/locomo-harnesses (read
there, never copied)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from builders_locomo import shared_locomo, small_dataset, write_json
from builders_locomo_harness import (
    evermemos_file,
    mem0_file,
    memos_file,
    memu_file,
    mirix_file,
    shared_harnesses,
    zep_files,
)
from memscope.adapters import detect
from memscope.adapters.base import ReadOptions
from memscope.adapters.locomo.f1 import locomo_f1, reference_f1
from memscope.adapters.locomo.harness import sniff_family
from memscope.adapters.locomo.run import is_locomo_run, read_locomo_runs
from memscope.adapters.upstream_summary import CHECK_KEY
from memscope.errors import DatasetError, RunDirError
from memscope.records import RunRecord

WRONG = {"conv-a:q2": False, "conv-b:q1": False}
ANSWERS = {"conv-a:q2": "on Sundays", "conv-b:q1": "Tofu"}
SCORED = ["conv-a:q1", "conv-a:q2", "conv-a:q3", "conv-a:q4", "conv-a:q6", "conv-a:q7",
          "conv-b:q1", "conv-b:q2"]  # fmt: skip
"""Every question of the small dataset but its category-5 one (conv-a:q5)."""


def lay_out(tmp_path: Path, files: dict[str, Any]) -> Path:
    """LoCoMo's layout: ``data/locomo10.json`` above ``outputs/<system>/`` holding ``files``."""
    write_json(tmp_path / "data" / "locomo10.json", small_dataset())
    folder = tmp_path / "outputs" / "system"
    for name, data in files.items():
        write_json(folder / name, data)
    return folder


def rows(record: RunRecord) -> dict[str, dict[str, Any]]:
    table = record.predictions
    names = table.column_names  # type: ignore[union-attr]
    return {
        row["qid"]: row
        for row in (dict(zip(names, values, strict=True)) for values in zip(*(
            table.column(n).to_pylist() for n in names  # type: ignore[union-attr]
        ), strict=True))
    }  # fmt: skip


FAMILIES = {
    "mem0": ("memobase_results.json", lambda d: mem0_file(d, answers=ANSWERS, judged=WRONG)),
    "mirix": ("evaluation_metrics_run2.json", lambda d: mirix_file(d, answers=ANSWERS, judged=WRONG)),
    "zep": ("zep_locomo_grades.json", lambda d: zep_files(d, answers=ANSWERS, judged=WRONG)[0]),
    "memu": ("result.json", lambda d: memu_file(d, answers=ANSWERS, judged=WRONG)),
    "evermemos": ("eval_results.json", lambda d: evermemos_file(d, answers=ANSWERS, judged=WRONG)),
    "memos": ("memos_locomo_judged.json", lambda d: memos_file(d, answers=ANSWERS, judged=WRONG)),
}  # fmt: skip


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_is_a_run_of_the_questions_its_file_holds(tmp_path: Path, family: str) -> None:
    name, build = FAMILIES[family]
    folder = lay_out(tmp_path, {name: build(small_dataset())})
    assert sniff_family(folder / name) == family
    assert detect(folder).name == "locomo"
    (record,) = read_locomo_runs(folder, ReadOptions())  # the dataset found in data/ above
    found = rows(record)
    assert sorted(found) == SCORED  # category 5 is not part of the run: not evaluated
    assert found["conv-a:q2"]["judge"] == 0.0 and found["conv-a:q1"]["judge"] == 1.0
    assert sum(r["judge"] for r in found.values()) / len(found) == 6 / 8
    # conv-a asks "Where did Tomas move?" twice: joined in file order.
    assert found["conv-a:q7"]["gold"] == "Porto again"
    # LoCoMo's own F1 against the dataset's gold, whatever the harness computed.
    assert found["conv-a:q1"]["f1"] == 1.0 and found["conv-a:q2"]["f1"] == 0.0
    assert record.config["harness"] == family
    assert record.config["not_evaluated_categories"] == [5]
    assert record.run_id == f"system:{Path(name).stem}"


def test_the_harness_files_system_and_repeat_come_from_names_and_fields(tmp_path: Path) -> None:
    folder = lay_out(
        tmp_path,
        {
            "memobase_eval_0503_3000.json": mem0_file(small_dataset()),
            "evaluation_metrics_run3.json": mirix_file(small_dataset()),
        },
    )
    mirix, mem0 = read_locomo_runs(folder, ReadOptions())  # files by name
    assert mem0.method == "memobase" and mem0.config["harness"] == "mem0"
    assert mirix.method == "mirix" and mirix.config["repeat"] == 3
    write_json(tmp_path / "e/data/locomo10.json", small_dataset())
    write_json(
        tmp_path / "e/outputs/gpt-4o-mini-zep/eval_results.json", evermemos_file(small_dataset())
    )
    (record,) = read_locomo_runs(tmp_path / "e/outputs/gpt-4o-mini-zep", ReadOptions())
    assert (record.model, record.method) == ("gpt-4o-mini", "zep")
    assert record.config["judge_model"] == "gpt-4o-mini"


def test_memu_joins_by_position_where_it_renamed_people(tmp_path: Path) -> None:
    folder = lay_out(tmp_path, {"result.json": memu_file(small_dataset(), rename=("Tomas", "Tom"))})
    (record,) = read_locomo_runs(folder, ReadOptions())
    found = rows(record)
    assert sorted(found) == SCORED
    assert found["conv-a:q1"]["question"] == "Where did Tomas move?"  # the dataset's text
    assert json.loads(found["conv-a:q1"]["extra"])["question_as_written"] == "Where did Tom move?"
    assert found["conv-a:q1"]["judge_reasoning"] == "matches"
    assert any("another question text" in str(n) for n in record.notices)
    assert record.metrics[CHECK_KEY]["agrees"] is True  # type: ignore[index]


def test_zep_takes_latency_from_its_responses_file(tmp_path: Path) -> None:
    grades, responses = zep_files(small_dataset())
    folder = lay_out(
        tmp_path, {"zep_locomo_grades.json": grades, "zep_locomo_responses.json": responses}
    )
    (record,) = read_locomo_runs(folder, ReadOptions())  # the responses file is no run
    found = rows(record)
    assert found["conv-a:q7"]["latency_ms"] == 1060 and found["conv-b:q2"]["latency_ms"] == 1010
    assert record.config["responses_file"] == "zep_locomo_responses.json"


@pytest.mark.parametrize("family", ["mirix", "memu", "evermemos"])
def test_the_harness_summary_is_cross_checked(tmp_path: Path, family: str) -> None:
    name, build = FAMILIES[family]
    data = build(small_dataset())
    folder = lay_out(tmp_path, {name: data})
    (record,) = read_locomo_runs(folder, ReadOptions())
    assert record.metrics[CHECK_KEY]["agrees"] is True  # type: ignore[index]
    if family == "mirix":
        data["summary_by_category"]["4"]["avg_llm_score"] = 0.1
    elif family == "memu":
        data["summary"]["category_accuracies"]["4"] = 0.1
    else:
        data["metadata"]["category_accuracies"]["4"]["mean"] = 0.1
    write_json(folder / name, data)
    (record,) = read_locomo_runs(folder, ReadOptions())
    check = record.metrics[CHECK_KEY]
    assert check["agrees"] is False  # type: ignore[index]
    assert any("differs from upstream's summary" in str(n) for n in record.notices)


def test_evermemos_judge_is_the_mean_of_its_judge_runs(tmp_path: Path) -> None:
    data = evermemos_file(small_dataset(), third_wrong={"conv-a:q1"})
    folder = lay_out(tmp_path, {"eval_results.json": data})
    (record,) = read_locomo_runs(folder, ReadOptions())
    row = rows(record)["conv-a:q1"]
    assert row["judge"] == pytest.approx(2 / 3)
    assert json.loads(row["extra"])["judgments"] == [1.0, 1.0, 0.0]
    assert record.config["judge_runs"] == 3
    assert record.metrics[CHECK_KEY]["agrees"] is True  # type: ignore[index]


def test_a_file_that_cannot_be_joined_says_so_naming_items(tmp_path: Path) -> None:
    data = {"7": mem0_file(small_dataset())["0"]}  # no eighth conversation
    folder = lay_out(tmp_path, {"mem0_results.json": data})
    with pytest.raises(DatasetError) as caught:
        read_locomo_runs(folder, ReadOptions())
    assert "mem0 evals.py" in caught.value.message
    assert '"7"[0]: conversation index 7 is not in the dataset' in caught.value.message


def test_a_partly_joined_file_names_the_items_left_out(tmp_path: Path) -> None:
    data = mem0_file(small_dataset())
    data["0"].append(dict(data["0"][0], question="What did nobody ask?"))
    folder = lay_out(tmp_path, {"mem0_results.json": data})
    (record,) = read_locomo_runs(folder, ReadOptions())
    notices = [str(n) for n in record.notices]
    assert any("6 of 7 item(s) joined" in n or "8 of 9 item(s) joined" in n for n in notices)
    assert any("What did nobody ask?" in n and "not a question of conv-a" in n for n in notices)


def test_a_mem0_results_file_is_not_sent_to_cuemem_by_its_name(tmp_path: Path) -> None:
    """mem0's harness names its files ``<method>_results.json``, as CUE-Mem does: the
    content decides."""
    folder = lay_out(tmp_path, {"mem0_results.json": mem0_file(small_dataset())})
    assert detect(folder).name == "locomo"
    plain = tmp_path / "other"
    write_json(plain / "x_results.json", {"what": "nothing anyone writes"})
    with pytest.raises(RunDirError) as caught:
        detect(plain)
    message = caught.value.message
    assert "mem0 evals.py" in message and "CUE-Mem" in message and "MemEye" in message


def test_a_reference_locomo_run_named_results_json_is_locomos(tmp_path: Path) -> None:
    """Issue 38 item 8: a valid evaluate_qa.py output named ``*_results.json`` beside
    ``data/locomo10.json`` was routed to CUE-Mem by its name; its content makes it LoCoMo's."""
    from builders_locomo import run_output

    answers = {"conv-a": {"q1": {"honcho_prediction": "Porto", "honcho_f1": 1.0}}}
    folder = lay_out(tmp_path, {"honcho_results.json": run_output(small_dataset(), answers)})
    assert detect(folder).name == "locomo"
    (record,) = read_locomo_runs(folder, ReadOptions())
    assert record.run_id == "system:honcho"


def test_an_unknown_object_is_no_harness_file(tmp_path: Path) -> None:
    write_json(tmp_path / "a.json", {"0": [{"question": "q", "answer": "a"}]})
    assert sniff_family(tmp_path / "a.json") is None
    assert not is_locomo_run(tmp_path)


# --- LoCoMo's F1 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prediction", "gold", "category", "expected"),
    [
        ("Porto", "Porto", 4, 1.0),
        ("the running, swimming", "swims, running", 1, 1.0),  # sub-answers, stemmed
        ("yoga", "yoga, running", 1, 0.5),
        ("a bridge", "bridge; the Golden Gate", 3, 1.0),  # open-domain: before ';'
        ("That is Not Mentioned in the conversation", "a boat", 5, 1.0),
        ("a boat", "a boat", 5, 0.0),
        ("7 May 2023", 2023, 2, 0.5),
    ],
)
def test_locomo_f1_follows_upstreams_rules(
    prediction: str, gold: object, category: int, expected: float
) -> None:
    assert locomo_f1(prediction, gold, category) == pytest.approx(expected)


def test_locomo_f1_equals_honchos_reference_f1_for_every_answer() -> None:
    """LoCoMo's own evaluate_qa.py wrote honcho_f1: recomputed from the answer text, all
    199 of conversation 26 and all 1,986 of the base run agree to its three places."""
    root = shared_locomo() / "results" / "honcho"
    for path, count in (
        (root / "rsr_0612" / "conv-26_qa.json", 199),
        (root / "locomo10_qa_honcho_base.json", 1986),
    ):
        checked = 0
        for sample in json.loads(path.read_text(encoding="utf-8")):
            for item in sample["qa"]:
                gold = item.get("answer", item.get("adversarial_answer"))
                value = reference_f1(item["honcho_prediction"], gold, item["category"])
                assert value == item["honcho_f1"], (item["question"], value, item["honcho_f1"])
                checked += 1
        assert checked == count


# --- the real harness files (shared/upstream-samples/locomo-harnesses) -----------------------

OWN_FIGURES = {
    # folder: (run id, LLM judge by category 1..4, overall, n, upstream summary checked)
    "mem0-evals": ("mem0-evals:memobase_eval_0503_3000", (0.6383, 0.8037, 0.5208, 0.7182), 0.7091, 1540, False),
    "mirix": ("mirix:evaluation_metrics_run1", (0.8546, 0.8006, 0.6458, 0.8716), 0.8398, 1542, True),
    "zep": ("zep:zep_locomo_grades", (0.7411, 0.6604, 0.6771, 0.7979), 0.7513, 1540, False),
    "memu": ("memu:result", (0.8830, 0.9252, 0.7708, 0.9489), 0.9209, 1542, True),
    "evermemos/gpt-4o-mini-memos": ("gpt-4o-mini-memos:eval_results", (0.7021, 0.5109, 0.5660, 0.8652), 0.7429, 1540, True),
}  # fmt: skip
"""Each system's own figures, as shared/upstream-samples/locomo-harnesses/README.md lists them."""


@pytest.mark.parametrize("folder", sorted(OWN_FIGURES))
def test_each_real_harness_file_reproduces_its_systems_own_figures(folder: str) -> None:
    harnesses = shared_harnesses()
    dataset = shared_locomo() / "data" / "locomo10.json"
    run_id, by_category, overall, n, checked = OWN_FIGURES[folder]
    (record,) = read_locomo_runs(harnesses / folder, ReadOptions(dataset=dataset))
    assert record.run_id == run_id
    found = rows(record)
    assert len(found) == n  # every item of the file joined
    by_number: dict[int, list[float]] = {}
    questions = {q.qid: q for q in record.dataset.questions}  # type: ignore[union-attr]
    for qid, row in found.items():
        by_number.setdefault(int(questions[qid].extra["category"]), []).append(row["judge"])  # type: ignore[arg-type]
    for number, expected in enumerate(by_category, start=1):
        values = by_number[number]
        assert sum(values) / len(values) == pytest.approx(expected, abs=1e-3)
    judges = [row["judge"] for row in found.values()]
    assert sum(judges) / len(judges) == pytest.approx(overall, abs=1e-3)
    assert len(by_number.get(5, [])) <= 2  # category 5 left out, a stray item or two aside
    if checked:
        assert record.metrics[CHECK_KEY]["agrees"] is True  # type: ignore[index]


def test_the_question_detail_carries_an_answers_latency(tmp_path: Path) -> None:
    """The question screen's record of an answer holds what it cost (Zep's responses)."""
    from memscope.store import Store
    from memscope.triage.evidence_chain import question_detail
    from memscope.usecases.runs.ingest import ingest_dir
    from memscope.usecases.runs.loading import load_run

    grades, responses = zep_files(small_dataset())
    folder = lay_out(
        tmp_path, {"zep_locomo_grades.json": grades, "zep_locomo_responses.json": responses}
    )
    store = Store(tmp_path / "s.duckdb")
    run_id = ingest_dir(store, folder, ReadOptions()).run_id
    data = load_run(store, run_id)
    rows_of = {str(qid): row for row, qid in enumerate(data.qids.tolist())}
    detail = question_detail(data, rows_of["conv-a:q7"])
    assert detail.latency_ms == 1060.0 and detail.tokens is None
