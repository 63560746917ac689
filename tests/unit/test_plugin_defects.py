"""Issue 39, item 5: the defects a plugin author hit, each with its test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import small_run
from memscope.adapters import ReadOptions
from memscope.cli import app
from memscope.errors import MemscopeError
from memscope.store import Store
from memscope.usecases.labels.queue import QueueSpec, TriageTable
from memscope.usecases.labels.queue_window import StoreQueue
from memscope.usecases.runs.ingest import ingest_dir_runs, ingest_paths
from memscope.usecases.runs.loading import load_run
from memscope.usecases.runs.run_info import RunInfo
from memscope.usecases.runs.selection import check_refs
from plugin_helpers import TOY, TOY_CLONE, install_plugins

RUNS = Path(__file__).resolve().parents[2] / "runs"


def _queue(store: Store, run_id: str) -> tuple[TriageTable, StoreQueue]:
    from memscope.store import queries

    with store.read() as con:
        row = queries.get_run(con, run_id)
    assert row is not None
    return TriageTable(load_run(store, run_id)), StoreQueue(store, RunInfo.from_row(row))


def test_every_axis_alias_filters_the_queue_like_its_key(store: Store) -> None:
    if not (RUNS / "dmv_f2_demo").is_dir():
        pytest.skip("the demo runs are not in this checkout")
    ingest_dir_runs(store, RUNS / "dmv_f2_demo", ReadOptions())
    table, queue = _queue(store, "dmv_f2_demo:TextOnly")
    for alias, key in (
        ("bank_size:>=9", "bank:>=9"),
        ("bank_size:<30 reach:1", "bank:<30 reach:1"),
    ):
        expected = table.idx[table.select(QueueSpec(kind="all", text=key))].tolist()
        assert queue.select(QueueSpec(kind="all", text=alias)).tolist() == expected
        assert table.idx[table.select(QueueSpec(kind="all", text=alias))].tolist() == expected


def test_an_exception_in_the_app_is_never_an_exit_0(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.app import App

    import memscope.tui.app as tui_app
    import memscope.tui.widgets.image_preview as image_preview
    from memscope.tui.launch import OpenRequest, run_triage_app

    class Crashing(App[None]):
        def on_mount(self) -> None:
            raise KeyError("abs")

    class Stub:
        def __init__(self) -> None:
            self.store, self.options, self.app = store, ReadOptions(), Crashing()

        def run(self) -> None:
            self.app.run(headless=True)

        @property
        def return_code(self) -> int | None:
            return self.app.return_code

    monkeypatch.setattr(tui_app, "make_app", lambda request: Stub())
    monkeypatch.setattr(image_preview, "load_renderer", lambda: None)
    run_dir = small_run(tmp_path)
    with pytest.raises(MemscopeError, match="stopped on an unexpected error"):
        run_triage_app(OpenRequest([str(run_dir)]))


def test_a_run_id_memscope_printed_with_a_slash_is_accepted(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "root"
    for model in ("gpt-4o-mini", "gpt-5"):
        small_run(root / model)
    outcomes, failures = ingest_paths(store, [root], ReadOptions())
    assert not failures
    run_id = next(o.run_id for o in outcomes if o.run_id.startswith("gpt-4o-mini/"))
    assert "/" in run_id
    check_refs(store, [run_id])  # memscope open's check
    runner = CliRunner()
    for command in (
        ["report", run_id, "-f", "json"],
        ["table", run_id, "-f", "json"],
        ["label", run_id, "-q", "q1", "-c", "RET-MISS"],
    ):
        result = runner.invoke(app, command)
        assert result.exit_code == 0, (command, result.output)
    report = runner.invoke(app, ["report", run_id, "-f", "json"]).stdout
    assert json.dumps(run_id) in report


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    yield from install_plugins(tmp_path, monkeypatch)


def _versioned(version: str) -> str:
    return (
        TOY_CLONE
        + """
    from memscope_toybench import run

    class Reader(RenamedReader):
        def __init__(self):
            super().__init__("toyv")
