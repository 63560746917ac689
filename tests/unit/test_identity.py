"""The two readers of a MemEye dataset agree: Python records and the store's SQL loader.

The Python oracle (``tests/memeye_oracle.py``, with ``identity.question_key``) is the
definition of the rules; the SQL loader (``store/loaders/memeye_dataset.py``) is the fast
re-statement and is held equal to it here: on hand-picked tricky questions, on random mixes
of every rule's inputs, and, for the whitespace rule, on every Unicode code point.

Ingest and the memory engine derive questions in SQL (question lists reach tens of
thousands); the oracle states the rules one question at a time. Every question column must
come out the same both ways,
including the question key (its whitespace rule is re-implemented as an RE2 class).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import dialog, open_row, qa, write_run
from memeye_oracle import read_memeye_dataset
from memscope.adapters import ReadOptions, read_run
from memscope.identity import qid_for, question_key
from memscope.store import Store
from memscope.store.sql import rows
from memscope.usecases.runs.ingest import ingest_dir
from support import UPSTREAM_RUNS

FIXTURE_RUN = Path(__file__).parents[2] / "runs" / "srag_v"
COLUMNS = (
    "qid",
    "idx",
    "question_key",
    "task",
    "question",
    "gold",
    "mode",
    "x",
    "y",
    "x_labels",
    "y_labels",
    "options",
    "clue_ids",
    "clue_rounds",
    "source_sessions",
    "question_images",
)


def stored_questions(store: Store, dataset_id: str) -> list[dict]:
    with store.read() as con:
        found = rows(
            con,
            f"SELECT {', '.join(COLUMNS)} FROM questions WHERE dataset_id = ? ORDER BY idx",
            [dataset_id],
        )
    result = []
    for row in found:
        record = dict(zip(COLUMNS, row, strict=True))
        record["options"] = json.loads(record["options"]) if record["options"] else None
        result.append(record)
    return result


def python_questions(run_dir: Path) -> tuple[str, list[dict]]:
    source = read_run(run_dir).dataset
    dataset = read_memeye_dataset(
        Path(source.source_path),
        Path(source.media_root) if source.media_root else None,
        source.task,
    )
    assert dataset.dataset_id == source.dataset_id
    return source.dataset_id, [
        {name: getattr(q, name) for name in COLUMNS} for q in dataset.questions
    ]


def assert_same(store: Store, run_dir: Path) -> None:
    ingest_dir(store, run_dir, ReadOptions())
    dataset_id, expected = python_questions(run_dir)
    assert stored_questions(store, dataset_id) == expected


def tricky_dataset() -> dict:
    questions = [
        qa("What  colour\twas\nthe  mug?", "blue", [["X2", "X4"], ["Y1"]], ["D1:1"], ["D1"]),
        qa(
            "\u00a0Non-breaking\u3000spaces\x1cand a\x0bvertical tab ",
            7,
            [["X1"], ["Y3", "Y2"]],
            ["D1:2", "D2:1"],
        ),
        qa("String clue?", "x", [["X3"], ["Y1"]], "D2:1"),
        qa("Unknown clue?", "x", [["X1"], ["Y2"]], ["D9:9", "D2:2", "D1:1"]),
        qa("No point?", "x", None, ["D1:1"]),
        qa("Empty point?", "x", [], ["D1:1"]),
        qa("Bad labels?", "x", [["Z9", " X3 "], ["Yx"]], ["D1:1"]),
        qa("Legacy options?", "A", [["X1"], ["Y1"]], ["D1:1"], options={"A": "one", "B": "two"}),
        qa("Empty options?", "A", [["X1"], ["Y1"]], ["D1:1"], options={}),
        qa(
            "Rotations?",
            "one",
            [["X1"], ["Y1"]],
            ["D2:2"],
            options=[{"A": "one", "B": "two", "answer": "A"}],
        ),
    ]
    questions[2]["question_image"] = "image/q.png"
    questions[3]["question_images"] = ["image/a.png", "image/b.png"]
    data = dialog({"D1": ["D1:1", "D1:2"], "D2": ["D2:1", "D2:2"]}, questions)
    data["human-annotated QAs"].insert(5, "not an object")
    return data


def test_tricky_questions_agree(store: Store, tmp_path: Path) -> None:
    data = tricky_dataset()
    run_dir = write_run(tmp_path / "runs" / "r", data, [open_row(1, data)])
    assert_same(store, run_dir)
    _dataset_id, expected = python_questions(run_dir)
    by_qid = {q["qid"]: q for q in expected}
    # The rules themselves, spelled out once.
    assert by_qid["q1"]["x"] == "X4" and by_qid["q1"]["question_key"] == question_key(
        "test_task", "open", "What colour was the mug?"
    )
    assert by_qid["q2"]["y"] == "Y3" and by_qid["q2"]["source_sessions"] == ["D1", "D2"]
    assert by_qid["q3"]["clue_ids"] == ["D2:1"] and by_qid["q3"]["question_images"] == [
        "image/q.png"
    ]
    assert by_qid["q4"]["clue_rounds"] == ["D2:2", "D1:1"] and by_qid["q4"]["source_sessions"] == [
        "D2",
        "D1",
    ]
    assert by_qid["q6"]["x"] is None  # the non-object entry
    assert by_qid["q8"]["x_labels"] == ["X3"] and by_qid["q8"]["y_labels"] == []
    assert [by_qid[q]["mode"] for q in ("q9", "q10", "q11")] == ["mcq", "open", "mcq"]
    assert qid_for(11) == "q11"


def test_upstream_samples_agree(store: Store) -> None:
    for run_dir in sorted(UPSTREAM_RUNS.iterdir())[:2]:
        assert_same(store, run_dir)


@pytest.mark.skipif(not FIXTURE_RUN.is_dir(), reason="demo runs not generated")
def test_demo_fixture_agrees(store: Store) -> None:
    assert_same(store, FIXTURE_RUN)


def test_the_sql_whitespace_class_is_exactly_pythons_split_over_all_of_unicode() -> None:
    """The question key's rule is Python's (``identity.question_key``: ``str.split()``);
    the store's SQL re-states it as ``WHITESPACE_PATTERN``. Checked for every code point."""
    import duckdb

    from memscope.identity import WHITESPACE_PATTERN

    surrogates = range(0xD800, 0xE000)
    python = {
        cp for cp in range(0x110000) if cp not in surrogates and len(f"a{chr(cp)}b".split()) == 2
    }
    con = duckdb.connect()
    try:
        found = con.execute(
            "SELECT range FROM range(0, 1114112) "
            "WHERE (range < 55296 OR range > 57343) AND regexp_matches(chr(range::INTEGER), ?)",
            [WHITESPACE_PATTERN],
        ).fetchall()
    finally:
        con.close()
    assert {row[0] for row in found} == python


