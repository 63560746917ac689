"""CUE-Mem result directories (RQ1/RQ2 and RQ3) joined to their history file: turns with
media, QAs on the task x explicit/implicit axes, clue ids in three forms, and bad input
ending in one clear message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders_cuemem import (
    accuracy_json,
    aggregated_group,
    history,
    human_submission,
    image_turn,
    qa,
    rq3_layout,
    rq3_row,
    rq12_row,
    text_turn,
    voice_turn,
    write_json,
    write_submission,
)
from memscope.adapters import ReadOptions, detect, find_run_dirs, read_runs
from memscope.adapters.cuemem.dataset import ClueResolver, explicitness, split_options
from memscope.adapters.cuemem.run import extract_choice, history_names
from memscope.adapters.upstream_summary import check_sentence
from memscope.errors import DatasetError, RunDirError
from memscope.records import RoundRecord
from memscope.store import Store
from memscope.store.sql import rows, scalar
from memscope.usecases.runs.ingest import ingest_paths

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
    # Recognised by content, not by its name (issue 38): no reader claims it, and the
    # message names what each one looked for.
    with pytest.raises(RunDirError, match=r"not a run directory: .*CUE-Mem .*mem0 evals.py"):
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


# --- what upstream's own tools write beside the runs (upstream-formats §3.6) --------------


def refusal_history(expression_type: str | None = "explicit") -> dict:
    """Four QAs: pref explicit / implicit, an entity Relationship and a refusal QA."""
    refusal = qa("0-C-3", "refusal_text", "unanswerable", "D", [])
    if expression_type:
        refusal["expression_type"] = expression_type
    qas = [
        qa("0-A-0", "pref_text", "explicit", "B", ["D00:00"]),
        qa("0-A-1", "pref_text", "implicit", "A", ["D00:00"]),
        qa("0-B-2", "entity_text", "Relationship", "C", ["D00:00"]),
        refusal,
    ]
    return history({"D00": [text_turn("D00:00")]}, qas)


ANSWERS = {"0-A-0": "B", "0-A-1": "B", "0-B-2": "C", "0-C-3": "A"}  # right, wrong, right, wrong


def rq12_grid(
    bench: Path, data: dict, *, root: str = "result_debug_trimmed", llm: str = "gpt-5.4-mini"
) -> Path:
    """``bench/<root>/base/<llm>/LTMemory/`` with the profile's results and accuracy file,
    the history in ``bench/data/dialog/base/``; returns the run folder."""
    write_json(data, bench / "data" / "dialog" / "base" / "history_with_qa_p0.json")
    entries = data["human-annotated QAs"]
    rows_ = [rq12_row(e, ANSWERS[e["qa_id"]]) for e in entries]
    run_dir = bench / root / "base" / llm / "LTMemory"
    write_json(rows_, run_dir / "history_with_qa_p0_results.json")
    write_json(accuracy_json(entries, rows_), run_dir / "history_with_qa_p0_accuracy.json")
    return run_dir


# aggregate_results.py over that folder: pref_text counts its two rows (explicit 1/1,
# implicit 0/1); the refusal category has an 'unknown' bucket and no 'explicit' one, so the
# entity category is recounted from the whole file (4 rows, 2 right; the Relationship row is
# explicit 1/1); the refusal row counts 0/1 overall and explicit (its expression_type).
UPSTREAM_GROUP = {"explicit": (2, 3), "implicit": (0, 1), "overall": (3, 7)}


def test_aggregated_summaries_are_never_runs(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    run_dir = rq12_grid(bench, refusal_history())
    scanned = run_dir.parent.parent
    names = (
        "aggregated_accuracy.json",
        "aggregated_accuracy_entity_text.json",
        "aggregated_question_only.json",
        "aggregated_by_caption.json",
        "aggregated_by_audio_caption.json",
        "aggregated_results.json",
    )
    for folder in (scanned, run_dir):
        for name in names:
            write_json({"groups": []} if "accuracy" in name else {"x": 1}, folder / name)
    (record,) = read_runs(run_dir)
    assert record.run_id == "LTMemory:history_with_qa_p0"
    assert record.predictions.num_rows == 4
    assert find_run_dirs(bench) == [run_dir]
    with pytest.raises(RunDirError, match="not a run directory"):
        detect(scanned)  # a folder of summaries alone holds no run


def test_an_aggregated_group_is_checked_against_the_rows_it_names(tmp_path: Path) -> None:
    run_dir = rq12_grid(tmp_path / "bench", refusal_history())
    scanned = run_dir.parent.parent
    summary = write_json(
        {
            "groups": [
                aggregated_group("gpt-5.4-mini", "LTMemory", **UPSTREAM_GROUP),
                aggregated_group("qwen3.6-35b-a3b", "LTMemory", **UPSTREAM_GROUP),
            ]
        },
        scanned / "aggregated_accuracy.json",
    )
    (record,) = read_runs(run_dir)
    check = record.metrics["upstream_check"]
    assert check["files"] == [str(run_dir / "history_with_qa_p0_accuracy.json"), str(summary)]
    assert check["agrees"] is True and check["differences"] == []
    assert check["groups"] == ["gpt-5.4-mini/LTMemory"]
    (defect,) = [n for n in record.notices if "counts 7 answers for 4 QAs" in n.what]
    assert defect.where == str(summary) and "1 results file(s) again" in defect.what
    unmatched = [n for n in record.notices if "name no results folder here" in n.what]
    assert [(n.where, n.what) for n in unmatched] == [
        (
            str(summary),
            "1 group(s) name no results folder here, so they were "
            "not cross-checked: qwen3.6-35b-a3b/LTMemory",
        )
    ]
    assert check_sentence(check).startswith(
        "agrees with upstream's summaries history_with_qa_p0_accuracy.json and "
        "aggregated_accuracy.json"
    )
    # One count off: the difference names the file, the group and the count.
    wrong = {**UPSTREAM_GROUP, "overall": (3, 8)}
    write_json({"groups": [aggregated_group("gpt-5.4-mini", "LTMemory", **wrong)]}, summary)
    (record,) = read_runs(run_dir)
    assert record.metrics["upstream_check"]["agrees"] is False
    assert record.metrics["upstream_check"]["differences"] == [
        {
            "field": "aggregated_accuracy.json: gpt-5.4-mini/LTMemory overall.total",
            "upstream": 8,
            "recomputed": 7,
        }
    ]
    assert any("overall.total: upstream 8, recomputed 7" in n.what for n in record.notices)
    # A changed summary is a changed run (it counts in the content hash).
    first = read_runs(run_dir)[0].content_hash
    write_json(
        {"groups": [aggregated_group("gpt-5.4-mini", "LTMemory", **UPSTREAM_GROUP)]}, summary
    )
    assert read_runs(run_dir)[0].content_hash != first


def test_a_second_aggregate_run_that_read_its_own_output_is_named(tmp_path: Path) -> None:
    run_dir = rq12_grid(tmp_path / "bench", refusal_history())
    scanned = run_dir.parent.parent
    # The second run found aggregated_accuracy.json directly in base/ and so took base/
    # for one result set: one empty group named after the folder.
    zero = {"explicit": (0, 0), "implicit": (0, 0), "overall": (0, 0)}
    write_json(
        {"groups": [aggregated_group("base", "__single__", **zero)]},
        scanned / "aggregated_accuracy.json",
    )
    (record,) = read_runs(run_dir)
    assert "files" not in record.metrics["upstream_check"]  # only its own accuracy file
    summary = str(scanned / "aggregated_accuracy.json")
    (notice,) = [n for n in record.notices if n.where == summary]
    assert "group base/__single__ names this file's own folder" in notice.what
    assert "second aggregate_results.py run" in notice.what


def test_a_folder_scanned_by_itself_and_a_category_summary(tmp_path: Path) -> None:
    data = refusal_history()
    run_dir = rq12_grid(tmp_path / "bench", data)
    entity = [e for e in data["human-annotated QAs"] if e["point"] == "entity_text"]
    rows_ = [rq12_row(e, ANSWERS[e["qa_id"]]) for e in entity]
    write_json(rows_, run_dir / "history_with_qa_p0_entity_text_results.json")
    write_json(
        accuracy_json(entity, rows_), run_dir / "history_with_qa_p0_entity_text_accuracy.json"
    )
    # aggregate_results --result-dir .../LTMemory: the folder holds accuracy files itself, so
    # it is one "__single__" result set named after it; one group per file-name category.
    write_json(
        {
            "groups": [
                aggregated_group("LTMemory", "__single__", **UPSTREAM_GROUP),
                aggregated_group(
                    "LTMemory",
                    "__single__",
                    category="entity_text",
                    explicit=(1, 1),
                    implicit=(0, 0),
                    overall=(1, 1),
                ),
            ]
        },
        run_dir / "aggregated_accuracy.json",
    )
    records = {r.run_id: r for r in read_runs(run_dir)}
    assert sorted(records) == [
        "LTMemory:history_with_qa_p0",
        "LTMemory:history_with_qa_p0_entity_text",
    ]
    whole = records["LTMemory:history_with_qa_p0"].metrics["upstream_check"]
    part = records["LTMemory:history_with_qa_p0_entity_text"].metrics["upstream_check"]
    assert whole["agrees"] is part["agrees"] is True
    assert whole["groups"] == ["LTMemory/__single__"]
    assert part["groups"] == ["LTMemory/__single__ [entity_text]"]
    assert part["checked"] == 2 * 3 + 6  # entity_text and __overall__ of its own file; 6 counts


def test_refusals_without_an_expression_type_leave_explicit_implicit_out(tmp_path: Path) -> None:
    run_dir = rq12_grid(tmp_path / "bench", refusal_history(expression_type=None))
    # Upstream labels the refusal row from its own adversarial QA file: whatever it says,
    # the overall counts are the same.
    write_json(
        {"groups": [aggregated_group("gpt-5.4-mini", "LTMemory", **UPSTREAM_GROUP)]},
        run_dir.parent.parent / "aggregated_accuracy.json",
    )
    (record,) = read_runs(run_dir)
    check = record.metrics["upstream_check"]
    assert check["agrees"] is True
    assert any("carry no expression_type" in s for s in check["surprises"])
    own = 2 * 3 + 3 * 3  # three categories and __overall__ in its accuracy file
    assert check["checked"] == own - 3 + 2  # … and overall.correct / overall.total


# --- the result roots of RQ1/RQ2 ---------------------------------------------------------


def test_every_result_root_reads_and_two_roots_are_two_runs(tmp_path: Path, store: Store) -> None:
    bench = tmp_path / "bench"
    data = refusal_history()
    debug = rq12_grid(bench, data, root="result_debug")
    trimmed = rq12_grid(bench, data, root="result_debug_trimmed")
    judged = rq12_grid(bench, data, root="result_debug_llm_as_judge")
    rows_ = [rq12_row(e, "A") for e in data["human-annotated QAs"]]
    question_only = bench / "result_question_only" / "base" / "gpt-5.4-mini" / "run1"
    write_json(rows_, question_only / "history_with_qa_p0_results.json")
    oracle = bench / "result_oracle_evidence" / "base" / "qwen3.6-35b-a3b"
    write_json(rows_, oracle / "history_with_qa_p0_results.json")
    outcomes, failures = ingest_paths(store, [bench], ReadOptions())
    assert not failures
    ids = {o.run_id: o for o in outcomes}
    assert sorted(ids) == sorted(
        [
            "result_debug/base/gpt-5.4-mini/LTMemory:history_with_qa_p0",
            "result_debug_trimmed/base/gpt-5.4-mini/LTMemory:history_with_qa_p0",
            "result_debug_llm_as_judge/base/gpt-5.4-mini/LTMemory:history_with_qa_p0",
            "run1:history_with_qa_p0",
            "qwen3.6-35b-a3b:history_with_qa_p0",
        ]
    )
    with store.read() as con:
        described = {
            run_id: (model, method, kind, json.loads(config)["result_root"])
            for run_id, model, method, kind, config in rows(
                con, "SELECT run_id, model, method, retrieval_kind, config FROM runs"
            )
        }
    assert described["run1:history_with_qa_p0"] == (
        "gpt-5.4-mini",
        "question_only",
        "none",
        "result_question_only",
    )
    assert described["qwen3.6-35b-a3b:history_with_qa_p0"] == (
        "qwen3.6-35b-a3b",
        "oracle_evidence",
        "context",
        "result_oracle_evidence",
    )
    for folder in (debug, trimmed, judged):
        run_id = f"{folder.relative_to(bench).as_posix()}:history_with_qa_p0"
        assert described[run_id][:2] == ("gpt-5.4-mini", "LTMemory")
        (pooled,) = [n.what for n in ids[run_id].notices if "would pool them" in n.what]
        assert pooled.startswith("gpt-5.4-mini/LTMemory also has results under ")
    assert not [n for n in ids["run1:history_with_qa_p0"].notices if "pool" in n.what]


# --- the human baseline ------------------------------------------------------------------

APP_DATA = "RQ1_RQ2/benchmark/data/dialog/base/history_with_qa_p0.json"
"""The app's default --data, relative to its project root (what it writes as data_file)."""


