"""CUE-Mem result directories (RQ1/RQ2 and RQ3) joined to their history file: turns with
media, QAs on the task x explicit/implicit axes, clue ids in three forms, and bad input
ending in one clear message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders_cuemem import (
    history,
    image_turn,
    qa,
    rq3_layout,
    rq3_row,
    rq12_row,
    text_turn,
    voice_turn,
    write_json,
)
from memscope.adapters import ReadOptions, detect, read_runs
from memscope.adapters.cuemem.dataset import ClueResolver, explicitness, split_options
from memscope.adapters.cuemem.run import extract_choice, history_names
from memscope.errors import DatasetError, RunDirError
from memscope.records import RoundRecord
from memscope.store import Store
from memscope.store.sql import rows, scalar
from memscope.usecases.runs import ingest_paths

REPO = Path(__file__).resolve().parents[2]
DEMO_MM = REPO / "runs" / "cue_mm"
DEMO_TEXT = REPO / "runs" / "cue_text"


def small_history(clue_of_q1: list[str] | None = None) -> dict:
    sessions = {
        "D00": [text_turn("D00:00"), image_turn("D00:01", "D00-001", "event/images/a.png")],
        "D01": [
            voice_turn("D01:00", "D01-001", "event/voice_mixed_000_002/x/v.wav"),
            text_turn("D01:01"),
        ],
    }
    qas = [
        qa("0-A-0", "pref_text", "explicit", "B", clue_of_q1 or ["D00:00"]),
        qa("0-A-1", "pref_img", "implicit", "A", ["D00-001.png"]),
        qa("0-B-2", "entity_text", "Items", "C", ["D01-001.wav"], entity_explicitness="explicit"),
    ]
    return history(sessions, qas)


# --- the demo fixture -------------------------------------------------------------------


def test_demo_rq3_run_reads_turns_media_and_items() -> None:
    (record,) = read_runs(DEMO_MM)
    assert detect(DEMO_MM).name == "cuemem"
    assert (record.run_id, record.benchmark, record.mode, record.retrieval_kind, record.top_k) == (
        "cue_mm:p0",
        "cuemem",
        "mcq",
        "ranked",
        5,
    )
    dataset = record.dataset
    assert dataset.task == "history_with_qa_p0" and len(dataset.questions) == 16
    turns = {r.round_id: r for r in dataset.rounds}
    voice = turns["D02:00"]
    assert (
        voice.audio_ids == ["D02-001"]
        and voice.background_audio == "birdsong and a dog barking close by"
    )
    assert voice.audio_files[0] and Path(voice.audio_files[0]).is_file()
    assert voice.user_text == voice.extra["user_voice_message_caption"] == voice.audio_captions[0]
    photo = turns["D01:02"]
    assert photo.image_ids == ["D01-002"] and Path(photo.image_files[0]).is_file()
    q = {question.qid: question for question in dataset.questions}
    assert q["q2"].clue_ids == ["D03-002.wav"] and q["q2"].clue_rounds == [
        "D03:01"
    ]  # voice id form
    assert q["q4"].clue_rounds == ["D00:02"]  # image id form
    assert q["q5"].clue_rounds == ["D00:00", "D00:01"]  # turn id form
    assert q["q16"].clue_rounds == ["D03:01"] and q["q16"].extra["unresolved_clues"] == [
        "D06-001.wav"
    ]
    assert [str(n) for n in dataset.notices] == [
        (
            f"{dataset.source_path}: 1 clue id(s) resolve to no turn of the history; they are ignored by the evidence "
            "metrics (e.g. q16:D06-001.wav)"
        )
    ]
    items = record.detail_tables["cue_retrieved_items"].to_pylist()
    assert {item["modality"] for item in items} == {"text", "image", "audio"}
    first = [
        (r["rank"], r["round_id"], r["score"])
        for r in record.retrievals.to_pylist()
        if r["qid"] == "q1"
    ]
    assert first[0] == (1, "D00:00", 0.0328)


def test_demo_qas_land_on_the_task_and_evidence_axes() -> None:
    (record,) = read_runs(DEMO_MM)
    axes = [(q.extra["task_group"], q.extra["explicitness"]) for q in record.dataset.questions]
    assert axes == [
        ("long_pattern", "explicit"),
        ("long_pattern", "implicit"),
        ("long_pattern", "explicit"),
        ("long_pattern", "implicit"),
        ("personalized_recommendation", "explicit"),
        ("personalized_recommendation", "implicit"),
        ("personalized_recommendation", "explicit"),
        ("personalized_recommendation", "implicit"),
        ("entity_recall", "explicit"),
        ("entity_recall", "explicit"),
        ("entity_recall", "explicit"),
        ("entity_recall", "implicit"),
        ("entity_recall", "implicit"),
        ("answer_refusal", "explicit"),
        ("answer_refusal", "implicit"),
        ("long_pattern", "implicit"),
    ]
    q13 = record.dataset.questions[12]
    assert q13.extra["explicitness_source"].startswith(
        "fallback"
    )  # Items without entity_explicitness
    q7 = record.dataset.questions[6]
    assert q7.options == {
        "A": "a lantern",
        "B": "a pendant lamp",
        "C": "a floor lamp",
        "D": "a desk lamp",
    }
    assert q7.question == "Which lamp would suit the user's living room best?"
    assert q7.extra["option_images"]["C"] == "qa/rec_images/0-Home-6_C.png"
    assert Path(q7.extra["option_image_files"]["C"]).is_file()


def test_demo_rq1_rq2_run_scores_the_answer_letter() -> None:
    (record,) = read_runs(DEMO_TEXT)
    assert (record.run_id, record.method, record.model, record.modality) == (
        "cue_text:history_with_qa_p0",
        "LTMemory",
        "gpt-5.4-mini",
        "text_only",
    )
    assert record.retrieval_kind == "ranked" and record.top_k == 10
    assert record.metrics["accuracy"]["__overall__"]["overall"]["correct"] == 8
    predictions = record.predictions.to_pylist()
    assert (
        sum(p["em"] for p in predictions) == 8
        and predictions[1]["choice"] == "A"
        and predictions[1]["em"] == 0.0
    )


def test_demo_runs_ingest_with_one_shared_dataset(store: Store) -> None:
    outcomes, failures = ingest_paths(store, [DEMO_MM, DEMO_TEXT], ReadOptions())
    assert not failures and [o.run_id for o in outcomes] == [
        "cue_mm:p0",
        "cue_text:history_with_qa_p0",
    ]
    with store.read() as con:
        assert scalar(con, "SELECT count(*) FROM datasets") == 1
        assert (
            scalar(con, "SELECT count(*) FROM cue_retrieved_items WHERE run_id = 'cue_mm:p0'") > 16
        )
        assert rows(con, "SELECT audio_ids FROM rounds WHERE round_id = 'D03:01'") == [
            (["D03-002"],)
        ]


# --- the pieces -------------------------------------------------------------------------


def test_clue_ids_in_three_forms_normalise_to_turns() -> None:
    turns = [
        RoundRecord("D15:00", "D15", 1, 1, audio_refs=["v/a.wav"], audio_ids=["D15-001"]),
        RoundRecord("D15:01", "D15", 2, 2, image_refs=["img/kitchen.png"], image_ids=["D15-002"]),
        RoundRecord("D16:00", "D16", 3, 1),
    ]
    clues = ClueResolver(turns)
    assert clues.resolve("D16:00") == ("D16:00", None)
    assert clues.resolve("D15-001.wav") == ("D15:00", None)
    assert clues.resolve("D15-002.png") == ("D15:01", None)
    assert clues.resolve("kitchen.png") == ("D15:01", None)  # the image file's own name
    assert clues.resolve("D16-001.wav") == ("D16:00", None)  # 1-based suffix fallback
    assert clues.resolve("D99:00") == (None, "unresolved")
    assert clues.resolve("D15-009.wav") == (None, "unresolved")
    assert clues.resolve("session 15, turn 1") == (None, "unknown form")


def test_explicitness_follows_the_rq3_evaluator() -> None:
    assert explicitness("pref_text", "implicit") == ("implicit", "qa_type")
    assert explicitness("entity_img", "Pets")[0] == "explicit"
    assert explicitness("entity_text", "Relationship")[0] == "explicit"
    assert explicitness("entity_text", "Items", "explicit") == ("explicit", "entity_explicitness")
    assert explicitness("entity_text", "Items", "mixed")[0] == "implicit"
    assert explicitness("refusal_text", "unanswerable", expression_type="implicit") == (
        "implicit",
        "expression_type",
    )
    assert explicitness("rec_img", "whatever")[0] == "unknown"


def test_options_are_split_from_the_question() -> None:
    stem, options = split_options(
        "Which?\nA. one\nB. two\nC. three\nD. four\nAnswer with a letter."
    )
    assert stem == "Which?" and options == {"A": "one", "B": "two", "C": "three", "D": "four"}
    assert split_options("No options here") == ("No options here", {})


def test_answer_letters_are_read_like_cue_mem_scores_them() -> None:
    assert [extract_choice(a) for a in ("B", "b) two", "The answer is C.", "", None)] == [
        "B",
        "B",
        "C",
        "",
        "",
    ]
    assert history_names("p2") == ["history_with_qa_p2.json", "p2.json"]
    assert history_names("history_with_qa_p0_sample5")[:3] == [
        "history_with_qa_p0_sample5.json",
        "history_with_qa_p0.json",
        "history_with_qa.json",
    ]


# --- finding the history file ------------------------------------------------------------


def test_rq3_layout_finds_the_profile_history_above_the_results(tmp_path: Path) -> None:
    data = small_history()
    rows_ = [rq3_row(entry, "B", ["D00:00"]) for entry in data["human-annotated QAs"]]
    run_dir = rq3_layout(tmp_path, data, rows_, variant="TT", model="aliyun_qwen")
    (record,) = read_runs(run_dir)
    assert (record.run_id, record.method, record.model, record.modality) == (
        "TT:p0",
        "TT",
        "aliyun_qwen",
        "text_only",
    )
    assert record.config["history_file"] == str(
        tmp_path / "RQ3" / "data" / "history_dialogue" / "history_with_qa_p0.json"
    )


def test_rq1_rq2_caption_variant_and_dataset_flag(tmp_path: Path) -> None:
    data = small_history()
    brief = json.loads(json.dumps(data))
    brief["multi_session_dialogues"][0]["dialogues"][1]["image_caption"] = ["brief caption"]
    write_json(data, tmp_path / "bench" / "data" / "dialog" / "history_with_qa_p0.json")
    write_json(brief, tmp_path / "bench" / "data" / "dialog" / "brief" / "history_with_qa_p0.json")
    run_dir = tmp_path / "bench" / "result_debug" / "brief" / "gpt-5.4-mini" / "LTMemory"
    rows_ = [rq12_row(entry, "B", ["D00:00"]) for entry in data["human-annotated QAs"]]
    write_json(rows_, run_dir / "history_with_qa_p0_sample5_results.json")
    (record,) = read_runs(run_dir)
    assert record.run_id == "LTMemory:history_with_qa_p0_sample5" and record.model == "gpt-5.4-mini"
    assert "brief" in record.config["history_file"]  # the caption variant of the result path
    flagged = read_runs(
        run_dir,
        ReadOptions(dataset=tmp_path / "bench" / "data" / "dialog" / "history_with_qa_p0.json"),
    )
    assert "brief" not in flagged[0].config["history_file"]
    with pytest.raises(DatasetError, match="--dataset holds no history file"):
        read_runs(run_dir, ReadOptions(dataset=tmp_path / "empty"))


def test_a_missing_history_lists_where_it_looked(tmp_path: Path) -> None:
    run_dir = tmp_path / "results" / "MM"
    write_json(
        [rq3_row(qa("0-A-0", "pref_text", "explicit", "B", []), "B", [])],
        run_dir / "p0_results.json",
    )
    with pytest.raises(DatasetError) as caught:
        read_runs(run_dir)
    message = str(caught.value)
    assert message.startswith(
        "cannot find the history file of this run (history_with_qa_p0.json); tried:"
    )
    assert f"\n    {run_dir / 'history_with_qa_p0.json'}\n" in message
    assert "more" in message  # every path tried is counted, the first ones listed
    assert message.rstrip().endswith(
        "Pass the history file (or a folder holding it) with --dataset PATH."
    )


def test_the_sources_file_points_at_the_history(tmp_path: Path) -> None:
    data = small_history()
    write_json(data, tmp_path / "elsewhere" / "history_with_qa_p0.json")
    run_dir = tmp_path / "run"
    write_json(
        [rq3_row(entry, "B", []) for entry in data["human-annotated QAs"]],
        run_dir / "p0_results.json",
    )
    write_json({"dataset": "../elsewhere"}, run_dir / "memscope_sources.json")
    assert len(read_runs(run_dir)[0].dataset.questions) == 3
    write_json({"datasets": "../elsewhere"}, run_dir / "memscope_sources.json")
    with pytest.raises(RunDirError, match="unknown key 'datasets' in memscope_sources.json"):
        read_runs(run_dir)


# --- bad input ---------------------------------------------------------------------------


def test_clue_ids_in_an_unknown_form_are_one_warning_or_refused_with_strict(tmp_path: Path) -> None:
    data = small_history(clue_of_q1=["D00:00", "turn 3 of day 1", "see session D01"])
    run_dir = rq3_layout(tmp_path, data, [rq3_row(e, "B", []) for e in data["human-annotated QAs"]])
    (record,) = read_runs(run_dir)
    messages = [str(n) for n in record.dataset.notices if "unknown form" in str(n)]
    assert messages == [
        (
            f"{record.dataset.source_path}: 2 clue id(s) are in an unknown form (expected a turn id like D15:00, a voice "
            "id like D15-001.wav or an image id like <image_id>.png); they are ignored (e.g. q1:turn 3 of day 1, "
            "q1:see session D01)"
        )
    ]
    assert record.dataset.questions[0].clue_rounds == ["D00:00"]
    with pytest.raises(
        DatasetError, match=r"2 clue id\(s\) are in an unknown form .* \(--strict\)"
    ):
        read_runs(run_dir, ReadOptions(strict=True))


def test_bad_records_are_skipped_by_position_or_refused_with_strict(tmp_path: Path) -> None:
    data = small_history()
    good = [rq3_row(e, "B", ["D00:00"]) for e in data["human-annotated QAs"]]
    broken = dict(good[1], correct="yes")
    run_dir = rq3_layout(
        tmp_path, data, [good[0], broken, good[2], "not a record", {"question": "no id"}]
    )
    (record,) = read_runs(run_dir)
    results = run_dir / "p0_results.json"
    assert [str(n) for n in record.notices] == [
        f"{results} [record 2]: field 'correct' must be true or false, got 'yes'; record skipped",
        f"{results} [record 4]: not a JSON object (a str); record skipped",
        f"{results} [record 5]: missing required field 'qa_id'; record skipped",
    ]
    assert record.predictions.num_rows == 2
    with pytest.raises(
        RunDirError,
        match=r"3 bad record\(s\) in the results file; nothing was ingested \(--strict\)",
    ):
        read_runs(run_dir, ReadOptions(strict=True))


def test_a_results_file_that_is_not_a_list_is_refused(tmp_path: Path) -> None:
    run_dir = tmp_path / "x"
    write_json({"accuracy": 1}, run_dir / "p0_results.json")
    with pytest.raises(RunDirError, match="not a CUE-Mem results file: expected a JSON list"):
        read_runs(run_dir)
    (run_dir / "p0_results.json").write_text("[{")
    with pytest.raises(RunDirError, match=r"not valid JSON: .*p0_results.json:1:"):
        read_runs(run_dir)


def test_the_wrong_history_file_is_refused(tmp_path: Path) -> None:
    data = small_history()
    other = history({"D00": [text_turn("D00:00")]}, [qa("9-Z-9", "pref_text", "explicit", "A", [])])
    run_dir = rq3_layout(tmp_path, data, [rq3_row(e, "B", []) for e in data["human-annotated QAs"]])
    wrong = write_json(other, tmp_path / "other" / "history_with_qa_p0.json")
    with pytest.raises(
        DatasetError, match="does not match this run: only 0 of 3 records name one of its QAs"
    ):
        read_runs(run_dir, ReadOptions(dataset=wrong))


def test_voice_and_item_views_for_the_app(store: Store) -> None:
    from memscope.triage.benchmark_views import load_retrieved_items, load_voice_turn
    from memscope.usecases.runs import ingest_dir

    outcome = ingest_dir(store, DEMO_MM, ReadOptions())
    with store.read() as con:
        dataset_id = rows(con, "SELECT dataset_id FROM runs WHERE run_id = ?", [outcome.run_id])[0][
            0
        ]
    voice = load_voice_turn(store, dataset_id, "D03:01")
    assert voice.transcript == "Let me think about what to order, I'll call you later."
    assert (
        voice.background_audio == "an espresso machine hissing and café chatter"
    )  # what captions leave out
    assert voice.voice_ids == ["D03-002"] and Path(voice.audio_files[0]).is_file()
    assert load_voice_turn(store, dataset_id, "D00:00") is None  # a text turn
    items = load_retrieved_items(store, outcome.run_id, "q2")
    audio_items = [item for item in items if item.modality == "audio"]
    assert audio_items and all(Path(item.file).is_file() for item in audio_items)
    assert items[0].turn_rank == 1 and items[0].query_source == "question"
