"""``memscope compare RUN_A RUN_B``: the caption-proof gain and the fixed/broken transitions.

Questions are matched by question key (task, answer mode and question text), never by
position; a key that occurs twice in a run is matched occurrence by occurrence. A
benchmark whose spec names a ``pairing`` matches on those attributes instead (DMV-Bench:
trunk, visit session, recall session, target, cue), so two run directories over the same
seeds pair on their shared probes (``"pairing"`` says how many). The answer score is
``analysis.answers.answer_score`` and correctness ``analysis.answers.correctness``. A
benchmark whose questions cluster (``Benchmark.cluster``: DMV-Bench's chain trunks) adds a
cluster-level sign-flip test as ``"significance"``; independent questions need none
beyond the bootstrap intervals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from memscope.analysis.answers import answer_score, correctness
from memscope.analysis.arrays import float_column
from memscope.analysis.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from memscope.analysis.compare import delta_table, transition_groups, transitions
from memscope.errors import InputError
from memscope.json_types import JSONObject
from memscope.usecases.benchmarks import coordinate_levels, spec_of
from memscope.usecases.compare.clusters import cluster_labels, cluster_sign_flip
from memscope.usecases.compare.result import (
    ComparedMetric,
    ComparedRun,
    Comparison,
    DeltaTable,
    Pairing,
    Transition,
)
from memscope.usecases.runs.question_extras import extra_columns
from memscope.usecases.runs.run_info import RunInfo

if TYPE_CHECKING:
    import pyarrow as pa

    from memscope.store import Store


def match_questions(keys_a: list[str], keys_b: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of A and of B that hold the same question, in A's order.

    The n-th occurrence of a key in A is matched with its n-th occurrence in B.
    """
    seen_b: dict[tuple[str, int], int] = {}
    counts: dict[str, int] = {}
    for row, key in enumerate(keys_b):
        occurrence = counts.get(key, 0)
        counts[key] = occurrence + 1
        seen_b[(key, occurrence)] = row
    rows_a, rows_b = [], []
    counts = {}
    for row, key in enumerate(keys_a):
        occurrence = counts.get(key, 0)
        counts[key] = occurrence + 1
        other = seen_b.get((key, occurrence))
        if other is not None:
            rows_a.append(row)
            rows_b.append(other)
    return np.array(rows_a, dtype=np.int64), np.array(rows_b, dtype=np.int64)


def _run_summary(run: RunInfo) -> ComparedRun:
    return ComparedRun(
        run_id=run.run_id,
        benchmark=run.benchmark,
        task=run.task,
        model=run.model,
        method=run.method,
        modality=run.modality,
        n_questions=run.n_questions,
    )


def compare_runs(
    store: Store,
    run_a: str,
    run_b: str,
    *,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
) -> JSONObject:
    """:func:`make_comparison` in its JSON form (``Comparison.to_json``), as
    ``memscope compare --format json`` prints it."""
    return make_comparison(store, run_a, run_b, seed=seed, resamples=resamples).to_json()


