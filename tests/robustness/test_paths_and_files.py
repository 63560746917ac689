"""Hostile paths and files (issue 25): a name is never a pattern, a FIFO or device never
hangs or exhausts memory, an ``--out`` never replaces the store or a file memscope did not
write, a small image never decodes into gigabytes, and a path that is not a file says what
it is.

One section per point of the issue (1, 6, 10, 15, 17), each with extra cases of its class.
Every case that could hang runs memscope in a subprocess with a timeout, so a regression
fails instead of blocking the run.
"""

from __future__ import annotations

import json
import os
import resource
import select
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from builders_cuemem import history, rq3_row, text_turn, write_json
from builders_cuemem import qa as cue_qa
from builders_dmv import DATA as DMV_DATA
from builders_dmv import probes, write_f2_run
from builders_media import bomb_png
from memscope.cli import app
from memscope.store import Store
from memscope.store.sql import rows

runner = CliRunner()
SRC = Path(__file__).parents[2] / "src"
HANG_TIMEOUT_S = 30
"""A subprocess still running after this is a hang (each normally takes 1-3 s)."""
MEMORY_LIMIT = 3 << 30
"""Address space of each subprocess: a regression reading /dev/zero dies, not the machine."""


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


GLOB_NAMES = ["exp[12]", "run*", "run?", "**", "e[!x]"]
"""Folder names a glob would expand, each paired below with a decoy the pattern matches."""
DECOYS = {"exp[12]": "exp1", "run*": "runx", "run?": "runx", "**": "zz", "e[!x]": "ey"}


def invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def memscope(*args: str, env: dict[str, str] | None = None, timeout: float = HANG_TIMEOUT_S):
    """Run memscope in a subprocess; a hang fails the test after ``timeout`` seconds."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "memscope", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "PYTHONPATH": str(SRC), **(env or {})},
            stdin=subprocess.DEVNULL,
            preexec_fn=limit_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"memscope {' '.join(args)} hung for {timeout} s")
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    return done


def one_error(stderr: str) -> str:
    """The one error message of a failed command."""
    assert stderr.count("error:") == 1, stderr
    return " ".join(stderr.split())


def dataset(answer: str) -> dict:
    return dialog(
        {"D1": ["D1:1", "D1:2"]},
        [qa(f"Question {i}?", f"{answer} {i}", [["X1"], ["Y1"]], ["D1:1"], ["D1"]) for i in (1, 2)],
    )


def memeye_run(
    folder: Path,
    pred: str,
    dialog_path: Path | None = None,
    answer: str = "gold",
    questions: tuple[int, ...] = (1, 2),
):
    data = dataset(answer)
    run_rows = [open_row(i, data, seed=["D1:1", "D1:2"], scores=[0.9, 0.4]) for i in questions]
    for row in run_rows:
        row["pred"] = pred
    return write_run(folder, data, run_rows, dialog_path=dialog_path)


def stored(store_path: Path, sql: str, params: list) -> list[tuple]:
    with Store(store_path).read() as con:
        return rows(con, sql, params)


# -- 1. a name is never a pattern ------------------------------------------------------------


@pytest.mark.parametrize("name", GLOB_NAMES)
def test_a_memeye_run_folder_with_glob_characters_reads_its_own_predictions(
    tmp_path: Path, store_path: Path, name: str
) -> None:
    """The decoy answers a question the run did not: a glob would add it to the run."""
    runs = tmp_path / "runs"
    memeye_run(runs / DECOYS[name], "decoy", runs / "decoy-data" / "Task.json", questions=(1, 2))
    run_dir = memeye_run(runs / name, "literal", runs / "data" / "Task.json", questions=(1,))
    result = invoke("ingest", str(run_dir))
    assert result.exit_code == 0, result.output
    preds = stored(store_path, "SELECT qid, pred FROM predictions WHERE run_id = ?", [name])
    assert preds == [("q1", "literal")]


def test_a_dataset_name_with_brackets_reads_that_file_not_its_lookalike(
    tmp_path: Path, store_path: Path
) -> None:
    data_dir = tmp_path / "data" / "dialog"
    decoy = dataset("decoy gold")
    data_dir.mkdir(parents=True)
    (data_dir / "Community_Garden1.json").write_text(json.dumps(decoy))
    run_dir = memeye_run(
        tmp_path / "runs" / "garden", "p", data_dir / "Community_Garden[1].json", answer="true gold"
    )
    assert invoke("ingest", str(run_dir)).exit_code == 0
    golds = stored(store_path, "SELECT gold FROM questions ORDER BY idx", [])
    assert golds == [("true gold 1",), ("true gold 2",)]


def test_a_dataset_found_below_a_dataset_folder_is_matched_by_its_exact_name(
    tmp_path: Path, store_path: Path
) -> None:
    """``--dataset FOLDER`` searches below it for the recorded name: as a name, not a pattern."""
    recorded = tmp_path / "gone" / "Garden[1].json"
    run_dir = memeye_run(tmp_path / "runs" / "garden", "p", recorded, answer="true gold")
    folder = tmp_path / "datasets"
    (folder / "a").mkdir(parents=True)
    (folder / "b").mkdir()
    (folder / "a" / "Garden1.json").write_text(json.dumps(dataset("decoy gold")))
    recorded.rename(folder / "b" / "Garden[1].json")
    assert invoke("ingest", str(run_dir), "--dataset", str(folder)).exit_code == 0
    assert stored(store_path, "SELECT gold FROM questions ORDER BY idx", []) == [
        ("true gold 1",),
        ("true gold 2",),
    ]


def test_a_native_run_sidecar_in_a_glob_folder_is_its_own(tmp_path: Path, store_path: Path) -> None:
    """retrieval.jsonl (a memscope-native run's pools) goes through the same literal path."""
    runs = tmp_path / "runs"
    for name, top in (("n1", "D1:2"), ("n[12]", "D1:1")):
        run_dir = memeye_run(runs / name, "p", runs / "data" / f"{name}.json")
        pools = [
            {"idx": i, "qid": f"q{i}", "pool": [{"rank": 1, "round_id": top, "score": 0.5}]}
            for i in (1, 2)
        ]
        (run_dir / "retrieval.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pools))
    assert invoke("ingest", str(runs / "n[12]")).exit_code == 0
    ranked = stored(
        store_path, "SELECT DISTINCT round_id FROM retrievals WHERE run_id = ?", ["n[12]"]
    )
    assert ranked == [("D1:1",)]


def _dmv_checkout(root: Path) -> Path:
    data = root / "data" / "vismem_diag_v2"
    data.mkdir(parents=True)
    for name in ("cue_registry.json", "seed_v2.json"):
        (data / name).write_bytes((DMV_DATA / name).read_bytes())
    return root


def test_a_dmv_run_folder_with_glob_characters_reads_its_own_csv(
    tmp_path: Path, store_path: Path
) -> None:
    checkout = _dmv_checkout(tmp_path / "DMV-Bench")
    write_f2_run(checkout / "results" / "f2_1", {"Decoy": probes(False)}, logs=False)
    literal = write_f2_run(checkout / "results" / "f2_[12]", {"Literal": probes(True)}, logs=False)
    result = invoke("ingest", str(literal))
    assert result.exit_code == 0, result.output
    assert stored(store_path, "SELECT run_id FROM runs ORDER BY run_id", []) == [
        ("f2_[12]:Literal",)
    ]


def _cue_history(answer: str) -> dict:
    return history(
        {"D00": [text_turn("D00:00"), text_turn("D00:01")]},
        [cue_qa("0-A-0", "pref_text", "explicit", answer, ["D00:00"])],
    )


def test_a_cuemem_results_file_and_history_with_glob_characters_are_their_own(
    tmp_path: Path, store_path: Path
) -> None:
    """A results stem ``g[1]`` looks for history ``g[1].json``: below --dataset, as a name."""
    histories = tmp_path / "histories"
    write_json(_cue_history("A"), histories / "a" / "g1.json")  # what g[1].json would match
    true_history = _cue_history("B")
    write_json(true_history, histories / "b" / "g[1].json")
    run_dir = tmp_path / "run[s]"
    entry = true_history["human-annotated QAs"][0]
    write_json([rq3_row(entry, "literal answer", [])], run_dir / "g[1]_results.json")
    write_json([rq3_row(entry, "decoy answer", [])], tmp_path / "runs" / "g1_results.json")
    result = invoke("ingest", str(run_dir), "--dataset", str(histories))
    assert result.exit_code == 0, result.output
    assert stored(store_path, "SELECT pred FROM predictions", []) == [("literal answer",)]
    assert stored(store_path, "SELECT gold FROM questions", []) == [("B",)]


def _label_export(tmp_path: Path, store_path: Path) -> Path:
    """Labels of run ``run`` on q1 (SEL-STALE) exported to jsonl, csv and parquet."""
    run_dir = memeye_run(tmp_path / "runs" / "run", "p")
    assert invoke("ingest", str(run_dir)).exit_code == 0
    assert invoke("label", "run", "-q", "q1", "--code", "SEL-STALE").exit_code == 0
    return run_dir


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_import_labels_reads_the_file_named_not_its_lookalike(
    tmp_path: Path, store_path: Path, fmt: str
) -> None:
    _label_export(tmp_path, store_path)
    decoy, literal = tmp_path / f"labels1.{fmt}", tmp_path / f"labels[1].{fmt}"
    assert invoke("export-labels", "-f", fmt, "--out", str(decoy)).exit_code == 0
    assert invoke("label", "run", "-q", "q2", "--code", "RET-MISS").exit_code == 0
    assert invoke("export-labels", "-f", fmt, "--out", str(literal)).exit_code == 0
    other = tmp_path / "other.duckdb"
    assert invoke("ingest", str(tmp_path / "runs" / "run"), "--db", str(other)).exit_code == 0
    result = invoke("import-labels", str(literal), "--db", str(other), "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["imported"] == 2  # labels1 holds only one


def test_a_tilde_and_a_url_like_name_are_local_files(
    tmp_path: Path, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB would read ``~x`` from the home folder and ``s3:``-style names remotely."""
    _label_export(tmp_path, store_path)
    folder = tmp_path / "~" / "s3:"
    folder.mkdir(parents=True)
    assert invoke("export-labels", "--out", str(folder / "l.jsonl")).exit_code == 0
    monkeypatch.chdir(tmp_path)
    other = tmp_path / "other.duckdb"
    assert invoke("ingest", str(tmp_path / "runs" / "run"), "--db", str(other)).exit_code == 0
    result = invoke("import-labels", "~/s3:/l.jsonl", "--db", str(other))
    assert result.exit_code == 0, result.output
    assert "imported 1 event(s)" in result.stderr


def test_the_escaped_fallback_matches_only_the_literal_file(tmp_path: Path) -> None:
    """Without /proc, the name DuckDB gets has each pattern character bracketed."""
    from memscope.store.attached import connect_offline
    from memscope.store.literal_files import literal_file

    for name, decoy in DECOYS.items():
        for folder, value in ((name, "literal"), (decoy, "decoy")):
            (tmp_path / folder).mkdir(exist_ok=True)
            (tmp_path / folder / "x[1]?.jsonl").write_text(json.dumps({"v": value}) + "\n")
        (tmp_path / decoy / "x1a.jsonl").write_text(json.dumps({"v": "decoy"}) + "\n")
        con = connect_offline()
        for use_proc in (True, False):
            with literal_file(tmp_path / name / "x[1]?.jsonl", use_proc=use_proc) as reader:
                got = con.execute("SELECT v FROM read_json(?)", [reader.name]).fetchall()
            assert got == [("literal",)], (name, use_proc)
        con.close()


# -- 6. an --out never replaces what memscope did not write --------------------------------


def _store_bytes(store_path: Path) -> bytes:
    return store_path.read_bytes()


@pytest.mark.parametrize(
    "command",
    [
        ["export-labels"],
        ["export-labels", "-f", "csv"],
        ["export-labels", "-f", "parquet"],
        ["table", "run", "-f", "csv"],
        ["table", "run", "-f", "markdown"],
    ],
    ids=lambda c: " ".join(c),
)
def test_an_out_naming_the_store_is_refused_and_the_store_kept(
    tmp_path: Path, store_path: Path, command: list[str]
) -> None:
    _label_export(tmp_path, store_path)
    before = _store_bytes(store_path)
    link = tmp_path / "link.out"
    link.symlink_to(store_path)
    hard = tmp_path / "hard.out"
    os.link(store_path, hard)
    for out in (store_path, link, hard):
        result = invoke(*command, "--out", str(out))
        assert result.exit_code == 1, result.output
        assert "--out names the memscope store" in one_error(result.stderr)
    assert _store_bytes(store_path) == before and link.is_symlink()
    assert invoke("runs").exit_code == 0  # still a store


@pytest.mark.parametrize(
    ("suffix", "what"),
    [
        (".labels-pending.jsonl", "the store's label journal"),
        (".app.lock", "the store's app lock"),
        (".lock", "the store's handoff lock"),
        (".wal", "the memscope store's write-ahead log"),
    ],
)
def test_an_out_naming_a_store_file_is_refused_even_before_it_exists(
    tmp_path: Path, store_path: Path, suffix: str, what: str
) -> None:
    _label_export(tmp_path, store_path)
    target = store_path.with_name(store_path.name + suffix)
    exists = target.exists()
    result = invoke("export-labels", "--out", str(target))
    assert result.exit_code == 1 and f"--out names {what}" in one_error(result.stderr)
    assert target.exists() == exists


def test_an_out_over_a_foreign_file_is_refused_and_over_an_export_allowed(
    tmp_path: Path, store_path: Path
) -> None:
    _label_export(tmp_path, store_path)
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text('{"my": "own data"}\n')
    journal = tmp_path / "other.duckdb.labels-pending.jsonl"  # another store's journal
    journal.write_text('{"id": "x", "op": {}}\n')
    predictions = tmp_path / "runs" / "run" / "predictions.jsonl"
    for path in (foreign, journal, predictions):
        before = path.read_bytes()
        result = invoke("export-labels", "--out", str(path))
        assert result.exit_code == 1, result.output
        assert "did not write as a label export" in one_error(result.stderr)
        assert path.read_bytes() == before
    export = tmp_path / "labels.out"
    for fmt in ("jsonl", "csv", "parquet", "jsonl"):  # each over the previous one
        result = invoke("export-labels", "-f", fmt, "--out", str(export))
        assert result.exit_code == 0, result.output
    assert export.read_text().startswith('{"run_id":"run"')
    empty = tmp_path / "empty.csv"
    empty.touch()
    assert invoke("export-labels", "-f", "csv", "--out", str(empty)).exit_code == 0
    summary = tmp_path / "summary.csv"
    assert invoke("export-labels", "--summary", "-f", "csv", "--out", str(summary)).exit_code == 0
    assert invoke("export-labels", "--summary", "-f", "csv", "--out", str(summary)).exit_code == 0


def test_table_out_replaces_a_table_and_refuses_a_label_export(
    tmp_path: Path, store_path: Path
) -> None:
    _label_export(tmp_path, store_path)
    out = tmp_path / "table.txt"
    for fmt in ("csv", "json", "markdown", "latex", "csv"):
        result = invoke("table", "run", "-f", fmt, "--out", str(out))
        assert result.exit_code == 0, result.output
    assert out.read_text().startswith("system,runs,n_questions")
    export = tmp_path / "labels.csv"
    assert invoke("export-labels", "-f", "csv", "--out", str(export)).exit_code == 0
    result = invoke("table", "run", "-f", "csv", "--out", str(export))
    assert result.exit_code == 1 and "did not write as a table" in one_error(result.stderr)
    assert export.read_text().startswith("run_id,")


@pytest.mark.parametrize("suffix", [".svg", ".png", ".pdf"])
def test_plot_out_replaces_a_previous_figure(tmp_path: Path, store_path: Path, suffix: str) -> None:
    pytest.importorskip("matplotlib")
    _label_export(tmp_path, store_path)
    figure = tmp_path / f"fig{suffix}"
    for _ in range(2):  # the second replaces the first
        result = invoke("plot", "heatmap", "run", "--out", str(figure))
        assert result.exit_code == 0, result.output


def test_plot_out_refuses_a_foreign_figure_and_the_store(tmp_path: Path, store_path: Path) -> None:
    pytest.importorskip("matplotlib")
    _label_export(tmp_path, store_path)
    foreign = tmp_path / "drawing.svg"
    foreign.write_text('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>')
    link = tmp_path / "store.svg"
    link.symlink_to(store_path)
    for path, message in ((foreign, "did not write as a figure"), (link, "the memscope store")):
        before = Path(os.path.realpath(path)).read_bytes()
        result = invoke("plot", "heatmap", "run", "--out", str(path))
        assert result.exit_code == 1 and message in one_error(result.stderr)
        assert Path(os.path.realpath(path)).read_bytes() == before


def test_a_native_run_never_writes_over_what_is_not_a_run(tmp_path: Path) -> None:
    """retrieve --out: a folder, refused when its run files are links, FIFOs or a project's."""
    from memscope.adapters.memeye.native_run import NativeRunWriter
    from memscope.errors import EngineError

    store = tmp_path / "memscope.duckdb"
    store.write_bytes(b"precious")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "predictions.jsonl").symlink_to(store)
    project = tmp_path / "project"
    project.mkdir()
    (project / "config.json").write_text('{"mine": true}')
    fifo_dir = tmp_path / "fifo"
    fifo_dir.mkdir()
    os.mkfifo(fifo_dir / "retrieval.jsonl")
    cases = [
        (linked, "predictions.jsonl is a symbolic link"),
        (project, "holds config.json but no run"),
        (fifo_dir, "retrieval.jsonl is a FIFO (named pipe)"),
        (store, "--out is a regular file, not a folder"),
    ]
    for folder, message in cases:
        with pytest.raises(EngineError, match=message.replace("(", r"\(").replace(")", r"\)")):
            NativeRunWriter(folder, {}, {}, overwrite=True)
    assert store.read_bytes() == b"precious"
    assert (project / "config.json").read_text() == '{"mine": true}'
    fresh = tmp_path / "fresh"
    with NativeRunWriter(fresh, {"a": 1}, {}) as writer:
        writer.add({"idx": 1, "pred": "x"}, [])
    with pytest.raises(EngineError, match="already holds a run"):
        NativeRunWriter(fresh, {}, {})
    NativeRunWriter(fresh, {"a": 2}, {}, overwrite=True).close()


# -- 10. FIFOs, devices and huge files: refused at once, never a hang ------------------------


def test_a_fifo_as_the_store_or_its_wal_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "store.duckdb"
    os.mkfifo(fifo)
    done = memscope("runs", "--db", str(fifo))
    assert done.returncode == 1
    assert "the store is a FIFO (named pipe), not a DuckDB file" in one_error(done.stderr)
    wal_store = tmp_path / "other.duckdb"
    with Store(wal_store).write():  # a real store: a missing one is "no store here yet"
        pass
    os.mkfifo(tmp_path / "other.duckdb.wal")
    done = memscope("runs", "--db", str(wal_store))
    assert done.returncode == 1 and "the store's WAL is a FIFO" in one_error(done.stderr)


def test_a_fifo_as_the_label_journal_is_refused_at_once(tmp_path: Path, store_path: Path) -> None:
    _label_export(tmp_path, store_path)
    os.mkfifo(store_path.with_name(store_path.name + ".labels-pending.jsonl"))
    for command in (["export-labels"], ["label", "run", "-q", "q2", "--code", "RET-MISS"]):
        done = memscope(*command, "--db", str(store_path))
        assert done.returncode == 1, done.stderr
        assert "the label journal is a FIFO (named pipe)" in one_error(done.stderr)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: os.mkfifo(p), "the config file is a FIFO (named pipe), not a regular file"),
        (lambda p: p.mkdir(), "the config file is a folder, not a regular file"),
        (lambda p: None, "the config file is a character device"),  # /dev/zero
        (
            lambda p: p.write_bytes(b"# " + b"x" * (5 << 20) + b"\n"),
            "the config file is 5,242,883 bytes; a memscope config is at most 1,048,576",
        ),
    ],
    ids=["fifo", "folder", "dev-zero", "5-MB"],
)
def test_a_config_that_is_not_a_small_file_is_refused_at_once(
    tmp_path: Path, make, message: str
) -> None:
    config = tmp_path / "config.toml"
    make(config)
    path = "/dev/zero" if "device" in message else str(config)
    done = memscope("config", "show", env={"MEMSCOPE_CONFIG": path})
    assert done.returncode == 1 and message in one_error(done.stderr)
    assert len(done.stdout) + len(done.stderr) < 2000


