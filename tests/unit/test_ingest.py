"""Ingesting runs into a real DuckDB store: identity, replacement, bad lines, atomicity."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from builders import dialog, open_row, qa, rag_runtime, write_run
from memscope.adapters import ReadOptions
from memscope.errors import DatasetError, RunDirError, StoreBusyError
from memscope.store import Store
from memscope.store.migrations import all_migrations, shipped_versions
from memscope.store.sql import rows, scalar
from memscope.usecases.runs.ingest import ingest_dir, ingest_paths, resolve_run
from support import UPSTREAM_RUNS, upstream_run

OPTIONS = ReadOptions()


def small_dataset() -> dict:
    return dialog(
        {"D1": ["D1:1", "D1:2"], "D2": ["D2:1", "D2:2"]},
        [
            qa(
                "Which mug did I buy first?",
                "the red one",
                [["X3"], ["Y3"]],
                ["D1:1", "D2:2"],
                ["D1", "D2"],
            ),
            qa("What is on the shelf?", "books", [["X1"], ["Y1"]], ["D1:2"], ["D1"]),
            qa("Where is the lamp?", "left", [["X2"], ["Y2"]], ["D1:2", "D2:1"], ["D1", "D2"]),
        ],
    )


def good_rows(data: dict) -> list[dict]:
    return [
        open_row(1, data, judge=0.0, seed=["D1:1", "D2:2", "D1:2"]),
        open_row(2, data, em=1.0, judge=1.0, seed=["D1:2"]),
        open_row(3, data, judge=0.5, seed=["D2:1"]),
    ]


def count(store: Store, table: str, run_id: str) -> int:
    with store.read() as con:
        return scalar(con, f"SELECT count(*) FROM {table} WHERE run_id = ?", [run_id])


def test_ingest_all_upstream_runs(store: Store) -> None:
    outcomes, failures = ingest_paths(store, [UPSTREAM_RUNS.parent], OPTIONS)
    assert not failures
    assert len(outcomes) == 10 and {o.status for o in outcomes} == {"new"}
    with store.read() as con:
        assert scalar(con, "SELECT count(*) FROM datasets") == 2  # MCQ and open dialog files
        assert scalar(con, "SELECT count(*) FROM runs") == 10
        assert "sk-stub-key-not-real" not in json.dumps(rows(con, "SELECT config FROM runs"))


def test_ranked_retrievals_keep_rank_and_logged_scores(store: Store) -> None:
    run_dir = upstream_run("semantic_rag_text_only", "open")
    outcome = ingest_dir(store, run_dir, OPTIONS)
    with store.read() as con:
        ranking = rows(
            con,
            "SELECT rank, round_id, score FROM retrievals WHERE run_id = ? AND qid = 'q1' ORDER BY rank",
            [outcome.run_id],
        )
    # predictions.jsonl row 1: seed_round_ids K5:1, K2:1, K3:1, K1:2, K1:1 with top_candidates scores.
    assert [r[1] for r in ranking] == ["K5:1", "K2:1", "K3:1", "K1:2", "K1:1"]
    assert [r[0] for r in ranking] == [1, 2, 3, 4, 5]
    assert ranking[0][2] == pytest.approx(0.5378401694429624)


def test_only_top_five_scores_are_logged(store: Store, tmp_path: Path) -> None:
    data = small_dataset()
    seed = ["D1:1", "D1:2", "D2:1", "D2:2", "D1:1x", "D2:1x"]
    row = open_row(1, data, seed=seed)
    outcome = ingest_dir(store, write_run(tmp_path / "runs" / "r", data, [row]), OPTIONS)
    with store.read() as con:
        scores = [
            r[0]
            for r in rows(
                con, "SELECT score FROM retrievals WHERE run_id = ? ORDER BY rank", [outcome.run_id]
            )
        ]
    assert scores[:5] == pytest.approx([0.9, 0.85, 0.8, 0.75, 0.7]) and scores[5] is None


def test_unchanged_run_is_a_no_op_and_changed_run_replaces(store: Store, tmp_path: Path) -> None:
    data = small_dataset()
    run_dir = write_run(tmp_path / "runs" / "r", data, good_rows(data))
    first = ingest_dir(store, run_dir, OPTIONS)
    assert first.status == "new" and first.n_questions == 3
    assert ingest_dir(store, run_dir, OPTIONS).status == "unchanged"
    # Judge scores added later (the post-hoc judge rewrites predictions.jsonl).
    changed = good_rows(data)
    changed[0]["judge"] = 1.0
    write_run(run_dir, data, changed)
    second = ingest_dir(store, run_dir, OPTIONS)
    assert second.status == "replaced" and second.run_id == first.run_id
    assert count(store, "predictions", first.run_id) == 3
    with store.read() as con:
        assert (
            scalar(
                con, "SELECT judge FROM predictions WHERE run_id = ? AND qid = 'q1'", [first.run_id]
            )
            == 1.0
        )


def test_two_directories_with_one_name_get_distinct_ids(store: Store, tmp_path: Path) -> None:
    data = small_dataset()
    a = ingest_dir(store, write_run(tmp_path / "a" / "srag", data, good_rows(data)), OPTIONS)
    b = ingest_dir(store, write_run(tmp_path / "b" / "srag", data, good_rows(data)), OPTIONS)
    # One at a time: the first keeps its name, the second gets the parent that tells them
    # apart (issue 11: ``parent/name``, never ``parent-name``).
    assert a.run_id == "srag" and b.run_id == "b/srag"
    again = ingest_dir(store, tmp_path / "b" / "srag", OPTIONS)
    assert (again.run_id, again.status) == ("b/srag", "unchanged")


def test_a_shared_dataset_points_at_the_dialog_file_of_the_latest_run(
    store: Store, tmp_path: Path
) -> None:
    # Runs a and b bring the same dialog content from two files: one dataset, whose
    # source path follows the run ingested last (and stays when a run brings the same).
    data = small_dataset()

    def source_paths() -> list[tuple[str]]:
        with store.read() as con:
            return rows(con, "SELECT source_path FROM datasets")

    ingest_dir(store, write_run(tmp_path / "a" / "srag", data, good_rows(data)), OPTIONS)
    assert source_paths() == [(str((tmp_path / "a" / "data" / "dialog" / "Task.json").resolve()),)]
    ingest_dir(store, write_run(tmp_path / "b" / "srag", data, good_rows(data)), OPTIONS)
    b_dialog = str((tmp_path / "b" / "data" / "dialog" / "Task.json").resolve())
    assert source_paths() == [(b_dialog,)]
    ingest_dir(store, write_run(tmp_path / "b" / "other", data, good_rows(data)), OPTIONS)
    assert source_paths() == [(b_dialog,)]


def test_unchanged_stats_skip_reading_and_verify_hashes_anyway(
    store: Store, tmp_path: Path
) -> None:
    """A file rewritten in place with its size and modification time put back is not
    read again (a stat per file); ``verify`` hashes it and picks up the change."""
    data = small_dataset()
    run_dir = write_run(tmp_path / "runs" / "r", data, good_rows(data))
    ingest_paths(store, [tmp_path / "runs"], OPTIONS)
    predictions = run_dir / "predictions.jsonl"
    before = predictions.stat()
    text = predictions.read_text()
    assert '"em": 1.0' in text
    predictions.write_text(text.replace('"em": 1.0', '"em": 0.0', 1))
    assert predictions.stat().st_size == before.st_size
    os.utime(predictions, ns=(before.st_atime_ns, before.st_mtime_ns))
    outcomes, _ = ingest_paths(store, [tmp_path / "runs"], OPTIONS)
    assert [outcome.status for outcome in outcomes] == ["unchanged"]
    outcomes, _ = ingest_paths(store, [tmp_path / "runs"], OPTIONS, verify=True)
    assert [outcome.status for outcome in outcomes] == ["replaced"]
    with store.read() as con:
        assert (
            scalar(con, "SELECT sum(em) FROM predictions")
            == sum(row["em"] for row in good_rows(data)) - 1
        )
    outcomes, _ = ingest_paths(store, [tmp_path / "runs"], OPTIONS, verify=True)
    assert [outcome.status for outcome in outcomes] == ["unchanged"]


def test_many_runs_share_write_connections_and_report_in_path_order(
    tmp_path: Path,
) -> None:
    """New, unchanged and broken runs mixed: every outcome in path order, the broken one
    failed alone (its rows rolled back), the others stored."""
    data = small_dataset()
    for name in ("a", "c"):
        write_run(tmp_path / "runs" / name, data, good_rows(data))
    store = Store(tmp_path / "store.duckdb")
    ingest_paths(store, [tmp_path / "runs"], OPTIONS)
    write_run(tmp_path / "runs" / "b", data, good_rows(data))
    (tmp_path / "runs" / "b" / "predictions.jsonl").write_text("{not json\n" * 3)
    write_run(tmp_path / "runs" / "d", data, good_rows(data))
    seen: list[str] = []
    progress: list[tuple[int, int]] = []
    outcomes, failures = ingest_paths(
        store,
        [tmp_path / "runs"],
        OPTIONS,
        strict=True,
        on_outcome=lambda result: seen.append(Path(result.path).name),
        on_progress=lambda done, total: progress.append((done, total)),
    )
    assert seen == ["a", "b", "c", "d"]
    assert progress == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    assert [(o.run_id, o.status) for o in outcomes] == [
        ("a", "unchanged"),
        ("c", "unchanged"),
        ("d", "new"),
    ]
    assert [Path(f.path).name for f in failures] == ["b"]
    with store.read() as con:
        assert scalar(con, "SELECT count(*) FROM runs") == 3
        assert scalar(con, "SELECT count(*) FROM predictions WHERE run_id = 'b'") == 0


def test_run_folders_are_resolved_as_path_resolve_does(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folders found below a root are resolved by resolving the root once: the same
    paths ``Path.resolve`` gives, through a symlinked root and a relative one with ``..``;
    the runs are stored at, and found unchanged at, their real paths."""
    from memscope.adapters import find_run_dirs, resolved_run_dirs

    data = small_dataset()
    for name in ("a", "b/c", "b/d"):
        write_run(tmp_path / "real" / "runs" / name, data, good_rows(data))
    (tmp_path / "real" / "runs" / "elsewhere").symlink_to(tmp_path / "real" / "runs" / "b")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path / "real")
    roots = [tmp_path / "link" / "runs", Path("runs/../runs"), Path("runs/a")]
    for root in roots:
        found = find_run_dirs(root)
        assert resolved_run_dirs(root, found) == [run_dir.resolve() for run_dir in found]
    real = (tmp_path / "real" / "runs").resolve()
    outcomes, failures = ingest_paths(store, [tmp_path / "link" / "runs"], OPTIONS)
    assert not failures
    assert [o.path for o in outcomes] == [str(real / name) for name in ("a", "b/c", "b/d")]
    outcomes, _ = ingest_paths(store, [Path("runs/../runs")], OPTIONS)
    assert [o.status for o in outcomes] == ["unchanged"] * 3


