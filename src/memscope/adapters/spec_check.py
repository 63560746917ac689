"""The contract a :class:`~memscope.adapters.spec.Benchmark` spec must keep (docs/benchmarks.md).

:func:`validate` checks what can be checked without reading a run: that every name a spec
uses points at something it declares (views and table columns at its axes, ``own:``
sources at ``own_attributes``), that the words the CLI and the filters take are well formed
and unambiguous, and that the fixed vocabularies (panel, figure, report sections, matrix
style) are used as written. The registry runs it when it loads a spec; a spec that breaks it
is not loaded, and the first problem is the message that names the plugin, so nothing fails
later, deep in a command, with a KeyError. :func:`clashes` checks what two specs must not
share (option flags and keys, own table metrics, detail table names, figure names).

It imports nothing heavy and calls no hook: loading the registry stays cheap.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import fields
from typing import get_args

from memscope.adapters.axes import BenchmarkAxes
from memscope.adapters.charts import PLOT_KINDS, BenchmarkFigure, own_figure
from memscope.adapters.panels import QuestionPanel
from memscope.adapters.sections import ReportSection
from memscope.adapters.spec import (
    API_VERSION,
    Benchmark,
    Panel,
    api_compatible,
)
from memscope.records import RunRecord

NAME = re.compile(r"^[a-z][a-z0-9_]*$")
"""A benchmark's name (stored with every run) and a detail table's or column's name."""
FLAG = re.compile(r"^--[a-z0-9][a-z0-9-]*$")
SOURCE_KINDS = ("column", "extra", "own")
TABLE_WORDS = ("cell",)
"""``--by`` words every benchmark's table takes besides its axes (``task`` with
``TableLayout.run_task_axis``)."""
RESERVED_OPTION_KEYS = ("dataset", "strict", "db", "annotator")
"""Option keys memscope itself uses (``--dataset``; the key of ``memscope_sources.json``)."""
RESERVED_FLAGS = frozenset(
    [
        "--accept",
        "--all",
        "--allocation",
        "--allow-changed-run",
        "--alpha",
        "--annotator",
        "--annotators",
        "--answer-api-key-env",
        "--answer-endpoint",
        "--answer-max-tokens",
        "--answer-model",
        "--answer-timeout",
        "--average",
        "--baseline",
        "--batch-size",
        "--by",
        "--cell",
        "--channel",
        "--check-upstream",
        "--ci",
        "--clear",
        "--code",
        "--corrected",
        "--dataset",
        "--db",
        "--device",
        "--disagreements",
        "--for",
        "--force",
        "--format",
        "--group",
        "--help",
        "--history",
        "--image-model",
        "--image-pretrained",
        "--image-root",
        "--image-weight",
        "--include-suggestions",
        "--ingest",
        "--install-completion",
        "--k",
        "--label",
        "--lambda",
        "--level",
        "--limit",
        "--membership",
        "--method",
        "--metric",
        "--n",
        "--no-images",
        "--note",
        "--out",
        "--overwrite",
        "--per-run",
        "--pool",
        "--primary",
        "--question",
        "--queue",
        "--raters",
        "--repeats",
        "--requery",
        "--reread",
        "--resamples",
        "--run",
        "--sample-size",
        "--save-labels",
        "--seed",
        "--shared",
        "--show-completion",
        "--similar-to",
        "--strata",
        "--strict",
        "--summary",
        "--text-model",
        "--text-weight",
        "--threads",
        "--threshold",
        "--twin",
        "--undo",
        "--undo-verdict",
        "--variance",
        "--verdict",
        "--verify",
        "--version",
        "--visual-weight",
    ]
)
"""memscope's own command-line flags: a read option may take none of them (a plugin's
``--db`` would make memscope write another store than the one given). A test holds this
list to the CLI (``tests/unit/test_plugin_containment.py``)."""
MEMSCOPE_TABLES = frozenset(
    [
        "app_state",
        "datasets",
        "embedding_items",
        "embeddings",
        "label_events",
        "label_imports",
        "predictions",
        "questions",
        "recompute_runs",
        "recomputed_scores",
        "reruns",
        "retrievals",
        "rounds",
        "runs",
        "sample_items",
        "sample_plans",
        "schema_migrations",
        "sessions",
        "suggestion_runs",
        "suggestions",
        "verdict_events",
        "verdict_sample_items",
    ]
)
"""memscope's own store tables: never a benchmark's detail table (a re-ingest deletes a
run's rows from its benchmark's detail tables). A test holds it to a fresh store."""
LEGACY_DETAIL_TABLES = frozenset({"cue_retrieved_items"})
"""Detail tables that predate the ``<benchmark>_`` rule (migration 005). Their built-in
owner loads before any plugin, so a plugin declaring one is refused as a clash."""
CELL_QUEUES = ("cell", "filter")
QUEUE_WORDS = ("code", "label", "correct", "labelled", "mode", "other")
"""The queue's own filter words (``usecases.triage_queue.FILTER_FIELDS`` but the axis-like
``cell``, ``task``, ``x`` and ``y``): an axis called so could never be filtered on."""


