"""ToyBench's tests: the ones to copy when you write a memscope benchmark plugin.

1. The reader on its own: it recognises its run directories (and only those), reads the
   example run into the records memscope stores, and refuses bad input with one message.
2. The registry: memscope finds the spec through the entry point and the spec keeps the
   contract (an invalid spec would be listed in ``registry().problems`` instead).
3. memscope's own commands in a real process: ``ingest`` (with the plugin's option),
   ``table`` and ``table --check-upstream`` against ToyBench's own summary.

Run them with the plugin installed into memscope's environment: ``pip install -e .`` here,
then ``pytest``. Every test works in its own temporary folder and store.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from memscope.adapters.base import ReadOptions
from memscope.errors import RunDirError

from memscope_toybench import BENCHMARK
from memscope_toybench.dataset import BUNDLED, read_dataset
from memscope_toybench.run import ANSWERS_FILE, read_all, sniff

EXAMPLE_RUN = Path(__file__).resolve().parents[1] / "runs" / "toy_bm25"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32  # enough of a PNG for memscope's type check


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A copy of the example run (tests never write beside the package)."""
    return Path(shutil.copytree(EXAMPLE_RUN, tmp_path / "toy_bm25"))


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The environment of a memscope process with its own store and config."""
    found = dict(os.environ)
    found["MEMSCOPE_DB"] = str(tmp_path / "store" / "memscope.duckdb")
    found["MEMSCOPE_CONFIG"] = str(tmp_path / "config.toml")
    found["COLUMNS"] = "160"
    found.pop("MEMSCOPE_DEBUG", None)
    return found


def memscope(env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memscope", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


# --- 1. the reader ----------------------------------------------------------------------


def test_sniff_recognises_its_runs_only(run_dir: Path, tmp_path: Path) -> None:
    assert sniff(run_dir)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert not sniff(empty)
    (empty / "answers.csv").write_text("question_id,answer\n", encoding="utf-8")
    assert not sniff(empty)


def test_the_example_run_reads_into_one_run(run_dir: Path) -> None:
    (record,) = read_all(run_dir, ReadOptions())
    assert (record.run_id, record.benchmark, record.method, record.top_k) == (
        "toy_bm25",
        "toybench",
        "bm25",
        3,
    )
    predictions = record.predictions.to_pydict()
    assert predictions["qid"] == [f"q{n}" for n in range(1, 9)]
    assert predictions["em"] == [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0]
    questions = {q.qid: q for q in record.dataset.questions}
    assert questions["q2"].extra == {"toy_id": "t2", "kind": "update", "gap": 1}
    assert questions["q2"].clue_rounds == ["s1t4", "s2t2"]
    assert questions["q1"].extra["gap"] == 2 and questions["q8"].extra["gap"] == 0
    ranks = record.retrievals.to_pydict()
    assert [r for q, r in zip(ranks["qid"], ranks["round_id"], strict=True) if q == "q7"] == [
        "s1t2",
        "s3t2",
        "s2t4",
    ]
    assert record.notices == []


def test_a_bad_row_is_skipped_with_a_notice_or_refused_when_strict(run_dir: Path) -> None:
    answers = run_dir / ANSWERS_FILE
    answers.write_text(
        answers.read_text(encoding="utf-8") + "t99,nobody,1,s1t1\n", encoding="utf-8"
    )
    (record,) = read_all(run_dir, ReadOptions())
    assert record.predictions.num_rows == 8
    assert any("skipped" in notice.what for notice in record.notices)
    with pytest.raises(RunDirError, match="--strict"):
        read_all(run_dir, ReadOptions(strict=True))


def test_a_file_that_is_not_toybench_csv_is_one_clear_error(run_dir: Path) -> None:
    (run_dir / ANSWERS_FILE).write_text("id,pred\n1,x\n", encoding="utf-8")
    with pytest.raises(RunDirError, match="not a ToyBench answers file"):
        read_all(run_dir, ReadOptions())


def test_photos_resolve_only_to_real_images(tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    (photos / "pepper.png").write_text("not an image", encoding="utf-8")
    shared = next(r for r in read_dataset(BUNDLED, photos).record.rounds if r.image_refs)
    assert shared.image_files == [None]
    assert shared.image_captions == ["a grey cat asleep on a wooden bookshelf"]
    (photos / "pepper.png").write_bytes(PNG)
    shared = next(r for r in read_dataset(BUNDLED, photos).record.rounds if r.image_refs)
    assert shared.image_files == [str(photos / "pepper.png")]


# --- 2. the registry --------------------------------------------------------------------


def test_memscope_registers_the_spec_through_its_entry_point() -> None:
    from memscope.adapters import registry

    registry.reset()
    found = registry.registry()
    assert "toybench" not in found.problems, found.problems.get("toybench")
    assert found.benchmarks["toybench"].title == BENCHMARK.title


# --- 3. memscope's commands ---------------------------------------------------------------


def test_memscope_offers_the_plugins_option() -> None:
    helped = memscope({**os.environ, "COLUMNS": "200"}, "ingest", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "--toybench-photos" in helped.stdout


def test_ingest_and_table_through_memscope(
    run_dir: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()  # empty: the option reaches the reader, which says the photo is missing
    ingested = memscope(env, "ingest", run_dir, "--toybench-photos", photos)
    assert ingested.returncode == 0, ingested.stderr
    assert "ingested toy_bm25 · 8 questions" in ingested.stderr
    assert "not in the --toybench-photos folder" in ingested.stderr
    assert "agrees with upstream's summary summary.toybench.json" in ingested.stderr

    table = memscope(env, "table", "toy_bm25", "--format", "json")
    assert table.returncode == 0, table.stderr
    found = json.loads(table.stdout)
    (row,) = found["rows"]
    cells = {column["label"]: row["cells"][column["key"]] for column in found["columns"]}
    assert cells["Fact"]["value"] == 1.0 and cells["Fact"]["n"] == 4
    assert cells["Updated fact"]["value"] == 0.0 and cells["Updated fact"]["n"] == 2
    assert cells["Preference"]["value"] == 0.5

    checked = memscope(env, "table", "toy_bm25", "--check-upstream", "--format", "json")
    assert checked.returncode == 0, checked.stderr
    upstream = json.loads(checked.stdout)["upstream"]
    assert upstream["n_runs_checked"] == 1 and upstream["n_disagreeing"] == 0
    assert len(upstream["checks"]) == 6