def test_ingest_inside_a_shared_read_writes_and_reads_on(tmp_path: Path) -> None:
    """The app ingests a folder inside ``Store.reading()``: the write connection takes the
    read-only one's place meanwhile, and reads after it see the new runs."""
    data = small_dataset()
    write_run(tmp_path / "runs" / "a", data, good_rows(data))
    store = Store(tmp_path / "store.duckdb")
    with store.reading():
        outcomes, failures = ingest_paths(store, [tmp_path / "runs"], OPTIONS)
        assert not failures and [o.status for o in outcomes] == ["new"]
        write_run(tmp_path / "runs" / "b", data, good_rows(data))
        outcomes, failures = ingest_paths(store, [tmp_path / "runs"], OPTIONS)
        assert [o.status for o in outcomes] == ["unchanged", "new"]
        with store.read() as con:
            assert scalar(con, "SELECT count(*) FROM runs") == 2


def test_directories_found_together_are_all_told_apart(tmp_path: Path) -> None:
    data = small_dataset()
    for llm in ("qwen3.6-35b-a3b", "gpt-5.4-mini"):
        write_run(tmp_path / "grid" / llm / "srag", data, good_rows(data))
    write_run(tmp_path / "grid" / "alone", data, good_rows(data))
    ids = set()
    for attempt in range(2):  # a fresh store each time: the same set gives the same ids
        fresh = Store(tmp_path / f"store{attempt}.duckdb")
        outcomes, failures = ingest_paths(fresh, [tmp_path / "grid"], OPTIONS)
        assert not failures
        ids.add(frozenset(o.run_id for o in outcomes))
    assert ids == {frozenset({"qwen3.6-35b-a3b/srag", "gpt-5.4-mini/srag", "alone"})}