def validate(spec: Benchmark) -> list[str]:
    """Every way ``spec`` breaks the contract, in words (empty when it keeps it)."""
    problems: list[str] = []
    if not api_compatible(spec.api_version):
        return [
            f"it was written for plugin API {spec.api_version or '(none declared)'}, and this "
            f"memscope speaks plugin API {API_VERSION} (memscope.plugin.API_VERSION); "
            "install a version of the plugin written for it"
        ]
    if not NAME.match(spec.name):
        problems.append(f"name {spec.name!r} must be lower-case letters, digits and _")
    for label, text in (("title", spec.title), ("run_files", spec.run_files)):
        if not isinstance(text, str) or not text.strip():
            problems.append(f"{label} must be a non-empty text")
    for method in ("sniff", "read_all"):
        if not callable(getattr(spec.reader, method, None)):
            problems.append(f"its reader has no {method}(path, …) method")
    if not isinstance(spec.axes, BenchmarkAxes):
        return [*problems, "axes must be a memscope.adapters.axes.BenchmarkAxes"]
    problems += _axes(spec)
    problems += _table(spec)
    problems += _options(spec)
    problems += _details(spec)
    problems += _choices(spec)
    return problems


def _axes(spec: Benchmark) -> list[str]:
    axes = spec.axes
    problems: list[str] = []
    if axes.benchmark != spec.name:
        problems.append(f"axes.benchmark is {axes.benchmark!r}, not the spec's name {spec.name!r}")
    if not axes.axes:
        problems.append("it declares no axis")
    words: dict[str, str] = {}
    for axis in axes.axes:
        for word in (axis.key, *axis.aliases):
            if word != word.strip().lower() or not word or ":" in word or " " in word:
                problems.append(f"axis word {word!r} must be lower-case, without ':' or spaces")
            if word in QUEUE_WORDS:
                problems.append(f"axis word {word!r} is one of the queue's own filter words")
            if word in words:
                problems.append(
                    f"the filter word {word!r} names two axes ({words[word]}, {axis.key})"
                )
            words.setdefault(word, axis.key)
        for kind, name in axis.sources():
            if kind not in SOURCE_KINDS or not name:
                problems.append(
                    f"axis {axis.key!r}: source {kind}:{name} is not column:NAME, extra:NAME or own:NAME"
                )
            elif kind == "own" and not spec.own_attributes:
                problems.append(f"axis {axis.key!r} reads own:{name} but own_attributes is False")
        values = [level.value for level in axis.levels]
        if len(set(values)) != len(values):
            problems.append(f"axis {axis.key!r} lists a level twice")
        if not axis.numeric and not axis.levels:
            problems.append(f"axis {axis.key!r} is neither numeric nor has fixed levels")
    if not axes.views:
        problems.append("it declares no matrix view (axes.views)")
    for view in axes.views:
        for side in (view.rows, view.columns):
            if axes.axis(side) is None:
                problems.append(f"matrix view {view.rows} x {view.columns} names no axis {side!r}")
        if axes.axis(view.rows) is not None and axes.axis(view.rows) is axes.axis(view.columns):
            problems.append(f"matrix view {view.rows} x {view.columns} crosses an axis with itself")
    if not axes.metrics:
        problems.append("it declares no matrix metric (axes.metrics)")
    return problems