def human_project(tmp_path: Path) -> tuple[Path, list[dict], Path]:
    """A checkout with the history at the app's default and its results folder; returns the
    project root, the QAs and the app's output folder."""
    project = tmp_path / "project"
    data = refusal_history()
    write_json(data, project / APP_DATA)
    return project, data["human-annotated QAs"], project / "human_baseline_demo" / "results"


def test_human_submissions_are_runs_joined_to_their_history(tmp_path: Path) -> None:
    _project, entries, output = human_project(tmp_path)
    right = {(e["point"], e["qa_id"]): e["answer"] for e in entries}
    alice = dict(right)
    del alice[("refusal_text", "0-C-3")]  # left unanswered
    bob = {**right, ("pref_text", "0-A-0"): "D"}
    first = write_submission(
        output,
        human_submission(entries, alice, participant="alice", data_file=APP_DATA),
        1767000000,
    )
    write_submission(
        output, human_submission(entries, bob, participant="bob", data_file=APP_DATA), 1767000100
    )
    variant = first.parent
    assert detect(variant).name == "cuemem"
    records = read_runs(variant)
    assert [r.run_id for r in records] == [
        "full_multimodal:1767000000_alice",
        "full_multimodal:1767000100_bob",
    ]
    alice_run = records[0]
    assert (
        alice_run.model,
        alice_run.method,
        alice_run.base_method,
        alice_run.modality,
        alice_run.retrieval_kind,
    ) == (None, "human_full_multimodal", "human", "multimodal", "context")
    assert alice_run.config["history_file"] == str((_project / APP_DATA).resolve())
    assert alice_run.config["participant"] == "alice"
    predictions = {p["qid"]: p for p in alice_run.predictions.to_pylist()}
    assert [predictions[q]["em"] for q in ("q1", "q2", "q3", "q4")] == [1.0, 1.0, 1.0, 0.0]
    assert predictions["q4"]["pred"] == "" and predictions["q4"]["choice"] is None
    assert any("1 of 4 QAs were left unanswered" in n.what for n in alice_run.notices)
    check = alice_run.metrics["upstream_check"]
    assert check["agrees"] is True and check["checked"] == 5  # total … answered_accuracy
    assert [p["em"] for p in records[1].predictions.to_pylist()] == [0.0, 1.0, 1.0, 1.0]


