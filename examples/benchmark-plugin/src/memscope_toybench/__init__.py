"""ToyBench for memscope: an example third-party benchmark plugin.

ToyBench is invented: eight questions over a three-session dialogue between two housemates
(one shared photo). A run is a folder holding ``answers.toybench.csv`` (``run.py``), maybe
``run.toybench.json`` and ToyBench's own summary (``summary.py``). :data:`BENCHMARK` is all
memscope needs, registered in ``pyproject.toml``::

    [project.entry-points."memscope.benchmarks"]
    toybench = "memscope_toybench:BENCHMARK"
"""

from __future__ import annotations

import memscope.plugin as ms

from memscope_toybench.dataset import NAME
from memscope_toybench.run import check_stored, check_table

# The axes (the dataset writes both into a question's ``extra``): its ``kind``, a stated fact,
# a fact later updated (only the latest statement is right) or a preference; and its evidence
# ``gap``, sessions from the latest evidence turn's to the last, numeric (``gap:>=1``).
KINDS = (
    ms.Level("fact", "Fact", "fact"),
    ms.Level("update", "Updated fact", "update", ("changed",)),
    ms.Level("preference", "Preference", "pref", ("taste",)),
)
GAP = ms.Axis(
    "gap", "evidence gap (sessions)", "extra:gap", numeric=True, aliases=("evidence_gap",)
)
AXES = ms.BenchmarkAxes(
    benchmark=NAME,
    name="ToyBench",
    axes=(ms.Axis("kind", "question kind", "extra:kind", KINDS, width=6), GAP),
    views=(ms.MatrixView("kind", "gap"),),
    metrics=(("accuracy", "accuracy"), ("any_clue", "Any-Clue@K")),
    words={"question": "question", "unplaced": "no kind / evidence gap", "clue": "evidence turn"},
)
PHOTOS_HELP = "A folder with the dialogue's photos (by file name); else captions are shown."
BENCHMARK = ms.Benchmark(
    api_version=ms.API_VERSION,
    name=NAME,
    title="ToyBench",
    run_files="ToyBench answers.toybench.csv",
    reader=ms.ModuleReader("memscope_toybench.run", "sniff", "read_all"),
    axes=AXES,
    table=ms.TableLayout(default_by=("kind",), default_metric="accuracy"),
    read_options=(ms.ReadOption("toybench_photos", "--toybench-photos", PHOTOS_HELP),),
    panel="evidence",
    matrix=ms.MatrixStyle(legend="rows: question kind, columns: sessions since the evidence"),
    no_scores_reason="ToyBench's answers file keeps the retrieved turns in rank order but no scores",
    check_stored=check_stored,
    check_table=check_table,
    summary_files="summary.toybench.json",
)
"""ToyBench's spec (entry point ``toybench`` of ``memscope.benchmarks``)."""
