"""Runs whose names differ only in what a terminal does not show are never shown alike, and
are named exactly (issue 25): ``srag_v`` and ``srag_v`` + U+200B / U+2060 / U+FEFF / a
Hangul filler, ``café`` composed (NFC) and decomposed (NFD), and a folder literally named
``srag_v\\u200b`` (a backslash, then ``u200b``), each a real folder ingested side by side.

Each run has its own number of questions, so which run a command picked is plain to see.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.cli import app
from memscope.store import Store
from memscope.textsafe import printable_id
from shared_inputs import copy_store

runner = CliRunner()

NAMES = [
    "srag_v",
    "srag_v\u200b",  # ZERO WIDTH SPACE
    "srag_v\u2060",  # WORD JOINER
    "srag_v\ufeff",  # ZERO WIDTH NO-BREAK SPACE (BOM)
    "srag_v\u3164",  # HANGUL FILLER: a letter that draws nothing
    "srag_v\\u200b",  # a backslash and five letters: what memscope prints for the second
    "caf\u00e9",  # NFC
    "cafe\u0301",  # NFD
]
SHOWN = {
    "srag_v": "srag_v",
    "srag_v\u200b": "srag_v\\u200b",
    "srag_v\u2060": "srag_v\\u2060",
    "srag_v\ufeff": "srag_v\\ufeff",
    "srag_v\u3164": "srag_v\\u3164",
    "srag_v\\u200b": "srag_v\\\\u200b",
    "caf\u00e9": "caf\u00e9",
    "cafe\u0301": "cafe\\u0301",
}
"""How memscope prints each name (the expected strings, written out)."""


def n_questions(name: str) -> int:
    return NAMES.index(name) + 1


def lookalike_runs(root: Path) -> Path:
    """``root/runs/<name>`` for every name, run i with i + 1 questions; returns runs/."""
    for name in NAMES:
        count = n_questions(name)
        data = dialog(
            {"D1": ["D1:1", "D1:2"]},
            [
                qa(f"Question {i}?", f"answer {i}", [["X1"], ["Y1"]], ["D1:1"], ["D1"])
                for i in range(1, count + 1)
            ],
        )
        write_run(
            root / "runs" / name,
            data,
            [open_row(i, data, seed=["D1:1"], scores=[0.9]) for i in range(1, count + 1)],
            dialog_path=root / "data" / f"dialog-{count}" / "Task.json",
        )
    return root / "runs"


def invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


@pytest.fixture(scope="module")
def ingested_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(runs/, a store holding them)``: the runs written and ingested once per module (no
    test changes them; each test's store is its own copy of this one)."""
    root = tmp_path_factory.mktemp("lookalike")
    runs = lookalike_runs(root)
    template = root / "template.duckdb"
    ingested = invoke("ingest", str(runs), "--db", str(template))
    assert ingested.exit_code == 0, ingested.output
    return runs, template


@pytest.fixture
def runs_dir(ingested_runs: tuple[Path, Path], store_path: Path) -> Path:
    runs, template = ingested_runs
    copy_store(template, store_path)
    return runs


def test_the_names_are_printed_as_written_out() -> None:
    assert {name: printable_id(name) for name in NAMES} == SHOWN


def test_runs_lists_every_lookalike_run_distinctly(runs_dir: Path) -> None:
    listed = invoke("runs")
    assert listed.exit_code == 0
    cells = [
        line.split("│")[1].strip() for line in listed.stdout.splitlines() if line.startswith("│")
    ]
    assert sorted(cells) == sorted(SHOWN.values())
    raw = json.loads(invoke("runs", "-f", "json").stdout)
    assert sorted(row["run_id"] for row in raw) == sorted(NAMES)  # data keeps the exact ids


def test_ingest_names_each_run_distinctly(tmp_path: Path) -> None:
    ingested = invoke("ingest", str(lookalike_runs(tmp_path)))
    assert ingested.exit_code == 0
    for name in NAMES:
        assert re.search(
            rf"ingested {re.escape(SHOWN[name])} · {n_questions(name)} questions", ingested.stderr
        )


@pytest.mark.parametrize("name", NAMES, ids=[ascii(name) for name in NAMES])
def test_report_by_the_printed_name_picks_that_run(runs_dir: Path, name: str) -> None:
    # As memscope prints it, and the exact id (but not the one string that names two runs).
    typed_names = sorted({SHOWN[name], name} - {"srag_v\\u200b"})
    for typed in typed_names:
        done = invoke("report", typed, "-f", "json")
        assert done.exit_code == 0, (typed, done.output)
        run = json.loads(done.stdout)["run"]
        assert (run["id"], run["n_questions"]) == (name, n_questions(name))
    header = invoke("report", typed_names[0]).stdout.splitlines()[0]
    assert header.startswith(f"run {SHOWN[name]} · ")


def test_a_name_that_is_one_runs_id_and_anothers_printed_form_is_refused(
    runs_dir: Path,
) -> None:
    # The folder literally named srag_v\\u200b, and what memscope prints for srag_v + U+200B.
    done = invoke("report", "srag_v\\u200b")
    assert done.exit_code == 1 and done.stdout == ""
    assert "'srag_v\\u200b' names two runs" in done.stderr
    assert "'srag_v\\\\u200b'" in done.stderr and "$'srag_v\\u200b'" in done.stderr
    # Both ways the message offers do name one run each.
    literal = json.loads(invoke("report", "srag_v\\\\u200b", "-f", "json").stdout)["run"]
    invisible = json.loads(invoke("report", "srag_v\u200b", "-f", "json").stdout)["run"]
    assert (literal["id"], invisible["id"]) == ("srag_v\\u200b", "srag_v\u200b")


