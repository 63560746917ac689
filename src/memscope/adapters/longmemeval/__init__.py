"""LongMemEval (Wu et al., ICLR 2025; xiaowu0162/LongMemEval): 500 questions in six types
plus abstention variants, each over its own timestamped haystack of chat sessions, and the
runs upstream's generation, judging and retrieval scripts write.

- ``dataset``: ``longmemeval_s.json`` / ``_m`` / ``_oracle`` (read one question at a time,
  ``stream``) into one dataset record; each question keeps its own haystack;
- ``names``: what upstream's file names and folders say (model, retriever, method, k);
- ``run``: the eval-results and hypothesis files of a folder, one run each, joined to the
  dataset and the retrieval log;
- ``upstream``: upstream's own numbers (retrieval metrics, task-averaged accuracy);
- ``summary``: ``table --check-upstream`` against the retrieval logs' own metrics;
- ``axes``: question type x abstention, evidence sessions, evidence distance;
- ``dataset_file``: the dataset file for the memory engine (``memscope index`` / ``retrieve``);
- ``retrieval_log``: ``memscope retrieve``'s output, the retrieval logs upstream's
  ``run_retrieval.py`` writes (each question ranked within its own haystack).

This package imports memscope only through ``memscope.plugin`` and is registered as the
entry point ``longmemeval`` of ``memscope.benchmarks``, like any plugin.
"""

from __future__ import annotations

from memscope.adapters.longmemeval.axes import AXES, NAME
from memscope.adapters.longmemeval.summary import check_table
from memscope.adapters.longmemeval.upstream import abstention_accuracy, task_averaged
from memscope.plugin import (
    API_VERSION,
    Benchmark,
    MatrixStyle,
    ModuleDatasetReader,
    ModuleReader,
    ModuleRunWriter,
    QuestionMatch,
    ReadOption,
    TableLayout,
)

RETRIEVAL_LOG_OPTION = ReadOption(
    key="lme_retrieval_log",
    flag="--lme-retrieval-log",
    help="The retrieval log (run_retrieval.py's output) a LongMemEval run read, or a folder "
    "holding it; without it, it is looked for as retrieval_logs/<retriever>/<granularity>/ "
    "above the run.",
)

NEXT_STEP = (
    "answer over a log with upstream's run_generation.py (--in_file), then `memscope ingest` "
    "its generation_logs folder: memscope finds the log as retrieval_logs/<retriever>/"
    "<granularity>/ above it (or pass --lme-retrieval-log)."
)
"""What ``memscope retrieve`` says to do with the retrieval logs it wrote (no run by themselves)."""

BENCHMARK = Benchmark(
    api_version=API_VERSION,
    name=NAME,
    title="LongMemEval",
    run_files="LongMemEval run_generation.py output (<in file>_testlog_top<k>context_…, "
    "with or without .eval-results-<judge>)",
    reader=ModuleReader(
        "memscope.adapters.longmemeval.run", "is_longmemeval_run", "read_longmemeval_runs"
    ),
    axes=AXES,
    table=TableLayout(
        default_by=("type",),
        default_metric="accuracy",
        default_group=("model", "method"),
        # print_qa_metrics.py's summary lines; its overall accuracy is the "all" column
        derived=(
            ("task_avg", "task-avg", task_averaged),
            ("abstention", "abstention", abstention_accuracy),
        ),
    ),
    sniff_order=45,
    read_options=(RETRIEVAL_LOG_OPTION,),
    panel="evidence",
    matrix=MatrixStyle(legend="rows: question type, columns: abstention"),
    no_scores_reason="LongMemEval's retrieval logs keep the ranked corpus ids but no scores",
    check_table=check_table,
    summary_files="the retrieval log's retrieval_results.metrics",
    # What the diagnostics read: knowledge-update questions ask for the latest state (temporal
    # authority, the stale/latest rules), `_abs` questions should be declined (USE-CALIB),
    # and a reading over the whole haystack or the evidence sessions alone is a context kind.
    latest_state=QuestionMatch(
        "extra:question_type", ("knowledge-update",), label="knowledge-update"
    ),
    declines=QuestionMatch("extra:abstention", ("yes",), label="abstention"),
    context_kinds={"full_context": "whole_history", "clue_only_context": "gold_evidence"},
    # Each question saw only its own haystack: ages, recency and round counts are per history,
    # and the engine ranks a question among its own haystack's rounds.
    history="extra:haystack",
    dataset_reader=ModuleDatasetReader(
        "memscope.adapters.longmemeval.dataset_file",
        accepts="longmemeval_s.json / _m / _oracle (a list of questions with their haystacks)",
        read_name="read_engine_dataset",
    ),
    # `memscope retrieve` writes run_retrieval.py's logs (turn and session), each ranking the
    # question's whole corpus as upstream does; they are read with the run that answers over them.
    run_writer=ModuleRunWriter(
        "memscope.adapters.longmemeval.retrieval_log",
        answers=False,
        whole_history=True,
        next_step=NEXT_STEP,
    ),
)
"""LongMemEval's spec (entry point ``longmemeval`` of ``memscope.benchmarks``)."""
