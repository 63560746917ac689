"""LoCoMo's dataset and run files: invented conversations for every rule (evidence cleaning,
keys with and without RAG, unanswered questions, malformed input), then the real release and
the Honcho runs read from shared/ (CC BY-NC: never copied into the repository)."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from builders_locomo import (
    PNG,
    REPO,
    layout,
    photo,
    qa,
    run_output,
    sample,
    shared_locomo,
    small_dataset,
    turn,
    write_json,
)
from memscope.adapters.base import ReadOptions
from memscope.adapters.locomo.axes import AGE_AXIS, AXES, CATEGORY_AXIS, MODALITY_AXIS
from memscope.adapters.locomo.dataset import (
    canonical_dia_id,
    clean_evidence,
    image_file_name,
    looks_like_dataset,
    read_locomo_dataset,
)
from memscope.adapters.locomo.run import (
    is_locomo_run,
    locate_dataset,
    looks_like_run_file,
    parse_key,
    read_locomo_runs,
)
from memscope.adapters.locomo.summary import StatsRow, recompute, stats_check, stats_files
from memscope.adapters.upstream_summary import CHECK_KEY, check_sentence
from memscope.errors import DatasetError, RunDirError
from memscope.identity import question_key


def dataset_file(tmp_path: Path, data: object | None = None) -> Path:
    return write_json(
        tmp_path / "data" / "locomo10.json", small_dataset() if data is None else data
    )


# --- evidence cleaning ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("evidence", "cleaned"),
    [
        (["D8:6; D9:17"], ["D8:6", "D9:17"]),  # two ids joined in one entry
        (["(D1:3)"], ["D1:3"]),  # upstream strips parentheses
        (["D9:1 D4:4 D4:6"], ["D9:1", "D4:4", "D4:6"]),  # joined by spaces
        (["D30:05"], ["D30:5"]),  # zero-padded turn, as upstream's int lookup reads it
        (["D1:3", "D1:3", " D1:3 "], ["D1:3"]),  # repeats and whitespace
        (["D", "D:11:26", ""], ["D", "D:11:26"]),  # not dia ids: kept, resolve to nothing
        ("D2:1", ["D2:1"]),  # a bare string is one entry
        (None, []),
        ({"D1": 1}, []),
    ],
)
def test_evidence_is_cleaned_like_upstream_and_split(evidence: object, cleaned: list[str]) -> None:
    assert clean_evidence(evidence) == cleaned


def test_dia_ids_and_image_names() -> None:
    assert canonical_dia_id("d07:010") == "D7:10" and canonical_dia_id("D:11:26") is None
    assert image_file_name("https://i.example/a/b%20c.jpg?size=2#x") == "b c.jpg"


# --- the dataset ------------------------------------------------------------------------


def test_sessions_and_rounds_in_sample_session_turn_order(tmp_path: Path) -> None:
    dataset = read_locomo_dataset(dataset_file(tmp_path)).record
    assert dataset.benchmark == "locomo" and dataset.task == "locomo10"
    assert dataset.dataset_id.startswith("locomo-locomo10-") and len(dataset.content_hash) == 64
    # session_2 is written before session_1; dates of sessions without turns are no sessions
    assert [(s.session_id, s.session_order) for s in dataset.sessions] == [
        ("conv-a:S1", 1),
        ("conv-a:S2", 2),
        ("conv-a:S3", 3),
        ("conv-b:S1", 4),
        ("conv-b:S2", 5),
    ]
    assert dataset.sessions[1].date == "10:02 am on 2 March, 2024"
    rounds = dataset.rounds
    assert [r.position for r in rounds] == list(range(1, 12))
    assert [r.round_id for r in rounds[:4]] == [
        "conv-a:D1:1",
        "conv-a:D1:2",
        "conv-a:D1:3",
        "conv-a:D2:1",
    ]
    assert rounds[4].round_order == 2 and rounds[4].session_id == "conv-a:S2"
    assert rounds[1].user_text == "Tomas: Hey Ines, I moved to Porto last week."
    assert rounds[1].extra == {"sample_id": "conv-a", "dia_id": "D1:2", "speaker": "Tomas"}
    bike = rounds[4]
    assert (bike.image_refs, bike.image_files, bike.image_captions) == (
        ["https://img.example/x/bike.jpg"],
        [None],  # no --images: the image is a URL only, nothing is downloaded
        ["a red bike"],
    )
    assert bike.extra["query"] == "a query"
    bridge = rounds[2]  # a caption whose URL the release lost still shares an image
    assert (bridge.image_refs, bridge.image_captions) == ([""], ["a photo of a bridge"])
    assert rounds[0].image_refs == [] and rounds[0].image_captions == []
    assert dataset.notices[0].what.startswith("2 evidence id(s) name no turn")


def test_images_folder_gives_local_copies_by_url_file_name(tmp_path: Path) -> None:
    images = tmp_path / "images"
    images.mkdir()
    (images / "bike.jpg").write_bytes(PNG)
    data = small_dataset()
    data[1]["conversation"]["session_2"].append(
        photo("Ana", "D2:3", "Here is Miso.", "https://img.example/miso.jpg", "a cat")
    )
    (images / "miso.jpg").write_text("not an image")  # a text file named .jpg is no image
    record = read_locomo_dataset(dataset_file(tmp_path, data), images=images).record
    rounds = {r.round_id: r for r in record.rounds}
    assert rounds["conv-a:D2:2"].image_files == [str((images / "bike.jpg").resolve())]
    assert rounds["conv-b:D2:3"].image_files == [None]
    assert record.media_root == str(images.resolve())
    (missing,) = [n for n in record.notices if "local copy" in n.what]
    assert missing.what.startswith("1 of 2 shared image(s)") and missing.examples == ("miso.jpg",)


def test_questions_ids_gold_evidence_and_axes(tmp_path: Path) -> None:
    dataset = read_locomo_dataset(dataset_file(tmp_path))
    questions = dataset.record.questions
    assert [q.qid for q in questions][:3] == ["conv-a:q1", "conv-a:q2", "conv-a:q3"]
    assert [q.idx for q in questions] == list(range(1, 10))
    q = dataset.questions
    assert q["conv-a:q1"].question_key == question_key("conv-a", "open", "Where did Tomas move?")
    assert q["conv-a:q1"].task == "conv-a" and q["conv-a:q1"].mode == "open"
    # one text asked twice in a sample gets two keys; the same text in another sample a third
    keys = {q["conv-a:q1"].question_key, q["conv-a:q7"].question_key, q["conv-b:q2"].question_key}
    assert len(keys) == 3
    joined = q["conv-a:q3"]
    assert joined.clue_ids == ["D2:2", "D3:1"]
    assert joined.clue_rounds == ["conv-a:D2:2", "conv-a:D3:1"]
    assert joined.source_sessions == ["conv-a:S2", "conv-a:S3"]
    assert joined.extra["evidence"] == ["D2:2; D3:1"]  # as written
    assert (joined.extra["category"], joined.extra["category_name"]) == (1, "Multi-hop")
    assert joined.extra["evidence_age"] == 0 and joined.extra["evidence_modality"] == "image"
    assert (
        q["conv-a:q1"].extra["evidence_age"] == 2
        and q["conv-a:q1"].extra["evidence_modality"] == "text"
    )
    assert (
        q["conv-a:q4"].clue_rounds == ["conv-a:D1:3"]
        and q["conv-a:q4"].extra["evidence_modality"] == "image"
    )
    adversarial = q["conv-a:q5"]
    assert adversarial.gold == "a boat" and adversarial.extra["adversarial_answer"] == "a boat"
    assert adversarial.extra["category_name"] == "Adversarial"
    odd = q["conv-a:q6"]
    assert odd.gold == "2024" and odd.clue_ids == ["D9:9", "D", "D3:2"]
    assert odd.clue_rounds == ["conv-a:D3:2"] and odd.extra["unresolved_evidence"] == ["D9:9", "D"]
    no_evidence = q["conv-b:q2"]
    assert no_evidence.clue_rounds == [] and no_evidence.extra["evidence_age"] is None
    assert no_evidence.extra["evidence_modality"] is None
    (notice,) = [n for n in dataset.record.notices if "evidence id" in n.what]
    assert notice.examples == ("conv-a:q6:D9:9", "conv-a:q6:D")


def test_a_bad_qa_item_is_skipped_and_keeps_the_numbering(tmp_path: Path) -> None:
    data = small_dataset()
    data[0]["qa"][1] = {"question": "no category"}
    data[0]["qa"][2]["category"] = 9
    data[1]["qa"][0] = "just text"
    dataset = read_locomo_dataset(dataset_file(tmp_path, data))
    assert "conv-a:q2" not in dataset.questions and "conv-a:q4" in dataset.questions
    assert [q.idx for q in dataset.record.questions] == list(range(1, 7))
    (notice,) = [n for n in dataset.record.notices if "malformed" in n.what]
    assert notice.what.startswith(
        "3 malformed QA item(s) skipped: conv-a:q2: 'category' must be 1-5"
    )
    with pytest.raises(DatasetError, match="3 malformed QA item"):
        read_locomo_dataset(dataset_file(tmp_path, data), strict=True)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"sample_id": "x"}, "expected a JSON list of samples"),
        ([], "expected a JSON list of samples"),
        (["text"], "sample 1 is not a JSON object"),
        ([{"conversation": {}, "qa": []}], "sample 1 has no 'sample_id'"),
        ([{"sample_id": "c1", "qa": []}], "'c1' has no 'conversation'"),
        ([sample("c1", {}, [], dates_only=(1,))], "no session_<N> turn list"),
        ([sample("c1", {1: [turn("A", "D1:1", "hi")]}, [])] * 2, "'c1' appears twice"),
        (
            [
                {
                    "sample_id": "c1",
                    "conversation": {"session_1": [turn("A", "D1:1", "x")]},
                    "qa": {},
                }
            ],
            "'qa' is not a list",
        ),
    ],
)
def test_a_bad_dataset_is_one_clear_error(tmp_path: Path, data: object, message: str) -> None:
    path = dataset_file(tmp_path, data)
    with pytest.raises(DatasetError, match=message) as caught:
        read_locomo_dataset(path)
    assert caught.value.where and str(path) in caught.value.where and caught.value.fix


def test_broken_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "locomo10.json"
    path.write_text('[{"sample_id": "c1",\n "qa": [}]')
    with pytest.raises(DatasetError, match="not valid JSON") as caught:
        read_locomo_dataset(path)
    assert caught.value.where == f"{path}:2:9"


# --- keys, sniffing, locating the dataset ----------------------------------------------


def test_keys_parse_into_model_rag_mode_and_k() -> None:
    key = parse_key("gpt-4-turbo_dialog_top_5")
    assert (key.model, key.rag_mode, key.top_k, key.method) == (
        "gpt-4-turbo",
        "dialog",
        5,
        "rag_dialog",
    )
    assert parse_key("gpt_3.5_observation_top_10").model == "gpt_3.5"
    plain = parse_key("honcho")
    assert (plain.model, plain.rag_mode, plain.top_k, plain.method) == (
        "honcho",
        None,
        None,
        "no_rag",
    )
    assert parse_key("x_dialog_top_").rag_mode is None  # no k: not a RAG key


def test_run_files_are_sniffed_from_their_head(tmp_path: Path) -> None:
    data = small_dataset()
    folder = layout(tmp_path, data, run_output(data, {"conv-a": {"q1": {"m_prediction": "Porto"}}}))
    assert is_locomo_run(folder) and looks_like_run_file(folder / "out.json")
    assert not is_locomo_run(tmp_path / "data")  # the dataset has no prediction
    assert looks_like_dataset(tmp_path / "data" / "locomo10.json")
    assert not looks_like_dataset(folder / "out.json")
    stats = write_json(tmp_path / "s" / "out_stats.json", [{"qa": [], "m_prediction": 1}])
    assert not looks_like_run_file(stats) and not is_locomo_run(stats.parent)
    assert not is_locomo_run(tmp_path / "nowhere")


def test_the_dataset_is_found_above_the_run_or_given(tmp_path: Path) -> None:
    data = small_dataset()
    folder = layout(tmp_path, data, run_output(data, {"conv-a": {"q1": {"m_prediction": "Porto"}}}))
    expected = (tmp_path / "data" / "locomo10.json").resolve()
    assert locate_dataset(folder, None) == expected
    assert locate_dataset(folder, tmp_path / "data") == expected
    other = write_json(tmp_path / "elsewhere" / "my_locomo.json", data)
    assert locate_dataset(folder, other.parent) == other.resolve()  # any LoCoMo-shaped file
    with pytest.raises(DatasetError, match="neither a LoCoMo dataset file"):
        locate_dataset(folder, tmp_path / "outputs")
    lonely = write_json(
        tmp_path / "a" / "b" / "c" / "d" / "e" / "run" / "out.json", []
    )  # 6 levels below data/
    with pytest.raises(DatasetError, match="cannot find the LoCoMo dataset") as caught:
        locate_dataset(lonely.parent, None)
    assert str(lonely.parent / "data" / "locomo10.json") in caught.value.what
    assert "--dataset" in (caught.value.fix or "")


# --- runs -----------------------------------------------------------------------------


def rag_and_plain_answers() -> dict[str, dict[str, dict[str, object]]]:
    """conv-a answered by ``m`` (no RAG) on q1-q5 and by ``m_dialog_top_2`` on every
    question; conv-b not run."""
    plain = {
        "q1": {"m_prediction": "Porto", "m_f1": 1.0, "m_llm": 1},
        "q2": {"m_prediction": "cooking", "m_f1": 0.0, "m_llm": 0},
        "q3": {"m_prediction": "flat tyre", "m_f1": 0.8, "m_llm": 1},
        "q4": {"m_prediction": "none", "m_f1": 0.0, "m_llm": 0},
        "q5": {"m_prediction": "Not mentioned", "m_f1": 1, "m_llm": 1},
    }
    rag = {
        f"q{n}": {
            "m_dialog_top_2_prediction": f"answer {n}",
            "m_dialog_top_2_f1": 0.5,
            "m_dialog_top_2_recall": 0.5,
            "m_dialog_top_2_prediction_context": ["D1:2", "D03:01", "D1:2", "D7:7"],
        }
        for n in range(1, 8)
    }
    answers = {name: {**plain.get(name, {}), **rag[name]} for name in rag}
    return {"conv-a": answers}


def test_one_file_with_two_keys_is_two_runs(tmp_path: Path) -> None:
    data = small_dataset()
    folder = layout(tmp_path, data, run_output(data, rag_and_plain_answers()))
    plain, rag = read_locomo_runs(folder, ReadOptions())
    assert (plain.run_id, rag.run_id) == ("model:m", "model:m_dialog_top_2")
    assert plain.path == f"{folder}#out.json:m" and plain.content_hash != rag.content_hash
    assert (plain.model, plain.method, plain.top_k, plain.retrieval_kind) == (
        "m",
        "no_rag",
        None,
        "none",  # the file says nothing of what a non-RAG memory used
    )
    assert (rag.model, rag.method, rag.top_k, rag.retrieval_kind) == (
        "m",
        "rag_dialog",
        2,
        "ranked",
    )
    assert plain.benchmark == "locomo" and plain.mode == "open" and plain.task == "locomo10"
    assert plain.dataset is rag.dataset  # one dataset read per directory
    table = plain.predictions.to_pydict()
    # q6 and q7 have no m_prediction: rows scored 0, as upstream's stats count them.
    assert table["qid"] == [f"conv-a:q{n}" for n in range(1, 8)]
    assert table["pred"][0] == "Porto" and table["gold"][4] == "a boat"
    assert table["pred"][5:] == [None, None]
    assert table["f1"] == [1.0, 0.0, 0.8, 0.0, 1.0, 0.0, 0.0]
    assert table["judge"] == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    assert table["extra"][:5] == [None] * 5  # m owns none of m_dialog_top_2's fields
    assert [json.loads(e) for e in table["extra"][5:]] == [{"unanswered": True}] * 2
    rag_table = rag.predictions.to_pydict()
    assert rag_table["judge"] == [None] * 7 and json.loads(rag_table["extra"][0]) == {"recall": 0.5}
    retrievals = rag.retrievals.to_pydict()
    first = [
        (r, rid)
        for q, r, rid in zip(
            retrievals["qid"], retrievals["rank"], retrievals["round_id"], strict=True
        )
        if q == "conv-a:q1"
    ]
    assert first == [(1, "conv-a:D1:2"), (2, "conv-a:D3:1"), (3, "D7:7")]
    assert plain.retrievals is None
    assert plain.config["unanswered_qids"] == ["conv-a:q6", "conv-a:q7"]
    assert plain.config["samples"] == ["conv-a"]
    notes = [n.what for n in plain.notices]
    assert any(
        w.startswith("2 question(s) of the file's conversations have no m_prediction")
        for w in notes
    )
    assert any(
        "holds 1 of the dataset's 2 conversations; the other 2 question(s)" in w for w in notes
    )
    assert any(
        w.startswith("7 retrieved id(s) of m_dialog_top_2 name no turn")
        for w in (n.what for n in rag.notices)
    )


def test_observation_and_summary_contexts(tmp_path: Path) -> None:
    data = small_dataset()
    answers = {
        "conv-a": {
            "q1": {
                "m_observation_top_3_prediction": "Porto",
                "m_observation_top_3_prediction_context": ["D1:2, D2:1", "D1:2"],
                "m_summary_top_2_prediction": "Porto",
                "m_summary_top_2_context": ["S2", "S1", "S9"],
            }
        }
    }
    folder = layout(tmp_path, data, run_output(data, answers))
    observation, summary = read_locomo_runs(folder, ReadOptions())
    assert observation.retrievals.to_pydict()["round_id"] == ["conv-a:D1:2", "conv-a:D2:1"]
    assert summary.retrievals.to_pydict()["round_id"] == ["conv-a:S2", "conv-a:S1", "S9"]
    assert summary.method == "rag_summary"
    assert any("ranks name sessions" in n.what for n in summary.notices)


def test_the_same_key_in_two_files_takes_the_file_stem(tmp_path: Path) -> None:
    data = small_dataset()
    run = run_output(
        data,
        {"conv-a": {"q1": {"m_prediction": "Porto"}}, "conv-b": {"q1": {"m_prediction": "Miso"}}},
    )
    folder = layout(tmp_path, data, run, name="first.json")
    write_json(folder / "second.json", run)
    write_json(folder / "first_f1_stats.json", {"m": {}})
    write_json(folder / "notes.json", {"not": "a run"})
    runs = read_locomo_runs(folder, ReadOptions())
    assert [r.run_id for r in runs] == ["model:first:m", "model:second:m"]
    # two answers each; the other questions of the two conversations are rows scored 0
    for r in runs:
        preds = r.predictions.column("pred").to_pylist()
        assert sorted(p for p in preds if p is not None) == ["Miso", "Porto"]


def test_items_join_by_position_then_by_text(tmp_path: Path) -> None:
    data = small_dataset()
    run = run_output(data, {"conv-a": {f"q{n}": {"m_prediction": f"p{n}"} for n in range(1, 8)}})
    items = run[0]["qa"]
    items[1], items[3] = items[3], items[1]  # two questions swapped: joined by their text
    items[4]["question"] = "A question the dataset does not ask"
    folder = layout(tmp_path, data, run)
    (record,) = read_locomo_runs(folder, ReadOptions())
    table = record.predictions.to_pydict()
    answers = dict(zip(table["qid"], table["pred"], strict=True))
    assert (answers["conv-a:q2"], answers["conv-a:q4"]) == ("p2", "p4")  # the text decides
    assert "conv-a:q5" not in table["qid"]
    notes = [n.what for n in record.notices]
    assert any(w.startswith("1 QA item(s) match no question") for w in notes)
    assert any(w.startswith("2 QA item(s) sit at another position") for w in notes)
    (absent,) = [n for n in record.notices if "not in the run file" in n.what]
    assert absent.what.startswith("1 question(s)") and absent.examples == ("conv-a:q5",)


def test_bad_items_are_skipped_or_refused_when_strict(tmp_path: Path) -> None:
    data = small_dataset()
    run = run_output(
        data, {"conv-a": {f"q{n}": {"m_prediction": "x", "m_f1": 1.0} for n in range(1, 8)}}
    )
    run[0]["qa"][1]["m_f1"] = "high"
    run[0]["qa"].append("not an item")
    folder = layout(tmp_path, data, run)
    (record,) = read_locomo_runs(folder, ReadOptions())
    table = record.predictions.to_pydict()
    assert table["f1"][1] is None and table["f1"][0] == 1.0 and len(table["qid"]) == 7
    notes = [n.what for n in record.notices]
    assert any(w.startswith("1 QA item(s) have a m score that is not a number") for w in notes)
    assert any(w.startswith("not a JSON object (a str); skipped") for w in notes)
    with pytest.raises(RunDirError, match="nothing was ingested"):
        read_locomo_runs(folder, ReadOptions(strict=True))


def test_malformed_run_files_and_mismatched_datasets(tmp_path: Path) -> None:
    data = small_dataset()
    folder = layout(tmp_path, data, [])
    (folder / "out.json").write_text('[{"sample_id": "conv-a", "qa": [{"m_prediction": "x",\n')
    with pytest.raises(RunDirError, match="not valid JSON"):
        read_locomo_runs(folder, ReadOptions())
    with pytest.raises(RunDirError, match="not a LoCoMo run directory"):
        read_locomo_runs(tmp_path / "data", ReadOptions())
    other = [
        sample(
            "conv-a",
            {1: [turn("X", "D1:1", "hello")]},
            [qa(f"Q{n}?", "a", [], 4) for n in range(7)],
        )
    ]
    run = run_output(data, {"conv-a": {f"q{n}": {"m_prediction": "x"} for n in range(1, 8)}})
    write_json(folder / "out.json", run)
    wrong = write_json(tmp_path / "wrong" / "locomo10.json", other)
    with pytest.raises(DatasetError, match="only 0 of 7 QA items"):
        read_locomo_runs(folder, ReadOptions(dataset=wrong))


# --- upstream's stats -------------------------------------------------------------------


def test_recompute_counts_unanswered_questions_as_zero() -> None:
    rows = [
        StatsRow(1, 0.5, 1.0, recall=1.0),
        StatsRow(1, None, None),  # unanswered: counted, sums nothing
        StatsRow(4, 0.25, 0.0, recall=0.5, has_evidence=False),
    ]
    f1 = recompute(rows, "f1")
    assert f1["category_counts"] == {"1": 2, "4": 1}
    assert f1["cum_accuracy_by_category"] == {"1": 0.5, "4": 0.25}
    assert f1["recall_by_category"] == {"1": 0.5}  # over all the category's questions
    assert recompute(rows, "llm")["cum_accuracy_by_category"] == {"1": 1.0, "4": 0.0}


def test_stats_files_agree_and_a_changed_value_differs(tmp_path: Path) -> None:
    data = small_dataset()
    folder = layout(tmp_path, data, run_output(data, rag_and_plain_answers()))
    # upstream's numbers for m over conv-a (q6, q7 unanswered count in category 4 as 0); its
    # tallies write 0 for every category 1-5 reached by its report loop
    counts = {"4": 3, "2": 1, "1": 1, "3": 1, "5": 1}
    write_json(
        folder / "out_f1_stats.json",
        {
            "m": {
                "category_counts": counts,
                "cum_accuracy_by_category": {"4": 1.0, "2": 0.0, "1": 0.8, "3": 0.0, "5": 1},
            }
        },
    )
    write_json(
        folder / "out_llm_stats.json",
        {
            "m": {
                "category_counts": counts,
                "cum_accuracy_by_category": {"4": 1, "2": 0, "1": 1, "3": 0, "5": 2},
            }
        },
    )
    plain, rag = read_locomo_runs(folder, ReadOptions())
    check = plain.metrics[CHECK_KEY]
    assert check["checked"] == 20 and check["file"].endswith(
        "out_f1_stats.json + out_llm_stats.json"
    )
    assert check["differences"] == [
        {"field": "llm.cum_accuracy_by_category.5", "upstream": 2, "recomputed": 1.0}
    ]
    assert "differs from upstream's summary" in check_sentence(check)
    assert any("llm.cum_accuracy_by_category.5: upstream 2" in n.what for n in plain.notices)
    assert plain.metrics["upstream_stats"]["out_f1_stats.json"]["category_counts"] == counts
    rag_check = rag.metrics[CHECK_KEY]  # the files hold no entry for the RAG key
    assert rag_check["agrees"] is None and len(rag_check["surprises"]) == 2
    assert [name for name, _metric in stats_files(folder / "out.json")] == [
        folder / "out_f1_stats.json",
        folder / "out_llm_stats.json",
    ]


def test_stats_check_reads_recall_and_tolerates_float_order(tmp_path: Path) -> None:
    rows = [
        StatsRow(2, 0.1, None, recall=0.5),
        StatsRow(2, 0.2, None, recall=1.0),
        StatsRow(2, 0.7, None, recall=0.0),
    ]
    entry = {
        "category_counts": {"2": 3, "1": 0},
        "cum_accuracy_by_category": {"2": 0.7 + 0.2 + 0.1, "1": 0},  # another addition order
        "recall_by_category": {"2": 0.5},
    }
    path = tmp_path / "out_stats.json"
    write_json(path, {"m": entry})
    check, notices, entries = stats_check([(path, "f1")], "m", rows)
    assert check is not None and check["agrees"] is True and check["checked"] == 5
    assert notices == [] and entries == {"out_stats.json": entry}
    write_json(path, {"m": {**entry, "cum_accuracy_by_category": {"2": 1.001}}})
    changed, notices, _ = stats_check([(path, "f1")], "m", rows)
    assert changed is not None and changed["agrees"] is False  # one question's 0.001 differs
    assert notices and "f1.cum_accuracy_by_category.2" in notices[-1].what
    write_json(path, {"m": {**entry, "recall_by_category": {"2": 0.6}}})
    assert (stats_check([(path, "f1")], "m", rows)[0] or {})["agrees"] is False
    path.write_text("{")
    broken, _, _ = stats_check([(path, "f1")], "m", rows)
    assert (
        broken is not None
        and broken["agrees"] is None
        and "not valid JSON" in broken["surprises"][0]
    )


# --- axes -----------------------------------------------------------------------------


def test_axes_name_categories_like_upstream() -> None:
    assert (
        AXES.benchmark == "locomo"
        and AXES.views[0].rows == "category"
        and AXES.views[0].columns == "age"
    )
    assert [(key) for key, _title in AXES.metrics] == ["f1", "judge", "any_clue"]
    words = {
        "temporal": "temporal",
        "2": "temporal",
        "multi-hop": "multi_hop",
        "multihop": "multi_hop",
        "Single-Hop": "single_hop",
        "open-domain": "open_domain",
        "adversarial": "adversarial",
        "5": "adversarial",
    }
    for word, value in words.items():
        level = CATEGORY_AXIS.match(word)
        assert level is not None and level.value == value, word
    assert CATEGORY_AXIS.match("6") is None
    assert [CATEGORY_AXIS.derive(v) for v in (1, "3", 5, 0, True, None)] == [  # type: ignore[misc]
        "multi_hop",
        "open_domain",
        "adversarial",
        None,
        None,
        None,
    ]
    assert CATEGORY_AXIS.label("temporal") == "Temporal"
    assert AGE_AXIS.numeric and AXES.axis("evidence_age") is AGE_AXIS
    assert MODALITY_AXIS.match("img").value == "image"  # type: ignore[union-attr]


def test_axes_read_the_dataset_extras_and_filter_age(tmp_path: Path) -> None:
    import numpy as np
    import pyarrow as pa

    from memscope.usecases.runs.axes import axis_columns, level_mask, numeric_mask

    dataset = read_locomo_dataset(dataset_file(tmp_path)).record
    table = pa.table({"extra": [json.dumps(q.extra) for q in dataset.questions]})
    labels, numbers, levels = axis_columns(table, AXES)
    assert list(labels["category"][:3]) == ["single_hop", "temporal", "multi_hop"]
    assert list(numbers["age"][:3]) == [2.0, 1.0, 0.0] and np.isnan(numbers["age"][-1])
    assert list(labels["modality"][:5]) == ["text", "text", "image", "image", "image"]
    assert levels["category"][0] == "multi_hop"
    old = numeric_mask(AGE_AXIS, numbers["age"], ">=2")
    assert [q.qid for q, keep in zip(dataset.questions, old, strict=True) if keep] == [
        "conv-a:q1",
        "conv-a:q4",
        "conv-a:q7",
    ]
    temporal = level_mask(CATEGORY_AXIS, labels["category"], None, "temporal")
    assert int(temporal.sum()) == 1


# --- the real release and the Honcho runs (read from shared/, never copied) ------------


def test_the_real_dataset_reads_whole() -> None:
    root = shared_locomo()
    dataset = read_locomo_dataset(root / "data" / "locomo10.json")
    record = dataset.record
    assert len(dataset.samples) == 10 and len(record.questions) == 1986
    assert Counter(q.extra["category"] for q in record.questions) == {
        4: 841,
        5: 446,
        2: 321,
        1: 282,
        3: 96,
    }
    assert len(record.rounds) == 5882 and [r.position for r in record.rounds] == list(
        range(1, 5883)
    )
    assert len({q.question_key for q in record.questions}) == 1986
    joined = dataset.questions["conv-26:q38"]
    assert joined.extra["evidence"] == ["D8:6; D9:17"] and joined.clue_rounds == [
        "conv-26:D8:6",
        "conv-26:D9:17",
    ]
    assert dataset.questions["conv-50:q70"].clue_rounds == ["conv-50:D30:5"]  # written D30:05
    (unresolved,) = [n for n in record.notices if "evidence id" in n.what]
    assert unresolved.what.startswith("4 evidence id(s)")
    assert unresolved.examples == ("conv-42:q59:D10:19", "conv-42:q89:D", "conv-43:q19:D:11:26")
    shared = [r for r in record.rounds if r.image_refs]
    assert len(shared) == 1226  # every turn with a BLIP caption, 316 of them without URL
    assert sum(1 for r in shared if r.image_refs == [""]) == 316
    adversarial = [q for q in record.questions if q.extra["category"] == 5]
    assert all(q.gold == q.extra["adversarial_answer"] for q in adversarial)


def test_the_honcho_runs_read_with_their_sizes() -> None:
    root = shared_locomo()
    (base,) = read_locomo_runs(root / "results" / "honcho", ReadOptions())
    assert (base.run_id, base.predictions.num_rows, base.model, base.retrieval_kind) == (
        "honcho:honcho",
        1986,
        "honcho",
        "none",
    )
    assert base.config["unanswered_qids"] == [] and CHECK_KEY not in base.metrics
    assert set(base.predictions.column("judge").to_pylist()) == {None}
    (judged,) = read_locomo_runs(root / "results" / "honcho" / "rsr_0612", ReadOptions())
    assert (judged.run_id, judged.predictions.num_rows, judged.config["samples"]) == (
        "rsr_0612:honcho",
        199,
        ["conv-26"],
    )
    assert Path(judged.config["dataset_file"]) == (root / "data" / "locomo10.json").resolve()


def test_the_honcho_stats_files_agree_with_the_rows() -> None:
    root = shared_locomo()
    folder = root / "results" / "honcho" / "rsr_0612"
    (run,) = read_locomo_runs(folder, ReadOptions())
    check = run.metrics[CHECK_KEY]
    assert check["agrees"] is True and check["checked"] == 20 and check["surprises"] == []
    assert check_sentence(check) == (
        "agrees with upstream's summary conv-26_qa_f1_stats.json + conv-26_qa_llm_stats.json "
        "in the 20 values recomputed: f1.category_counts.{1, 2, 3, 4, 5}, "
        "f1.cum_accuracy_by_category.{1, 2, 3, 4, 5}, llm.category_counts.{1, 2, 3, 4, 5}, "
        "llm.cum_accuracy_by_category.{1, 2, 3, 4, 5}"
    )
    # and per category the stored means are upstream's accuracy, cum / count, to 3 places
    category = {q.qid: q.extra["category"] for q in run.dataset.questions}
    table = run.predictions.to_pydict()
    for metric, column in (("f1", "f1"), ("llm", "judge")):
        stats = json.loads((folder / f"conv-26_qa_{metric}_stats.json").read_text())["honcho"]
        for name, count in stats["category_counts"].items():
            values = [
                v
                for q, v in zip(table["qid"], table[column], strict=True)
                if category[q] == int(name)
            ]
            assert len(values) == count
            expected = stats["cum_accuracy_by_category"][name] / count
            assert round(sum(values) / len(values), 3) == round(expected, 3)


def test_the_honcho_runs_ingest_into_a_store(tmp_path: Path) -> None:
    from memscope.store import Store
    from memscope.store.ingest import ingest_run
    from memscope.store.sql import rows

    root = shared_locomo()
    (run,) = read_locomo_runs(root / "results" / "honcho" / "rsr_0612", ReadOptions())
    store = Store(tmp_path / "store.duckdb")
    with store.write() as con:
        outcome = ingest_run(con, run)
        assert outcome.n_questions == 199 and outcome.upstream_check["agrees"] is True  # type: ignore[index]
        by_category = rows(
            con,
            "SELECT json_extract(q.extra, '$.category')::INT, count(*), sum(p.judge) FROM predictions p "
            "JOIN runs r USING (run_id) JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
            "GROUP BY 1 ORDER BY 1",
        )
    stats = json.loads((root / "results/honcho/rsr_0612/conv-26_qa_llm_stats.json").read_text())[
        "honcho"
    ]
    assert by_category == [
        (int(c), stats["category_counts"][c], stats["cum_accuracy_by_category"][c]) for c in "12345"
    ]


def repository_files(repo: Path = REPO) -> list[Path]:
    """The files that are (or would be) in the repository: tracked, or untracked and not
    ignored, as git lists them. What a user keeps in git-ignored folders (a store in
    ``.memscope/`` with LoCoMo ingested, a ``.venv``) is theirs and never committed."""
    try:
        listed = subprocess.run(
            [
                "git",
                "-C",
                str(repo),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (or no git): the repository's files cannot be listed")
    return [repo / os.fsdecode(name) for name in listed.split(b"\0") if name]


def test_the_repository_files_leave_out_what_git_ignores(tmp_path: Path) -> None:
    """A user's store in the clone's git-ignored ``.memscope/`` (LoCoMo ingested, as the
    README shows) is not part of the repository the licence check reads."""
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    if subprocess.run([*git, "init", "-q"], capture_output=True).returncode:
        pytest.skip("git is not available")
    (tmp_path / ".gitignore").write_text(".memscope/\n")
    (tmp_path / "tracked.txt").write_text("kept")
    (tmp_path / "new.txt").write_text("not yet added")
    (tmp_path / ".memscope").mkdir()
    (tmp_path / ".memscope" / "memscope.duckdb").write_bytes(b"the user's LoCoMo text")
    subprocess.run([*git, "add", "tracked.txt", ".gitignore"], check=True)
    listed = {path.relative_to(tmp_path).as_posix() for path in repository_files(tmp_path)}
    assert listed == {".gitignore", "tracked.txt", "new.txt"}


def test_no_shared_locomo_text_is_in_the_repository() -> None:
    root = shared_locomo()
    data = json.loads((root / "data" / "locomo10.json").read_text(encoding="utf-8"))
    distinctive: list[bytes] = []
    for item in data:
        texts = [
            t["text"] for n in range(1, 4) for t in item["conversation"].get(f"session_{n}", [])
        ]
        distinctive += [text.encode() for text in texts if len(text) > 80][:3]
        distinctive += [q["question"].encode() for q in item["qa"][:2]]
        distinctive += [
            t["blip_caption"].encode()
            for t in item["conversation"]["session_1"]
            if "blip_caption" in t
        ][:1]
    assert len(distinctive) > 40
    found: list[str] = []
    for path in repository_files():
        try:
            content = path.read_bytes()
        except OSError:  # listed by git but gone from the work tree (a deletion not committed)
            continue
        found += [f"{path}: {text[:40]!r}" for text in distinctive if text in content]
    assert not found, found
