"""The ``Benchmark`` spec: everything memscope needs to know about one benchmark, in one place.

A benchmark is a package (the built-in ones are ``adapters/memeye/``, ``adapters/dmv/``,
``adapters/cuemem/`` and the others beside them) whose ``BENCHMARK`` object is registered under
the ``memscope.benchmarks`` entry-point group, exactly as a third-party plugin registers
its own (docs/benchmarks.md). The rest of memscope never tests a benchmark's name: it asks
the run's spec (``adapters.registry.benchmark``) what to do.

A spec is declarative where it can be (axes, table layout, options, panels,
words) and names small hooks where it cannot (reading run directories; checking a
summary file upstream wrote; reading a dataset file for the memory engine and writing the
engine's retrievals as a run of the benchmark's own format; its report sections and its
figure). Hooks receive plain data; none needs the store, the app or
the analysis layer, so a spec stays at the bottom of the house with the readers it names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias, cast

from memscope.adapters.axes import BenchmarkAxes
from memscope.adapters.charts import BenchmarkFigure
from memscope.adapters.panels import QuestionPanel
from memscope.adapters.sections import ReportSection

if TYPE_CHECKING:
    import numpy as np

    from memscope.adapters.base import ReadOptions
    from memscope.json_types import JSONObject
    from memscope.records import (
        DatasetRecord,
        DatasetSource,
        EngineRetrieval,
        EngineRunPlan,
        Notice,
        RunRecord,
    )

API_VERSION = "1.3"
"""The version of the plugin contract (``memscope.plugin``): ``MAJOR.MINOR``. A spec written
for ``M.m`` loads where memscope's major is ``M`` and its minor at least ``m``; a new major
is a change a plugin must follow (a field removed or its meaning changed). 1.1 added the
row builder ``RunRows`` and ``run_record``; 1.2 made a report section code of the benchmark's
own (``ReportSection``, ``adapters.sections``) instead of one of two names, added the
matrix's ``MatrixGap``, and ``ModuleRunWriter``'s ``whole_history`` and ``next_step``; 1.3
made a figure code of the benchmark's own (``BenchmarkFigure``, ``Chart``, ``adapters.charts``)
instead of one of three names (``"grid_lines"``, the default, is still read as no figure of
its own), lent a section or figure the run's id (``SectionRun.run_id``), made a
question panel code of the benchmark's own (``QuestionPanel``, ``adapters.panels``: what
the question screen shows in place of a dialogue round) instead of a third ``Panel``
name, and added the declared file formats the store bulk-loads (``LinesFormat``,
``RankedIds``, ``DatasetFormat``: ``memscope.record_formats``)."""


def api_compatible(declared: str) -> bool:
    """Whether a spec written for contract version ``declared`` loads in this memscope."""
    try:
        major, minor = (int(part) for part in declared.split("."))
        ours_major, ours_minor = (int(part) for part in API_VERSION.split("."))
    except (AttributeError, ValueError):
        return False
    return major == ours_major and minor <= ours_minor


Panel = Literal["rerank", "evidence"]
"""What the question screen's right-hand panel shows of any run's retrievals: ``rerank``
the recency re-rank of a scored candidate pool (and the run-level temporal numbers under
it); ``evidence`` the retrieved evidence against the gold ids (re-rankable where the run
logged scores). Both are generic views, so they stay memscope's own names; a benchmark
whose questions need a view of their own declares a ``question_panel`` (API 1.3)."""

ContextKind = Literal["retrieval", "whole_history", "gold_evidence", "none"]
"""What the answer model was given as context in a run (``Benchmark.context_kinds``)."""


class RunReader(Protocol):
    """Reads one benchmark's run directories (files in, records out)."""

    def sniff(self, path: Path) -> bool:
        """Whether the directory ``path`` holds runs of this benchmark (cheap: no full read)."""
        ...

    def read_all(self, path: Path, options: ReadOptions) -> list[RunRecord]:
        """Every run of the directory ``path``; a MemscopeError for anything unreadable."""
        ...


