"""memscope's plugin contract: every name a benchmark package needs, in one public module.

A benchmark package (memscope's four built-ins, the ToyBench example, yours) imports
memscope through this module only (an import-linter contract holds the built-ins to it, and
``tests/unit/test_plugin_api.py`` the example), so what a plugin may rely on is exactly what
is listed here, versioned by :data:`API_VERSION`. A spec declares the version it was written
for (``Benchmark(api_version=API_VERSION, …)``); the registry refuses a spec written for an
incompatible one, naming the plugin, its version and memscope's.

What is here (docs/benchmarks.md says what each is for):

- the spec and its parts: :class:`Benchmark`, :class:`TableLayout`, :class:`MatrixStyle` (with :class:`MatrixGap`),
  :class:`ReadOption`, :class:`DetailTable`, :class:`Pairing`, :class:`QuestionMatch`, the axes (:class:`Axis`,
  :class:`Level`, :class:`MatrixView`, :class:`BenchmarkAxes`) and the lazily imported hooks
  (:class:`ModuleReader`, :class:`ModuleDatasetReader`, :class:`ModuleRunWriter`);
- what a reader is given and returns: :class:`ReadOptions`, the records (:class:`RunRecord`,
  :class:`DatasetRecord`, :class:`QuestionRecord` …), :func:`typed_table`, :func:`qid_for`,
  :func:`question_key`, and the row builders :class:`RunRows`, :class:`DatasetRows` and :func:`run_record` (a
  record with defaults for what a simple benchmark need not say);
- the errors a reader raises (:class:`RunDirError`, :class:`DatasetError` …);
- file helpers that turn OS and JSON errors into such messages (:func:`read_json_file`,
  :func:`file_digest`, :func:`media_kind` …) and the summary-check helpers
  (:func:`summary_check`, :func:`check_notices` …);
- a benchmark's own report sections (``adapters.sections``): :class:`ReportSection`, what a
  section is lent (:class:`SectionRun`, :class:`GroupRate`, :data:`MIN_CLUSTERS`) and what
  its view returns (:class:`TextBlock`, :class:`TableBlock`, :class:`TableColumn`,
  :class:`TableRow`, with the text plots :func:`bar` and :func:`sparkline`);
- a benchmark's own figure (``adapters.charts``): :class:`BenchmarkFigure`, whose hook gets
  :class:`SectionRun` objects and returns a :class:`Chart` of :class:`ChartSeries`
  (:data:`ChartShape`: lines or grouped bars), which the app and ``memscope plot`` draw;
- a benchmark's own question panel (``adapters.panels``): :class:`QuestionPanel`, whose
  hooks get a :class:`PanelQuestion` (the question's record, its rows of the benchmark's
  detail tables, rounds by id) or a :class:`QuestionInRun` (the run's axis labels and
  outcomes) and return :data:`PanelBlock` parts (:class:`TextLine`, :class:`TextBlock`,
  :class:`ImageBlock`) the app's question screen draws.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memscope.adapters.arrow_rows import typed_table
    from memscope.adapters.axes import Axis, BenchmarkAxes, Level, MatrixView
    from memscope.adapters.base import ReadOptions
    from memscope.adapters.charts import BenchmarkFigure, Chart, ChartSeries, ChartShape
    from memscope.adapters.files import (
        file_digest,
        files_named,
        media_kind,
        read_json_file,
        refuse_special,
        strings,
    )
    from memscope.adapters.panels import (
        ImageBlock,
        PanelBlock,
        PanelQuestion,
        QuestionInRun,
        QuestionPanel,
        TextLine,
    )
    from memscope.adapters.run_rows import DatasetRows, RunRows, run_record
    from memscope.adapters.run_sources import SOURCES_FILE, recorded_sources
    from memscope.adapters.sections import (
        MIN_CLUSTERS,
        Block,
        GroupRate,
        ReportSection,
        SectionRun,
        TableBlock,
        TableColumn,
        TableRow,
        TextBlock,
    )
    from memscope.adapters.spec import (
        API_VERSION,
        Benchmark,
        CellMean,
        ContextKind,
        DatasetReader,
        Derived,
        DetailTable,
        MatrixGap,
        MatrixStyle,
        ModuleDatasetReader,
        ModuleReader,
        ModuleRunWriter,
        Pairing,
        QuestionMatch,
        ReadOption,
        RunColumns,
        RunReader,
        RunSink,
        RunWriter,
        StoredCheck,
        StoredMeans,
        TableCheck,
        TableLayout,
    )
    from memscope.adapters.upstream_summary import (
        CHECK_KEY,
        PERCENT_TOLERANCE,
        RATE_TOLERANCE,
        Comparison,
        check_notices,
        csv_comparison,
        mean_defined,
        merge_checks,
        read_csv_rows,
        summary_check,
    )
    from memscope.errors import DatasetError, EngineError, MemscopeError, PluginError, RunDirError
    from memscope.file_kinds import (
        NotRegularFileError,
        not_regular,
        open_regular,
        path_kind,
        read_regular,
    )
    from memscope.identity import KEY_SEPARATOR, qid_for, question_key
    from memscope.json_types import JSONObject, JSONValue
    from memscope.paths import in_working_dir
    from memscope.record_formats import DatasetFormat, LinesFormat, RankedIds
    from memscope.records import (
        BulkSource,
        DatasetRecord,
        DatasetSource,
        EngineCandidate,
        EngineRetrieval,
        EngineRetriever,
        EngineRunPlan,
        Notice,
        QuestionRecord,
        RetrievalKind,
        RoundRecord,
        RunRecord,
        SessionRecord,
    )
    from memscope.textplot import bar, sparkline

_HOMES = {
    "API_VERSION": "memscope.adapters.spec",
    "Axis": "memscope.adapters.axes",
    "Benchmark": "memscope.adapters.spec",
    "BenchmarkAxes": "memscope.adapters.axes",
    "BulkSource": "memscope.records",
    "CHECK_KEY": "memscope.adapters.upstream_summary",
    "CellMean": "memscope.adapters.spec",
    "Comparison": "memscope.adapters.upstream_summary",
    "DatasetError": "memscope.errors",
    "DatasetFormat": "memscope.record_formats",
    "DatasetReader": "memscope.adapters.spec",
    "DatasetRecord": "memscope.records",
    "DatasetRows": "memscope.adapters.run_rows",
    "DatasetSource": "memscope.records",
    "Derived": "memscope.adapters.spec",
    "DetailTable": "memscope.adapters.spec",
    "EngineCandidate": "memscope.records",
    "EngineError": "memscope.errors",
    "EngineRetrieval": "memscope.records",
    "EngineRetriever": "memscope.records",
    "EngineRunPlan": "memscope.records",
    "JSONObject": "memscope.json_types",
    "JSONValue": "memscope.json_types",
    "KEY_SEPARATOR": "memscope.identity",
    "Level": "memscope.adapters.axes",
    "LinesFormat": "memscope.record_formats",
    "MatrixGap": "memscope.adapters.spec",
    "MatrixStyle": "memscope.adapters.spec",
    "ContextKind": "memscope.adapters.spec",
    "MatrixView": "memscope.adapters.axes",
    "MemscopeError": "memscope.errors",
    "ModuleDatasetReader": "memscope.adapters.spec",
    "ModuleReader": "memscope.adapters.spec",
    "ModuleRunWriter": "memscope.adapters.spec",
    "NotRegularFileError": "memscope.file_kinds",
    "Notice": "memscope.records",
    "PERCENT_TOLERANCE": "memscope.adapters.upstream_summary",
    "Pairing": "memscope.adapters.spec",
    "QuestionMatch": "memscope.adapters.spec",
    "PluginError": "memscope.errors",
    "QuestionRecord": "memscope.records",
    "RATE_TOLERANCE": "memscope.adapters.upstream_summary",
    "RankedIds": "memscope.record_formats",
    "ReadOption": "memscope.adapters.spec",
    "ReadOptions": "memscope.adapters.base",
    "RetrievalKind": "memscope.records",
    "RoundRecord": "memscope.records",
    "RunColumns": "memscope.adapters.spec",
    "RunDirError": "memscope.errors",
    "RunReader": "memscope.adapters.spec",
    "RunRecord": "memscope.records",
    "RunRows": "memscope.adapters.run_rows",
    "RunSink": "memscope.adapters.spec",
    "RunWriter": "memscope.adapters.spec",
    "SOURCES_FILE": "memscope.adapters.run_sources",
    "SessionRecord": "memscope.records",
    "StoredCheck": "memscope.adapters.spec",
    "StoredMeans": "memscope.adapters.spec",
    "TableCheck": "memscope.adapters.spec",
    "TableLayout": "memscope.adapters.spec",
    "check_notices": "memscope.adapters.upstream_summary",
    "csv_comparison": "memscope.adapters.upstream_summary",
    "file_digest": "memscope.adapters.files",
    "files_named": "memscope.adapters.files",
    "in_working_dir": "memscope.paths",
    "mean_defined": "memscope.adapters.upstream_summary",
    "media_kind": "memscope.adapters.files",
    "merge_checks": "memscope.adapters.upstream_summary",
    "not_regular": "memscope.file_kinds",
    "open_regular": "memscope.file_kinds",
    "path_kind": "memscope.file_kinds",
    "qid_for": "memscope.identity",
    "question_key": "memscope.identity",
    "read_csv_rows": "memscope.adapters.upstream_summary",
    "read_json_file": "memscope.adapters.files",
    "read_regular": "memscope.file_kinds",
    "recorded_sources": "memscope.adapters.run_sources",
    "run_record": "memscope.adapters.run_rows",
    "refuse_special": "memscope.adapters.files",
    "strings": "memscope.adapters.files",
    "summary_check": "memscope.adapters.upstream_summary",
    "typed_table": "memscope.adapters.arrow_rows",
    "Block": "memscope.adapters.sections",
    "GroupRate": "memscope.adapters.sections",
    "MIN_CLUSTERS": "memscope.adapters.sections",
    "ReportSection": "memscope.adapters.sections",
    "SectionRun": "memscope.adapters.sections",
    "TableBlock": "memscope.adapters.sections",
    "TableColumn": "memscope.adapters.sections",
    "TableRow": "memscope.adapters.sections",
    "TextBlock": "memscope.adapters.sections",
    "BenchmarkFigure": "memscope.adapters.charts",
    "Chart": "memscope.adapters.charts",
    "ChartSeries": "memscope.adapters.charts",
    "ChartShape": "memscope.adapters.charts",
    "ImageBlock": "memscope.adapters.panels",
    "PanelBlock": "memscope.adapters.panels",
    "PanelQuestion": "memscope.adapters.panels",
    "QuestionInRun": "memscope.adapters.panels",
    "QuestionPanel": "memscope.adapters.panels",
    "TextLine": "memscope.adapters.panels",
    "bar": "memscope.textplot",
    "sparkline": "memscope.textplot",
}
"""Where each name lives: imported on first use, so that ``import memscope.plugin`` (a
spec's module, read whenever the registry loads) costs no pyarrow."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'memscope.plugin' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "API_VERSION",
    "CHECK_KEY",
    "KEY_SEPARATOR",
    "MIN_CLUSTERS",
    "PERCENT_TOLERANCE",
    "RATE_TOLERANCE",
    "SOURCES_FILE",
    "Axis",
    "Benchmark",
    "BenchmarkAxes",
    "BenchmarkFigure",
    "Block",
    "BulkSource",
    "CellMean",
    "Chart",
    "ChartSeries",
    "ChartShape",
    "Comparison",
    "ContextKind",
    "DatasetError",
    "DatasetFormat",
    "DatasetReader",
    "DatasetRecord",
    "DatasetRows",
    "DatasetSource",
    "Derived",
    "DetailTable",
    "EngineCandidate",
    "EngineError",
    "EngineRetrieval",
    "EngineRetriever",
    "EngineRunPlan",
    "GroupRate",
    "ImageBlock",
    "JSONObject",
    "JSONValue",
    "Level",
    "LinesFormat",
    "MatrixGap",
    "MatrixStyle",
    "MatrixView",
    "MemscopeError",
    "ModuleDatasetReader",
    "ModuleReader",
    "ModuleRunWriter",
    "NotRegularFileError",
    "Notice",
    "Pairing",
    "PanelBlock",
    "PanelQuestion",
    "PluginError",
    "QuestionInRun",
    "QuestionMatch",
    "QuestionPanel",
    "QuestionRecord",
    "RankedIds",
    "ReadOption",
    "ReadOptions",
    "ReportSection",
    "RetrievalKind",
    "RoundRecord",
    "RunColumns",
    "RunDirError",
    "RunReader",
    "RunRecord",
    "RunRows",
    "RunSink",
    "RunWriter",
    "SectionRun",
    "SessionRecord",
    "StoredCheck",
    "StoredMeans",
    "TableBlock",
    "TableCheck",
    "TableColumn",
    "TableLayout",
    "TableRow",
    "TextBlock",
    "TextLine",
    "bar",
    "check_notices",
    "csv_comparison",
    "file_digest",
    "files_named",
    "in_working_dir",
    "mean_defined",
    "media_kind",
    "merge_checks",
    "not_regular",
    "open_regular",
    "path_kind",
    "qid_for",
    "question_key",
    "read_csv_rows",
    "read_json_file",
    "read_regular",
    "recorded_sources",
    "refuse_special",
    "run_record",
    "sparkline",
    "strings",
    "summary_check",
    "typed_table",
]
