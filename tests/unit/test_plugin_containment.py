"""Issue 39, item 6: a buggy plugin never costs anyone their data or their tool.

Each hostile plugin here is a real package written to a temporary folder and registered
through a real entry point; the ToyBench example (``examples/benchmark-plugin``) lends the
well-behaved parts.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import typer

from builders import small_run
from memscope.adapters import ReadOptions, detect, find_run_dirs, read_runs, registry
from memscope.adapters.registry import benchmark, benchmarks, unavailable
from memscope.adapters.spec_check import MEMSCOPE_TABLES, RESERVED_FLAGS
from memscope.errors import PluginError, RunDirError
from memscope.textsafe import is_printable
from plugin_helpers import TOY, TOY_CLONE, install_plugins


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    yield from install_plugins(tmp_path, monkeypatch)


def test_a_detail_table_named_like_memscopes_own_is_refused_and_labels_survive(
    plugins, store, tmp_path: Path
) -> None:
    from memscope.usecases.labels.events import record_label
    from memscope.usecases.runs.ingest import ingest_dir

    run_dir = small_run(tmp_path)
    run_id = ingest_dir(store, run_dir, ReadOptions()).run_id
    record_label(store, run_id, "q1", codes=["SEL-STALE"], annotator="alice")
    plugins(
        {"evil": "evil_tables:BENCHMARK", "evil2": "evil_tables:OTHER"},
        {
            "evil_tables": TOY_CLONE
            + """
    COLUMNS = (("qid", "VARCHAR"), ("code", "VARCHAR"))
    BENCHMARK = clone("evil", detail_tables=(DetailTable("label_events", COLUMNS),))
    OTHER = clone("evil2", detail_tables=(DetailTable("toy_steps", COLUMNS),))
    """
        },
    )
    assert "evil" not in registry.registry().benchmarks
    assert "memscope's own tables" in unavailable()["evil"]
    assert "own namespace" in unavailable()["evil2"]
    # A changed run, re-ingested: its labels are still there.
    predictions = run_dir / "predictions.jsonl"
    predictions.write_text(predictions.read_text().replace("by the shed", "by the shed!"))
    ingest_dir(store, run_dir, ReadOptions())
    with store.read() as con:
        count = con.execute(
            "SELECT count(*) FROM label_events WHERE run_id = ?", [run_id]
        ).fetchone()
    assert count is not None and count[0] >= 1


def test_memscopes_table_list_is_every_table_of_a_fresh_store() -> None:
    from memscope.store.connection import empty_store

    con, give_back = empty_store()
    try:
        tables = {
            row[0]
            for row in con.execute(
                "SELECT table_name FROM information_schema.tables"
                " WHERE table_catalog = current_database()"
            ).fetchall()
        }
    finally:
        con.close()
        give_back()
    details = {table.name for spec in benchmarks() for table in spec.detail_tables}
    assert tables - details == MEMSCOPE_TABLES


def test_memscopes_own_flags_are_all_reserved() -> None:
    from memscope.cli import app

    plugin_flags = {option.flag for spec in benchmarks() for option in spec.read_options}
    flags: set[str] = set()

    def walk(command) -> None:
        for param in getattr(command, "params", []):
            flags.update(opt for opt in (*param.opts, *param.secondary_opts) if opt[:2] == "--")
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(typer.main.get_command(app))
    assert flags - plugin_flags <= RESERVED_FLAGS


def test_a_plugin_taking_memscopes_flag_or_a_built_in_name_is_the_one_refused(plugins) -> None:
    plugins(
        {
            "aaa": "evil_flags:DB",
            "memeye": "evil_flags:MEMEYE",
            "aab": "evil_flags:IMAGES",
        },
        {
            "evil_flags": TOY_CLONE
            + """
    DB = replace(clone("aaa"), read_options=(ReadOption("store", "--db", "a store"),))
    MEMEYE = clone("memeye")
    IMAGES = replace(clone("aab"), read_options=(ReadOption("pics", "--images", "pics"),))
    """
        },
    )
    found = registry.registry()
    assert set(found.benchmarks) == {"memeye", "locomo"}
    assert benchmark("memeye").reader.reader.module == "memscope.adapters.memeye.run"  # type: ignore[attr-defined]
    assert "one of memscope's own flags" in found.problems["aaa"]
    assert "'locomo'" in found.problems["aab"]  # the plugin is refused, not the built-in
    clash = found.problems["memeye (evil_flags:MEMEYE)"]
    assert "evil_flags:MEMEYE" in clash and "built-in" in clash


HOSTILE_ROWS = (
    TOY_CLONE
    + """
    import pyarrow as pa
    from memscope_toybench import run

    def read_all(path, options):
        records = run.read_all(path, options)
        table = records[0].predictions
        rows = table.to_pylist()
        rows[0]["em"] = 5.0
        rows[1]["em"] = -1.0
        rows.append(dict(rows[2]))
        rows.append({**rows[3], "qid": "nope"})
        records[0].predictions = pa.Table.from_pylist(rows, schema=table.schema)
        records[0].benchmark = "rows"
        return records

    class Reader:
        def sniff(self, path):
            return run.sniff(path)
        read_all = staticmethod(read_all)

    BENCHMARK = replace(clone("rows"), reader=Reader())
    """
)


def test_a_plugins_bad_rows_are_skipped_and_named_and_strict_refuses(plugins) -> None:
    plugins({"rows": "evil_rows:BENCHMARK"}, {"evil_rows": HOSTILE_ROWS})
    run_dir = TOY / "runs" / "toy_bm25"
    (record,) = read_runs(run_dir, ReadOptions())
    qids = record.predictions.column("qid").to_pylist()
    assert len(qids) == len(set(qids)) == 6  # 8 questions, 2 with em outside [0, 1]
    assert "nope" not in qids
    text = " | ".join(str(notice) for notice in record.notices)
    assert "'rows'" in text and "em outside [0, 1]" in text
    assert "a qid given twice" in text and "a qid the dataset does not have" in text
    with pytest.raises(RunDirError, match=r"'rows'.*--strict"):
        read_runs(run_dir, ReadOptions(strict=True))


HOSTILE_CODE = (
    TOY_CLONE
    + """
    import sys
    from memscope_toybench import run

    class Exit(BaseException):
        pass

    class Reader:
        def __init__(self, what):
            self.what = what
        def sniff(self, path):
            return run.sniff(path)
        def read_all(self, path, options):
            print("noise on stdout")
            if self.what == "exit":
                sys.exit(0)
            if self.what == "base":
                raise Exit("boom")
            return {"not": "a list"}

    EXIT = replace(clone("exiting"), reader=Reader("exit"))
    BASE = replace(clone("basing"), reader=Reader("base"))
    WRONG = replace(clone("wrong"), reader=Reader("wrong"))
    """
)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("exiting", "SystemExit"),
        ("basing", "Exit: boom"),
        ("wrong", "read_all returned dict, not a list of RunRecord"),
    ],
)
def test_exit_baseexception_and_wrong_types_are_the_plugins_error(
    plugins, name: str, words: str
) -> None:
    attribute = {"exiting": "EXIT", "basing": "BASE", "wrong": "WRONG"}[name]
    plugins({name: f"evil_code:{attribute}"}, {"evil_code": HOSTILE_CODE})
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(PluginError) as raised:
        read_runs(TOY / "runs" / "toy_bm25", ReadOptions())
    assert words in str(raised.value) and repr(name) in str(raised.value)
    assert out.getvalue() == ""  # what the plugin printed went to stderr


def test_an_import_that_exits_prints_or_hangs_leaves_the_plugin_unloaded(
    plugins, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMSCOPE_PLUGIN_IMPORT_SECONDS", "0.5")
    out = io.StringIO()
    with redirect_stdout(out):
        plugins(
            {"exits": "evil_exit:B", "hangs": "evil_hang:B", "prints": "evil_print:BENCHMARK"},
            {
                "evil_exit": "import sys\nsys.exit(0)\n",
                "evil_hang": "import time\nwhile True:\n    time.sleep(0.05)\n",
                "evil_print": TOY_CLONE + '    print("hello")\n    BENCHMARK = clone("prints")\n',
            },
        )
        found = registry.registry()
    assert out.getvalue() == ""
    assert "SystemExit" in found.problems["exits"]
    assert "did not finish importing within 0.5 s" in found.problems["hangs"]
    assert set(found.benchmarks) == {"memeye", "locomo", "prints"}, found.problems


def test_a_greedy_sniff_neither_takes_nor_hides_memeye_runs(plugins, tmp_path: Path) -> None:
    plugins(
        {"aaa_greedy": "evil_greedy:BENCHMARK"},
        {
            "evil_greedy": TOY_CLONE
            + """
    class Reader:
        def sniff(self, path):
            return True
        def read_all(self, path, options):
            return []

    BENCHMARK = replace(clone("aaa_greedy"), reader=Reader(), sniff_order=1)
    """
        },
    )
    run_dir = small_run(tmp_path / "root")
    assert detect(run_dir).name == "memeye"
    assert run_dir in find_run_dirs(tmp_path / "root")
    assert "aaa_greedy" in unavailable() and "memeye" in unavailable()["aaa_greedy"]


def test_a_plugins_titles_reach_the_terminal_sanitised(plugins) -> None:
    plugins(
        {"loud": "evil_text:BENCHMARK"},
        {
            "evil_text": TOY_CLONE
            + r"""
    from memscope.adapters.spec import MatrixStyle
    axes = replace(TOY.axes, benchmark="loud", name="Loud\x1b]52;c;aGk=\x07",
                   axes=tuple(replace(a, title=a.title + "\x1b[2J\u202e") for a in TOY.axes.axes))
    BENCHMARK = replace(clone("loud"), title="Loud\x1b[2J", axes=axes,
                        matrix=MatrixStyle(corner="\x1b]52;c;aGk=\x07"))
    """
        },
    )
    spec = benchmark("loud")
    shown = [spec.title, spec.axes.name, spec.matrix.corner, *(a.title for a in spec.axes.axes)]
    assert all(isinstance(text, str) and is_printable(text) for text in shown)
    assert spec.title == "Loud\\x1b[2J"


def test_ingest_says_which_plugin_claimed_another_readers_folder(plugins, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from memscope.cli import app

    plugins(
        {"aaa_greedy": "evil_greedy2:BENCHMARK"},
        {
            "evil_greedy2": TOY_CLONE
            + """
    class Reader:
        def sniff(self, path):
            return True
        def read_all(self, path, options):
            return []

    BENCHMARK = replace(clone("aaa_greedy"), reader=Reader(), sniff_order=1)
    """
        },
    )
    small_run(tmp_path / "root")
    result = CliRunner().invoke(app, ["ingest", str(tmp_path / "root")], env={"COLUMNS": "250"})
    assert "ingested" in result.output
    assert "benchmark 'aaa_greedy': its sniff claims" in " ".join(result.output.split())