LABELS = ("X1", "X2", "X3", "X4", "Y1", "Y2", "Y3", " X2 ", "Z9", "Yx", "", "x1")
SPACES = (" ", "  ", "\t", "\n", "\u00a0", "\u3000", "\x1c", "\x0b", "\u2028", "\u200b", "")
CLUES = ("D1:1", "D1:2", "D2:1", "D2:2", "D9:9")


@st.composite
def qa_entries(draw: st.DrawFn) -> dict:
    """One QA with a random mix of what the rules decide on: the question's whitespace,
    the X/Y labels (valid, padded, unknown), the clue form, the options form and images."""
    words = draw(st.lists(st.sampled_from(("What", "colour", "mug", "?", "é", "漢")), max_size=4))
    text = "".join(draw(st.sampled_from(SPACES)) + word for word in words)
    text += draw(st.sampled_from(SPACES))
    point = draw(
        st.one_of(
            st.none(),
            st.lists(st.lists(st.sampled_from(LABELS), max_size=3), max_size=2),
        )
    )
    clues = draw(st.lists(st.sampled_from(CLUES), max_size=3))
    clue: object = clues[0] if clues and draw(st.booleans()) else clues
    options = draw(
        st.sampled_from(
            (None, {}, {"A": "one", "B": "two"}, [{"A": "one", "B": "two", "answer": "B"}])
        )
    )
    entry = qa(text, "one", point, clue, options=options)  # type: ignore[arg-type]
    images = draw(st.sampled_from((None, "image/q.png", ["image/a.png", "image/b.png"])))
    if isinstance(images, str):
        entry["question_image"] = images
    elif images is not None:
        entry["question_images"] = images
    return entry


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(entries=st.lists(qa_entries(), min_size=1, max_size=6))
def test_random_questions_agree(store: Store, tmp_path_factory, entries: list[dict]) -> None:
    """Python (the definition: ``tests/memeye_oracle.py``) and the store's SQL loader
    give the same question columns for any mix of the rules' inputs."""
    # The run answers only a fixed first question: the rules under test are the dataset's.
    first = qa("Fixed?", "x", [["X1"], ["Y1"]], ["D1:1"])
    data = dialog({"D1": ["D1:1", "D1:2"], "D2": ["D2:1", "D2:2"]}, [first, *entries])
    run_dir = write_run(tmp_path_factory.mktemp("runs") / "r", data, [open_row(1, data)])
    assert_same(store, run_dir)


def test_the_engine_opens_a_dialog_file_as_the_oracle_reads_it(
    store: Store, tmp_path: Path
) -> None:
    """The memory engine loads a dialog file with the store's SQL loader and reads it back:
    rounds, questions and notices come out as the oracle says (a non-object QA counts once
    among the questions without a point; an oversized label has its own notice)."""
    from memscope.engine_jobs.engine_data import _from_record, open_dataset

    data = tricky_dataset()
    data["human-annotated QAs"].append(qa("Huge label?", "x", [["X12345678901"], ["Y2"]], []))
    dialog_path = tmp_path / "data" / "dialog" / "Tricky.json"
    dialog_path.parent.mkdir(parents=True)
    dialog_path.write_text(json.dumps(data), encoding="utf-8")

    opened = open_dataset(store, dialog_path)

    expected = _from_record(read_memeye_dataset(dialog_path.resolve(), None))
    assert opened == expected
    assert any("2 question(s) have no usable 'point'" in notice for notice in opened.notices)
    assert any("more than 9 digits" in notice for notice in opened.notices)
    with store.read() as con:  # stored once, under the id ingest would give it
        assert rows(con, "SELECT dataset_id, n_questions FROM datasets") == [
            (expected.dataset_id, len(data["human-annotated QAs"]))
        ]