class DatasetReader(Protocol):
    """Reads one benchmark's dataset files for the memory engine (``memscope index``,
    ``retrieve``, ``search`` given a file)."""

    @property
    def accepts(self) -> str:
        """The files it reads, in words, for the message about a file no benchmark reads
        (``a MemEye dialog JSON (data/dialog/<Task>.json)``)."""
        ...

    @property
    def memory_bank(self) -> str | None:
        """The attribute (a key of every round's and question's ``extra``) that splits the
        dataset into separate memories: a question retrieves only among the rounds that
        share its value (each conversation of a dataset of conversations is its own memory: ``sample_id``). None:
        the whole dataset is one memory."""
        ...

    def sniff(self, path: Path) -> bool:
        """Whether the file ``path`` is a dataset of this benchmark (cheap: no full read)."""
        ...

    def read(self, path: Path, media_root: Path | None) -> DatasetRecord | DatasetSource:
        """The dataset of the file ``path``; ``media_root`` is where its images are (the
        user's ``--image-root``; None: the benchmark's default). Records read in Python,
        or a ``DatasetSource`` the store bulk-loads with one of its own loaders
        (``store.loaders.DATASET_LOADERS``: MemEye's, the rules ingest uses; a plugin
        answers records). A MemscopeError for anything unreadable."""
        ...


class RunSink(Protocol):
    """One native run being written: a context manager taking questions one at a time.

    Leaving it normally completes the run; leaving it with an error (a failing answer
    model, an interrupt) leaves either a valid shorter run or nothing, never half a file.
    """

    @property
    def path(self) -> Path:
        """What was written: the run directory, or the run file within it."""
        ...

    def add(self, question: EngineRetrieval) -> None:
        """Record one question's retrieval (and answer)."""
        ...

    def __enter__(self) -> RunSink: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None: ...


class RunWriter(Protocol):
    """Writes the memory engine's ranked candidate pools as a run in the benchmark's own
    layout (``memscope retrieve``), which its :class:`RunReader` reads back."""

    @property
    def answers(self) -> bool:
        """Whether the layout records the engine's answers (else ``retrieve`` refuses an
        answer model for the benchmark's datasets: its runs are retrieval-only)."""
        ...

    def check(self, out_dir: Path, *, overwrite: bool) -> None:
        """Refuse ``out_dir`` before any retrieval when the run could not be written there
        (a file, FIFO or symlink in the run's place, a folder holding other files).

        Raises:
            EngineError: saying what is there and what to do.
        """
        ...

    def open(self, plan: EngineRunPlan, out_dir: Path, *, overwrite: bool) -> RunSink:
        """Start the run in the folder ``out_dir``.

        Raises:
            EngineError: ``out_dir`` already holds this run (and not ``overwrite``), or it
                cannot be written.
        """
        ...


@dataclass(frozen=True)
class ReadOption:
    """A read option the benchmark accepts (a path the user can point at), declared by it.

    The CLI offers it as ``flag`` on every command that reads run directories, and the
    app's ``memscope open`` passes it on, without either naming the benchmark; the value
    reaches the reader as ``ReadOptions.extra[key]``. A run directory's
    ``memscope_sources.json`` may set it under ``key`` (relative to the run directory).
    When ``remembered_as`` is set, the reader records the path it used in the run's
    config under that name, and a later read of the same directory uses it again.
    """

    key: str
    flag: str
    help: str
    remembered_as: str | None = None


@dataclass(frozen=True)
class DetailTable:
    """A per-run table of the benchmark's own (e.g. DMV-Bench's recall steps).

    The store creates it on first use (``run_id`` first, then ``columns``) and writes it
    in the run's transaction, so a re-ingested run never keeps stale rows.
    """

    name: str
    columns: tuple[tuple[str, str], ...]
    """``(column, SQL type)`` pairs, e.g. ``("step", "INTEGER")``."""


CellMean: TypeAlias = "float | np.ndarray"
"""A ``cell`` mean of ``memscope table``: a float, or an array of resampled means."""

Derived = Callable[[Mapping[str, CellMean]], "CellMean | None"]
"""A summary column of ``memscope table`` computed from one row's ``cell`` means (floats, or
arrays of resampled means: only ``+ - /`` are used so that both work); None when the cells
it needs are missing."""