def test_truncated_and_non_json_lines_are_skipped_with_file_line(
    store: Store, tmp_path: Path
) -> None:
    data = small_dataset()
    rows_ = good_rows(data)
    lines = [json.dumps(rows_[0]), "", json.dumps(rows_[1])[:40], "[1, 2]", json.dumps(rows_[2])]
    run_dir = write_run(tmp_path / "runs" / "r", data, lines)
    outcome = ingest_dir(store, run_dir, OPTIONS)
    messages = [f"{n.where}: {n.what}" for n in outcome.notices]
    predictions = run_dir / "predictions.jsonl"
    assert any(m.startswith(f"{predictions}:3: not valid JSON") for m in messages), messages
    assert any(m.startswith(f"{predictions}:4: not a JSON object") for m in messages), messages
    assert outcome.n_questions == 2
    assert count(store, "predictions", outcome.run_id) == 2


def test_strict_refuses_and_writes_nothing(store: Store, tmp_path: Path) -> None:
    data = small_dataset()
    rows_ = good_rows(data)
    run_dir = write_run(
        tmp_path / "runs" / "r", data, [json.dumps(rows_[0]), "{oops", json.dumps(rows_[2])]
    )
    with pytest.raises(RunDirError, match=r"predictions.jsonl:2: not valid JSON"):
        ingest_dir(store, run_dir, OPTIONS, strict=True)
    with store.read() as con:
        assert scalar(con, "SELECT count(*) FROM runs") == 0
        assert scalar(con, "SELECT count(*) FROM predictions") == 0
        assert scalar(con, "SELECT count(*) FROM datasets") == 0


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda r: r.pop("idx"), 'missing required field "idx"'),
        (lambda r: r.update(idx="one"), 'field "idx" must be a positive integer'),
        (lambda r: r.update(idx=0), 'field "idx" must be a positive integer'),
        (lambda r: r.update(em="high"), 'field "em" must be a number'),
        (lambda r: r.update(judge=7), 'field "judge" must lie in [0, 1]'),
        (lambda r: r.update(clue_rounds="D1:1"), 'field "clue_rounds" must be a list'),
        (lambda r: r.update(position_bias=[1]), 'field "position_bias" must be an object'),
        (lambda r: r.update(question={"a": 1}), 'field "question" must be a string'),
    ],
)
def test_rows_with_missing_or_mistyped_fields(
    store: Store, tmp_path: Path, mutate, expected: str
) -> None:
    data = small_dataset()
    rows_ = good_rows(data)
    mutate(rows_[1])
    outcome = ingest_dir(store, write_run(tmp_path / "runs" / "r", data, rows_), OPTIONS)
    assert outcome.n_questions == 2
    assert any(
        expected in n.what and n.where.endswith("predictions.jsonl:2") for n in outcome.notices
    ), outcome.notices


