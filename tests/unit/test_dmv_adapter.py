"""DMV-Bench F2 run directories: per-probe CSV, logs, the real cue registry and catalogue,
one run per system, and every bad input ending in one clear message."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from builders_dmv import DATA, HASHES, Probe, probes, write_f2_run
from memscope.adapters import ReadOptions, detect, find_run_dirs, read_run, read_runs
from memscope.adapters.dmv.dataset import parse_task_id
from memscope.adapters.dmv.logs import parse_task_log
from memscope.errors import DatasetError, RunDirError
from memscope.store import Store
from memscope.store.sql import rows, scalar
from memscope.usecases.runs.ingest import ingest_dir_runs, ingest_paths

REPO = Path(__file__).resolve().parents[2]
DEMO_RUN = REPO / "runs" / "dmv_f2_demo"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A DMV-Bench checkout: the real registry and catalogue in data/vismem_diag_v2/."""
    data = tmp_path / "DMV-Bench" / "data" / "vismem_diag_v2"
    data.mkdir(parents=True)
    shutil.copy(DATA / "cue_registry.json", data / "cue_registry.json")
    shutil.copy(DATA / "seed_v2.json", data / "seed_v2.json")
    return tmp_path / "DMV-Bench"


@pytest.fixture
def f2_run(checkout: Path) -> Path:
    return write_f2_run(
        checkout / "results" / "f2" / "202601011200_test",
        {"DualMem-a75": probes(True), "TextOnly": probes(False)},
        depths={"f2_chain_d3_s0007": 3, "f2_chain_d2_s0007": 2, "f2_chain_d3_s0008": 3},
        bank_sizes={
            "f2_chain_d3_s0007": {0: 4, 1: 7, 2: 9},
            "f2_chain_d2_s0007": {0: 4, 1: 7},
            "f2_chain_d3_s0008": {0: 5, 1: 8, 2: 10},
        },
    )


def by_system(records):
    return {record.method: record for record in records}


def test_a_dmv_run_is_recognised_by_its_per_probe_csv(f2_run: Path, checkout: Path) -> None:
    assert detect(f2_run).name == "dmv"
    assert find_run_dirs(checkout) == [f2_run]


def test_one_run_per_system_sharing_one_dataset(f2_run: Path) -> None:
    records = read_runs(f2_run)
    assert [r.run_id for r in records] == [
        "202601011200_test:DualMem-a75",
        "202601011200_test:TextOnly",
    ]
    assert [r.path for r in records] == [f"{f2_run}#DualMem-a75", f"{f2_run}#TextOnly"]
    assert records[0].dataset is records[1].dataset
    assert {r.benchmark for r in records} == {"dmv"} and {r.top_k for r in records} == {5}
    assert (
        records[0].config["visual_weight"] == 0.75
    )  # DualMem-a75's fusion weight (upstream registry)
    with pytest.raises(RunDirError, match="holds 2 runs"):
        read_run(f2_run)


