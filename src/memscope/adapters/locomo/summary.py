"""Cross-checks LoCoMo's own stats files against a run's stored rows.

Upstream (``task_eval/evaluation_stats.py``, ``analyze_aggr_acc``) writes, for a run file
``F.json``, ``F_stats.json`` (main: the F1 metric) or ``F_f1_stats.json`` and
``F_llm_stats.json`` (the LLM-judge merge ``567b067``), each ``{<key>: {category_counts,
cum_accuracy_by_category, …}}``, keys of the category maps being the category as text.
Over the QA items of the run file:

- ``category_counts[c]``: every item of category ``c``, answered or not;
- ``cum_accuracy_by_category[c]``: the sum of ``<key>_f1`` (or ``<key>_llm``) over the items
  of ``c`` that carry it (upstream's accuracy is this over ``category_counts``, so a
  question without the key counts as 0);
- with RAG, ``recall_by_category[c]``: the sum of ``<key>_recall`` over the items that carry
  the metric and have evidence, over ``category_counts[c]``.

:func:`recompute` does the same from per-question rows (:class:`StatsRow`), and
:func:`stats_check` compares: counts exactly, sums and recall within :data:`SUM_TOLERANCE`.
Upstream sums the per-question values as written in the run file (F1 already rounded to 3
places there), and memscope sums those same values, so only the order of floating-point
additions can differ (1e-12 on the real data); the tolerance leaves room for that and no
more, so one question's score read differently (at least 0.001) is a difference.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from memscope.plugin import (
    Comparison,
    JSONObject,
    JSONValue,
    MemscopeError,
    Notice,
    check_notices,
    read_json_file,
    summary_check,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from memscope.adapters.locomo.dataset import LocomoDataset
    from memscope.plugin import RunColumns

SUM_TOLERANCE = 1e-6
"""Largest difference of a sum (or of recall) that still agrees; see the module docstring."""
STATS_FILES = (("_stats.json", "f1"), ("_f1_stats.json", "f1"), ("_llm_stats.json", "llm"))
"""Suffixes of upstream's stats files beside ``F.json`` and the metric each sums."""
METRIC_COLUMNS = {"f1": "f1", "llm": "judge"}
"""Upstream metric suffix -> memscope's predictions column."""
COUNTS = "category_counts"
SUMS = "cum_accuracy_by_category"
RECALL = "recall_by_category"


@dataclass(frozen=True)
class StatsRow:
    """One QA item of a run as upstream's stats see it."""

    category: int
    f1: float | None
    """``<key>_f1`` (None: the item does not carry it)."""
    judge: float | None
    """``<key>_llm``."""
    recall: float | None = None
    has_evidence: bool = True


def stats_files(run_file: Path) -> list[tuple[Path, str]]:
    """``(stats file, metric)`` of every upstream stats file beside ``run_file``."""
    stem = run_file.name.removesuffix(".json")
    found = [(run_file.with_name(stem + suffix), metric) for suffix, metric in STATS_FILES]
    return [(path, metric) for path, metric in found if path.is_file()]


def recompute(rows: Iterable[StatsRow], metric: str) -> dict[str, dict[str, float]]:
    """``{category_counts, cum_accuracy_by_category, recall_by_category}`` as upstream
    computes them, category keys as text; ``metric`` is ``f1`` or ``llm``."""
    counts: dict[str, float] = {}
    sums: dict[str, float] = {}
    recall: dict[str, float] = {}
    for row in rows:
        category = str(row.category)
        counts[category] = counts.get(category, 0) + 1
        value = row.f1 if metric == "f1" else row.judge
        if value is None:
            continue
        sums[category] = sums.get(category, 0.0) + value
        if row.has_evidence and row.recall is not None:
            recall[category] = recall.get(category, 0.0) + row.recall
    return {
        COUNTS: counts,
        SUMS: sums,
        RECALL: {category: total / counts[category] for category, total in recall.items()},
    }


def stats_rows(
    predictions: pa.Table, dataset: LocomoDataset, unanswered: Sequence[str]
) -> list[StatsRow]:
    """The rows upstream's stats count for one run: every prediction row (category from the
    dataset, recall from the row's ``extra``) and every unanswered question (no metric)."""
    import json

    rows: list[StatsRow] = []
    columns = predictions.column_names
    qids = predictions.column("qid").to_pylist()
    f1s = predictions.column("f1").to_pylist() if "f1" in columns else [None] * len(qids)
    judges = predictions.column("judge").to_pylist() if "judge" in columns else [None] * len(qids)
    extras = predictions.column("extra").to_pylist() if "extra" in columns else [None] * len(qids)
    for qid, f1, judge, extra in zip(qids, f1s, judges, extras, strict=True):
        question = dataset.questions.get(qid)
        if question is None:
            continue
        recall = json.loads(extra).get("recall") if extra else None
        rows.append(
            StatsRow(
                category=_category(question.extra),
                f1=f1,
                judge=judge,
                recall=recall,
                has_evidence=bool(question.extra.get("evidence")),
            )
        )
    for qid in unanswered:
        question = dataset.questions.get(qid)
        if question is not None:
            rows.append(StatsRow(_category(question.extra), None, None))
    return rows