def make_comparison(
    store: Store,
    run_a: str,
    run_b: str,
    *,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    metric_name: str | None = None,
) -> Comparison:
    """Compare two runs question by question (Δ = score_B - score_A).

    Its JSON is ``{"run_a", "run_b", "matched", "n_a", "n_b", "metric", "warnings", "params", "delta":
    {"overall", "by_x", "by_y", "by_cell", "by_axes"}, "transitions": {class: {"n", "qids"}},
    "significance", "pairing"}``; each Δ group has ``n``, ``score_a``, ``score_b``, ``delta``,
    ``ci_low``, ``ci_high``. Where the two runs number a question differently, each
    transition class also lists ``qids_b``.

    ``metric_name`` (``compare --metric``): ``f1`` or ``judge`` compares that score of
    every matched question (Δ and the per-axis Δ; a benchmark's ``f1`` is its own F1, recomputed
    for harness runs); None: the answer score ``report`` shows.

    Raises:
        NotFoundError: a run is not in the store.
        InputError: the same run twice, no question in common, or an unknown metric.
    """
    if metric_name not in (None, "f1", "judge"):
        raise InputError(
            f"--metric {metric_name}: compare compares f1 or judge",
            fix="Pass --metric f1 or --metric judge, or leave it out for the answer score.",
        )
    if run_a == run_b:
        raise InputError(f"compare needs two different runs, got {run_a} twice")
    if resamples < 1:
        raise InputError(f"--resamples must be at least 1, got {resamples}")
    from memscope.usecases.runs.batch import load_question_tables  # lazily: it loads pyarrow

    # Both runs with one connection and one query.
    (info_a, table_a), (info_b, table_b) = load_question_tables(store, [run_a, run_b])
    spec = spec_of(info_a.benchmark)
    same_benchmark = info_a.benchmark == info_b.benchmark
    # Questions of two run directories that the benchmark identifies by their attributes
    # (DMV-Bench probes over the same seeds) are paired on those.
    paired_on = spec.pairing if same_benchmark else None
    if paired_on is not None:
        keys_a = attribute_keys(table_a, paired_on.attributes)
        keys_b = attribute_keys(table_b, paired_on.attributes)
    else:
        keys_a = table_a.column("question_key").to_pylist()
        keys_b = table_b.column("question_key").to_pylist()
    rows_a, rows_b = match_questions(keys_a, keys_b)
    warnings = []
    pairing = None
    if paired_on is not None:
        word = spec.axes.word("question", "question")
        pairing = Pairing(
            key=tuple(paired_on.attributes),
            n=len(rows_a),
            sentence=f"paired on {len(rows_a)} shared {word}(s), matched on {paired_on.words}",
        )
        if not len(rows_a):
            raise InputError(
                f"runs {run_a} and {run_b} share no {word} (matched on {paired_on.words})",
                fix="Compare runs made over the same questions.",
            )
    warnings += _harness_warnings(store, run_a, run_b, metric_name)
    if info_a.task != info_b.task:
        warnings.append(
            f"the runs are different tasks ({info_a.task} vs {info_b.task}); "
            "only questions with the same text and answer mode are compared"
        )
    if not len(rows_a):
        other_task = (
            f"; they are different tasks ({info_a.task} vs {info_b.task})"
            if info_a.task != info_b.task
            else ""
        )
        raise InputError(
            f"runs {run_a} and {run_b} share no question (matched by task, answer mode and question text){other_task}",
            fix="Compare runs of the same task and answer mode (an MCQ run and an open run ask different items).",
        )
    if len(rows_a) < max(len(keys_a), len(keys_b)):
        warnings.append(
            f"only {len(rows_a)} questions match: run A has {len(keys_a)}, run B has {len(keys_b)}; "
            "the others are left out"
        )

    def scores(table: pa.Table, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mode = table.column("mode").to_numpy(zero_copy_only=False)[rows]
        em, judge = float_column(table["em"])[rows], float_column(table["judge"])[rows]
        f1 = float_column(table["f1"])[rows]
        chosen = {"f1": f1, "judge": judge}.get(metric_name or "")
        score = answer_score(mode, em, judge, f1) if chosen is None else chosen
        return score, correctness(mode, em, judge, f1)

    from memscope.usecases.compare.metric import compared_metric, named_metric

    metric = (
        named_metric(metric_name, info_a.benchmark)
        if metric_name
        else compared_metric(
            table_a.column("mode").to_numpy(zero_copy_only=False)[rows_a],
            float_column(table_a["judge"])[rows_a],
        )
    )
    score_a, correct_a = scores(table_a, rows_a)
    score_b, correct_b = scores(table_b, rows_b)
    x = table_a.column("x").to_numpy(zero_copy_only=False)[rows_a]
    y = table_a.column("y").to_numpy(zero_copy_only=False)[rows_a]
    qids_a = table_a.column("qid").to_numpy(zero_copy_only=False)[rows_a]
    qids_b = table_b.column("qid").to_numpy(zero_copy_only=False)[rows_b]
    classes = transitions(correct_a, correct_b)
    groups = transition_groups(classes, qids_a)
    groups_b = transition_groups(classes, qids_b) if (qids_a != qids_b).any() else None
    unscored = int((classes == "").sum())
    if unscored:
        warnings.append(
            f"{unscored} matched question(s) lack an answer score in one run and have no transition"
        )
    # Questions that share a cluster are not independent: a cluster-level paired test.
    significance = (
        cluster_sign_flip(table_a, table_b, rows_a, rows_b, seed, spec.cluster)
        if spec.cluster is not None and same_benchmark
        else None
    )
    from memscope.usecases.runs.axes import axes_delta

    delta = delta_table(
        score_a,
        score_b,
        x,
        y,
        coordinate_levels(spec),
        resamples=resamples,
        seed=seed,
        # Δ's intervals over the benchmark's clusters, the unit its significance test flips.
        clusters=cluster_labels(table_a, rows_a, spec.cluster)
        if spec.cluster is not None and same_benchmark
        else None,
    )
    return Comparison(
        run_a=_run_summary(info_a),
        run_b=_run_summary(info_b),
        matched=len(rows_a),
        n_a=len(keys_a),
        n_b=len(keys_b),
        metric=ComparedMetric(metric["key"], metric["label"]),
        warnings=tuple(warnings),
        seed=seed,
        resamples=resamples,
        level=0.95,
        delta=DeltaTable(
            overall=delta["overall"],
            by_x=delta["by_x"],
            by_y=delta["by_y"],
            by_cell=delta["by_cell"],
            # The benchmark's own axes, as the app's comparison matrix shows them.
            by_axes=axes_delta(
                table_a,
                spec,
                rows_a,
                correct_a if metric_name is None else score_a,
                correct_b if metric_name is None else score_b,
            ),
        ),
        transitions={
            name: Transition(
                n=group["n"],
                qids=tuple(group["qids"]),
                qids_b=None if groups_b is None else tuple(groups_b[name]["qids"]),
            )
            for name, group in groups.items()
        },
        significance=significance,
        pairing=pairing,
    )


def _harness_warnings(store: Store, run_a: str, run_b: str, metric_name: str | None) -> list[str]:
    """Two runs of different harnesses compared on their judge scores: their judges
    differ (their run configs' ``harness_title``), which a Δ in judge score mixes with the systems'."""
    if metric_name == "f1":
        return []
    from memscope.store.queries import run_configs

    with store.read() as con:
        configs = run_configs(con, [run_a, run_b])
    made = [configs.get(run, {}) for run in (run_a, run_b)]
    titles = [str(c.get("harness_title") or "") for c in made]
    if not any(titles) or titles[0] == titles[1]:
        return []
    named = " vs ".join(
        (title or "the benchmark's own evaluation")
        + (f" (judge {c['judge_model']})" if c.get("judge_model") else "")
        for title, c in zip(titles, made, strict=True)
    )
    return [
        f"the runs come from different harnesses ({named}): their judges (model and prompt) "
        "differ, so a Δ in judge score is partly the judges'; --metric f1 compares the "
        "benchmark's own F1 for both"
    ]


def attribute_keys(questions: pa.Table, attributes: tuple[str, ...]) -> list[str]:
    """Each question's identity from its ``attributes`` (e.g. a DMV-Bench probe's trunk,
    visit session, recall session, target and cue: upstream builds a seed's sessions
    independently of the chain length, so these say which probe it is wherever it ran)."""
    columns = extra_columns(questions, attributes)
    return [
        "\x1f".join(str(columns[name][row]) for name in attributes)
        for row in range(questions.num_rows)
    ]