def test_probes_join_the_real_registry_and_catalogue(f2_run: Path) -> None:
    dataset = read_runs(f2_run)[0].dataset
    red = HASHES[0]
    q = {question.qid: question for question in dataset.questions}
    # Order: seed, chain depth, task, recall session, reach, position (not CSV order).
    assert [(x.extra["task_id"], x.extra["probe_id"]) for x in dataset.questions] == [
        ("f2_chain_d2_s0007", "s1_r1_p00"),
        ("f2_chain_d3_s0007", "s1_r1_p00"),
        ("f2_chain_d3_s0007", "s1_r1_p01"),
        ("f2_chain_d3_s0007", "s2_r1_p00"),
        ("f2_chain_d3_s0007", "s2_r2_p00"),
        ("f2_chain_d3_s0008", "s1_r1_p00"),
    ]
    first = q["q2"]
    assert (
        first.question
        == "Earlier you saw a product that had a red wool scarf on it. Take me back to that exact product."
    )
    assert first.gold == f"/product/{red}" and first.clue_rounds == [red] and first.mode == "probe"
    assert {
        k: first.extra[k]
        for k in (
            "trunk",
            "chain_depth",
            "recall_session",
            "visit_session",
            "reach",
            "trajectory_bank_size",
            "encoding_position",
            "cue_object",
            "cue_color",
            "category",
            "style",
        )
    } == {
        "trunk": "s0007",
        "chain_depth": 3,
        "recall_session": 1,
        "visit_session": 0,
        "reach": 1,
        "trajectory_bank_size": None,  # no trajectory cache; each system's own is its prediction's
        "encoding_position": 1,
        "cue_object": "wool scarf",
        "cue_color": "red",
        "category": "chair",
        "style": "modern",
    }
    assert q["q3"].extra["encoding_position"] == 2 and q["q5"].extra["reach"] == 2
    assert (
        q["q1"].extra["trunk"] == q["q2"].extra["trunk"] == "s0007"
        and q["q6"].extra["trunk"] == "s0008"
    )
    product = {r.round_id: r for r in dataset.rounds}[red]
    assert product.session_id == "chair" and product.extra["display_name"] == "Lumen Chair 01"
    assert product.extra["price"] == 280.99 and product.image_refs == [
        "with_cue/chair/modern/00.png"
    ]
    assert product.image_files == [None]  # the product images are not on this machine
    assert product.assistant_text == "incidental cue: a red wool scarf"


def test_qids_do_not_depend_on_csv_row_order(f2_run: Path) -> None:
    before = {
        (q.extra["task_id"], q.extra["probe_id"]): q.qid
        for q in read_runs(f2_run)[0].dataset.questions
    }
    csv_path = f2_run / "f2_per_probe.csv"
    header, *lines = csv_path.read_text().splitlines()
    random.Random(3).shuffle(lines)
    csv_path.write_text("\n".join([header, *lines]) + "\n")
    after = {
        (q.extra["task_id"], q.extra["probe_id"]): q.qid
        for q in read_runs(f2_run)[0].dataset.questions
    }
    assert after == before


def test_predictions_retrievals_and_recall_steps_per_system(f2_run: Path) -> None:
    records = by_system(read_runs(f2_run))
    red, blue, green = HASHES[:3]
    good = records["DualMem-a75"]
    predictions = good.predictions.to_pylist()
    assert [p["em"] for p in predictions] == [1.0, 0.0, 1.0, 0.0, 1.0, 1.0]
    q2 = next(p for p in predictions if p["qid"] == "q2")
    assert q2["pred"] == f"/product/{red}" and q2["gold"] == f"/product/{red}"
    assert json.loads(q2["extra"]) == {
        "vlm_calls": 2,
        "bank_size": 7,
        "n_steps": 2,
        "target_seen_any_step": 1,
    }
    missing_final = next(p for p in predictions if p["qid"] == "q5")
    assert missing_final["pred"] is None
    ranked = [(r["rank"], r["round_id"]) for r in good.retrievals.to_pylist() if r["qid"] == "q2"]
    # The probe's ranking is the first recall step's list (R1) only (issue 11); green, seen
    # at step 2 only, is in the recall steps, not in the ranking.
    assert ranked == [(1, red), (2, blue)]
    steps = [s for s in good.detail_tables["dmv_recall_steps"].to_pylist() if s["qid"] == "q2"]
    assert [
        (s["step"], s["observed_url"], s["retrieved"], s["action"], s["action_url"]) for s in steps
    ] == [
        (1, "/", [red, blue], "click", f"/product/{red}"),
        (2, f"/product/{red}", [red, green], "add_to_wishlist", f"/product/{red}"),
    ]
    assert steps[0]["vlm_text"] == f"Thought: looking for the cue\nAction: click /product/{red}"
    assert records["TextOnly"].predictions.to_pylist()[0]["em"] == 0.0


