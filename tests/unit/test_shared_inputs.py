"""The suite's shared inputs (tests/shared_inputs.py): a copied template store is the store a
test's own ingest of the same folders writes (the library's and the command's), and only
read-only files (the repository's, the shared upstream samples) are shared."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_locomo import shared_locomo
from memscope.adapters import ReadOptions
from memscope.cli import app
from memscope.store import Store
from memscope.usecases.runs.ingest import ingest_dir, ingest_dir_runs

REPO = Path(__file__).resolve().parents[2]
FOLDERS = (REPO / "runs" / "srag_v", REPO / "runs" / "dmv_f2_demo")


def contents(store: Store) -> dict[str, list[str]]:
    """Every row of every table of the store, sorted (the file's bytes may differ), with
    the times things were written left out (the template was written earlier)."""

    def row_text(row: tuple) -> str:
        return repr(tuple("<time>" if isinstance(v, datetime) else v for v in row))

    with store.read() as con:
        tables = [row[0] for row in con.execute("SHOW TABLES").fetchall()]
        return {
            table: sorted(map(row_text, con.execute(f'SELECT * FROM "{table}"').fetchall()))
            for table in tables
        }


def test_a_copied_template_holds_what_an_ingest_writes(
    tmp_path: Path, store: Store, ingested_store
) -> None:
    if not FOLDERS[0].is_dir():
        pytest.skip("the demo runs are not in this checkout")
    run_ids = ingested_store(*FOLDERS)
    fresh = Store(tmp_path / "fresh" / "memscope.duckdb")
    fresh_ids = [
        o.run_id for folder in FOLDERS for o in ingest_dir_runs(fresh, folder, ReadOptions())
    ]
    assert run_ids == fresh_ids and len(run_ids) > 2
    assert contents(store) == contents(fresh)
    # The copy sees its runs as unchanged, as the store after the test's own ingest would.
    assert ingest_dir(store, FOLDERS[0], ReadOptions()).status == "unchanged"


def test_a_second_copy_starts_from_the_template_again(
    store: Store, store_path: Path, ingested_store
) -> None:
    if not FOLDERS[0].is_dir():
        pytest.skip("the demo runs are not in this checkout")
    (run_id,) = ingested_store(FOLDERS[0])
    with store.write() as con:
        con.execute("DELETE FROM runs WHERE run_id = ?", [run_id])
    ingested_store(FOLDERS[0])
    with Store(store_path).read() as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)


def test_a_shared_samples_template_holds_what_the_ingest_command_writes(
    tmp_path: Path, store: Store, ingested_store
) -> None:
    results = shared_locomo() / "results"
    run_ids = ingested_store(results / "honcho", results / "honcho" / "rsr_0612")
    fresh_path = tmp_path / "fresh" / "memscope.duckdb"
    done = CliRunner().invoke(app, ["ingest", str(results), "--db", str(fresh_path)])
    assert done.exit_code == 0, done.output
    assert run_ids == ["honcho:honcho", "rsr_0612:honcho"]
    assert contents(store) == contents(Store(fresh_path))


def test_only_read_only_inputs_are_shared(tmp_path: Path, ingested_store) -> None:
    with pytest.raises(ValueError, match="not one of the read-only inputs"):
        ingested_store(tmp_path)
