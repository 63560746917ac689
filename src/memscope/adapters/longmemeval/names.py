"""What upstream's file names and folders say about a run (docs/formats.md §6.1).

``run_generation.sh`` writes ``generation_logs/<retriever alias>/<model>/<reading
method>/<in file>_testlog_top<k>context_<format>format_useronly<bool>[_factexpansion<m>]_<stamp>[suffix]``;
``evaluate_qa.py`` adds ``.eval-results-<judge>``; ``run_retrieval.sh`` writes
``retrieval_logs/<retriever>/<granularity>/<in file>_retrievallog_<granularity>_<retriever>``.
The generation's input file is the dataset or a retrieval log, so its name carries both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

HYPOTHESIS = re.compile(
    r"^(?P<in_file>.+)_testlog_top(?P<k>\d+)context_(?P<format>[a-z]+)format"
    r"_useronly(?P<useronly>true|false)(?:_factexpansion(?P<expansion>[a-z]+))?"
    r"_(?P<stamp>\d{8}-\d{4})(?P<suffix>.*)$"
)
JUDGED = re.compile(r"^(?P<hypothesis>.+)\.eval-results-(?P<judge>[^/]+)$")
RETRIEVAL_INPUT = re.compile(
    r"^(?P<dataset>.+)_retrievallog_(?P<granularity>session|turn)_(?P<retriever>.+)$"
)
READING_METHODS = ("direct", "con", "con-separate")
METRICS_SUFFIX = ".metrics.txt"
"""``print_qa_metrics.py``'s printed output, saved beside the eval-results file it read
(``<eval-results file>.metrics.txt``): read by ``table --check-upstream``, never a run."""


def qa_metrics_file(eval_results: Path) -> Path:
    """Where ``print_qa_metrics.py``'s output for an eval-results file is looked for."""
    return eval_results.with_name(eval_results.name + METRICS_SUFFIX)


@dataclass(frozen=True)
class RunName:
    """One run file's name, parsed."""

    file: Path
    hypothesis: Path
    judge: str | None
    in_file: str
    dataset: str
    top_k: int
    history_format: str
    useronly: bool
    stamp: str
    granularity: str | None
    retriever: str | None
    alias: str | None
    model: str | None
    reading: str | None

    @property
    def variant(self) -> str:
        """The dataset's name without ``longmemeval_`` and ``.json`` (``s``, ``oracle``)."""
        stem = self.dataset.removesuffix(".json")
        return stem.removeprefix("longmemeval_")

    @property
    def full_history(self) -> bool:
        return self.retriever is None and (self.alias or "").startswith(("full-history", "orig-"))


def parse(path: Path) -> RunName | None:
    """The run a file's name describes (None for a file that is not one)."""
    if path.name.endswith(METRICS_SUFFIX):
        return None
    judged = JUDGED.match(path.name)
    judge = judged["judge"] if judged else None
    hypothesis = path.with_name(judged["hypothesis"]) if judged else path
    found = HYPOTHESIS.match(hypothesis.name)
    if found is None:
        return None
    in_file = found["in_file"]
    retrieval = RETRIEVAL_INPUT.match(in_file)
    method_dir = path.parent
    has_layout = method_dir.name in READING_METHODS
    return RunName(
        file=path,
        hypothesis=hypothesis,
        judge=judge,
        in_file=in_file,
        dataset=retrieval["dataset"] if retrieval else in_file,
        top_k=int(found["k"]),
        history_format=found["format"],
        useronly=found["useronly"] == "true",
        stamp=found["stamp"],
        granularity=retrieval["granularity"] if retrieval else None,
        retriever=retrieval["retriever"] if retrieval else None,
        alias=method_dir.parent.parent.name if has_layout else None,
        model=method_dir.parent.name if has_layout else None,
        reading=method_dir.name if has_layout else None,
    )


def run_files(folder: Path) -> list[RunName]:
    """The runs of a folder: each ``.eval-results-<judge>`` file, and each hypothesis file
    that has none (an ungraded run), by name."""
    try:
        names = sorted(entry.name for entry in folder.iterdir() if entry.is_file())
    except OSError:
        return []
    parsed = [found for name in names if (found := parse(folder / name)) is not None]
    graded = {run.hypothesis.name for run in parsed if run.judge is not None}
    return [run for run in parsed if run.judge is not None or run.file.name not in graded]