def test_ingest_stores_every_system_and_the_steps(store: Store, f2_run: Path) -> None:
    outcomes = ingest_dir_runs(store, f2_run, ReadOptions())
    assert [o.status for o in outcomes] == ["new", "new"]
    with store.read() as con:
        assert scalar(con, "SELECT count(*) FROM datasets") == 1
        assert (
            scalar(
                con, "SELECT count(*) FROM dmv_recall_steps WHERE run_id = ?", [outcomes[0].run_id]
            )
            == 7
        )
        assert scalar(con, "SELECT count(*) FROM questions") == 6
    again = ingest_dir_runs(store, f2_run, ReadOptions())
    assert [o.status for o in again] == ["unchanged", "unchanged"]


def test_registry_from_the_flag_beside_the_run_or_not_at_all(tmp_path: Path) -> None:
    lonely = write_f2_run(tmp_path / "elsewhere" / "f2_out", {"TextOnly": probes(False)})
    records = read_runs(lonely)
    first = next(q for q in records[0].dataset.questions if q.qid == "q2")
    # Without a registry the cue comes from the log's PROBE line and products have no place.
    assert first.extra["cue_object"] == "wool scarf" and first.extra["category"] is None
    assert any("no cue registry" in str(n) for n in records[0].dataset.notices)
    with_flag = read_runs(lonely, ReadOptions(extra={"dmv_registry": DATA}))
    assert (
        next(q for q in with_flag[0].dataset.questions if q.qid == "q2").extra["category"]
        == "chair"
    )
    with_file = read_runs(lonely, ReadOptions(extra={"dmv_registry": DATA / "cue_registry.json"}))
    assert with_file[0].dataset.dataset_id == with_flag[0].dataset.dataset_id
    with pytest.raises(DatasetError, match="--dmv-registry names no cue registry"):
        read_runs(lonely, ReadOptions(extra={"dmv_registry": tmp_path / "nothing"}))
    shutil.copy(DATA / "cue_registry.json", lonely / "cue_registry.json")  # in the run directory
    assert (
        next(q for q in read_runs(lonely)[0].dataset.questions if q.qid == "q2").extra["style"]
        == "modern"
    )


def test_monte_carlo_positions_come_from_the_trajectory_cache(checkout: Path) -> None:
    red, blue, green = HASHES[:3]
    trajectories = checkout / "data" / "vismem_diag_v2" / "f2_trajectories"
    trajectories.mkdir()
    visits = [[blue, "b.png"], [green, "g.png"], [blue, "b.png"], [red, "r.png"]]
    (trajectories / "f2traj_s0007_sess0.json").write_text(
        json.dumps({"session_idx": 0, "visited": visits})
    )
    later = [[HASHES[3], "y.png"], [red, "r.png"]]
    (trajectories / "f2traj_s0007_sess1.json").write_text(
        json.dumps({"session_idx": 1, "visited": later})
    )
    mc = [Probe("f2_chain_d3_s0007", "s1_r1_p000_mc", 1, 0, red, True, f"/product/{red}")]
    run = write_f2_run(checkout / "results" / "mc", {"DualMem": mc}, logs=False)
    question = read_runs(run)[0].dataset.questions[0]
    assert question.extra["mc"] is True
    assert question.extra["encoding_position"] == 3  # de-duplicated visit order: blue, green, red
    # No log: distinct products viewed in sessions 0 and 1, from the trajectory cache.
    assert question.extra["trajectory_bank_size"] == 4
    assert read_runs(run)[0].retrieval_kind == "none"


def test_task_ids_give_the_chain_seed_as_trunk() -> None:
    assert parse_task_id("f2_chain_d5_s0003") == ("s0003", 5, 3)
    assert parse_task_id("custom-task") == ("custom-task", None, None)