def test_runtime_of_the_wrong_shape_means_no_retrievals_for_that_row(
    store: Store, tmp_path: Path
) -> None:
    data = small_dataset()
    rows_ = good_rows(data)
    rows_[1]["method_runtime"] = [1]
    outcome = ingest_dir(store, write_run(tmp_path / "runs" / "r", data, rows_), OPTIONS)
    assert outcome.n_questions == 3
    assert any(
        "1 row(s) of this retrieval run carry no seed_round_ids" in n.what for n in outcome.notices
    )
    with store.read() as con:
        assert rows(
            con,
            "SELECT DISTINCT qid FROM retrievals WHERE run_id = ? ORDER BY qid",
            [outcome.run_id],
        ) == [("q1",), ("q3",)]


def test_duplicate_and_unknown_idx(store: Store, tmp_path: Path) -> None:
    data = small_dataset()
    rows_ = good_rows(data)
    extra = dict(rows_[0], idx=9)
    outcome = ingest_dir(
        store, write_run(tmp_path / "runs" / "r", data, [*rows_, rows_[0], extra]), OPTIONS
    )
    text = " | ".join(f"{n.where}: {n.what}" for n in outcome.notices)
    assert "duplicate idx" in text and "predictions.jsonl:4" in text
    assert "idx has no question in the dataset" in text and "predictions.jsonl:5" in text
    assert outcome.n_questions == 3


