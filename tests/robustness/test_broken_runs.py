"""A corpus of broken run directories: each ends in one clear message, never a traceback,
and never a half-written store (issue 8, robustness suite)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.cli import app
from memscope.store import Store
from memscope.store.sql import rows, scalar

runner = CliRunner()


def dataset() -> dict:
    return dialog(
        {"D1": ["D1:1", "D1:2"], "D2": ["D2:1"]},
        [
            qa(f"Question {i}?", f"answer {i}", [["X1"], ["Y1"]], ["D1:1"], ["D1"])
            for i in range(1, 4)
        ],
    )


def good_run(root: Path) -> Path:
    data = dataset()
    return write_run(
        root / "runs" / "run", data, [open_row(i, data, seed=["D1:1", "D2:1"]) for i in (1, 2, 3)]
    )


def ingest(*args: str):
    result = runner.invoke(app, ["ingest", *args])
    assert "Traceback" not in result.output
    return result


def store_is_consistent(store_path: Path) -> None:
    """Every stored run has exactly its predictions; no orphan rows from a failed ingest."""
    with Store(store_path).read() as con:
        orphans = scalar(
            con,
            "SELECT (SELECT count(*) FROM predictions WHERE run_id NOT IN (SELECT run_id FROM runs))"
            " + (SELECT count(*) FROM retrievals WHERE run_id NOT IN (SELECT run_id FROM runs))"
            " + (SELECT count(*) FROM questions WHERE dataset_id NOT IN (SELECT dataset_id FROM datasets))",
        )
        mismatched = rows(
            con,
            "SELECT r.run_id FROM runs r LEFT JOIN predictions p USING (run_id) GROUP BY r.run_id, r.n_questions "
            "HAVING count(p.qid) <> r.n_questions",
        )
    assert orphans == 0 and mismatched == []


def rewrite_lines(run_dir: Path, change: Callable[[list[str]], list[str]]) -> None:
    path = run_dir / "predictions.jsonl"
    path.write_text("\n".join(change(path.read_text().splitlines())) + "\n")


# Each case: (name, how to break a good run, expected exit code, text the message must contain)
SKIPPED_LINE = 0
FATAL = 1
CASES: list[tuple[str, Callable[[Path], None], int, str]] = [
    (
        "truncated last line",
        lambda d: rewrite_lines(d, lambda ls: ls[:-1] + [ls[-1][:25]]),
        SKIPPED_LINE,
        "predictions.jsonl:3: not valid JSON",
    ),
    (
        "invalid UTF-8",
        lambda d: (d / "predictions.jsonl").write_bytes(
            (d / "predictions.jsonl").read_bytes().replace(b"Question 2", b"Question \xff2")
        ),
        SKIPPED_LINE,
        "predictions.jsonl:2: not valid UTF-8",
    ),
    (
        "duplicate idx",
        lambda d: rewrite_lines(d, lambda ls: ls + [ls[0]]),
        SKIPPED_LINE,
        "duplicate idx",
    ),
    (
        "idx beyond the dataset",
        lambda d: rewrite_lines(d, lambda ls: ls + [ls[0].replace('"idx": 1', '"idx": 99')]),
        SKIPPED_LINE,
        "idx has no question in the dataset",
    ),
    (
        "empty predictions",
        lambda d: (d / "predictions.jsonl").write_text(""),
        FATAL,
        "predictions.jsonl has no rows",
    ),
    (
        "blank predictions",
        lambda d: (d / "predictions.jsonl").write_text("\n\n  \n"),
        FATAL,
        "predictions.jsonl has no rows",
    ),
    (
        "every line broken",
        lambda d: (d / "predictions.jsonl").write_text("{\n[\nnope\n"),
        FATAL,
        "no line of predictions.jsonl is usable",
    ),
    (
        "empty metrics.json",
        lambda d: (d / "metrics.json").write_text(""),
        FATAL,
        "metrics.json is empty",
    ),
    (
        "metrics.json not JSON",
        lambda d: (d / "metrics.json").write_text("{oops"),
        FATAL,
        "metrics.json is not valid JSON",
    ),
    (
        "metrics.json a list",
        lambda d: (d / "metrics.json").write_text("[]"),
        FATAL,
        "metrics.json is not a JSON object",
    ),
    (
        "empty config.json",
        lambda d: (d / "config.json").write_text(""),
        FATAL,
        "config.json is empty",
    ),
    (
        "missing config.json",
        lambda d: (d / "config.json").unlink(),
        SKIPPED_LINE,
        "config.json is missing",
    ),
    ("missing metrics.json", lambda d: (d / "metrics.json").unlink(), FATAL, "not a run directory"),
    (
        "missing predictions.jsonl",
        lambda d: (d / "predictions.jsonl").unlink(),
        FATAL,
        "not a run directory",
    ),
    (
        "missing dialog JSON",
        lambda d: (d.parent / "data" / "dialog" / "Task.json").unlink(),
        FATAL,
        "cannot find the dataset",
    ),
    (
        "empty dialog JSON",
        lambda d: (d.parent / "data" / "dialog" / "Task.json").write_text(""),
        FATAL,
        "dialog JSON is empty",
    ),
    (
        "dialog JSON truncated",
        lambda d: (d.parent / "data" / "dialog" / "Task.json").write_text(
            '{"multi_session_dialogues": [{"session'
        ),
        FATAL,
        "dialog JSON is not valid JSON",
    ),
    (
        "dialog JSON of another shape",
        lambda d: (d.parent / "data" / "dialog" / "Task.json").write_text('{"rows": []}'),
        FATAL,
        "no 'multi_session_dialogues'",
    ),
    (
        "clue ids that do not exist",
        lambda d: (d.parent / "data" / "dialog" / "Task.json").write_text(
            json.dumps(dataset()).replace('"clue": ["D1:1"]', '"clue": ["D9:9"]')
        ),
        SKIPPED_LINE,
        "clue id(s) name no round",
    ),
    # Issue 12: hostile records cost only themselves.
    (
        "deeply nested JSON in a line",
        lambda d: rewrite_lines(
            d,
            lambda ls: [
                ls[0],
                ls[1].replace('"pred": "some answer"', '"pred": ' + "[" * 3000 + "]" * 3000),
                ls[2],
            ],
        ),
        SKIPPED_LINE,
        'predictions.jsonl:2: field "pred" must be a string, got array',
    ),
    (
        "NaN metric",
        lambda d: rewrite_lines(
            d, lambda ls: [ls[0], ls[1].replace('"f1": 0.0', '"f1": NaN'), ls[2]]
        ),
        SKIPPED_LINE,
        'predictions.jsonl:2: field "f1" must be a finite number, got NaN',
    ),
    (
        "X label overflowing 32 bits",
        lambda d: (d.parent / "data" / "dialog" / "Task.json").write_text(
            json.dumps(dataset()).replace('"X1"', '"X12345678901"', 1)
        ),
        SKIPPED_LINE,
        "1 question(s) have an X/Y label with more than 9 digits; the label is ignored (e.g. q1)",
    ),
    (
        "deeply nested dialog round",
        lambda d: (d.parent / "data" / "dialog" / "Task.json").write_text(
            json.dumps(dataset()).replace('"user text of D2:1"', "[" * 3000 + "]" * 3000)
        ),
        SKIPPED_LINE,
        "1 round(s) skipped: nested too deeply or holding numbers too large to read (e.g. round D2:1 of session D2)",
    ),
    (
        "whitespace-only round id",
        lambda d: (d.parent / "data" / "dialog" / "Task.json").write_text(
            json.dumps(dataset()).replace('"round": "D1:2"', '"round": " "')
        ),
        SKIPPED_LINE,
        "1 round id(s) are only whitespace",
    ),
    (
        "dialog JSON with a BOM and padded round ids",
        lambda d: (d.parent / "data" / "dialog" / "Task.json").write_bytes(
            b"\xef\xbb\xbf"
            + json.dumps(dataset()).replace('"round": "D1:1"', '"round": " D1:1 "').encode()
        ),
        SKIPPED_LINE,
        "ingested run",
    ),
]


@pytest.mark.parametrize(
    ("name", "breaker", "exit_code", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_broken_run(
    tmp_path: Path, store_path: Path, name: str, breaker, exit_code: int, expected: str
) -> None:
    run_dir = good_run(tmp_path)
    breaker(run_dir)
    result = ingest(str(run_dir))
    assert result.exit_code == exit_code, result.output
    assert expected in result.stderr, result.stderr
    if exit_code == FATAL:
        assert result.stderr.count("error:") == 1, result.stderr
    store_is_consistent(store_path)


WRONG_TYPES = {
    "idx": "1",
    "mode": ["open"],
    "question": {"q": 1},
    "gt": ["a"],
    "pred": {"p": 1},
    "choice": [1],
    "judge_reasoning": [1],
    "em": "0.5",
    "judge": "high",
    "f1": [0],
    "bleu_1": {},
    "latency_ms": "fast",
    "point": "X1",
    "clue_rounds": "D1:1",
    "source_sessions": 7,
    "rotations": {"a": 1},
    "position_bias": [1],
    "exact_match": "yes",
}


@pytest.mark.parametrize("field", sorted(WRONG_TYPES))
def test_wrong_type_in_every_field(tmp_path: Path, store_path: Path, field: str) -> None:
    run_dir = good_run(tmp_path)
    rewrite_lines(
        run_dir,
        lambda ls: [ls[0], json.dumps({**json.loads(ls[1]), field: WRONG_TYPES[field]}), ls[2]],
    )
    result = ingest(str(run_dir))
    assert result.exit_code == 0
    assert f'predictions.jsonl:2: field "{field}"' in result.stderr, result.stderr
    assert "line skipped" in result.stderr
    strict = ingest("--strict", str(good_run(tmp_path / "strict")))
    assert strict.exit_code == 0  # the untouched copy is fine under --strict
    broken_strict = ingest("--strict", str(run_dir))
    assert broken_strict.exit_code == 0  # unchanged since the lenient ingest: nothing to redo
    store_is_consistent(store_path)


def test_strict_refuses_a_changed_broken_run_and_keeps_the_old_one(
    tmp_path: Path, store_path: Path
) -> None:
    run_dir = good_run(tmp_path)
    assert ingest(str(run_dir)).exit_code == 0
    rewrite_lines(run_dir, lambda ls: ls + ["{broken"])
    result = ingest("--strict", str(run_dir))
    assert result.exit_code == 1 and "nothing was ingested (--strict)" in result.stderr
    with Store(store_path).read() as con:
        assert (
            scalar(con, "SELECT count(*) FROM predictions") == 3
        )  # the earlier good version stays
    store_is_consistent(store_path)


def test_runtime_and_usage_of_the_wrong_shape_are_tolerated(
    tmp_path: Path, store_path: Path
) -> None:
    run_dir = good_run(tmp_path)
    rewrite_lines(
        run_dir,
        lambda ls: [
            json.dumps({**json.loads(ls[0]), "method_runtime": "x", "usage": [1]}),
            *ls[1:],
        ],
    )
    result = ingest(str(run_dir))
    assert result.exit_code == 0 and "carry no seed_round_ids" in result.stderr
    store_is_consistent(store_path)


def test_one_broken_run_among_good_ones(tmp_path: Path, store_path: Path) -> None:
    good = good_run(tmp_path / "a")
    broken = good_run(tmp_path / "b")
    (broken / "predictions.jsonl").write_text("")
    result = ingest(str(tmp_path))
    assert result.exit_code == 1
    # Both folders are named "run" and were found together: the ids carry the parents that
    # tell them apart (issue 11).
    assert "ingested a/runs/run" in result.stderr
    assert "1 run(s) could not be ingested" in result.stderr
    with Store(store_path).read() as con:
        assert rows(con, "SELECT path FROM runs") == [(str(good.resolve()),)]
    store_is_consistent(store_path)


def test_symlink_loop_and_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "loop").mkdir()
    os.symlink(tmp_path / "loop", tmp_path / "loop" / "again")
    result = ingest(str(tmp_path))
    assert result.exit_code == 1 and "not a run directory" in result.stderr


def test_images_that_are_not_images(tmp_path: Path, store_path: Path) -> None:
    data = dialog(
        {"D1": ["D1:1", "D1:2"]},
        [qa("q?", "a", [["X1"], ["Y1"]], ["D1:1"])],
        images={"D1:1": ["image/T/empty.png"], "D1:2": ["image/T/fake.png"]},
    )
    run_dir = write_run(tmp_path / "runs" / "r", data, [open_row(1, data)])
    images = tmp_path / "runs" / "data" / "image" / "T"
    images.mkdir(parents=True)
    (images / "empty.png").write_bytes(b"")
    (images / "fake.png").write_text("<html>not a png</html>")
    result = ingest(str(run_dir))
    assert result.exit_code == 0
    assert "1 image file(s) are empty (0 bytes)" in result.stderr
    assert "1 image file(s) are not image files" in result.stderr
    store_is_consistent(store_path)
