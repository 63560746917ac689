"""ToyBench for memscope: an example third-party benchmark plugin.

ToyBench is invented: eight questions over a three-session dialogue between two
housemates (one shared photo), on two axes of its own, question kind x evidence gap. Its
runs are a directory holding ``answers.toybench.csv`` (ToyBench's grades and each
question's retrieved turns), ``run.toybench.json`` and ToyBench's own summary.

Everything memscope needs to know about it is :data:`BENCHMARK`, registered in this
package's ``pyproject.toml``::

    [project.entry-points."memscope.benchmarks"]
    toybench = "memscope_toybench:BENCHMARK"

memscope's contract for a spec is in its docs/benchmarks.md.
"""

from __future__ import annotations

from memscope.plugin import (
    API_VERSION,
    Benchmark,
    MatrixStyle,
    ModuleReader,
    ReadOption,
    TableLayout,
)

from memscope_toybench.axes import AXES, NAME
from memscope_toybench.summary import check_stored, check_table

PHOTOS_OPTION = ReadOption(
    key="toybench_photos",
    flag="--toybench-photos",
    help="A folder with local copies of the photos the dialogue shares (matched by file "
    "name); without it the app shows each photo's caption.",
)

BENCHMARK = Benchmark(
    api_version=API_VERSION,
    name=NAME,
    title="ToyBench",
    run_files="ToyBench answers.toybench.csv",
    # The reader's module is imported on first use, so loading the registry stays cheap.
    reader=ModuleReader("memscope_toybench.run", "sniff", "read_all"),
    axes=AXES,
    table=TableLayout(
        default_by=("kind",),
        default_metric="accuracy",
        default_group=("model", "method"),
    ),
    read_options=(PHOTOS_OPTION,),
    panel="evidence",
    figure="grid_lines",
    matrix=MatrixStyle(legend="rows: question kind, columns: sessions since the evidence"),
    no_scores_reason="ToyBench's answers file keeps the retrieved turns in rank order but no scores",
    check_stored=check_stored,
    check_table=check_table,
    summary_files="summary.toybench.json",
)
"""ToyBench's spec (entry point ``toybench`` of ``memscope.benchmarks``)."""