def test_config_show_cuts_a_long_setting(tmp_path: Path, isolated_env: Path) -> None:
    config = isolated_env / "config.toml"
    config.write_text(f'[user]\nannotator = "{"a" * 500_000}"\n')
    result = invoke("config", "show")
    assert result.exit_code == 0, result.output
    assert "… (500,000 characters)" in result.stdout and len(result.stdout) < 2000


@pytest.mark.parametrize(
    "command", [["export-labels"], ["table", "run", "-f", "csv"]], ids=["export-labels", "table"]
)
def test_an_out_fifo_without_reader_is_refused_at_once(
    tmp_path: Path, store_path: Path, command: list[str]
) -> None:
    _label_export(tmp_path, store_path)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    done = memscope(*command, "--out", str(fifo), "--db", str(store_path))
    assert done.returncode == 1
    assert "--out is a FIFO (named pipe) that no process reads" in one_error(done.stderr)


def test_an_out_fifo_with_a_reader_and_a_terminal_are_written_through(
    tmp_path: Path, store_path: Path
) -> None:
    """A pipe or device as --out is the user's choice of a stream (README: /proc/self/fd/1)."""
    _label_export(tmp_path, store_path)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()  # it waits in open() for a writer
    result = invoke("export-labels", "-f", "csv", "--out", str(fifo))
    if reader.is_alive():  # nothing was written: let the reader go before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    reader.join(timeout=HANG_TIMEOUT_S)
    assert result.exit_code == 0, result.output
    assert received and received[0].startswith(b"run_id,") and b"SEL-STALE" in received[0]
    # A terminal, reached through a link in the temp dir: were it mistaken for a file, the
    # link would be replaced, never a device.
    master, slave = os.openpty()
    terminal = tmp_path / "terminal"
    terminal.symlink_to(os.ttyname(slave))
    try:
        for command in (["export-labels", "-f", "csv"], ["table", "run", "-f", "csv"]):
            result = invoke(*command, "--out", str(terminal))
            assert result.exit_code == 0, result.output
            assert terminal.is_symlink()
        shown = b""
        while b"system,runs" not in shown and select.select([master], [], [], 5)[0]:
            shown += os.read(master, 65536)
        assert b"SEL-STALE" in shown and b"system,runs" in shown
    finally:
        os.close(slave)
        os.close(master)


