"""DMV-Bench (yyyujintang/DMV-Bench): incidental visual cues recalled across sessions.

A run directory holds ``f2_per_probe.csv`` (one run per system), the systems' logs and a
cue registry (docs/formats.md §2; ``run``, ``logs``, ``catalogue``, ``dataset``). Probes sit
on reach × bank size or × encoding position (``axes``); probes of one chain trunk are not
independent, so intervals resample trunks and ``compare`` adds a trunk sign-flip test.
"""

from __future__ import annotations

from memscope.adapters.dmv.axes import AXES
from memscope.adapters.dmv.summary import check_table
from memscope.plugin import (
    API_VERSION,
    Benchmark,
    BenchmarkFigure,
    DetailTable,
    MatrixStyle,
    ModuleReader,
    ModuleRunWriter,
    Pairing,
    QuestionPanel,
    ReadOption,
    ReportSection,
    TableLayout,
)

REGISTRY_OPTION = ReadOption(
    key="dmv_registry",
    flag="--dmv-registry",
    help="DMV-Bench's cue_registry.json (or the folder holding it, e.g. data/vismem_diag_v2/), "
    "when it is not in or next to the run directory.",
    remembered_as="registry",
)
RECALL_STEPS = DetailTable(
    "dmv_recall_steps",  # read by the probe panel (probe.py)
    (
        ("qid", "VARCHAR NOT NULL"),
        ("step", "INTEGER NOT NULL"),
        ("observed_url", "VARCHAR"),
        ("retrieved", "VARCHAR[]"),
        ("action", "VARCHAR"),
        ("action_url", "VARCHAR"),
        ("vlm_text", "VARCHAR"),
    ),
)
"""One row per recall step of a probe, from the system's log (docs/formats.md §2.3)."""

MEMEYE_RUN_WRITER = ModuleRunWriter("memscope.adapters.memeye.native_run", answers=True)
"""`memscope retrieve` writes runs over these datasets in MemEye's layout (named by its
module, not imported: a benchmark package imports memscope only through memscope.plugin)."""

BENCHMARK = Benchmark(
    api_version=API_VERSION,
    name="dmv",
    title="DMV-Bench",
    run_files="DMV-Bench f2_per_probe.csv",
    reader=ModuleReader("memscope.adapters.dmv.run", "is_dmv_run", "read_dmv_runs"),
    axes=AXES,
    table=TableLayout(
        default_by=("reach",),
        default_metric="tsr",
        default_group=("method",),
        metrics=(("tsr", "em"),),
    ),
    marker_files=("f2_per_probe.csv",),
    sniff_order=20,
    read_options=(REGISTRY_OPTION,),
    detail_tables=(RECALL_STEPS,),
    own_attributes=True,
    pairing=Pairing(
        ("trunk", "visit_session", "recall_session", "target_hash", "cue_id"),
        "seed/trunk, visit session, recall session, target product and cue",
    ),
    cluster="trunk",
    # A probe is no dialogue round: its recall steps on the left, its retention context on
    # the right (no candidates to re-rank: DMV-Bench logs no scores).
    panel="evidence",
    question_panel=QuestionPanel(
        "probe",
        "the probe's recall steps",
        "memscope.adapters.dmv.probe:probe_panel",
        "memscope.adapters.dmv.probe:retention_panel",
    ),
    figure=BenchmarkFigure(
        "retention",
        "memscope.adapters.dmv.figure:retention_chart",
        overlay=True,  # the compared run's curve beside the open one's
    ),
    report_sections=(
        ReportSection(
            "tsr",
            "memscope.adapters.dmv.report:tsr_section",
            "memscope.adapters.dmv.report_view:tsr_view",
        ),
    ),
    matrix=MatrixStyle(delta_title="Δ TSR (B − A)"),
    check_table=check_table,
    summary_files="f2_summary.csv",
    no_scores_reason="DMV-Bench logs the retrieved bank entries in rank order but never their scores",
    # `memscope retrieve` over this benchmark's stored datasets (by dataset or run id)
    # writes the MemEye layout, as it always has.
    run_writer=MEMEYE_RUN_WRITER,
)
"""DMV-Bench's spec (entry point ``dmv`` of ``memscope.benchmarks``)."""