def _table(spec: Benchmark) -> list[str]:
    table = spec.table
    problems: list[str] = []
    words = {word for axis in spec.axes.axes for word in (axis.key, *axis.aliases)}
    words |= set(TABLE_WORDS) | ({"task"} if table.run_task_axis else set())
    if not table.default_by:
        problems.append("table.default_by names no column")
    for word in table.default_by:
        if word not in words:
            problems.append(f"table.default_by names {word!r}, which is no axis of it")
    run_fields = {field.name for field in fields(RunRecord)}
    if not table.default_group:
        problems.append("table.default_group names no run field")
    for name in table.default_group:
        if name not in run_fields:
            problems.append(f"table.default_group names {name!r}, which is no field of a run")
    if not table.default_metric:
        problems.append("table.default_metric is empty")
    keys = [key for key, _, _ in table.derived]
    if len(set(keys)) != len(keys):
        problems.append("table.derived lists a column key twice")
    problems += [
        f"table.derived {key!r}: its function is not callable"
        for key, _, compute in table.derived
        if not callable(compute)
    ]
    if not table.cell_separator:
        problems.append("table.cell_separator is empty")
    for name, column in table.metrics:
        if not NAME.match(name) or not NAME.match(column):
            problems.append(f"table metric {name!r} -> {column!r}: both must be plain names")
    return problems


def _options(spec: Benchmark) -> list[str]:
    problems: list[str] = []
    keys = [option.key for option in spec.read_options]
    flags = [option.flag for option in spec.read_options]
    for option in spec.read_options:
        if option.flag in RESERVED_FLAGS:
            problems.append(f"read option flag {option.flag} is one of memscope's own flags")
        if not option.key.isidentifier() or option.key in RESERVED_OPTION_KEYS:
            problems.append(
                f"read option key {option.key!r} must be a Python name other than "
                f"{', '.join(RESERVED_OPTION_KEYS)}"
            )
        if not FLAG.match(option.flag):
            problems.append(f"read option flag {option.flag!r} must look like --lower-case-words")
        if not option.help.strip():
            problems.append(f"read option {option.flag} has no help text")
    if len(set(keys)) != len(keys) or len(set(flags)) != len(flags):
        problems.append("it declares a read option key or flag twice")
    return problems


def _details(spec: Benchmark) -> list[str]:
    problems: list[str] = []
    for table in spec.detail_tables:
        names = [name for name, _ in table.columns]
        if not NAME.match(table.name):
            problems.append(f"detail table name {table.name!r} must be a plain lower-case name")
        elif table.name in MEMSCOPE_TABLES or table.name.startswith("memscope_"):
            problems.append(f"detail table name {table.name!r} is one of memscope's own tables")
        elif not table.name.startswith(f"{spec.name}_") and table.name not in LEGACY_DETAIL_TABLES:
            problems.append(
                f"detail table name {table.name!r} must start with the benchmark's name "
                f"({spec.name}_…): a plugin's tables live in its own namespace"
            )
        if not names or "run_id" in names or not all(NAME.match(name) for name in names):
            problems.append(
                f"detail table {table.name!r}: columns must be plain names, without run_id "
                "(memscope adds it first)"
            )
    if spec.pairing is not None and not spec.pairing.attributes:
        problems.append("pairing names no attribute")
    return problems


REPORT_KEYS = frozenset(
    {"run", "k", "answer", "retrieval", "temporal", "notes", "axes", "upstream_check"}
    | {"questions", "harness", "cost"}
)
"""The keys of ``report --format json`` that are memscope's own: no section may take one."""


def _hook_name(hook: object) -> bool:
    """Whether ``hook`` is a ``"module:function"`` string."""
    if not isinstance(hook, str):
        return False
    module, sep, name = hook.partition(":")
    return bool(sep and module and name.isidentifier())