@pytest.mark.parametrize("name", ["predictions.jsonl", "metrics.json", "config.json"])
def test_a_run_file_that_is_a_fifo_is_refused_at_once(tmp_path: Path, name: str) -> None:
    run_dir = memeye_run(tmp_path / "runs" / "run", "p")
    (run_dir / name).unlink()
    os.mkfifo(run_dir / name)
    done = memscope("ingest", str(run_dir), "--db", str(tmp_path / "s.duckdb"))
    assert done.returncode == 1
    assert "FIFO (named pipe)" in one_error(done.stderr)


def test_a_dataset_that_is_a_fifo_or_a_device_is_refused_at_once(tmp_path: Path) -> None:
    run_dir = memeye_run(tmp_path / "runs" / "run", "p")
    fifo = tmp_path / "dialog.json"
    os.mkfifo(fifo)
    for dataset_path, kind in ((fifo, "a FIFO (named pipe)"), ("/dev/zero", "a character device")):
        done = memscope(
            "ingest", str(run_dir), "--dataset", str(dataset_path), "--db", str(tmp_path / "s")
        )
        assert done.returncode == 1
        assert f"is {kind}, not a regular file" in one_error(done.stderr)


# -- 15. a small image never decodes into gigabytes ------------------------------------------


PEAK = """
import resource, sys
from memscope.media.images import load_preview
from memscope.errors import MediaError
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    image = load_preview(sys.argv[1], 1024)
    print("decoded", *image.size)
except MediaError as error:
    print("refused", error.what)
print("grew_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def peak_decode(path: Path) -> tuple[str, int]:
    """What decoding ``path`` for the app's preview gives, and how much memory it took (KiB)."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK, str(path)],
        capture_output=True,
        text=True,
        timeout=HANG_TIMEOUT_S,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        preexec_fn=limit_memory,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    return lines[0], int(lines[-1].split()[1])


