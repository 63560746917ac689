"""The run report: answer matrix, retrieval access, temporal authority (docs/metrics.md §2–§4).

``make_report`` returns a typed :class:`~memscope.usecases.report.result.Report`, which the
CLI renders; ``build_report`` is its JSON form (``Report.to_json`` plus the per-question rows),
the shape ``memscope report --format json`` prints.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, TypeVar, cast

import numpy as np

from memscope.analysis import aggregate
from memscope.analysis.answers import correctness
from memscope.analysis.evidence import retrieval_access, temporal_authority
from memscope.json_types import JSONObject
from memscope.usecases.benchmarks import coordinate_cells, coordinate_levels
from memscope.usecases.report.metric_names import RETRIEVAL_METRICS
from memscope.usecases.report.result import (
    AnswerQuality,
    BenchmarkSection,
    Report,
    ReportRun,
    RetrievalAccess,
)
from memscope.usecases.runs.ingest import effective_k
from memscope.usecases.runs.loading import RunData

if TYPE_CHECKING:
    import pyarrow as pa

    from memscope.adapters.sections import ReportSection
    from memscope.store import Store

RETRIEVAL_NOTES = {
    "context": "no retrieval: this method puts a fixed context in front of the model "
    "(the full history, or the clue rounds for an oracle), so rank metrics do not apply",
    "none": "this method logged no retrieved evidence, so retrieval metrics cannot be computed",
    "unranked": "the method logged an unranked set of retrieved rounds: @K metrics use the "
    "whole set, and MRR and Rank-Inversion are undefined",
}


_Data = TypeVar("_Data")


def _clean(value: _Data) -> _Data:
    """NaN to None, numpy scalars to Python, so the result is valid JSON (the same shape, the
    same types as declared: a float may become None only where None is allowed)."""
    return cast(_Data, _cleaned(value))


def _cleaned(value: object) -> object:
    if isinstance(value, dict):
        return {key: _cleaned(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_cleaned(item) for item in value]
    if isinstance(value, (np.floating, float)):
        return None if math.isnan(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def question_metrics(data: RunData, k: int) -> dict[str, np.ndarray]:
    """Per-question answer, retrieval and temporal values (NaN where undefined)."""
    mode = data.column("mode")
    em = data.column("em").astype(float)
    judge = data.column("judge").astype(float)
    f1 = data.column("f1")
    values: dict[str, np.ndarray] = {
        "em": em,
        "judge": judge,
        "f1": f1,
        "correct": correctness(mode, em, judge, f1),
    }
    if data.has_retrievals:
        values |= retrieval_access(data.evidence, k)
        values |= temporal_authority(data.evidence, k)
    else:
        empty = np.full(len(em), np.nan)
        for name in RETRIEVAL_METRICS:
            values[name] = empty
    return values


def upstream_sentence(check: JSONObject) -> str:
    """A cross-check (``upstream_check``, or an ingest outcome's) said in one sentence."""
    from memscope.adapters.upstream_summary import check_sentence

    return check_sentence(check)


def upstream_check(store: Store, run_id: str) -> JSONObject | None:
    """The run's cross-check against the benchmark's own summary file, with its sentence.

    Computed at ingest (``adapters.upstream_summary``) and kept in the run's metrics;
    None when the run came with no summary memscope can recompute.
    """
    from memscope.adapters.upstream_summary import CHECK_KEY, check_sentence
    from memscope.store import queries

    with store.read() as con:
        _config, metrics = queries.run_config(con, run_id)
    check = metrics.get(CHECK_KEY)
    if not isinstance(check, dict):
        return None
    return {**check, "sentence": check_sentence(check)}


def build_report(
    data: RunData,
    k: int | None = None,
    *,
    include_questions: bool = True,
    upstream: JSONObject | None = None,
) -> JSONObject:
    """Everything ``memscope report`` shows for one run, as JSON-ready data."""
    report, questions = build_report_parts(
        data, k, include_questions=include_questions, upstream=upstream
    )
    if questions is not None:
        report["questions"] = questions.to_pylist()
    return report


def build_report_parts(
    data: RunData,
    k: int | None = None,
    *,
    include_questions: bool = True,
    upstream: JSONObject | None = None,
) -> tuple[JSONObject, pa.Table | None]:
    """The report's JSON without its per-question rows, and those rows as an Arrow table.

    Large runs serialise the rows straight from Arrow (``store.json_rows``) instead of as
    50,000 Python dicts; :func:`build_report` is the all-Python form.
    """
    report, questions = make_report_parts(
        data, k, include_questions=include_questions, upstream=upstream
    )
    return report.to_json(), questions


def make_report(
    data: RunData, k: int | None = None, *, upstream: JSONObject | None = None
) -> Report:
    """The report of one run (without its per-question rows)."""
    return make_report_parts(data, k, include_questions=False, upstream=upstream)[0]


def make_report_parts(
    data: RunData,
    k: int | None = None,
    *,
    include_questions: bool = True,
    upstream: JSONObject | None = None,
) -> tuple[Report, pa.Table | None]:
    """The report, and its per-question rows as an Arrow table (None unless
    ``include_questions``).

    ``upstream`` (:func:`upstream_check`) is the report's ``upstream_check``.
    """
    run = data.run
    cutoff = effective_k(run, k)
    values = question_metrics(data, cutoff)
    x = data.column("x")
    y = data.column("y")
    spec = data.spec
    x_levels, y_levels = coordinate_levels(spec)
    all_cells = coordinate_cells(spec)
    cells = aggregate.cell_labels(x, y)
    answer_metrics = {"em": values["em"], "judge": values["judge"]}
    judged = ("judge",)
    by_cell = aggregate.by_group(answer_metrics, cells, all_cells, count=judged)
    answer = AnswerQuality(
        overall=_clean(aggregate.summarize(answer_metrics, count=judged)),
        macro=_clean({name: aggregate.macro_average(by_cell, name) for name in ("em", "judge")}),
        by_x=_clean(aggregate.by_group(answer_metrics, x, x_levels, count=judged)),
        by_y=_clean(aggregate.by_group(answer_metrics, y, y_levels, count=judged)),
        by_cell=_clean(by_cell),
        n_unplaced=int((cells == "").sum()),
    )
    retrieval = temporal = None
    if data.has_retrievals:
        access = {name: values[name] for name in ("any_clue", "coverage", "full_clue", "mrr")}
        n_gold_defined = int((~np.isnan(values["any_clue"])).sum())
        retrieval = RetrievalAccess(
            n=n_gold_defined,
            n_undiagnosable=len(values["em"]) - n_gold_defined,
            kind=run.retrieval_kind,
            overall=_clean({name: aggregate.mean_or_none(v) for name, v in access.items()}),
            by_y=_clean(aggregate.by_group(access, y, y_levels, n_of="any_clue")),
            by_x=_clean(aggregate.by_group(access, x, x_levels, n_of="any_clue")),
            by_cell=_clean(aggregate.by_group(access, cells, all_cells, n_of="any_clue")),
            by_axes=_clean(_access_by_axes(data, access)),
        )
        timing = {
            name: values[name]
            for name in ("latest_at_k", "latest_miss", "rank_inversion", "stale_dominance")
        }
        temporal = _clean(aggregate.summarize(timing, n_of="latest_at_k"))
        if not temporal["n"]:
            temporal = None
    from memscope.usecases.runs.axes import axes_report

    kind = run.retrieval_kind
    report = Report(
        run=ReportRun(
            id=run.run_id,
            task=run.task,
            model=run.model,
            method=run.method,
            modality=run.modality,
            n_questions=len(values["em"]),
            retrieval_kind=kind,
            path=run.path,
        ),
        k=cutoff,
        answer=answer,
        retrieval=retrieval,
        temporal=temporal,
        notes=(RETRIEVAL_NOTES[kind],) if kind in RETRIEVAL_NOTES else (),
        # The benchmark's own axes (adapters.axes), as the app's matrix shows them.
        axes=_clean(axes_report(data, values["correct"])),
        sections=tuple(report_section(section, data) for section in spec.report_sections),
        upstream_check=_clean(upstream),
        cost=run_cost(data),
    )
    return report, (_question_rows(data, values, x, y) if include_questions else None)


def run_harness(store: Store, run_id: str) -> str | None:
    """The harness that wrote a run (a memory system's own), with its judge model where the file names it."""
    from memscope.store.queries import run_configs

    with store.read() as con:
        config = run_configs(con, [run_id]).get(run_id, {})
    title = config.get("harness_title")
    if not title:
        return None
    judge = config.get("judge_model")
    return f"{title} (judge {judge})" if judge else str(title)


def run_cost(data: RunData) -> JSONObject | None:
    """Median and 95th percentile of the answers' latency and tokens, where the run's files
    record them (Zep's responses, MemOS, MemEye); None when they record neither."""
    found: JSONObject = {}
    for name, column in (("latency_ms", "latency_ms"), ("tokens", "total_tokens")):
        if column not in data.questions.column_names:
            found[name] = None
            continue
        values = data.column(column)
        defined = values[~np.isnan(values)]
        found[name] = (
            {
                "median": round(float(np.median(defined)), 3),
                "p95": round(float(np.percentile(defined, 95)), 3),
                "n": int(defined.size),
            }
            if defined.size
            else None
        )
    return found if any(value is not None for value in found.values()) else None


def _access_by_axes(data: RunData, access: dict[str, np.ndarray]) -> list[JSONObject]:
    """Retrieval access per level of each of the benchmark's axes (a category, a task …):
    ``[{"key", "title", "levels": [{"level", "label", "n", "any_clue", …}]}]``, levels in the
    axis's order, those without a question with a gold clue left out."""
    from memscope.usecases.runs.axes import axis_columns, run_axes

    axes = run_axes(data)
    labels, _numbers, levels = axis_columns(data, axes)
    found: list[JSONObject] = []
    for axis in axes.axes:
        groups = aggregate.by_group(
            access, labels[axis.key], tuple(levels[axis.key]), n_of="any_clue"
        )
        found.append(
            {
                "key": axis.key,
                "title": axis.title,
                "levels": [
                    {"level": level, "label": axis.label(level), **summary}
                    for level, summary in groups.items()
                ],
            }
        )
    return found


def report_section(section: ReportSection, data: RunData) -> BenchmarkSection:
    """One of the benchmark's report sections (``Benchmark.report_sections``) of the run, as
    the benchmark's own code computes it (NaN as null, numpy as Python)."""
    from memscope.usecases.report.section_run import computed_section

    values = _clean(dict(computed_section(section, data)))
    return BenchmarkSection(section, cast(JSONObject, values))


QUESTION_METRICS = (
    "any_clue",
    "coverage",
    "full_clue",
    "mrr",
    "latest_at_k",
    "latest_miss",
    "rank_inversion",
    "stale_dominance",
)


def _question_rows(
    data: RunData, values: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray
) -> pa.Table:
    """One row per question (ids, axes, scores, retrieved rounds, metrics), NaN as null."""
    import pyarrow as pa

    n = len(values["em"])
    if data.has_retrievals:
        ranked_ids = data.evidence_table.column("ranked_ids").combine_chunks()
        # Questions without a logged retrieval retrieved nothing: an empty list, not null.
        retrieved = pa.ListArray.from_arrays(ranked_ids.offsets, ranked_ids.values)
    else:
        retrieved = pa.nulls(n, pa.list_(pa.string()))
    correct = values["correct"]
    columns = {
        "qid": pa.array(data.qids.tolist(), pa.string()),
        "x": pa.array(x.tolist(), pa.string()),
        "y": pa.array(y.tolist(), pa.string()),
        "em": pa.array(values["em"], from_pandas=True),
        "judge": pa.array(values["judge"], from_pandas=True),
        "correct": pa.array(correct == 1.0, mask=np.isnan(correct)),
        "retrieved": retrieved,
        **{
            name: pa.array(values[name], pa.float64(), from_pandas=True)
            for name in QUESTION_METRICS
        },
    }
    return pa.table(columns)