@dataclass(frozen=True)
class TableLayout:
    """How ``memscope table`` lays out the benchmark beyond its axes."""

    default_by: tuple[str, ...]
    default_metric: str
    default_group: tuple[str, ...] = ("model", "method")
    """The columns that name a table's rows (default: model and method)."""
    derived: tuple[tuple[str, str, Derived], ...] = ()
    """``(key, heading, function)`` summary columns (MemEye's macro, CUE-Mem's EI-Gap)."""
    cell_separator: str = "/"
    """Between the two levels of a ``cell`` (MemEye's ``X1_Y1``)."""
    heads_by_value: bool = False
    """Head columns by the level's value (MemEye's X1 … Y3), not its label."""
    run_task_axis: bool = False
    """Offer ``--by task``: the run's task (MemEye sweeps write one run per task)."""
    multi_label_axes: tuple[str, ...] = ()
    """Axes on which a question may name several levels (its record's ``x_labels`` /
    ``y_labels``; ``cell`` for their pairs): ``table --membership`` applies to them, and
    the caption names the rule (MemEye's ``x``, ``y``, ``cell``)."""
    metrics: tuple[tuple[str, str], ...] = ()
    """``(metric, prediction column)``: the benchmark's own ``--metric`` words besides the
    shared ones (DMV-Bench's ``tsr`` reads ``em``; a benchmark graded by token F1 offers
    ``f1``). A name that is no prediction column is read from the answer's own attributes
    (prediction ``extra``; needs ``own_attributes``): a harness's ``judge_run_1``."""
    display_names: Mapping[str, str] = field(default_factory=dict)
    """How a method is called in the table's row labels, keyed by the run's ``method`` (and
    ``base_method``) value: the paper's names (CUE-Mem's ``LTMemory`` is "NaiveRAG"). The
    JSON keeps the raw value in ``group`` and adds the shown one in ``display_group``."""


@dataclass(frozen=True)
class MatrixGap:
    """A difference column of the app's accuracy matrix: on views whose columns are the axis
    ``axis``, each row's accuracy at level ``minuend`` minus that at ``subtrahend``, headed
    ``title`` (CUE-Mem's EI-gap: explicit − implicit)."""

    axis: str
    minuend: str
    subtrahend: str
    title: str


@dataclass(frozen=True)
class MatrixStyle:
    """How the app's matrix shows the benchmark's default view."""

    corner: str | None = None
    """The corner heading (MemEye's ``X ╲ Y``); default ``rows ╲ columns`` titles."""
    legend: str | None = None
    """What the rows and columns are, in one line (default from the axis titles)."""
    all_column: bool = True
    """Add an ``all`` column (every column together) to each row."""
    cell_queue: Literal["cell", "filter"] = "filter"
    """``enter`` on a cell opens the queue as a ``cell`` (MemEye's ``X4Y3``) or as filter
    words (``reach:2 bank:9``)."""
    delta_title: str = "Δ accuracy (B − A)"
    """The comparison metric's title when two runs are compared."""
    gap: MatrixGap | None = None
    """A difference column the accuracy matrix adds (None: none)."""


@dataclass(frozen=True)
class QuestionMatch:
    """Which questions have a property the diagnostics need, declared by the benchmark.

    ``source`` names where each question's value is read, as an axis's does
    (``column:y``, ``extra:question_type``), or several joined by ``|`` (any of them); a
    question matches when its value is one of ``values`` (case-insensitive), or with
    ``contains`` holds one of them (``refusal`` in ``Answer Refusal``).
    """

    source: str
    values: tuple[str, ...]
    contains: bool = False
    label: str = ""
    """What the benchmark calls these questions in explanations, titles and panels
    (MemEye's ``Y3``, ``knowledge-update``); empty: memscope's generic words."""

    def matches(self, value: object) -> bool:
        """Whether a question whose value is ``value`` matches."""
        if value is None or value == "":
            return False
        text = str(value).lower()
        wanted = [one.lower() for one in self.values]
        return any(one in text for one in wanted) if self.contains else text in wanted


@dataclass(frozen=True)
class Pairing:
    """Question attributes that say which question it is across run directories."""

    attributes: tuple[str, ...]
    words: str
    """The attributes in words, for ``compare``'s sentence (``trunk, visit session …``)."""


class RunColumns(Protocol):
    """One stored run as a hook sees it: its row, and per-question columns in idx order."""

    @property
    def run(self) -> Mapping[str, object]:
        """The run's row (``run_id``, ``path``, ``method``, ``top_k`` …); for ``check_table``
        also ``read_sources`` where the store remembers the read options the run was read
        with (option key -> absolute path: ``dataset``, the benchmark's own)."""
        ...

    @property
    def run_dir(self) -> Path:
        """The directory the run's files were read from (its ``path`` without a ``#part``):
        where upstream's own summary is looked for."""
        ...

    def column(self, name: str) -> np.ndarray:
        """A question-table column (``em``, ``judge``, ``f1`` as floats with NaN)."""
        ...

    def attribute(self, name: str) -> np.ndarray:
        """A question attribute from its ``extra`` (object array, None where missing)."""
        ...


TableCheck = Callable[[RunColumns], "list[JSONObject]"]
"""``memscope table --check-upstream``: ``[{"source", "run", "field", "upstream", "memscope",
"agrees"}]`` for the rows of upstream's own table that name this run."""

