"""The set-based first ingest stores every run exactly as the per-run path does (issue 27).

The same folder of runs is ingested twice into fresh stores: once as ``memscope ingest``
does (plain new runs in batches, ``store.ingest_batch``), once one run at a time
(``BATCH_RUNS = 1``: every run through ``ingest_run``). Every table must then hold the same
rows (ingest timestamps aside), and every run the same outcome, notices and failures,
whether a run was batched or left out of the batch for its problems.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.store import Store, ingest_batch
from memscope.store.sql import rows
from memscope.usecases.runs import ingest as ingest_usecase
from memscope.usecases.runs.ingest import ingest_paths
from support import UPSTREAM_RUNS

OPTIONS = ReadOptions()


def _dataset(task: str) -> dict[str, Any]:
    """A dialog of four questions; beta's names an image that is missing (a notice the run
    that stores the dataset carries)."""
    images = {"D1:2": ["image/missing.png"]} if task == "beta" else None
    return dialog(
        {"D1": ["D1:1", "D1:2"], "D2": ["D2:1", "D2:2"]},
        [
            qa(f"{task}: which mug did I buy first?", "the red one", [["X3"], ["Y3"]], ["D1:1"]),
            qa(f"{task}: what is on the shelf?", "books", [["X1"], ["Y1"]], ["D1:2"]),
            qa(f"{task}: where is the lamp?", "left", [["X2"], ["Y2"]], ["D2:1"]),
            qa(f"{task}: who came to dinner?", "Ann", [["X1"], ["Y2"]], ["D2:2"]),
        ],
        images,
    )


def _ranked_rows(data: dict[str, Any], variant: int) -> list[dict[str, Any]]:
    """Four ranked rows whose scores and metrics differ by ``variant`` (means not round)."""
    seeds = (["D1:1", "D2:2", "D1:2"], ["D1:2"], ["D2:1", "D1:1"], ["D2:2", "D2:1", "D1:1"])
    found = []
    for idx, seed in enumerate(seeds, start=1):
        scores = [round(0.91 - 0.07 * i - 0.013 * variant, 5) for i in range(len(seed))]
        row = open_row(idx, data, em=float((idx + variant) % 2), seed=seed, scores=scores)
        row["judge"] = round(((idx * 7 + variant) % 10) / 10, 1)
        row["f1"] = round(((idx * 3 + variant) % 7) / 7, 6)
        row["latency_ms"] = 100 + 17 * idx + variant
        found.append(row)
    return found


def _sweep(root: Path) -> Path:
    """A folder of runs: plain ones of three kinds over two datasets (batched), and runs
    with every problem the batch leaves to the per-run path."""
    runs = root / "runs"
    data = {task: _dataset(task) for task in ("alpha", "beta")}
    dialogs = {task: root / "data" / "dialog" / f"{task}.json" for task in data}

    def run(name: str, task: str, rows_: list[Any], **options: Any) -> Path:
        return write_run(runs / name, data[task], rows_, dialog_path=dialogs[task], **options)

    for variant in range(6):
        task = ("alpha", "beta")[variant % 2]
        run(f"{task}/ranked_{variant}", task, _ranked_rows(data[task], variant))
    for variant in range(2):
        unranked = [
            open_row(1, data["alpha"], runtime={}),
            open_row(2, data["alpha"], runtime={"retrieved_round_ids": ["D1:1", "D2:2 "]}),
            open_row(3, data["alpha"], runtime={"retrieved_round_ids": ["D1:2"]}),
            open_row(4, data["alpha"], em=float(variant), runtime={"retrieved_round_ids": []}),
        ]
        run(
            f"alpha/gen_{variant}",
            "alpha",
            unranked,
            method="gen_agents__text_only",
            runtime={"retrieved_round_ids": []},
        )
    full = [open_row(idx, data["beta"], judge=None) for idx in (1, 2, 3)]
    run("beta/full_context", "beta", full, method="full_context_text_only", runtime={})
    # Every one of these goes the per-run way and is reported as it reports it.
    plain = _ranked_rows(data["alpha"], 9)
    run("alpha/bad_line", "alpha", [*plain[:2], "{not json", plain[2]])
    run("alpha/duplicate", "alpha", [*plain, plain[1]])
    unknown = dict(plain[0], idx=40)
    run("alpha/unknown_idx", "alpha", [*plain, unknown])
    run("alpha/other_question", "alpha", [dict(plain[0], question="Something else?"), *plain[1:]])
    unaligned = json.loads(json.dumps(plain))
    unaligned[0]["method_runtime"]["top_candidates"].reverse()
    run("alpha/unaligned", "alpha", unaligned)
    no_seeds = json.loads(json.dumps(plain))
    del no_seeds[1]["method_runtime"]["seed_round_ids"]
    run("alpha/no_seeds", "alpha", no_seeds)
    infinite = json.loads(json.dumps(plain))
    infinite[2]["method_runtime"]["top_candidates"][0]["score"] = "Infinity"
    run(
        "alpha/infinite_score",
        "alpha",
        [json.dumps(row).replace('"Infinity"', "Infinity") for row in infinite],
    )
    run("alpha/empty", "alpha", [])
    run("alpha/exp[1]", "alpha", _ranked_rows(data["alpha"], 11))  # a glob character
    sidecar = run("alpha/sidecar", "alpha", _ranked_rows(data["alpha"], 12))
    pools = [{"idx": 1, "pool": [{"rank": 1, "round_id": "D2:1", "score": 0.5}]}]
    (sidecar / "retrieval.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pools))
    # A new dataset whose first run is not batchable: that run still stores it.
    gamma = _dataset("gamma")
    gamma_dialog = root / "data" / "dialog" / "gamma.json"
    first = write_run(
        runs / "gamma" / "a_sidecar", gamma, _ranked_rows(gamma, 1), dialog_path=gamma_dialog
    )
    (first / "retrieval.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pools))
    for name in ("b_plain", "c_plain"):
        write_run(runs / "gamma" / name, gamma, _ranked_rows(gamma, 2), dialog_path=gamma_dialog)
    # One dialog at two paths: the stored paths follow the runs in order, so all go alone.
    delta = _dataset("delta")
    for name, folder in (("d1", "dialog"), ("d2", "copy"), ("d3", "dialog")):
        dialog_path = root / "data" / folder / "delta.json"
        write_run(runs / "delta" / name, delta, _ranked_rows(delta, 4), dialog_path=dialog_path)
    # The upstream runner's own runs (MCQ rotations, metrics.json summaries to cross-check).
    shutil.copytree(UPSTREAM_RUNS.parent.parent, runs / "upstream")
    return runs


def _tables(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, sorted, without the columns of when it was written."""
    with store.read() as con:
        tables = [row[0] for row in rows(con, "SELECT table_name FROM duckdb_tables() ORDER BY 1")]
        found = {}
        for table in tables:
            columns = [
                name
                for name, kind, *_ in rows(con, f"DESCRIBE {table}")
                if not kind.startswith("TIMESTAMP")
            ]
            listed = ", ".join(f'"{name}"' for name in columns)
            found[table] = rows(con, f"SELECT {listed} FROM {table} ORDER BY ALL")
    return found