"""
        + f'    BENCHMARK = clone("toyv", reader=Reader(), reader_version="{version}")\n'
    )


def test_a_changed_plugin_reader_is_read_again_and_reread_forces_it(
    plugins, store: Store, tmp_path: Path
) -> None:
    import shutil

    run_dir = tmp_path / "toy_bm25"
    shutil.copytree(TOY / "runs" / "toy_bm25", run_dir)
    plugins({"toyv": "toy_v1:BENCHMARK"}, {"toy_v1": _versioned("1")})

    def statuses(options: ReadOptions | None = None) -> list[str]:
        outcomes, failures = ingest_paths(store, [run_dir], options or ReadOptions())
        assert not failures, failures
        return [outcome.status for outcome in outcomes]

    assert statuses() == ["new"]
    assert statuses() == ["unchanged"]
    plugins({"toyv": "toy_v2:BENCHMARK"}, {"toy_v2": _versioned("2")})
    assert statuses() == ["replaced"]  # the reader changed: read again
    assert statuses() == ["unchanged"]
    assert statuses(ReadOptions(reread=True)) == ["replaced"]
    memeye = small_run(tmp_path / "memeye")
    outcomes, _ = ingest_paths(store, [memeye], ReadOptions())
    again, _ = ingest_paths(store, [memeye], ReadOptions(reread=True))
    assert [o.status for o in again] == ["replaced"]
    assert again[0].run_id == outcomes[0].run_id


def test_a_read_options_help_keeps_every_character(plugins) -> None:
    plugins(
        {"helpy": "helpy:BENCHMARK"},
        {
            "helpy": TOY_CLONE
            + """
    HELP = "the logs *_retrievallog_<granularity>_<retriever> [one per run]"
    BENCHMARK = replace(
        clone("helpy"), read_options=(ReadOption("helpy_logs", "--helpy-logs", HELP),)
    )
    """
        },
    )
    result = CliRunner().invoke(app, ["ingest", "--help"], env={"COLUMNS": "250"})
    assert "*_retrievallog_<granularity>_<retriever> [one per run]" in result.stdout


def test_a_clue_word_with_a_note_is_pluralised_on_its_noun() -> None:
    from memscope.analysis.suggest import _plural

    assert _plural("evidence turn (has_answer)") == "evidence turns (has_answer)"
    assert _plural("evidence turn (has_answer)", "(s)") == "evidence turn(s) (has_answer)"
    assert _plural("gold clue", "(s)") == "gold clue(s)"


def test_rerun_suggests_no_way_the_benchmark_or_run_refuses(plugins, store: Store) -> None:
    plugins({"toyv": "toy_v1:BENCHMARK"}, {"toy_v1": _versioned("1")})
    outcomes, failures = ingest_paths(store, [TOY / "runs" / "toy_bm25"], ReadOptions())
    assert not failures
    result = CliRunner().invoke(
        app, ["rerun", outcomes[0].run_id, "--alpha", "0.5"], env={"COLUMNS": "250"}
    )
    said = result.output
    assert result.exit_code != 0 and "no retrieval scores to re-rank" in said
    assert "--requery" not in said and "memscope retrieve" not in said
    assert "ToyBench runs can be re-ranked only where they log retrieval scores" in said


def test_check_table_gets_the_run_dir_and_a_missing_summary_names_the_plugins_file(
    plugins, store: Store, tmp_path: Path
) -> None:
    import shutil

    plugins({"toyv": "toy_v1:BENCHMARK"}, {"toy_v1": _versioned("1")})
    with_summary = tmp_path / "with" / "toy_bm25"
    shutil.copytree(TOY / "runs" / "toy_bm25", with_summary)
    without = tmp_path / "without" / "toy_plain"
    shutil.copytree(TOY / "runs" / "toy_bm25", without)
    (without / "summary.toybench.json").unlink()
    _, failures = ingest_paths(store, [with_summary, without], ReadOptions())
    assert not failures
    runner = CliRunner()
    env = {"COLUMNS": "250"}
    checked = runner.invoke(app, ["table", "toy_bm25", "--check-upstream"], env=env)
    assert checked.exit_code == 0, checked.output
    assert "agree" in checked.output and "no benchmark-written summary" not in checked.output
    missing = runner.invoke(app, ["table", "toy_plain", "--check-upstream"], env=env)
    said = missing.output
    assert "no benchmark-written summary (ToyBench summary.toybench.json)" in said
    assert "MemEye" not in said and "DMV-Bench" not in said
