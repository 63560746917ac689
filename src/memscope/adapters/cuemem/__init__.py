"""CUE-Mem: implicit cues in images and in the background of voice messages.

A run is one ``*_results.json`` (RQ1/RQ2's ``run_bench.py`` or RQ3's
``step2_run_experiment.py``, docs/formats.md §3; ``run``, below any of RQ1/RQ2's result
roots, ``roots``) or one submission of the human-baseline app (``human``), joined to the
profile's history file (``dataset``, found by ``history``). ``aggregate_results.py``'s
summaries are never runs; their groups are checked against the runs they name
(``aggregated``). QAs sit on task × evidence (explicit / implicit) or × modality
(``axes``); the table adds Memory Avg. and EI-Gap and shows the paper's names of the
systems (``table``, ``names``).
"""

from __future__ import annotations

from memscope.adapters.cuemem.axes import AXES
from memscope.adapters.cuemem.table import LAYOUT
from memscope.plugin import (
    API_VERSION,
    Benchmark,
    BenchmarkFigure,
    DetailTable,
    MatrixGap,
    MatrixStyle,
    ModuleReader,
    ModuleRunWriter,
    QuestionMatch,
    ReportSection,
)

RETRIEVED_ITEMS = DetailTable(
    "cue_retrieved_items",
    (
        ("qid", "VARCHAR NOT NULL"),
        ("turn_id", "VARCHAR NOT NULL"),
        ("turn_rank", "INTEGER"),
        ("item_id", "VARCHAR"),
        ("modality", "VARCHAR"),
        ("path", "VARCHAR"),
        ("fallback", "BOOLEAN"),
        ("score", "DOUBLE"),
        ("item_rank", "INTEGER"),
        ("query_source", "VARCHAR"),
        ("query_letter", "VARCHAR"),
        ("composition_method", "VARCHAR"),
    ),
)
"""One row per item an RQ3 unified index retrieved (``retrieved_items``, §3.4)."""

MEMEYE_RUN_WRITER = ModuleRunWriter("memscope.adapters.memeye.native_run", answers=True)
"""`memscope retrieve` writes runs over these datasets in MemEye's layout (named by its
module, not imported: a benchmark package imports memscope only through memscope.plugin)."""

BENCHMARK = Benchmark(
    api_version=API_VERSION,
    name="cuemem",
    title="CUE-Mem",
    run_files="CUE-Mem *_results.json (a JSON list of records with qa_id / qa_uid, or "
    "{meta, results}; or human-baseline submissions)",
    reader=ModuleReader("memscope.adapters.cuemem.run", "is_cuemem_run", "read_cuemem_runs"),
    axes=AXES,
    table=LAYOUT,
    sniff_order=30,
    detail_tables=(RETRIEVED_ITEMS,),
    panel="evidence",
    figure=BenchmarkFigure(
        "cue",
        "memscope.adapters.cuemem.figure:settings_chart",
    ),
    # The accuracy matrix's EI-gap column on task x evidence views.
    matrix=MatrixStyle(gap=MatrixGap("evidence", "explicit", "implicit", "EI-gap")),
    report_sections=(
        ReportSection(
            "cue",
            "memscope.adapters.cuemem.report:cue_section",
            "memscope.adapters.cuemem.report_view:cue_view",
        ),
    ),
    task_attribute="task_group",
    # Answer Refusal questions should be declined (USE-CALIB checks them).
    declines=QuestionMatch("extra:task_group", ("refusal",), contains=True),
    # Implicit-cue pattern questions: an implicit setting in any of the four attributes
    # CUE-Mem's files use for it, in a pattern task.
    implicit=(
        QuestionMatch(
            "extra:explicitness|extra:evidence_setting|extra:cue_type|extra:setting",
            ("implicit",),
        ),
        QuestionMatch("extra:task_group", ("pattern",), contains=True),
    ),
    # `memscope retrieve` over this benchmark's stored datasets (by dataset or run id)
    # writes the MemEye layout, as it always has.
    run_writer=MEMEYE_RUN_WRITER,
)
"""CUE-Mem's spec (entry point ``cuemem`` of ``memscope.benchmarks``)."""