def _ingested(store: Store, runs: Path, *, strict: bool = False) -> tuple[list[Any], list[Any]]:
    outcomes, failures = ingest_paths(store, [runs], OPTIONS, strict=strict)
    told = [
        (o.run_id, o.path, o.status, o.n_questions, [str(n) for n in o.notices], o.upstream_check)
        for o in outcomes
    ]
    return told, [(f.path, str(f.error)) for f in failures]


@pytest.fixture
def batched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many runs each batch stored (a spy on the real ``ingest_batch``)."""
    sizes: list[int] = []
    real = ingest_usecase.ingest_batch

    def spy(con: Any, records: Any, **options: Any) -> ingest_batch.BatchResult:
        result = real(con, records, **options)
        sizes.append(len(result.outcomes))
        return result

    monkeypatch.setattr(ingest_usecase, "ingest_batch", spy)
    return sizes


@pytest.mark.parametrize(
    ("part", "strict", "batches"),
    [
        # The first run of alpha (a bad line) leaves the batch, which is rolled back and
        # tried again with the first run of each new dataset alone: the plain runs of the
        # sweep and of the upstream runner less those, and none of delta's.
        ("", False, [0, 8 + 2 + 8]),
        # --strict: the first run of each new dataset is ingested alone; alpha's is
        # refused, so alpha's dataset is not stored and all its runs go alone.
        ("", True, [3 + 2 + 8]),
        # Every new dataset is stored in the batch by its first run.
        ("beta", False, [4]),
        ("upstream", False, [10]),
        # Its first run has a sidecar: alone, then the other two in a batch.
        ("gamma", False, [2]),
    ],
)
def test_batched_runs_are_stored_row_for_row_as_one_at_a_time(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    batched: list[int],
    part: str,
    strict: bool,
    batches: list[int],
) -> None:
    runs = _sweep(tmp_path) / part
    in_batches = Store(tmp_path / "batched.duckdb")
    batched_told, batched_failed = _ingested(in_batches, runs, strict=strict)
    assert batched == batches

    monkeypatch.setattr(ingest_usecase, "BATCH_RUNS", 1)
    batched.clear()
    alone = Store(tmp_path / "alone.duckdb")
    alone_told, alone_failed = _ingested(alone, runs, strict=strict)
    assert batched == []  # nothing went through a batch this time

    assert batched_told == alone_told
    assert batched_failed == alone_failed
    if part == "beta":  # the run that stored the dataset carries its notice
        assert ["image file(s) are missing" in str(notices) for *_, notices, _ in alone_told] == [
            True,
            False,
            False,
            False,
        ]
    if not part and not strict:
        assert [path for path, _ in alone_failed] == [str(runs / "alpha" / "empty")]
        noticed = {Path(path).name for _, path, _, _, notices, _ in alone_told if notices}
        assert {"bad_line", "duplicate", "unknown_idx", "no_seeds", "infinite_score"} <= noticed
    first, second = _tables(in_batches), _tables(alone)
    assert first.keys() == second.keys()
    for table in first:
        assert first[table] == second[table], table
    assert len(first["runs"]) == len(alone_told)


def test_a_batch_that_fails_leaves_every_run_to_the_per_run_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batched: list[int]
) -> None:
    data = _dataset("alpha")
    runs = tmp_path / "runs"
    dialog_path = tmp_path / "data" / "dialog" / "alpha.json"
    for variant in range(4):
        write_run(runs / f"r{variant}", data, _ranked_rows(data, variant), dialog_path=dialog_path)

    def broken(con: Any, run_rows: Any) -> None:
        con.execute("INSERT INTO runs VALUES (1)")  # a DuckDB error mid-batch

    monkeypatch.setattr(ingest_batch, "_insert_runs", broken)
    store = Store(tmp_path / "store.duckdb")
    told, failed = _ingested(store, runs)
    assert batched == [0] and not failed
    assert [(run_id, status, n) for run_id, _, status, n, _, _ in told] == [
        (f"r{variant}", "new", 4) for variant in range(4)
    ]
    with store.read() as con:
        assert rows(con, "SELECT run_id, count(*) FROM predictions GROUP BY 1 ORDER BY 1") == [
            (f"r{variant}", 4) for variant in range(4)
        ]


def test_a_second_batch_meets_runs_already_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batched: list[int]
) -> None:
    monkeypatch.setattr(ingest_usecase, "BATCH_RUNS", 3)
    data = _dataset("alpha")
    runs = tmp_path / "runs"
    dialog_path = tmp_path / "data" / "dialog" / "alpha.json"
    for variant in range(7):
        write_run(runs / f"r{variant}", data, _ranked_rows(data, variant), dialog_path=dialog_path)
    store = Store(tmp_path / "store.duckdb")
    told, failed = _ingested(store, runs)
    # Batches of three (the first stores the dataset); the last run goes alone.
    assert batched == [3, 3] and not failed
    assert [status for _, _, status, _, _, _ in told] == ["new"] * 7
    again, _ = _ingested(store, runs)
    assert [status for _, _, status, _, _, _ in again] == ["unchanged"] * 7


def test_a_changed_run_among_many_still_finds_the_data_files_it_was_read_with(
    tmp_path: Path,
) -> None:
    """Runs outside every stored run's folder skip the store's look-up of remembered data
    files; a stored one that changed still gets it (here DMV-Bench's cue registry)."""
    from builders_dmv import DATA, probes, write_f2_run
    from memscope.adapters import read_runs

    root = tmp_path / "elsewhere"
    lonely = write_f2_run(root / "f2_out", {"TextOnly": probes(False)})
    data = _dataset("alpha")
    for variant in range(3):
        write_run(root / f"r{variant}", data, _ranked_rows(data, variant))
    store = Store(tmp_path / "store.duckdb")
    with_registry = ReadOptions(extra={"dmv_registry": DATA})
    first, failed = ingest_paths(store, [root], with_registry)
    assert not failed
    assert [(o.run_id, o.status) for o in first] == [
        ("f2_out:TextOnly", "new"),
        ("r0", "new"),
        ("r1", "new"),
        ("r2", "new"),
    ]
    write_f2_run(lonely, {"TextOnly": probes(True)})  # changed, and no flag this time
    assert (
        read_runs(lonely)[0].dataset.dataset_id
        != read_runs(lonely, with_registry)[0].dataset.dataset_id
    )
    write_run(root / "r3", data, _ranked_rows(data, 3))
    again, failed = ingest_paths(store, [root], OPTIONS)
    assert not failed
    assert [(o.run_id, o.status) for o in again] == [
        ("f2_out:TextOnly", "replaced"),
        ("r0", "unchanged"),
        ("r1", "unchanged"),
        ("r2", "unchanged"),
        ("r3", "new"),
    ]
    with store.read() as con:
        datasets = dict(rows(con, "SELECT run_id, dataset_id FROM runs"))
    assert datasets["f2_out:TextOnly"] == read_runs(lonely, with_registry)[0].dataset.dataset_id