def stats_check(
    files: list[tuple[Path, str]], key: str, rows: list[StatsRow]
) -> tuple[JSONObject | None, list[Notice], JSONObject]:
    """Compare ``rows`` with the ``key`` entry of each stats file.

    Returns:
        The check record (one for all the files; ``file`` names them joined by `` + ``;
        fields are ``<metric>.<map>.<category>``, e.g. ``llm.cum_accuracy_by_category.2``),
        or None when there is no stats file; its warnings; and, per file name, the key's
        entry as upstream wrote it (for the run's metrics).
    """
    if not files:
        return None, [], {}
    comparisons: list[Comparison] = []
    surprises: list[str] = []
    entries: JSONObject = {}
    for path, metric in files:
        try:
            stats = read_json_file(path, what="LoCoMo stats file")
        except MemscopeError as error:
            surprises.append(f"{path.name}: {error.what}; not cross-checked")
            continue
        entry = stats.get(key) if isinstance(stats, dict) else None
        if not isinstance(entry, dict):
            surprises.append(f"{path.name} holds no entry for key {key!r}; not cross-checked")
            continue
        entries[path.name] = entry
        mine = recompute(rows, metric)
        for name in (COUNTS, SUMS, RECALL):
            written = entry.get(name)
            if written is None and name == RECALL:
                continue
            if not isinstance(written, dict):
                surprises.append(f"{path.name}: {key}.{name} is not an object; not cross-checked")
                continue
            tolerance = 0.0 if name == COUNTS else SUM_TOLERANCE
            for category in sorted(set(map(str, written)) | set(mine[name]), key=_order):
                upstream = written.get(category)
                if upstream is not None and not _is_number(upstream):
                    surprises.append(
                        f"{path.name}: {key}.{name}.{category} is not a number: {upstream!r}"[:160]
                    )
                    continue
                # Upstream's tallies are defaultdicts that its report loop reads for every
                # category 1-5, so a category without questions is written as 0.
                recomputed = mine[name].get(category, 0)
                if upstream is None and recomputed == 0:
                    continue
                comparisons.append((f"{metric}.{name}.{category}", upstream, recomputed, tolerance))
    folder = str(files[0][0].parent)
    names = " + ".join(path.name for path, _metric in files)
    check = summary_check(f"{folder}/{names}", comparisons, surprises=surprises)
    return check, check_notices(check), entries


def upstream_stats_check(
    run_file: Path,
    key: str,
    predictions: pa.Table,
    dataset: LocomoDataset,
    unanswered: Sequence[str],
) -> tuple[JSONObject | None, list[Notice], JSONObject]:
    """:func:`stats_check` of one run (file and key) from its prediction rows and the qids of
    the file's questions it did not answer."""
    return stats_check(stats_files(run_file), key, stats_rows(predictions, dataset, unanswered))


def _is_number(value: JSONValue) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _category(extra: JSONObject) -> int:
    """A question's LoCoMo category (the dataset reader keeps only questions with one)."""
    category = extra["category"]
    if isinstance(category, bool) or not isinstance(category, (int, float, str)):
        raise TypeError(f"a LoCoMo question's category is {category!r}, not a number")
    return int(category)


def _order(category: str) -> tuple[int, str]:
    return (int(category), "") if category.isdigit() else (1 << 30, category)


def _stored_rows(data: RunColumns) -> list[StatsRow]:
    """The run's stored rows as upstream's stats see them (NaN scores: not carried)."""
    import math

    rows = []
    f1s, judges = data.column("f1").tolist(), data.column("judge").tolist()
    for category, f1, judge in zip(data.attribute("category").tolist(), f1s, judges, strict=True):
        if not isinstance(category, int) or isinstance(category, bool):
            continue
        rows.append(
            StatsRow(
                category,
                None if f1 is None or math.isnan(f1) else float(f1),
                None if judge is None or math.isnan(judge) else float(judge),
            )
        )
    return rows


def check_table(data: RunColumns) -> list[JSONObject]:
    """``memscope table --check-upstream``: the run's stored counts and sums per category
    against its key's entry in each stats file beside the run file."""
    folder, _, rest = str(data.run.get("path") or "").partition("#")
    file_name, _, key = rest.rpartition(":")
    if folder and rest and not file_name:  # <folder>#<file>: a harness run (no key)
        from memscope.adapters.locomo.harness_run import table_check

        return table_check(data)
    if not folder or not file_name:
        return []
    run_id = str(data.run["run_id"])
    rows = _stored_rows(data)
    checks: list[JSONObject] = []
    for path, metric in stats_files(Path(folder) / file_name):
        try:
            stats = read_json_file(path, what="LoCoMo stats file")
        except MemscopeError:
            continue
        entry = stats.get(key) if isinstance(stats, dict) else None
        if not isinstance(entry, dict):
            continue
        mine = recompute(rows, metric)
        for name in (COUNTS, SUMS):
            written = entry.get(name)
            if not isinstance(written, dict):
                continue
            tolerance = 0.0 if name == COUNTS else SUM_TOLERANCE
            for category in sorted(map(str, written), key=_order):
                upstream = written[category]
                if not _is_number(upstream):
                    continue
                recomputed = mine[name].get(category, 0)
                checks.append(
                    {
                        "source": str(path),
                        "run": run_id,
                        "field": f"{metric} {name} {category}",
                        "upstream": float(upstream),
                        "memscope": float(recomputed),
                        "agrees": abs(float(upstream) - float(recomputed)) <= tolerance,
                    }
                )
    return checks
