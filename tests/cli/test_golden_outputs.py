"""Golden outputs: ``report``, ``table``, ``compare`` and ``estimate`` on the demo runs and the
real MemEye runner samples, compared byte for byte with the files under tests/data/golden/.

They were written by the code before the results became typed objects (issue 29), so any
change to what a command prints shows up here. Only what varies between machines is
normalised: the repository's path and the temp folder's. One store serves the whole module
(ingested once).

Regenerate after an intended change with
``MEMSCOPE_UPDATE_SNAPSHOTS=1 pytest tests/cli/test_golden_outputs.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.cli import app

runner = CliRunner()
REPO = Path(__file__).parents[2]
DEMO = REPO / "runs"
GOLDEN = Path(__file__).parents[1] / "data" / "golden"
UPSTREAM = Path(__file__).parents[1] / "data" / "memeye_runner" / "runs"
LABELS = REPO / "fixtures" / "labels"
RUNNER_RUN = "20261129_235408_stub_gpt_5_4_mini_semantic_rag_text_only"
RUNNER_ORACLE = "20261129_235422_stub_gpt_5_4_mini_clue_only_context__multimodal"
MEMEYE = ("srag_t", "srag_v", "fc_v", "oracle_v", "qonly")
FEW = ("--resamples", "500")

CASES: dict[str, tuple[str, ...]] = {
    # report: every benchmark, JSON and the Rich form
    "report_srag_v.json": ("report", "srag_v", "--k", "5", "-f", "json"),
    "report_srag_v.txt": ("report", "srag_v", "--k", "5"),
    "report_srag_t.json": ("report", "srag_t", "-f", "json"),
    "report_fc_v.json": ("report", "fc_v", "-f", "json"),
    "report_fc_v.txt": ("report", "fc_v"),
    "report_qonly.json": ("report", "qonly", "-f", "json"),
    "report_qonly.txt": ("report", "qonly"),
    "report_cue_mm.json": ("report", "cue_mm:p0", "-f", "json"),
    "report_cue_mm.txt": ("report", "cue_mm:p0"),
    "report_cue_text.json": ("report", "cue_text:history_with_qa_p0", "-f", "json"),
    "report_dmv.json": ("report", "dmv_f2_demo:DualMem-a75", "-f", "json"),
    "report_dmv.txt": ("report", "dmv_f2_demo:DualMem-a75"),
    "report_dmv_nomemory.json": ("report", "dmv_f2_demo:NoMemory", "-f", "json"),
    "report_runner.json": ("report", RUNNER_RUN, "-f", "json"),
    "report_runner.txt": ("report", RUNNER_RUN),
    # table: every format, with and without intervals and a baseline
    "table_memeye.json": ("table", *MEMEYE, "-f", "json"),
    "table_memeye.txt": ("table", *MEMEYE),
    "table_memeye_per_run.csv": ("table", *MEMEYE, "--per-run", "-f", "csv"),
    "table_memeye_judge.md": ("table", *MEMEYE, "--metric", "judge", "-f", "markdown"),
    "table_memeye_mrr.tex": ("table", *MEMEYE, "--metric", "mrr", "-f", "latex"),
    "table_memeye_ci_baseline.json": (
        "table",
        *MEMEYE,
        "--ci",
        "--baseline",
        "semantic_rag_text_only",
        "-f",
        "json",
    ),
    "table_memeye_ci_baseline.txt": ("table", *MEMEYE, "--ci", "--baseline", "question_only"),
    "table_cuemem.json": ("table", "cue_mm:p0", "cue_text:history_with_qa_p0", "-f", "json"),
    "table_cuemem.txt": ("table", "cue_mm:p0", "cue_text:history_with_qa_p0"),
    "table_dmv_ci.json": ("table", "dmv_f2_demo:DualMem-a75", "--ci", "-f", "json"),
    "table_dmv_bank.csv": (
        "table",
        "dmv_f2_demo:DualMem-a75",
        "dmv_f2_demo:TextOnly",
        "--by",
        "bank",
        "-f",
        "csv",
    ),
    "table_runner.json": ("table", RUNNER_RUN, RUNNER_ORACLE, "-f", "json"),
    "table_runner_upstream.json": (
        "table",
        RUNNER_RUN,
        RUNNER_ORACLE,
        "--check-upstream",
        "-f",
        "json",
    ),
    "table_dmv_upstream.txt": (
        "table",
        "dmv_f2_demo:DualMem-a75",
        "dmv_f2_demo:TextOnly",
        "--check-upstream",
    ),
    "table_runner.md": ("table", RUNNER_RUN, RUNNER_ORACLE, "-f", "markdown"),
    # compare: MemEye, DMV-Bench and CUE-Mem pairs
    "compare_srag.json": ("compare", "srag_t", "srag_v", "-f", "json"),
    "compare_srag.txt": ("compare", "srag_t", "srag_v"),
    "compare_qonly_oracle.json": ("compare", "qonly", "oracle_v", *FEW, "-f", "json"),
    "compare_dmv.json": (
        "compare",
        "dmv_f2_demo:TextOnly",
        "dmv_f2_demo:DualMem-a75",
        *FEW,
        "-f",
        "json",
    ),
    "compare_dmv.txt": ("compare", "dmv_f2_demo:TextOnly", "dmv_f2_demo:DualMem-a75", *FEW),
    "compare_cue.json": (
        "compare",
        "cue_text:history_with_qa_p0",
        "cue_mm:p0",
        *FEW,
        "-f",
        "json",
    ),
    # estimate: the labelled demo run
    "estimate_srag_v.json": ("estimate", "srag_v", "-f", "json"),
    "estimate_srag_v.txt": ("estimate", "srag_v"),
    "estimate_srag_v_cell_alice.json": (
        "estimate",
        "srag_v",
        "--by",
        "cell",
        "--annotator",
        "alice",
        "-f",
        "json",
    ),
    "estimate_srag_v_x.txt": ("estimate", "srag_v", "--by", "x"),
}


@pytest.fixture(scope="module")
def golden_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One store with the demo runs, the runner samples and the demo's two label files."""
    db = tmp_path_factory.mktemp("golden") / "memscope.duckdb"
    for args in (
        ("ingest", str(DEMO), str(UPSTREAM)),
        ("import-labels", str(LABELS / "srag_v_alice.jsonl"), str(LABELS / "srag_v_bob.csv")),
    ):
        result = runner.invoke(app, [*args, "--db", str(db)])
        assert result.exit_code == 0, result.output
    return db


def _normalised(text: str, db: Path) -> str:
    """The output with the paths that differ between machines replaced by placeholders."""
    return text.replace(str(db.parent), "<TMP>").replace(str(REPO), "<REPO>")


def _run(args: tuple[str, ...], db: Path) -> str:
    result = runner.invoke(app, [*args, "--db", str(db)], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    return _normalised(result.stdout, db)


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_is_as_before(name: str, golden_store: Path) -> None:
    text = _run(CASES[name], golden_store)
    path = GOLDEN / name
    if os.environ.get("MEMSCOPE_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path}; run with MEMSCOPE_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from {path}"


def test_golden_files_are_all_used() -> None:
    """A golden file no case writes would guard nothing."""
    assert {path.name for path in GOLDEN.iterdir()} == set(CASES)