@pytest.mark.parametrize(
    ("typed", "candidates"),
    [
        (
            "srag_v\u200c",
            ["srag_v", "srag_v\u200b", "srag_v\u2060", "srag_v\ufeff", "srag_v\u3164"],
        ),
        (
            "srag_v\\u200c",
            ["srag_v", "srag_v\u200b", "srag_v\u2060", "srag_v\ufeff", "srag_v\u3164"],
        ),
        ("caf\u00e9\u200d", ["caf\u00e9", "cafe\u0301"]),
        (
            " srag_v\u00a0",
            ["srag_v", "srag_v\u200b", "srag_v\u2060", "srag_v\ufeff", "srag_v\u3164"],
        ),
    ],
    ids=["raw-zwnj", "escaped-zwnj", "nfc-zwj", "spaces"],
)
def test_a_lookalike_name_is_refused_with_its_candidates(
    runs_dir: Path, store_path: Path, typed: str, candidates: list[str]
) -> None:
    before = store_path.read_bytes()
    for command in (["report", typed], ["label", typed, "--question", "q1", "--code", "RET-MISS"]):
        done = invoke(*command)
        assert done.exit_code == 1 and done.stdout == ""
        message = done.stderr
        assert f"{len(candidates)} runs look the same" in message
        listed = re.findall(r"'([^']*)'", message.split("\n", 1)[1])
        assert listed == sorted(SHOWN[name] for name in candidates)
    assert store_path.read_bytes() == before  # nothing picked, nothing written


def test_a_single_lookalike_is_named_not_picked(tmp_path: Path) -> None:
    runs = lookalike_runs(tmp_path)
    db = str(tmp_path / "nfd.duckdb")
    assert invoke("ingest", str(runs / "cafe\u0301"), "--db", db).exit_code == 0
    done = invoke("report", "caf\u00e9", "--db", db)  # typed composed, stored decomposed
    assert done.exit_code == 1
    assert "no run is named exactly 'café'; one run looks the same" in done.stderr
    assert "'cafe\\u0301'" in done.stderr
    assert invoke("report", "cafe\\u0301", "--db", db).exit_code == 0


def test_an_unknown_name_suggests_printed_names(runs_dir: Path) -> None:
    done = invoke("report", "srag_w")
    assert done.exit_code == 1 and "no run 'srag_w' in the store" in done.stderr
    suggested = done.stderr.split("Did you mean ", 1)[1]
    assert "srag_v\\ufeff" in suggested and "\ufeff" not in suggested


def test_compare_label_and_export_name_the_runs_distinctly(runs_dir: Path, store: Store) -> None:
    compared = invoke("compare", "srag_v", "srag_v\\u2060")
    assert compared.exit_code == 0, compared.output
    assert "A srag_v (" in compared.stdout and "B srag_v\\u2060 (" in compared.stdout
    labelled = invoke("label", "srag_v\\ufeff", "--question", "q1", "--code", "RET-MISS")
    assert labelled.exit_code == 0, labelled.output
    assert "labelled q1 of srag_v\\ufeff: RET-MISS" in labelled.stderr
    exported = invoke("export-labels", "srag_v\\ufeff", "--format", "jsonl")
    assert exported.exit_code == 0 and "of srag_v\\ufeff" in exported.stderr
    (row,) = [json.loads(line) for line in exported.stdout.splitlines()]
    assert row["run_id"] == "srag_v\ufeff"  # the data keeps the exact id
    with store.read() as con:
        labelled_runs = con.execute("SELECT DISTINCT run_id FROM label_events").fetchall()
    assert labelled_runs == [("srag_v\ufeff",)]


def test_paths_in_messages_are_unambiguous(tmp_path: Path) -> None:
    done = invoke("ingest", str(tmp_path / "missing\u200b"))
    assert done.exit_code == 1
    assert f"{tmp_path}/missing\\u200b" in done.stderr and "\u200b" not in done.stderr


def test_default_export_files_of_lookalike_runs_differ(store: Store) -> None:
    from memscope.triage.session_summary import default_export_path

    paths = {default_export_path(store, name) for name in NAMES}
    assert len(paths) == len(NAMES)
    assert default_export_path(store, "srag_v").name == "labels-srag_v.csv"
    assert all(path.parent == store.path.resolve().parent for path in paths)


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_the_apps_runs_screen_shows_them_distinct(runs_dir: Path) -> None:
    from textual.widgets import DataTable

    from memscope.tui.app import make_app
    from memscope.tui.open_request import OpenRequest
    from memscope.tui.screens.runs import RunsScreen

    app_instance = make_app(OpenRequest([str(runs_dir)], annotator="alice"))
    async with app_instance.run_test(size=(140, 40)) as pilot:
        for _ in range(400):
            await pilot.pause(0.05)
            if isinstance(app_instance.screen, RunsScreen) and app_instance.screen.runs:
                break
        await settle(pilot)
        screen = app_instance.screen
        assert isinstance(screen, RunsScreen)
        table = screen.query_one(DataTable)
        shown = [str(table.get_cell_at((row, 1))) for row in range(table.row_count)]
        ids = [str(run["run_id"]) for run in screen.runs]
        assert sorted(ids) == sorted(NAMES)
        assert shown == [SHOWN[run_id] for run_id in ids]
        # Opening the row of the zero-width-space run opens that run, not its look-alike.
        table.move_cursor(row=ids.index("srag_v\u200b"))
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.05)
            if app_instance.session.is_open:
                break
        await settle(pilot)
        assert app_instance.session.run.run_id == "srag_v\u200b"
        status = str(app_instance.screen.query_one("#status").content)
        assert "srag_v\\u200b" in status and "\u200b" not in status
