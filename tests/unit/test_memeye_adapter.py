"""Reading real MemEye runner output and hand-built variants into records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import dialog, open_row, qa, write_run
from memeye_oracle import coordinate, read_memeye_dataset
from memscope.adapters import ReadOptions, detect, find_run_dirs, read_run
from memscope.errors import DatasetError, RunDirError
from memscope.identity import question_key
from memscope.store import Store
from memscope.usecases.runs.ingest import ingest_dir
from support import UPSTREAM_RUNS, upstream_run


def dataset_of(run_dir: Path, options: ReadOptions | None = None):
    """The dataset records of a run, read with the Python oracle (tests/memeye_oracle.py)."""
    source = read_run(run_dir, options).dataset
    dialog = Path(source.source_path)
    return read_memeye_dataset(
        dialog, Path(source.media_root) if source.media_root else None, source.task
    )


def test_finds_every_upstream_run_dir() -> None:
    found = find_run_dirs(UPSTREAM_RUNS.parent)
    assert len(found) == 10
    assert all((path / "predictions.jsonl").is_file() for path in found)


def test_reads_semantic_rag_run_with_dataset_from_another_machine() -> None:
    record = read_run(upstream_run("semantic_rag_text_only", "open"))
    # metrics.json says /home/researcher/MemEye/...; the dataset is found in the repo layout.
    assert record.dataset.source_path.endswith("data/dialog/Kitchen_Renovation_Open.json")
    assert record.task == "kitchen_renovation"
    assert record.method == "semantic_rag_text_only"
    assert record.modality == "text_only"
    assert record.top_k == 5
    assert record.retrieval_kind == "ranked"
    assert record.config["model"]["api_key"] == "***"
    assert "sk-stub-key-not-real" not in json.dumps(record.config)


@pytest.mark.parametrize(
    ("name_part", "kind"),
    [
        ("full_context_text_only", "context"),
        ("clue_only_context", "context"),
        ("question_only", "none"),
    ],
)
def test_retrieval_kind_per_method(name_part: str, kind: str) -> None:
    assert read_run(upstream_run(name_part, "mcq")).retrieval_kind == kind


def test_dataset_rounds_questions_and_images() -> None:
    dataset = dataset_of(upstream_run("full_context_multimodal", "mcq"))
    assert [s.session_id for s in dataset.sessions] == ["K1", "K2", "K3", "K4", "K5", "K6"]
    assert [r.position for r in dataset.rounds] == list(range(1, 12))
    first = dataset.rounds[0]
    assert first.round_id == "K1:1" and first.image_ids == ["kitchen_before"]
    assert first.image_files[0] and Path(first.image_files[0]).name == "kitchen_before.png"
    assert first.image_captions == [
        "A kitchen with white lower cabinets and a window above the counter."
    ]
    q1 = dataset.questions[0]
    assert (q1.qid, q1.x, q1.y, q1.mode) == ("q1", "X4", "Y3", "mcq")
    assert q1.clue_rounds == ["K2:1", "K3:1", "K5:1"]
    assert q1.source_sessions == ["K2", "K3", "K5"]
    assert len(q1.options) == 4


def test_question_key_matches_across_variants_of_the_same_mode() -> None:
    a = dataset_of(upstream_run("semantic_rag_text_only", "mcq")).questions
    b = dataset_of(upstream_run("question_only", "mcq")).questions
    assert [q.question_key for q in a] == [q.question_key for q in b]
    open_keys = dataset_of(upstream_run("question_only", "open")).questions
    # An open twin is scored differently, so it is a different item.
    assert a[0].question_key != open_keys[0].question_key
    assert question_key("T", "open", "What  colour?\n") == question_key("t", "open", "What colour?")


def test_highest_bottleneck_coordinate() -> None:
    assert coordinate(["X2", "X4", "X1"], "X") == "X4"
    assert coordinate([], "Y") is None


def test_dataset_override_file_and_folder(upstream_copy: Path, tmp_path: Path) -> None:
    run_dir = (
        upstream_copy / "runs" / "kitchen_renovation" / upstream_run("question_only", "open").name
    )
    moved = tmp_path / "elsewhere"
    (upstream_copy / "data").rename(moved)
    with pytest.raises(DatasetError) as excinfo:
        read_run(run_dir)
    message = str(excinfo.value)
    assert "/home/researcher/MemEye/data/dialog/Kitchen_Renovation_Open.json" in message
    assert "--dataset" in message
    explicit = ReadOptions(dataset=moved / "dialog" / "Kitchen_Renovation_Open.json")
    assert read_run(run_dir, explicit).dataset.source_path == str(
        moved / "dialog" / "Kitchen_Renovation_Open.json"
    )
    # A folder of dialog files: the run's file is picked by name.
    folder = ReadOptions(dataset=moved)
    assert read_run(run_dir, folder).dataset.source_path.endswith("Kitchen_Renovation_Open.json")
    # Images are looked for beside the moved dialog folder.
    assert all(f for r in dataset_of(run_dir, folder).rounds for f in r.image_files)


def test_missing_images_are_recorded_not_fatal(upstream_copy: Path, store: Store) -> None:
    (upstream_copy / "data" / "image" / "Kitchen_Renovation" / "swatch_clay.png").unlink()
    run_dir = (
        upstream_copy / "runs" / "kitchen_renovation" / upstream_run("question_only", "open").name
    )
    clay = next(r for r in dataset_of(run_dir).rounds if r.round_id == "K5:1")
    assert clay.image_files == [None]
    outcome = ingest_dir(store, run_dir, ReadOptions())
    assert any("1 image file(s) are missing" in str(n) for n in outcome.notices)


def test_media_path_outside_the_dataset_is_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"not yours")
    data = dialog(
        {"D1": ["D1:1"]},
        [qa("q?", "a", [["X1"], ["Y1"]], ["D1:1"])],
        images={"D1:1": ["../../secret.png"]},
    )
    run_dir = write_run(tmp_path / "runs" / "r", data, [open_row(1, data)])
    assert dataset_of(run_dir).rounds[0].image_files == [None]
    outcome = ingest_dir(Store(tmp_path / "s.duckdb"), run_dir, ReadOptions())
    assert any("outside the dataset folder" in str(n) for n in outcome.notices)


def test_empty_and_fake_images_are_recorded_as_unusable(upstream_copy: Path, store: Store) -> None:
    images = upstream_copy / "data" / "image" / "Kitchen_Renovation"
    (images / "swatch_clay.png").write_bytes(b"")
    (images / "swatch_sage.png").write_text("this is not a PNG")
    run_dir = (
        upstream_copy / "runs" / "kitchen_renovation" / upstream_run("question_only", "open").name
    )
    files = {r.round_id: r.image_files for r in dataset_of(run_dir).rounds}
    assert files["K5:1"] == [None] and files["K2:1"] == [None] and files["K1:1"] != [None]
    text = " | ".join(str(n) for n in ingest_dir(store, run_dir, ReadOptions()).notices)
    assert (
        "1 image file(s) are empty (0 bytes)" in text
        and "1 image file(s) are not image files" in text
    )


def test_unknown_clue_ids_are_warned_with_count_and_examples(tmp_path: Path) -> None:
    data = dialog(
        {"D1": ["D1:1", "D1:2"]},
        [
            qa("a?", "a", [["X1"], ["Y1"]], ["D1:1", "D9:9"]),
            qa("b?", "b", [["X1"], ["Y1"]], ["D7:1"]),
        ],
    )
    run_dir = write_run(tmp_path / "runs" / "r", data, [open_row(1, data), open_row(2, data)])
    outcome = ingest_dir(Store(tmp_path / "s.duckdb"), run_dir, ReadOptions())
    notice = next(n for n in outcome.notices if "clue id" in n.what)
    assert notice.what.startswith("2 clue id(s)")
    assert notice.examples == ("q1:D9:9", "q2:D7:1")
    assert dataset_of(run_dir).questions[0].clue_rounds == ["D1:1"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "not valid JSON"),
        ("", "empty"),
        ('{"something": []}', "no 'multi_session_dialogues'"),
        ('{"multi_session_dialogues": []}', "no QA list"),
    ],
)
def test_malformed_dialog_json(tmp_path: Path, content: str, expected: str) -> None:
    data = dialog({"D1": ["D1:1"]}, [qa("q?", "a", [["X1"], ["Y1"]], ["D1:1"])])
    run_dir = write_run(tmp_path / "runs" / "r", data, [open_row(1, data)])
    (tmp_path / "runs" / "data" / "dialog" / "Task.json").write_text(content)
    with pytest.raises(DatasetError, match=expected):
        read_memeye_dataset(tmp_path / "runs" / "data" / "dialog" / "Task.json", None)
    store = Store(tmp_path / "s.duckdb")
    with pytest.raises(DatasetError, match=expected):
        ingest_dir(store, run_dir, ReadOptions())
    from memscope.store.sql import scalar

    with store.read() as con:
        assert scalar(con, "SELECT count(*) FROM datasets") == 0


def test_not_a_run_dir(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="not a run directory"):
        detect(tmp_path)
    with pytest.raises(RunDirError, match="no such file"):
        detect(tmp_path / "missing")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(RunDirError, match="not a directory"):
        detect(tmp_path / "file.txt")


def test_symlink_loop_does_not_trap_the_search(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "loop").symlink_to(tmp_path / "a", target_is_directory=True)
    assert find_run_dirs(tmp_path) == []