def test_a_human_submission_answers_the_same_qas_as_a_model_run(
    tmp_path: Path, store: Store
) -> None:
    project, entries, output = human_project(tmp_path)
    right = {(e["point"], e["qa_id"]): e["answer"] for e in entries}
    for name, variant, ts in (
        ("alice", "full_multimodal", 1),
        ("bob", "full_multimodal", 2),
        ("carol", "oracle_text", 3),
    ):
        submission = human_submission(
            entries, right, participant=name, variant=variant, data_file=APP_DATA
        )
        write_submission(output, submission, 1767000000 + ts)
    rq12_grid(project / "RQ1_RQ2" / "benchmark", refusal_history(), root="result_debug")
    outcomes, failures = ingest_paths(store, [project], ReadOptions())
    assert not failures
    ids = sorted(o.run_id for o in outcomes)
    assert ids == [
        "LTMemory:history_with_qa_p0",
        "full_multimodal:1767000001_alice",
        "full_multimodal:1767000002_bob",
        "oracle_text:1767000003_carol",
    ]
    from memscope.usecases.compare.pairs import compare_runs
    from memscope.usecases.runs.loading import load_run
    from memscope.usecases.table.build import build_table

    compared = compare_runs(
        store, "LTMemory:history_with_qa_p0", "full_multimodal:1767000001_alice", resamples=50
    )
    assert compared["matched"] == 4
    assert compared["transitions"]["fixed"]["n"] == 2  # the two QAs the model got wrong
    table = build_table([load_run(store, run_id) for run_id in ids]).to_json()
    rows_ = {row["label"]: row for row in table["rows"]}
    assert list(rows_) == [
        "gpt-5.4-mini · NaiveRAG",
        "Human (Full Multimodal)",
        "Human (Oracle Text)",
    ]
    humans = rows_["Human (Full Multimodal)"]
    assert humans["runs"] == ["full_multimodal:1767000001_alice", "full_multimodal:1767000002_bob"]
    assert humans["n_questions"] == 8 and humans["cells"]["all"]["value"] == 1.0
    assert humans["group"] == {"model": None, "method": "human_full_multimodal"}
    assert humans["display_group"]["method"] == "Human (Full Multimodal)"
    assert rows_["gpt-5.4-mini · NaiveRAG"]["group"]["method"] == "LTMemory"


def test_bad_human_submissions_end_in_one_clear_message(tmp_path: Path) -> None:
    project, entries, output = human_project(tmp_path)
    right = {(e["point"], e["qa_id"]): e["answer"] for e in entries}
    good = write_submission(
        output, human_submission(entries, right, participant="alice", data_file=APP_DATA), 1
    )
    broken = good.parent / "2_bob.json"
    broken.write_text('{"participant": "bob", "details": [')
    with pytest.raises(RunDirError, match=r"not valid JSON: .*2_bob.json"):
        read_runs(good.parent)
    broken.unlink()
    (project / APP_DATA).unlink()
    with pytest.raises(DatasetError, match=r"cannot find the history file of this run"):
        read_runs(good.parent)
    other = history({"D00": [text_turn("D00:00")]}, [qa("9-Z-9", "pref_text", "explicit", "A", [])])
    wrong = write_json(other, tmp_path / "other" / "history_with_qa_p0.json")
    with pytest.raises(DatasetError, match="does not match this submission: only 0 of 4"):
        read_runs(good.parent, ReadOptions(dataset=wrong))
    write_json({"participant": "x", "variant": "full_text", "details": []}, good)
    with pytest.raises(RunDirError, match=r"'details' is empty"):
        read_runs(good.parent)
