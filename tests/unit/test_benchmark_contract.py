"""The contract docs/benchmarks.md promises, held by the built-in specs and enforced on plugins.

- Every installed spec passes ``adapters.spec_check.validate`` (the check the registry runs
  on load) and names only words of memscope's vocabularies (table metrics, matrix metrics,
  prediction columns, run fields, the queue's filter words).
- Each reader recognises its own run directories and no other benchmark's (also not the
  example plugin's), and an empty folder is nobody's.
- A spec that breaks the contract is not loaded: one message names the plugin and the
  problem, when a run needs it and when a directory is not recognised.
- A reader that raises never takes the other benchmarks down: a failing sniff counts as
  "not mine", a failing read is that directory's error and ``ingest`` goes on.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import metadata
from pathlib import Path

import pytest

from builders_locomo import layout, run_output, small_dataset
from memscope.adapters import detect, find_run_dirs, registry
from memscope.adapters.axes import Axis, BenchmarkAxes, Level, MatrixView
from memscope.adapters.base import ReadOptions
from memscope.adapters.registry import GROUP, benchmark, benchmarks
from memscope.adapters.spec import API_VERSION, Benchmark, ModuleReader, ReadOption, TableLayout
from memscope.adapters.spec_check import QUEUE_WORDS, validate
from memscope.errors import PluginError, RunDirError
from memscope.triage.triage_matrix import OWN_METRIC, SHARED_METRICS
from memscope.usecases.labels.queue import FILTER_FIELDS
from memscope.usecases.runs.ingest import ingest_paths
from memscope.usecases.table.axes import table_metrics
from memscope.usecases.table.build import GROUP_FIELDS

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_RUN = REPO / "examples" / "benchmark-plugin" / "runs" / "toy_bm25"
BUILT_IN = ("memeye", "dmv", "cuemem", "locomo")


@pytest.fixture
def fresh_registry():
    """Whatever a test loads into the registry is forgotten afterwards."""
    yield
    registry.reset()


def _point(name: str, value: str) -> metadata.EntryPoint:
    return metadata.EntryPoint(name=name, value=value, group=GROUP)


def test_every_installed_spec_keeps_the_contract() -> None:
    found = registry.registry()
    assert set(BUILT_IN) <= set(found.benchmarks)
    assert not {name: why for name, why in found.problems.items() if name in BUILT_IN}
    for spec in benchmarks():
        assert validate(spec) == [], spec.name


def test_specs_name_only_words_memscope_knows(store) -> None:
    with store.write() as con:
        predictions = {row[0]: row[1] for row in con.execute("DESCRIBE predictions").fetchall()}
    metrics = set(table_metrics())
    for spec in benchmarks():
        own = dict(spec.table.metrics)
        assert spec.table.default_metric in metrics, spec.name
        assert set(spec.table.default_group) <= set(GROUP_FIELDS), spec.name
        for column in own.values():
            # A number per question: a score (DOUBLE) or a count such as LoCoMo's latency
            # and tokens (BIGINT); the table reads either as floats. Or, for a benchmark
            # whose runs log attributes of their own, one of those (LoCoMo's judge runs).
            assert predictions.get(column) in ("DOUBLE", "BIGINT") or (
                spec.own_attributes and column not in predictions
            ), (spec.name, column)
        for key, _title in spec.axes.metrics:
            # Or the run's own per-question attribute (``own:NAME``, DMV-Bench's target seen).
            assert (
                key in SHARED_METRICS
                or key in own
                or (key.startswith(OWN_METRIC) and spec.own_attributes)
            ), (spec.name, key)
        for option in spec.read_options:
            assert option.flag.startswith("--") and option.key.isidentifier()
    # The queue's own filter words, which no axis may take (spec_check keeps a copy).
    assert set(QUEUE_WORDS) == set(FILTER_FIELDS) - {"cell", "task", "x", "y"}


def _run_dirs(tmp_path: Path) -> dict[str, Path]:
    """One run directory of each built-in benchmark, the example plugin's, and nobody's."""
    dataset = small_dataset()
    answers = {s["sample_id"]: {"q1": {"m_prediction": "x", "m_f1": 1.0}} for s in dataset}
    empty = tmp_path / "empty"
    empty.mkdir()
    return {
        "memeye": REPO / "runs" / "srag_v",
        "dmv": REPO / "runs" / "dmv_f2_demo",
        "cuemem": REPO / "runs" / "cue_mm",
        "locomo": layout(tmp_path / "locomo", dataset, run_output(dataset, answers)),
        "toybench": EXAMPLE_RUN,
        "nobody": empty,
    }


def test_each_reader_recognises_its_own_runs_and_no_others(tmp_path: Path) -> None:
    for owner, folder in _run_dirs(tmp_path).items():
        claimed = [spec.name for spec in benchmarks() if spec.reader.sniff(folder)]
        expected = [owner] if owner in registry.registry().benchmarks else []
        assert claimed == expected, (owner, claimed)


TINY_AXES = BenchmarkAxes(
    benchmark="tiny",
    name="Tiny",
    axes=(
        Axis("kind", "kind", "extra:kind", levels=(Level("a", "A"), Level("b", "B"))),
        Axis("gap", "gap", "extra:gap", numeric=True),
    ),
    views=(MatrixView("kind", "gap"),),
    metrics=(("accuracy", "accuracy"),),
)
TINY = Benchmark(
    api_version=API_VERSION,
    name="tiny",
    title="Tiny",
    run_files="tiny.csv",
    reader=ModuleReader("test_benchmark_contract", "tiny_sniff", "tiny_read"),
    axes=TINY_AXES,
    table=TableLayout(default_by=("kind",), default_metric="accuracy", default_group=("method",)),
)
"""A valid spec the problems below are made from (and a benchmark whose reader fails)."""


def tiny_sniff(path: Path) -> bool:
    if path.name == "boom":
        raise RuntimeError("sniff exploded")
    return (path / "tiny.csv").is_file()


def tiny_read(path: Path, options: ReadOptions) -> list:
    raise KeyError("question_id")


def test_the_tiny_spec_is_valid() -> None:
    assert validate(TINY) == []


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"axes": replace(TINY_AXES, views=(MatrixView("kind", "age"),))}, "names no axis 'age'"),
        ({"axes": replace(TINY_AXES, benchmark="other")}, "axes.benchmark is 'other'"),
        (
            {"table": replace(TINY.table, default_by=("category",))},
            "default_by names 'category'",
        ),
        ({"table": replace(TINY.table, default_group=("system",))}, "no field of a run"),
        (
            {"read_options": (ReadOption("tiny_photos", "-p", "photos"),)},
            "must look like --lower-case-words",
        ),
        (
            {"read_options": (ReadOption("dataset", "--tiny-dataset", "data"),)},
            "a Python name other than dataset",
        ),
        (
            {
                "axes": replace(
                    TINY_AXES,
                    axes=(*TINY_AXES.axes, Axis("bank", "bank", "own:bank", numeric=True)),
                )
            },
            "own_attributes is False",
        ),
        (
            {
                "axes": replace(
                    TINY_AXES,
                    axes=(*TINY_AXES.axes, Axis("code", "code", "extra:code", numeric=True)),
                )
            },
            "the queue's own filter words",
        ),
        (
            {
                "axes": replace(
                    TINY_AXES,
                    axes=(
                        *TINY_AXES.axes,
                        Axis("size", "size", "extra:s", numeric=True, aliases=("gap",)),
                    ),
                )
            },
            "names two axes",
        ),
        (
            {"panel": "chart"},
            "panel 'chart' is not one of rerank, evidence (API 1.3: a view of your own is a question_panel)",
        ),
        # API 1.2's name for DMV-Bench's view: now a benchmark's own question panel.
        ({"panel": "probe"}, "a view of your own is a question_panel"),
        ({"question_panel": "probe"}, "is not a QuestionPanel"),
        ({"name": "Tiny Bench"}, "lower-case letters"),
    ],
)
def test_validate_names_each_broken_rule(change: dict, said: str) -> None:
    problems = validate(replace(TINY, **change))
    assert any(said in problem for problem in problems), problems


def test_an_invalid_spec_is_one_message_naming_the_plugin(fresh_registry, tmp_path: Path) -> None:
    import test_benchmark_contract as here

    here.BROKEN = replace(TINY, axes=replace(TINY_AXES, views=(MatrixView("kind", "age"),)))
    registry.reset(
        [
            _point("memeye", "memscope.adapters.memeye:BENCHMARK"),
            _point("tiny", "test_benchmark_contract:BROKEN"),
        ]
    )
    assert [spec.name for spec in benchmarks()] == ["memeye"]
    with pytest.raises(PluginError) as raised:
        benchmark("tiny")
    message = str(raised.value)
    assert "'tiny' cannot be used" in message and "test_benchmark_contract:BROKEN" in message
    assert "breaks memscope's contract" in message and "names no axis 'age'" in message
    with pytest.raises(RunDirError, match=r"not loaded or failing: tiny \(its spec"):
        detect(tmp_path)


def test_a_failing_reader_never_takes_the_others_down(
    fresh_registry, tmp_path: Path, store
) -> None:
    registry.reset(
        [
            _point("memeye", "memscope.adapters.memeye:BENCHMARK"),
            _point("tiny", "test_benchmark_contract:TINY"),
        ]
    )
    root = tmp_path / "root"
    (root / "boom").mkdir(parents=True)  # its sniff raises
    (root / "crash").mkdir()  # it is tiny's, and its read raises
    (root / "crash" / "tiny.csv").write_text("question_id\n", encoding="utf-8")

    assert find_run_dirs(root) == [root / "crash"]
    with pytest.raises(RunDirError, match="tiny \\(its sniff raised RuntimeError: sniff exploded"):
        detect(root / "boom")

    outcomes, failures = ingest_paths(store, [root, REPO / "runs" / "srag_v"], ReadOptions())
    assert [outcome.run_id for outcome in outcomes] == ["srag_v"]
    (failure,) = failures
    assert failure.path == str(root / "crash")
    assert isinstance(failure.error, PluginError)
    message = str(failure.error)
    assert "benchmark 'tiny' failed reading this run directory (KeyError" in message
    assert "report it to its authors" in message
    assert isinstance(failure.error.__cause__, KeyError)  # MEMSCOPE_DEBUG shows its traceback
