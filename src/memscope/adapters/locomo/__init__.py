"""LoCoMo (snap-research/LoCoMo, ACL 2024): very long two-speaker conversations with shared
images, and the QA runs its ``task_eval/evaluate_qa.py`` writes.

- ``dataset``: ``locomo10.json`` (a list of samples) into one dataset record.
- ``run``: the run files (``<key>_prediction`` … per QA item), one run per file and key.
- ``summary``: upstream's ``*_stats.json`` recomputed from the run's rows.
- ``axes``: category x evidence age, evidence modality.
- ``native_run``: the memory engine's retrievals (``memscope retrieve locomo10.json``) as a
  retrieval-only run file in upstream's format; each conversation is its own memory.

Everything memscope knows about LoCoMo is in this package and its :data:`BENCHMARK` spec,
registered as the entry point ``locomo`` of ``memscope.benchmarks`` like any plugin.
"""

from __future__ import annotations

from memscope.adapters.locomo.axes import AXES
from memscope.adapters.locomo.summary import check_table
from memscope.plugin import (
    API_VERSION,
    Benchmark,
    MatrixStyle,
    ModuleDatasetReader,
    ModuleReader,
    ModuleRunWriter,
    ReadOption,
    TableLayout,
)

IMAGES_OPTION = ReadOption(
    key="images",
    flag="--images",
    help="A folder with local copies of LoCoMo's shared images, matched by the file name of "
    "each img_url; without it the native view says the image is only a URL (nothing is "
    "ever downloaded).",
)

BENCHMARK = Benchmark(
    api_version=API_VERSION,
    name="locomo",
    title="LoCoMo",
    run_files="LoCoMo evaluate_qa.py output (*.json with <key>_prediction) or a memory "
    "system's LoCoMo harness output (mem0 evals.py, MIRIX, Zep, memU, EverMemOS, MemOS: "
    "judged answers by conversation)",
    reader=ModuleReader("memscope.adapters.locomo.run", "is_locomo_run", "read_locomo_runs"),
    axes=AXES,
    table=TableLayout(
        default_by=("category",),
        default_metric="f1",
        default_group=("model", "method"),
        # f1: LoCoMo's own F1 (recomputed from the answer for harness runs); harness_f1 /
        # harness_bleu: a harness's own F1 (the answer's own attribute) and BLEU-1;
        # latency / tokens: what an answer cost, where files say.
        metrics=(
            ("f1", "f1"),
            ("harness_f1", "harness_f1"),
            ("harness_bleu", "bleu_1"),
            ("latency", "latency_ms"),
            ("tokens", "total_tokens"),
            # EverMemOS / MemOS judge every answer several times: each judge run and the
            # majority vote, read from the answer's own attributes (``judge`` is the mean).
            ("judge_run_1", "judge_run_1"),
            ("judge_run_2", "judge_run_2"),
            ("judge_run_3", "judge_run_3"),
            ("judge_majority", "majority"),
        ),
    ),
    sniff_order=40,
    # results/<system>/ may hold a run file and, below it, further run folders.
    runs_nest=True,
    read_options=(IMAGES_OPTION,),
    own_attributes=True,  # a harness's judge runs and majority vote, per answer
    panel="evidence",
    matrix=MatrixStyle(delta_title="Δ accuracy (B − A)"),
    no_scores_reason="LoCoMo's run files keep the retrieved ids in rank order but no scores",
    check_table=check_table,
    summary_files="<run>_stats.json",
    dataset_reader=ModuleDatasetReader(
        "memscope.adapters.locomo.dataset",
        accepts="data/locomo10.json, a list of conversations with their QAs",
        memory_bank="sample_id",  # each conversation is its own memory
    ),
    # A question saw only its own conversation: ages and round counts are per conversation.
    history="same:sample_id",
    run_writer=ModuleRunWriter("memscope.adapters.locomo.native_run", answers=False),
)
"""LoCoMo's spec (entry point ``locomo`` of ``memscope.benchmarks``)."""
