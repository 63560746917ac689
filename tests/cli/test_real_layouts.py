"""Benchmark outputs as the benchmarks' own code lays them out (issue 11): the official
CUE-Mem release (absolute media paths into a sibling download, results grids of several
LLMs / models), DMV-Bench across two run directories over shared seeds with a memoryless
system, and every benchmark's own summary file cross-checked against memscope's numbers."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_cuemem import (
    OFFICIAL_LLMS,
    OFFICIAL_RQ3_MODELS,
    aggregated_group,
    human_submission,
    official_download,
    official_layout,
    write_json,
    write_submission,
)
from builders_dmv import HASHES, Probe, write_f2_run
from memscope.adapters import ReadOptions
from memscope.adapters.cuemem.dataset import MediaResolver, media_kind, read_cuemem_dataset
from memscope.cli import app
from memscope.store import Store
from memscope.store.sql import rows
from memscope.usecases.compare.pairs import compare_runs
from memscope.usecases.report.build import build_report, upstream_check
from memscope.usecases.runs.ingest import ingest_paths
from memscope.usecases.runs.loading import load_run
from support import upstream_run

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "cuemem" / "data"


def invoke(*args: str):
    return runner.invoke(app, list(args))


def flat(text: str) -> str:
    """Terminal output with its line wrapping undone."""
    return " ".join(text.split())


# --- CUE-Mem: the official release layout ------------------------------------------------


@pytest.fixture
def official(tmp_path: Path) -> dict:
    return official_layout(tmp_path / "cue")


def test_ingest_workdir_finds_every_history_and_medium_with_no_flag(
    official: dict, store: Store
) -> None:
    outcomes, failures = ingest_paths(store, [official["workdir"]], ReadOptions())
    assert not failures
    ids = {o.run_id for o in outcomes}
    # Distinct, readable ids from the path parts that tell the runs apart; never X-X.
    assert ids == {
        *(f"{llm}/MMMemory:history_with_qa_p0" for llm in OFFICIAL_LLMS),
        *(f"{model}/MM:p0" for model in OFFICIAL_RQ3_MODELS),
    }
    notices = [str(n) for o in outcomes for n in o.notices]
    assert not [n for n in notices if "not found" in n or "cannot find" in n]
    download = official["download"].resolve()
    with store.read() as con:
        files = rows(
            con,
            "SELECT unnest(list_concat(image_files, audio_files)) FROM rounds r "
            "JOIN runs USING (dataset_id) WHERE runs.run_id = ?",
            [f"{OFFICIAL_RQ3_MODELS[0]}/MM:p0"],
        )
        options = rows(
            con,
            "SELECT q.extra->>'$.option_image_files' FROM questions q JOIN runs r USING (dataset_id) "
            "WHERE r.run_id = ? AND q.extra->>'$.option_image_files' IS NOT NULL",
            [f"{OFFICIAL_LLMS[0]}/MMMemory:history_with_qa_p0"],
        )
    assert len(files) == 8  # four images and four voice messages
    assert all(f and Path(f).is_file() and Path(f).is_relative_to(download) for (f,) in files)
    assert options and all(
        path and Path(path).is_relative_to(download)
        for (text,) in options
        for path in json.loads(text).values()
    )
    again, _ = ingest_paths(store, [official["workdir"]], ReadOptions())
    assert {o.run_id for o in again} == ids and {o.status for o in again} == {"unchanged"}


def test_the_same_grid_gets_the_same_ids_in_a_fresh_store(official: dict, tmp_path: Path) -> None:
    first, _ = ingest_paths(Store(tmp_path / "one.duckdb"), [official["workdir"]], ReadOptions())
    second, _ = ingest_paths(Store(tmp_path / "two.duckdb"), [official["workdir"]], ReadOptions())
    assert sorted(o.run_id for o in first) == sorted(o.run_id for o in second)
    assert not any(re.match(r"^([^/:]+)-\1", o.run_id) for o in first)


def test_the_raw_download_layout_resolves_its_relative_media(tmp_path: Path) -> None:
    download = official_download(tmp_path)
    dataset = read_cuemem_dataset(download / "data" / "dialog" / "base" / "history_with_qa_p0.json")
    media = [f for r in dataset.record.rounds for f in r.image_files + r.audio_files]
    assert len(media) == 8 and all(f and Path(f).is_file() for f in media)
    assert not [n for n in dataset.record.notices if "not found" in n.what]
    q = next(q for q in dataset.record.questions if q.extra.get("option_image_files"))
    assert all(Path(f).is_file() for f in q.extra["option_image_files"].values())


def test_media_are_followed_only_to_regular_image_or_audio_files(tmp_path: Path) -> None:
    png = next((FIXTURES / "event" / "images").glob("*.png"))
    wav = next((FIXTURES / "event").rglob("*.wav"))
    renamed = tmp_path / "photo.dat"
    shutil.copy(png, renamed)
    text = tmp_path / "fake.png"
    text.write_text("not an image")
    fifo = tmp_path / "pipe.wav"
    os.mkfifo(fifo)
    (tmp_path / "folder.png").mkdir()
    assert media_kind(png) == "image" and media_kind(wav) == "audio"
    assert media_kind(renamed) == "image"  # by content, not by name
    for refused in (text, fifo, tmp_path / "folder.png", Path("/dev/null"), Path("/dev/zero")):
        assert media_kind(refused) is None  # never blocks on the FIFO, never reads a device
    resolver = MediaResolver(tmp_path / "history.json")
    assert resolver.resolve(str(renamed)) == str(renamed.resolve())  # an absolute path
    assert resolver.resolve("photo.dat") == str(renamed.resolve())
    for name in ("fake.png", "pipe.wav", "folder.png", "/dev/zero", "/etc/hostname"):
        assert resolver.resolve(name) is None


def test_report_of_an_ingested_run_needs_no_dataset_again(official: dict, tmp_path: Path) -> None:
    elsewhere = tmp_path / "copied" / "MM"
    shutil.copytree(official["rq3"][OFFICIAL_RQ3_MODELS[0]], elsewhere)
    assert invoke("report", str(elsewhere)).exit_code == 1  # no history near the copy
    history = official["dialog_dir"] / "history_with_qa_p0.json"
    assert invoke("ingest", str(elsewhere), "--dataset", str(history)).exit_code == 0
    result = invoke("report", str(elsewhere), "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["run"]["id"] == "MM:p0"


def test_cuemem_accuracy_files_are_cross_checked(official: dict, store: Store) -> None:
    llm_ok, llm_bad = OFFICIAL_LLMS
    bad = official["rq12"][llm_bad] / "history_with_qa_p0_accuracy.json"
    accuracy = json.loads(bad.read_text())
    accuracy["pref_text"]["overall"]["total"] += 1
    accuracy["__overall__"]["overall"]["accuracy"] = 99.0
    bad.write_text(json.dumps(accuracy))
    outcomes, _ = ingest_paths(store, [official["workdir"]], ReadOptions())
    by_id = {o.run_id: o for o in outcomes}
    good = by_id[f"{llm_ok}/MMMemory:history_with_qa_p0"]
    assert good.upstream_check["agrees"] is True and good.upstream_check["checked"] > 10
    wrong = by_id[f"{llm_bad}/MMMemory:history_with_qa_p0"]
    fields = {d["field"]: d for d in wrong.upstream_check["differences"]}
    assert set(fields) == {"pref_text.total", "__overall__.accuracy"}
    assert fields["__overall__.accuracy"]["upstream"] == 99.0
    notice = next(str(n) for n in wrong.notices if "differs from upstream" in str(n))
    assert str(bad) in notice and "pref_text.total: upstream 4, recomputed 3" in notice
    assert by_id[f"{OFFICIAL_RQ3_MODELS[0]}/MM:p0"].upstream_check is None  # RQ3 writes none
    table = flat(invoke("report", f"{llm_bad}/MMMemory:history_with_qa_p0").stdout)
    assert "differs from upstream's summary" in table and bad.name in table
    check = json.loads(
        invoke("report", f"{llm_ok}/MMMemory:history_with_qa_p0", "-f", "json").stdout
    )["upstream_check"]
    assert check["agrees"] is True and check["sentence"].startswith(
        "agrees with upstream's summary"
    )


def test_an_accuracy_file_of_another_shape_names_the_field(official: dict) -> None:
    from memscope.adapters import read_runs

    path = official["rq12"][OFFICIAL_LLMS[0]] / "history_with_qa_p0_accuracy.json"
    accuracy = json.loads(path.read_text())
    accuracy["pref_text"] = {"all": accuracy["pref_text"]["overall"]}  # upstream renamed a bucket
    path.write_text(json.dumps(accuracy))
    (record,) = read_runs(official["rq12"][OFFICIAL_LLMS[0]])
    assert any("category 'pref_text' has no 'overall' bucket" in str(n) for n in record.notices)


def test_aggregate_results_beside_the_official_grid_is_checked_never_read_as_a_run(
    official: dict, store: Store
) -> None:
    scanned = official["workdir"] / "benchmark" / "result_debug" / "base"
    # aggregate_results.py --mode overall --result-dir result_debug/base over the grid, where
    # every answer is A (5 of the 16 QAs right). Its refusal and adversarial categories have
    # an 'unknown' bucket and no 'explicit' one, so both entity categories are recounted from
    # the whole file (16 rows, 5 right; explicit 1/3: the Relationship and Pets rows;
    # implicit 1/1: the Items row with entity_explicitness): overall 1/3 + 1/2 + 0/2 + 1/2
    # (pref_text, pref_img, rec_text, rec_img) + 5/16 + 5/16 + 0/1 + 0/1 = 13/43; explicit
    # 0/1 + 1/1 + 0/1 + 0/1 + 1/3 + 1/3 + 0/1 (the refusal QA's expression_type) = 3/11;
    # implicit 1/2 + 0/1 + 0/1 + 1/1 + 1/1 + 1/1 = 4/7.
    counts = {"explicit": (3, 11), "implicit": (4, 7), "overall": (13, 43)}
    groups = [aggregated_group(llm, "MMMemory", **counts) for llm in OFFICIAL_LLMS]
    groups.append(aggregated_group("gpt-5.4-mini", "LTMemory", **counts))
    write_json({"groups": groups}, scanned / "aggregated_accuracy.json")
    outcomes, failures = ingest_paths(store, [official["workdir"]], ReadOptions())
    assert not failures and len(outcomes) == 4  # the same four runs, no summary among them
    for llm in OFFICIAL_LLMS:
        (outcome,) = [o for o in outcomes if o.run_id == f"{llm}/MMMemory:history_with_qa_p0"]
        assert outcome.upstream_check["agrees"] is True
        assert outcome.upstream_check["groups"] == [f"{llm}/MMMemory"]
        assert any("counts 43 answers for 16 QAs" in n.what for n in outcome.notices)
    unmatched = [n.what for o in outcomes for n in o.notices if "name no results folder" in n.what]
    assert unmatched == [
        "1 group(s) name no results folder here, so they were "
        "not cross-checked: gpt-5.4-mini/LTMemory"
    ]  # said once for the grid, not once per run
    report = json.loads(
        invoke("report", f"{OFFICIAL_LLMS[0]}/MMMemory:history_with_qa_p0", "-f", "json").stdout
    )["upstream_check"]
    assert report["sentence"].startswith(
        "agrees with upstream's summaries history_with_qa_p0_accuracy.json and "
        "aggregated_accuracy.json"
    )


def test_the_human_baseline_is_a_row_of_the_official_table(official: dict, tmp_path: Path) -> None:
    entries = official["entries"]
    output = tmp_path / "cue" / "human_baseline_demo" / "results"
    right = {(e["point"], e["qa_id"]): e["answer"] for e in entries}
    half = dict(list(right.items())[:8])  # the first eight answered, all right
    data_file = "workdir/benchmark/data/dialog/base/history_with_qa_p0.json"
    for ts, (name, answers) in enumerate((("alice", right), ("bob", half)), start=1):
        submission = human_submission(entries, answers, participant=name, data_file=data_file)
        write_submission(output, submission, 1767000000 + ts)
    result = invoke("table", str(official["workdir"]), str(output), "--format", "json")
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)
    labels = [row["label"] for row in table["rows"]]
    assert sorted(labels) == sorted(
        [
            *(f"{llm} · MMMemory" for llm in OFFICIAL_LLMS),
            *(f"{model} · MM" for model in OFFICIAL_RQ3_MODELS),
            "Human (Full Multimodal)",
        ]
    )
    human = table["rows"][labels.index("Human (Full Multimodal)")]
    assert human["n_questions"] == 32  # two participants × 16 QAs, pooled
    assert human["cells"]["all"]["value"] == pytest.approx((16 + 8) / 32)
    ids = human["runs"]
    assert ids == ["full_multimodal:1767000001_alice", "full_multimodal:1767000002_bob"]
    compared = invoke(
        "compare", f"{OFFICIAL_LLMS[0]}/MMMemory:history_with_qa_p0", ids[0], "-f", "json"
    )
    assert compared.exit_code == 0, compared.output
    assert json.loads(compared.stdout)["matched"] == 16
    bob = json.loads(invoke("report", ids[1], "-f", "json").stdout)
    assert bob["upstream_check"]["agrees"] is True


# --- MemEye: metrics.json summary ---------------------------------------------------------


def test_memeye_summary_agrees_on_the_real_runner_output_and_disagreement_is_named(
    upstream_copy: Path, store: Store
) -> None:
    run_dir = upstream_copy / "runs" / "kitchen_renovation"
    outcomes, failures = ingest_paths(store, [run_dir], ReadOptions())
    assert not failures and all(o.upstream_check["agrees"] for o in outcomes)
    target = next(d for d in sorted(run_dir.iterdir()) if "semantic_rag" in d.name)
    metrics = json.loads((target / "metrics.json").read_text())
    metrics["summary"]["overall"]["em"] = 0.75
    (target / "metrics.json").write_text(json.dumps(metrics))
    (changed,) = [o for o in ingest_paths(store, [target], ReadOptions())[0]]
    assert changed.status == "replaced" and changed.upstream_check["agrees"] is False
    assert [d["field"] for d in changed.upstream_check["differences"]] == ["overall.em"]
    assert any(
        "overall.em: upstream 0.7500" in str(n) and "metrics.json" in str(n)
        for n in changed.notices
    )
    check = upstream_check(store, changed.run_id)
    assert check is not None and "differs from upstream's summary" in check["sentence"]
    assert upstream_run("question_only", "open").is_dir()  # the shared sample is untouched


# --- DMV-Bench: two run directories over the same seeds -----------------------------------

RED, BLUE, GREEN, YELLOW = HASHES[:4]


def shared_probes(task: str, caption_correct: bool) -> list[Probe]:
    """Probes of seed 7 (any chain length): the same sessions, so the same probes."""
    return [
        Probe(
            task,
            "s1_r1_p00",
            1,
            0,
            RED,
            caption_correct,
            f"/product/{RED}" if caption_correct else "",
            # R1 ranks the target second; a later step has it first (not a rank).
            steps=[
                ("/", [BLUE, RED], "click", f"/product/{BLUE}"),
                (f"/product/{BLUE}", [RED], "click", f"/product/{RED}"),
            ],
        ),
        Probe(
            task,
            "s1_r1_p01",
            1,
            0,
            BLUE,
            False,
            "",
            cue_id="chair::wool scarf::blue",
            # R1 misses the target; step 2 sees it: "seen in any step", not ranked.
            steps=[
                ("/", [GREEN], "click", f"/product/{GREEN}"),
                (f"/product/{GREEN}", [GREEN, BLUE], "done", ""),
            ],
        ),
        Probe(
            task,
            "s2_r1_p00",
            2,
            1,
            GREEN,
            True,
            f"/product/{GREEN}",
            cue_id="chair::wool scarf::green",
            steps=[("/", [GREEN], "click", f"/product/{GREEN}")],
        ),
    ]


def memoryless(probes: list[Probe]) -> list[Probe]:
    return [
        Probe(
            p.task_id,
            p.probe_id,
            p.at,
            p.target_session,
            p.target,
            False,
            "",
            p.cue_id,
            steps=[("/", [], "done", "")],
        )
        for p in probes
    ]


@pytest.fixture
def two_dirs(tmp_path: Path) -> tuple[Path, Path]:
    sizes = {
        "f2_chain_d3_s0007": {0: 10, 1: 20, 2: 30},
        "f2_chain_d4_s0007": {0: 10, 1: 20, 2: 30, 3: 40},
    }
    first = shared_probes("f2_chain_d3_s0007", True)
    a = write_f2_run(
        tmp_path / "results" / "f2" / "202601011200_d3",
        {"Caption": first, "NoMemory": memoryless(first)},
        bank_sizes=sizes,
    )
    for log in (a / "logs" / "NoMemory").glob("*.log"):  # a memoryless bank stays empty
        log.write_text(re.sub(r"bank \+\d+ -> size=\d+", "bank +0 -> size=0", log.read_text()))
    second = shared_probes("f2_chain_d4_s0007", False) + [
        Probe(
            "f2_chain_d4_s0007",
            "s3_r1_p00",
            3,
            2,
            YELLOW,
            True,
            f"/product/{YELLOW}",
            cue_id="chair::wool scarf::yellow",
            steps=[("/", [YELLOW], "click", f"/product/{YELLOW}")],
        )
    ]
    b = write_f2_run(
        tmp_path / "results" / "f2" / "202601021200_d4", {"Caption": second}, bank_sizes=sizes
    )
    return a, b


def report_of(store: Store, run_id: str) -> dict:
    return build_report(load_run(store, run_id), upstream=upstream_check(store, run_id))


def test_rank_metrics_come_from_the_first_recall_step(two_dirs, store: Store) -> None:
    ingest_paths(store, list(two_dirs), ReadOptions())
    recall = report_of(store, "202601011200_d3:Caption")["tsr"]["recall"]
    # R1 ranks: 2, absent, 1 → MRR (1/2 + 0 + 1) / 3; concatenating the steps would give
    # (1/2 + 1/2 + 1) / 3 for the second probe's later sighting.
    assert recall["mrr"] == pytest.approx(0.5)
    assert recall["any_at_k"] == pytest.approx(2 / 3) and recall["k"] == 5
    assert recall["target_rank"] == {"1": 1, "2": 1, "not retrieved": 1}
    assert recall["seen_any_step"] == 1.0 and recall["n_seen_any_step"] == 3
    report = report_of(store, "202601011200_d3:Caption")
    assert report["retrieval"]["overall"]["mrr"] == pytest.approx(0.5)
    text = flat(invoke("report", "202601011200_d3:Caption").stdout)
    assert "first recall step R1" in text and "Target seen in any recall step" in text


def test_bank_size_is_each_systems_own(two_dirs, store: Store) -> None:
    ingest_paths(store, list(two_dirs), ReadOptions())
    caption = report_of(store, "202601011200_d3:Caption")["tsr"]["by_bank_size"]
    nomemory = report_of(store, "202601011200_d3:NoMemory")["tsr"]["by_bank_size"]
    assert {k: v["n"] for k, v in caption.items()} == {"20": 2, "30": 1}
    assert {k: v["n"] for k, v in nomemory.items()} == {"0": 3}  # never borrowed


def test_compare_pairs_two_directories_on_their_shared_probes(two_dirs, store: Store) -> None:
    a, b = two_dirs
    result = invoke("compare", f"{a}:Caption", f"{b}:Caption", "-f", "json")
    assert result.exit_code == 0, result.output
    compared = json.loads(result.stdout)
    assert compared["matched"] == 3 and compared["pairing"]["n"] == 3
    assert compared["n_a"] == 3 and compared["n_b"] == 4
    assert compared["pairing"]["key"] == [
        "trunk",
        "visit_session",
        "recall_session",
        "target_hash",
        "cue_id",
    ]
    assert compared["transitions"]["broken"]["n"] == 1  # s1_r1_p00: right in A, wrong in B
    table = flat(invoke("compare", "202601011200_d3:Caption", "202601021200_d4:Caption").stdout)
    assert "paired on 3 shared probe(s)" in table
    direct = compare_runs(store, "202601011200_d3:Caption", "202601021200_d4:Caption", resamples=50)
    assert direct["significance"]["n"] == 3


def test_f2_summary_is_cross_checked_and_a_disagreement_names_the_file(
    two_dirs, store: Store
) -> None:
    a, b = two_dirs
    summary = a / "f2_summary.csv"
    table = list(csv.DictReader(summary.open()))
    table[0]["SR"] = "0.9"  # Caption: upstream says 0.9, its probes give 2/3
    with summary.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    ingested = invoke("ingest", str(a), str(b))
    assert ingested.exit_code == 0
    said = flat(ingested.stderr).replace(" ", "")  # paths may wrap anywhere
    assert "differsfromupstream'ssummary" in said and str(summary).replace(" ", "") in said
    assert "SR:upstream0.9000,recomputed0.6667" in said
    assert "agreeswithupstream'ssummaryf2_summary.csv" in said  # B, and NoMemory
    check = json.loads(invoke("report", "202601011200_d3:Caption", "-f", "json").stdout)[
        "upstream_check"
    ]
    assert check["agrees"] is False and [d["field"] for d in check["differences"]] == ["SR"]
    assert check["file"] == str(summary)
    assert "agrees with upstream's summary" in flat(
        invoke("report", "202601011200_d3:NoMemory").stdout
    )


def test_a_summary_column_upstream_added_is_named(two_dirs) -> None:
    from memscope.adapters import read_runs

    a, _ = two_dirs
    summary = a / "f2_summary.csv"
    lines = summary.read_text().splitlines()
    summary.write_text("\n".join([lines[0] + ",SR_ci"] + [line + ",0.1" for line in lines[1:]]))
    records = read_runs(a)
    notices = [str(n) for n in records[0].dataset.notices]
    assert any("SR_ci" in n and "does not know" in n for n in notices)
    assert all(r.metrics["upstream_check"]["agrees"] for r in records)


def test_rerun_of_a_run_without_scores_says_why(two_dirs) -> None:
    a, _ = two_dirs
    result = invoke("rerun", "--run", f"{a}:Caption", "--alpha", "0.5")
    assert result.exit_code == 1
    said = flat(result.stderr)
    assert "no retrieval scores" in said and "memscope retrieve" in said
    assert "--requery" not in said  # it cannot reproduce DMV-Bench's retriever (issue 39)
    assert "memscope recompute" not in said  # it cannot fill a DMV-Bench log (issue 25)
    assert result.stdout == ""


def test_mc_probes_without_trajectories_say_position_unknown(tmp_path: Path, store: Store) -> None:
    mc = [
        Probe(
            "f2_chain_d3_s0007",
            "s1_r1_p000_mc",
            1,
            0,
            RED,
            True,
            f"/product/{RED}",
            steps=[("/", [RED], "click", f"/product/{RED}")],
        ),
        Probe(
            "f2_chain_d3_s0007",
            "s1_r1_p001_mc",
            1,
            0,
            BLUE,
            False,
            "",
            cue_id="chair::wool scarf::blue",
            steps=[("/", [RED], "done", "")],
        ),
    ]
    run = write_f2_run(tmp_path / "mc_run", {"DualMem": mc})
    ingest_paths(store, [run], ReadOptions())
    tsr = report_of(store, "mc_run:DualMem")["tsr"]
    assert tsr["by_encoding_position"] == {} and tsr["n_without_encoding_position"] == 2
    assert "encoding position unknown for 2 multiple-choice-probe" in tsr["encoding_position_note"]
    assert (
        "Encoding position: encoding position unknown" in invoke("report", "mc_run:DualMem").stdout
    )


def test_dmv_directories_with_one_name_get_their_parents_in_the_id(
    tmp_path: Path, store: Store
) -> None:
    probes = shared_probes("f2_chain_d3_s0007", True)
    for machine in ("node-a", "node-b"):
        write_f2_run(tmp_path / machine / "f2", {"Caption": probes})
    outcomes, failures = ingest_paths(store, [tmp_path], ReadOptions())
    assert not failures
    assert sorted(o.run_id for o in outcomes) == ["node-a/f2:Caption", "node-b/f2:Caption"]


def test_a_registry_given_once_is_used_again(two_dirs, store: Store, tmp_path: Path) -> None:
    from builders_dmv import DATA

    a, _ = two_dirs
    elsewhere = tmp_path / "catalogue"
    elsewhere.mkdir()
    shutil.copy(DATA / "cue_registry.json", elsewhere / "cue_registry.json")
    first, _ = ingest_paths(store, [a], ReadOptions(extra={"dmv_registry": elsewhere}))
    assert {o.status for o in first} == {"new"}
    again, _ = ingest_paths(store, [a], ReadOptions())  # no flag: the same registry, no change
    assert {o.status for o in again} == {"unchanged"}
    result = invoke("report", f"{a}:Caption", "-f", "json")
    assert result.exit_code == 0 and "no cue registry" not in result.stderr