StoredMeans = Callable[[Sequence[str]], Mapping[str, float | None]]
"""Given prediction columns, ``{"n": rows, column: mean}`` over a run's stored rows."""

StoredCheck = Callable[["RunRecord", StoredMeans], "tuple[JSONObject | None, list[Notice]]"]
"""A summary file checked after the run's rows are stored (MemEye's ``metrics.json``
``summary``): the check record (``adapters.upstream_summary.summary_check``) and its
warnings, or ``(None, [])`` when the run has no summary."""


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: how to read it and how every part of memscope shows it."""

    name: str
    """The registry key, stored with every run (``runs.benchmark``); the entry point's name."""
    title: str
    """How it is called in text (``DMV-Bench``)."""
    run_files: str
    """What marks one of its run directories, for "not a run directory" messages."""
    reader: RunReader
    axes: BenchmarkAxes
    table: TableLayout
    api_version: str = ""
    """The plugin contract version the spec was written for (``memscope.plugin.API_VERSION``
    when it was written): the registry refuses a spec this memscope cannot honour."""
    marker_files: tuple[str, ...] = ()
    """File names whose presence makes a folder one of its run directories: where one is a
    FIFO, device or folder, memscope names it instead of saying "not a run directory"."""
    sniff_order: int = 100
    """Readers are asked lowest first (a more specific format before a looser one)."""
    runs_nest: bool = False
    """A run directory may hold further run directories (a results folder and, below it,
    one per date)."""
    read_options: tuple[ReadOption, ...] = ()
    detail_tables: tuple[DetailTable, ...] = ()
    own_attributes: bool = False
    """The run logs attributes of its own per question (prediction ``extra``), which axes may
    read as ``own:NAME`` (DMV-Bench: the system's bank size)."""
    pairing: Pairing | None = None
    """How ``compare`` matches questions of two runs; None: by question key (task, answer
    mode and question text)."""
    cluster: str | None = None
    """A question attribute: questions that share it are not independent, so intervals
    resample whole clusters and ``compare`` adds a cluster sign-flip test (DMV-Bench's
    chain ``trunk``)."""
    panel: Panel = "rerank"
    question_panel: QuestionPanel | None = None
    """The benchmark's own view of a question, shown in place of the dialogue round (and,
    with a summary hook, on the right instead of the candidates): code in its package
    (``adapters.panels``; DMV-Bench's probe: its recall steps and retention context). None:
    the round view and the ``panel`` of candidates."""
    figure: BenchmarkFigure | None = None
    """The benchmark's own figure (``f`` on the matrix, ``memscope plot NAME``): code in its
    package that describes a chart of its runs (``adapters.charts``). None: the matrix's
    metric per level of its rows, one line per column level."""
    report_sections: tuple[ReportSection, ...] = ()
    """The benchmark's own parts of ``memscope report``: code in its package that computes
    a section of a run and, optionally, prints it (``adapters.sections``)."""
    matrix: MatrixStyle = MatrixStyle()
    latest_state: QuestionMatch | None = None
    """The questions that ask for the latest state of something that changed (MemEye's Y3,
    a knowledge update): temporal authority and the stale/latest rules apply to these."""
    implicit: tuple[QuestionMatch, ...] = ()
    """The questions whose evidence is implicit, to be joined from several clues (CUE-Mem's
    implicit-cue pattern questions, MemEye's Y2): USE-ASSOC applies to these. A question
    is one when every match holds; empty: the benchmark has no such notion."""
    context_kinds: Mapping[str, ContextKind] = field(default_factory=dict)
    """Each run's context kind by its method family (the method without a modality
    suffix): ``whole_history`` (the model saw the whole history: SEL-CTX applies),
    ``gold_evidence`` (only the gold evidence: the oracle twin), ``retrieval`` or ``none``.
    A family not named: ``retrieval`` where the run logged retrievals, else ``none``."""
    declines: QuestionMatch | None = None
    """The questions the model should decline (an answer-refusal task, an adversarial
    question): the refusal checks (USE-CALIB) apply to these."""
    history: str | None = None
    """Where each question's history is, the rounds it could have seen: ``None``, the whole
    dataset (one dialogue, as MemEye's); ``extra:<key>``, the question attribute listing the
    session ids of its own history (a haystack of sessions); ``same:<key>``, the rounds whose
    attribute ``key`` equals the question's (one conversation of several). Ages, recency re-ranking,
    round counts and SEL-CTX's "full-context run over N rounds" are computed per history."""
    task_attribute: str | None = None
    """Where a question's task is kept when it is not the run's task (CUE-Mem's
    ``task_group``): suggestions and explanations use it."""
    no_scores_reason: str = "its retrieval log has ids in rank order but no scores"
    """Why ``rerun`` finds nothing to re-rank in a run without retrieval scores."""
    check_stored: StoredCheck | None = None
    check_table: TableCheck | None = None
    summary_files: str = ""
    """Upstream's own summary files ``check_table`` reads, in words (``summary.toybench.json``),
    for the message when none names a run."""
    extras: Mapping[str, object] = field(default_factory=dict)
    """Anything else a plugin wants to carry (memscope reads nothing from it)."""
    dataset_reader: DatasetReader | None = None
    """How the memory engine opens the benchmark's dataset files; None: the engine reads
    none (its datasets still reach the engine through the store, by dataset or run id)."""
    run_writer: RunWriter | None = None
    """How ``memscope retrieve`` writes a native run over the benchmark's datasets; None:
    the engine writes no run for them."""
    reader_version: str = ""
    """The reader's version: a run stored by another version is read again by ``ingest``,
    changed files or not. Empty: a plugin's distribution version (memscope's own readers
    are versioned with memscope's store)."""

    def read_option(self, key: str) -> ReadOption | None:
        """The declared option ``key`` (None when this benchmark has none by that key)."""
        return next((option for option in self.read_options if option.key == key), None)