def test_every_line_bad_is_an_error(store: Store, tmp_path: Path) -> None:
    data = small_dataset()
    with pytest.raises(RunDirError, match="no line of predictions.jsonl is usable"):
        ingest_dir(store, write_run(tmp_path / "runs" / "r", data, ["nope", "{"]), OPTIONS)


def test_wrong_dataset_is_refused(store: Store, tmp_path: Path) -> None:
    data = small_dataset()
    run_dir = write_run(tmp_path / "runs" / "r", data, good_rows(data))
    other = dialog(
        {"D1": ["D1:1"]},
        [qa(f"Unrelated question {i}?", "x", [["X1"], ["Y1"]], ["D1:1"]) for i in range(3)],
    )
    wrong = tmp_path / "other.json"
    wrong.write_text(json.dumps(other))
    with pytest.raises(DatasetError, match="does not match this run"):
        ingest_dir(store, run_dir, ReadOptions(dataset=wrong))


def test_unranked_gen_agents_retrievals_are_shifted_back_one_row(
    store: Store, tmp_path: Path
) -> None:
    data = small_dataset()
    runtime = {"retrieved_round_ids": []}
    rows_ = [
        open_row(1, data, runtime={}),
        open_row(2, data, runtime={"retrieved_round_ids": ["D1:1", "D2:2"]}),  # belongs to q1
        open_row(3, data, runtime={"retrieved_round_ids": ["D1:2"]}),  # belongs to q2
    ]
    run_dir = write_run(
        tmp_path / "runs" / "gen", data, rows_, method="gen_agents__text_only", runtime=runtime
    )
    outcome = ingest_dir(store, run_dir, OPTIONS)
    with store.read() as con:
        got = rows(
            con,
            "SELECT qid, rank, round_id FROM retrievals WHERE run_id = ? ORDER BY qid, round_id",
            [outcome.run_id],
        )
        kind = scalar(con, "SELECT retrieval_kind FROM runs WHERE run_id = ?", [outcome.run_id])
    assert kind == "unranked"
    assert got == [("q1", None, "D1:1"), ("q1", None, "D2:2"), ("q2", None, "D1:2")]


def test_migrations_from_an_empty_store(store: Store) -> None:
    with store.write() as con:
        versions = [
            r[0] for r in rows(con, "SELECT version FROM schema_migrations ORDER BY version")
        ]
        tables = {r[0] for r in rows(con, "SELECT table_name FROM information_schema.tables")}
    assert versions == [m.version for m in all_migrations()] and versions[0] == 1
    # What a read checks a store against, without importing the migrations.
    assert shipped_versions() == set(versions)
    assert {
        "datasets",
        "sessions",
        "rounds",
        "questions",
        "runs",
        "predictions",
        "retrievals",
    } <= tables
    # Opening again applies nothing twice.
    with Store(store.path).write() as con:
        assert scalar(con, "SELECT count(*) FROM schema_migrations") == len(all_migrations())


def test_store_from_a_newer_memscope_is_refused(store: Store) -> None:
    with store.write() as con:
        con.execute("INSERT INTO schema_migrations VALUES (9999, 'm9999_future', now()::TIMESTAMP)")
    from memscope.errors import StoreError

    with pytest.raises(StoreError, match="newer than this memscope"), Store(store.path).write():
        pass