def _choices(spec: Benchmark) -> list[str]:
    problems: list[str] = []
    if spec.panel not in get_args(Panel):
        # API 1.2's third name stood for DMV-Bench's view, now its package's question_panel.
        problems.append(
            f"panel {spec.panel!r} is not one of {', '.join(get_args(Panel))} "
            "(API 1.3: a view of your own is a question_panel)"
        )
    problems += _question_panel(spec)
    problems += _figure(spec)
    keys = [getattr(section, "key", None) for section in spec.report_sections]
    for section, key in zip(spec.report_sections, keys, strict=True):
        if not isinstance(section, ReportSection):
            problems.append(f"report section {section!r} is not a ReportSection")
        elif not isinstance(key, str) or not NAME.match(key) or key in REPORT_KEYS:
            problems.append(
                f"report section key {key!r} must be an identifier that is none of the "
                f"report's own keys ({', '.join(sorted(REPORT_KEYS))})"
            )
        elif keys.count(key) > 1:
            problems.append(f"report section key {key!r} is used twice")
        elif not (callable(section.compute) or _hook_name(section.compute)):
            problems.append(
                f"report section {key!r}: compute is not callable nor 'module:function'"
            )
        elif section.view is not None and not (callable(section.view) or _hook_name(section.view)):
            problems.append(f"report section {key!r}: view is not callable nor 'module:function'")
    gap = spec.matrix.gap
    if gap is not None and gap.axis not in {axis.key for axis in spec.axes.axes}:
        problems.append(f"matrix.gap names no axis {gap.axis!r}")
    if spec.matrix.cell_queue not in CELL_QUEUES:
        problems.append(f"matrix.cell_queue {spec.matrix.cell_queue!r} is not cell or filter")
    for label, hook in (("check_stored", spec.check_stored), ("check_table", spec.check_table)):
        if hook is not None and not callable(hook):
            problems.append(f"{label} is not callable")
    return problems


def _question_panel(spec: Benchmark) -> list[str]:
    """What is wrong with the benchmark's own question panel (nothing when it has none)."""
    panel: object = spec.question_panel
    if panel is None:
        return []
    if not isinstance(panel, QuestionPanel):
        return [f"question_panel {panel!r} is not a QuestionPanel"]
    if not isinstance(panel.name, str) or not NAME.match(panel.name):
        return [f"question_panel name {panel.name!r} must be a lower-case identifier"]
    problems = []
    if not (callable(panel.build) or _hook_name(panel.build)):
        problems.append(
            f"question_panel {panel.name!r}: build is not callable nor 'module:function'"
        )
    if panel.summary is not None and not (callable(panel.summary) or _hook_name(panel.summary)):
        problems.append(
            f"question_panel {panel.name!r}: summary is not callable nor 'module:function'"
        )
    return problems


LEGACY_FIGURE = "grid_lines"
"""API 1.2's name for the default figure, still read as no figure of the benchmark's own."""


def _figure(spec: Benchmark) -> list[str]:
    """What is wrong with the benchmark's own figure (nothing when it declares none)."""
    figure: object = spec.figure
    if figure is None or figure == LEGACY_FIGURE:
        return []
    if not isinstance(figure, BenchmarkFigure):
        # 1.2's other names stood for two built-in figures that are now their packages' code.
        return [f"figure {figure!r} is not a BenchmarkFigure (API 1.3: a figure is your code)"]
    if not isinstance(figure.name, str) or not NAME.match(figure.name):
        return [f"figure name {figure.name!r} must be a lower-case identifier"]
    if figure.name in PLOT_KINDS:
        return [f"figure name {figure.name!r} is one of memscope plot's own"]
    if not (callable(figure.chart) or _hook_name(figure.chart)):
        return [f"figure {figure.name!r}: chart is not callable nor 'module:function'"]
    return []


def clashes(spec: Benchmark, loaded: Iterable[Benchmark]) -> list[str]:
    """What ``spec`` declares that an already loaded benchmark declares too."""
    problems: list[str] = []
    for other in loaded:
        flags = {option.flag for option in other.read_options}
        keys = {option.key for option in other.read_options}
        if any(option.flag in flags for option in spec.read_options):
            problems.append(f"it declares an option flag benchmark {other.name!r} already declares")
        elif any(option.key in keys for option in spec.read_options):
            problems.append(f"it declares an option key benchmark {other.name!r} already declares")
        theirs = dict(other.table.metrics)
        problems += [
            f"its table metric {name!r} reads {column!r}, but benchmark {other.name!r} "
            f"declares {name!r} reading {theirs[name]!r}"
            for name, column in spec.table.metrics
            if name in theirs and theirs[name] != column
        ]
        mine, theirs_figure = own_figure(spec), own_figure(other)
        if mine is not None and theirs_figure is not None and mine.name == theirs_figure.name:
            problems.append(f"its figure {mine.name!r} is benchmark {other.name!r}'s")
        tables = {table.name for table in other.detail_tables}
        problems += [
            f"its detail table {table.name!r} is benchmark {other.name!r}'s"
            for table in spec.detail_tables
            if table.name in tables
        ]
    return problems