@dataclass(frozen=True)
class ModuleReader:
    """A :class:`RunReader` whose functions live in a module imported on first use, so that
    loading the registry imports no reader (``sniff(path) -> bool`` and
    ``read_all(path, options) -> list[RunRecord]``, named by ``sniff`` and ``read``)."""

    module: str
    sniff_name: str = "sniff"
    read_name: str = "read_all"

    def _function(self, name: str) -> Callable[..., object]:
        from importlib import import_module

        function: Callable[..., object] = getattr(import_module(self.module), name)
        return function

    def sniff(self, path: Path) -> bool:
        return bool(self._function(self.sniff_name)(path))

    def read_all(self, path: Path, options: ReadOptions) -> list[RunRecord]:
        # The module's function is the reader the spec names: its signature is the contract.
        read = cast(
            "Callable[[Path, ReadOptions], list[RunRecord]]", self._function(self.read_name)
        )
        return read(path, options)


@dataclass(frozen=True)
class ModuleDatasetReader:
    """A :class:`DatasetReader` whose functions live in a module imported on first use
    (``sniff(path) -> bool`` and ``read(path, media_root) -> DatasetRecord | DatasetSource``)."""

    module: str
    accepts: str
    memory_bank: str | None = None
    sniff_name: str = "sniff_dataset"
    read_name: str = "read_dataset"

    def _function(self, name: str) -> Callable[..., object]:
        from importlib import import_module

        function: Callable[..., object] = getattr(import_module(self.module), name)
        return function

    def sniff(self, path: Path) -> bool:
        return bool(self._function(self.sniff_name)(path))

    def read(self, path: Path, media_root: Path | None) -> DatasetRecord | DatasetSource:
        read = cast(
            "Callable[[Path, Path | None], DatasetRecord | DatasetSource]",
            self._function(self.read_name),
        )
        return read(path, media_root)


@dataclass(frozen=True)
class ModuleRunWriter:
    """A :class:`RunWriter` whose ``open(plan, out_dir, *, overwrite) -> RunSink`` lives in a
    module imported on first use."""

    module: str
    answers: bool = True
    open_name: str = "open_run"
    check_name: str = "check_out"
    whole_history: bool = False
    """Each question's pool is every round it could see (its whole memory or history,
    ranked), whatever ``--pool`` says: for a format that logs the whole ranking, as
    upstream's retrievers do, so that its metrics are upstream's."""
    next_step: str | None = None
    """What the user does with the output when it is not a run ``memscope ingest`` reads by
    itself (a retrieval log that upstream's answer step reads): printed after the write,
    and ``retrieve --ingest`` is refused. None: the output is a run."""

    def check(self, out_dir: Path, *, overwrite: bool) -> None:
        from importlib import import_module

        getattr(import_module(self.module), self.check_name)(out_dir, overwrite=overwrite)

    def open(self, plan: EngineRunPlan, out_dir: Path, *, overwrite: bool) -> RunSink:
        from importlib import import_module

        sink: RunSink = getattr(import_module(self.module), self.open_name)(
            plan, out_dir, overwrite=overwrite
        )
        return sink