def test_store_held_by_another_process(store: Store, tmp_path: Path) -> None:
    with store.write():
        pass
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); time.sleep(30)",
            str(store.path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        data = small_dataset()
        run_dir = write_run(tmp_path / "runs" / "r", data, good_rows(data))
        started = time.monotonic()
        with pytest.raises(StoreBusyError, match=f"process {holder.pid} holds it for writing"):
            ingest_dir(Store(store.path, wait_s=0.3), run_dir, OPTIONS)
        assert time.monotonic() - started < 10
    finally:
        holder.kill()
        holder.wait()
    # Once the holder is gone, the same ingest works.
    assert ingest_dir(store, run_dir, OPTIONS).status == "new"


def test_resolve_run_by_id_path_and_last(store: Store, tmp_path: Path) -> None:
    data = small_dataset()
    run_dir = write_run(tmp_path / "runs" / "alpha", data, good_rows(data))
    assert resolve_run(store, str(run_dir)) == "alpha"  # a directory is ingested on the way
    assert resolve_run(store, "alpha") == "alpha"
    assert resolve_run(store, None) == "alpha"
    from memscope.errors import NotFoundError

    with pytest.raises(NotFoundError, match="Did you mean alpha"):
        resolve_run(store, "alpah")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_store_folder(tmp_path: Path) -> None:
    locked = tmp_path / "ro"
    locked.mkdir(mode=0o500)
    from memscope.errors import StoreError

    with pytest.raises(StoreError), Store(locked / "sub" / "x.duckdb").write():
        pass


def test_rag_runtime_builder_is_upstream_shaped() -> None:
    runtime = rag_runtime(["a", "b"])
    assert list(runtime)[:7] == [
        "retrieval_backend",
        "retrieval_corpus",
        "method_modality",
        "top_k",
        "neighbor_window",
        "seed_round_ids",
        "selected_round_ids",
    ]


def test_candidates_in_another_order_than_the_seeds_still_score_their_rounds(
    store: Store, tmp_path: Path
) -> None:
    data = small_dataset()
    row = open_row(1, data, seed=["D1:1", "D2:2", "D1:2"], scores=[0.9, 0.8, 0.7])
    row["method_runtime"]["top_candidates"].reverse()  # D1:2, D2:2, D1:1
    outcome = ingest_dir(
        store, write_run(tmp_path / "runs" / "r", data, [row, *good_rows(data)[1:]]), OPTIONS
    )
    with store.read() as con:
        got = rows(
            con,
            "SELECT round_id, rank, score FROM retrievals WHERE run_id = ? AND qid = 'q1' ORDER BY rank",
            [outcome.run_id],
        )
    assert got == [("D1:1", 1, 0.9), ("D2:2", 2, 0.8), ("D1:2", 3, 0.7)]


def test_reading_shares_one_connection_and_survives_a_write_inside(
    store: Store, tmp_path: Path
) -> None:
    data = small_dataset()
    run_dir = write_run(tmp_path / "runs" / "r", data, good_rows(data))
    with store.write():
        pass
    with store.reading():
        with store.read() as first, store.read() as second:
            assert first is second  # one connection for the whole block
        outcome = ingest_dir(store, run_dir, OPTIONS)  # a write in the middle
        with store.read() as con:
            assert (
                scalar(con, "SELECT count(*) FROM predictions WHERE run_id = ?", [outcome.run_id])
                == 3
            )
    with Store(store.path).write() as con:  # nothing left open: another writer gets in
        assert scalar(con, "SELECT count(*) FROM runs") == 1


def test_writing_holds_one_connection_for_reads_and_writes(store: Store, tmp_path: Path) -> None:
    data = small_dataset()
    run_dir = write_run(tmp_path / "runs" / "r", data, good_rows(data))
    outcome = ingest_dir(store, run_dir, OPTIONS)
    with store.writing():
        with store.write() as first, store.read() as second:
            assert first is second
            first.execute("DELETE FROM retrievals WHERE run_id = ?", [outcome.run_id])
        probe = subprocess.run(  # another process cannot get in while it is held
            [
                sys.executable,
                "-c",
                "import duckdb, sys\ntry:\n duckdb.connect(sys.argv[1], read_only=True)\n"
                "except duckdb.IOException:\n print('busy')",
                str(store.path),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        assert probe.stdout.strip() == "busy"
    with store.read() as con:  # released, and the write was committed
        assert (
            scalar(con, "SELECT count(*) FROM retrievals WHERE run_id = ?", [outcome.run_id]) == 0
        )