def test_a_decompression_bomb_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    bomb = bomb_png(tmp_path / "bomb.png", 12_000, 12_000)  # 144 megapixels in ~140 KiB
    assert bomb.stat().st_size < 512 * 1024
    said, grew_kib = peak_decode(bomb)
    assert said.startswith("refused the image is 12,000 × 12,000 pixels (144 megapixels)")
    assert "decompression bomb" in said
    assert grew_kib < 40 * 1024  # decoding it would take 430 MB and more


def test_a_huge_jpeg_is_decoded_at_a_reduced_scale(tmp_path: Path) -> None:
    from PIL import Image

    photo = tmp_path / "photo.jpg"
    Image.new("L", (8000, 6000), 128).save(photo, quality=30)  # 48 megapixels, ~0.5 MB
    said, grew_kib = peak_decode(photo)
    assert said == "decoded 1024 768"
    assert grew_kib < 60 * 1024  # a full decode to RGB is 190 MB and more


def test_an_image_within_the_bound_is_shrunk_and_turned(tmp_path: Path) -> None:
    from PIL import Image

    from memscope.media.images import load_preview

    tall = tmp_path / "tall.png"
    Image.new("P", (300, 2000), 3).save(tall)
    assert load_preview(tall, 1024).size == (154, 1024)
    turned = tmp_path / "turned.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to display
    Image.new("RGB", (400, 100), (10, 20, 30)).save(turned, exif=exif)
    preview = load_preview(turned, 1024)
    assert preview.size == (100, 400) and preview.mode == "RGB"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: os.mkfifo(p), "the image path is a FIFO (named pipe), not a file"),
        (lambda p: p.mkdir(), "the image path is a folder, not a file"),
        (lambda p: p.write_bytes(b"GIF89a" + b"\x00" * 5), "not an image memscope can read"),
        (lambda p: None, "the image file does not exist"),
    ],
    ids=["fifo", "folder", "garbage", "missing"],
)
def test_an_image_path_that_is_not_an_image_file_says_what_it_is(
    tmp_path: Path, make, message: str
) -> None:
    from memscope.errors import MediaError
    from memscope.media.images import load_preview

    path = tmp_path / "x.png"
    make(path)
    with pytest.raises(MediaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_preview(path, 1024)


# -- 17. a path that is not a file says what it is -------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_import_labels_of_a_fifo_or_a_device_says_what_the_path_is(
    tmp_path: Path, store_path: Path, kind: str
) -> None:
    _label_export(tmp_path, store_path)
    path = Path("/dev/zero")
    if kind == "fifo":
        path = tmp_path / "labels.jsonl"
        os.mkfifo(path)
    what = "a FIFO (named pipe)" if kind == "fifo" else "a character device"
    done = memscope("import-labels", str(path), "--db", str(store_path))
    assert done.returncode == 1
    assert f"the label file is {what}, not a regular file" in one_error(done.stderr)


def test_import_labels_of_a_folder_or_a_missing_file_says_which(
    tmp_path: Path, store_path: Path
) -> None:
    _label_export(tmp_path, store_path)
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    extensionless = tmp_path / "labels"
    extensionless.mkdir()
    cases = [
        (folder, "the label file is a folder, not a regular file"),
        (extensionless, "the label file is a folder, not a regular file"),
        (tmp_path / "missing.jsonl", "the label file does not exist"),
    ]
    for path, message in cases:
        result = invoke("import-labels", str(path))
        assert result.exit_code == 1 and message in one_error(result.stderr), result.output


def test_file_kinds_name_every_kind_of_path(tmp_path: Path) -> None:
    from memscope.file_kinds import path_kind

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("x")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert {
        name: path_kind(tmp_path / name)
        for name in ("fifo", "dir", "file", "dangling", "loop", "nowhere")
    } == {
        "fifo": "a FIFO (named pipe)",
        "dir": "a folder",
        "file": "a regular file",
        "dangling": "a broken symbolic link",
        "loop": "a symbolic link loop",
        "nowhere": None,
    }
    assert path_kind("/dev/null") == "a character device"