def test_demo_run_ingests_three_systems(store: Store) -> None:
    outcomes, failures = ingest_paths(store, [DEMO_RUN], ReadOptions())
    assert not failures
    assert [o.run_id for o in outcomes] == [
        "dmv_f2_demo:DualMem-a75",
        "dmv_f2_demo:TextOnly",
        "dmv_f2_demo:NoMemory",
    ]
    assert {o.n_questions for o in outcomes} == {117}
    with store.read() as con:
        (media_root,) = rows(con, "SELECT media_root FROM datasets")[0]
        image_files = [row[0] for row in rows(con, "SELECT image_files[1] FROM rounds")]
    assert media_root.endswith(
        "fixtures/dmv/images/with_cue"
    )  # memscope_sources.json pointed at fixtures/dmv
    assert all(path and Path(path).is_file() for path in image_files)


# --- bad input: each ends in one clear message -----------------------------------------


def test_a_probe_csv_with_missing_columns_is_refused_by_name(tmp_path: Path) -> None:
    run = tmp_path / "broken"
    run.mkdir()
    (run / "f2_per_probe.csv").write_text("system,task_id,probe_id,reach,correct\nA,t,p,1,1\n")
    with pytest.raises(RunDirError) as caught:
        read_runs(run)
    message = str(caught.value)
    assert "lacks the column(s) at_session, target_session, target_url, final_url" in message
    assert f"{run / 'f2_per_probe.csv'}:1" in message and message.count("\n") == 1


def test_bad_csv_rows_are_skipped_by_line_or_refused_with_strict(f2_run: Path) -> None:
    csv_path = f2_run / "f2_per_probe.csv"
    lines = csv_path.read_text().splitlines()
    lines[2] = lines[2].replace(",1,0,1,", ",one,0,1,", 1)
    lines.append("TextOnly,f2_chain_d3_s0007,s9_r1_p00,9,8,1,maybe,/product/x,,1")
    csv_path.write_text("\n".join(lines) + "\n")
    records = read_runs(f2_run)
    notices = [str(n) for n in records[0].dataset.notices]
    assert f"{csv_path}:3: at_session must be an integer, got 'one'; row skipped" in notices
    assert f"{csv_path}:14: correct must be 0 or 1, got 'maybe'; row skipped" in notices
    with pytest.raises(
        RunDirError, match=r"2 bad row\(s\) in f2_per_probe.csv; nothing was ingested \(--strict\)"
    ):
        read_runs(f2_run, ReadOptions(strict=True))


def test_a_log_line_that_does_not_parse_is_reported_by_line(f2_run: Path) -> None:
    log = f2_run / "logs" / "DualMem-a75" / "f2_chain_d3_s0007__DualMem-a75.log"
    lines = log.read_text().splitlines()
    step = next(i for i, line in enumerate(lines) if line.strip().startswith("R1/8"))
    lines[step] = lines[step].split("retrieved=")[0] + "retrieved=['df5b5fde', "
    replay = next(i for i, line in enumerate(lines) if "replay:" in line)
    lines[replay] = "  [S0] replay: many product views, bank +? -> size=?"
    log.write_text("\n".join(lines))
    parsed = parse_task_log(log)
    assert [line for line, _why in parsed.bad_lines] == [replay + 1, step + 1]
    records = by_system(read_runs(f2_run))
    notices = [str(n) for n in records["DualMem-a75"].notices]
    assert (
        f"{log}:{step + 1}: a recall step whose retrieved=… is not a Python list of slugs; line skipped"
        in notices
    )
    assert any(
        n.startswith(f"{log}:{replay + 1}: a replay line that does not parse") for n in notices
    )
    assert not records["TextOnly"].notices  # the other system's logs are fine
    with pytest.raises(
        RunDirError, match=r"2 log line\(s\) do not parse; nothing was ingested \(--strict\)"
    ):
        read_runs(f2_run, ReadOptions(strict=True))


def test_an_empty_or_unreadable_csv_is_one_message(tmp_path: Path) -> None:
    run = tmp_path / "empty"
    run.mkdir()
    (run / "f2_per_probe.csv").write_text("")
    with pytest.raises(RunDirError, match="f2_per_probe.csv is empty"):
        read_runs(run)
    (run / "f2_per_probe.csv").write_bytes(b"system,task_id\n\xff\xfe\n")
    with pytest.raises(RunDirError, match="not UTF-8"):
        read_runs(run)
