"""``memscope rerun``: the recency re-ranking probe, for one question or a whole run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Group, RenderableType
from rich.text import Text

from memscope.cli.app import DIAGNOSE, app, example
from memscope.cli.common import (
    DatasetOption,
    DbOption,
    FormatOption,
    OutputFormat,
    ReadsRuns,
    fmt,
    handles_errors,
    open_store,
    print_json,
    read_options,
    stderr,
    stdout,
)
from memscope.cli.fitting import Column, FittingTable, fit
from memscope.cli.number_options import RANK, RESAMPLES, SEED
from memscope.cli.run_arg import RunAliasOption, RunArgument, named_run, pick_run
from memscope.textsafe import printable, printable_id
from memscope.usecases.report.metric_names import METRIC_NAMES

if TYPE_CHECKING:
    from memscope.usecases.rerun.question_rerank import CandidateRow, QuestionRerun


@app.command(
    cls=ReadsRuns,
    rich_help_panel=DIAGNOSE,
    epilog=example("memscope rerun srag_v --question q37 --alpha 0.7"),
)
@handles_errors
def rerun(
    alpha: Annotated[
        list[float] | None,
        typer.Option(
            "--alpha",
            "-a",
            help="Similarity weight in [0, 1] (repeat for several); 1.0 is the original order.",
            show_default=False,
        ),
    ] = None,
    run: RunArgument = None,
    run_alias: RunAliasOption = None,
    question: Annotated[
        str | None,
        typer.Option(
            "--question",
            "-q",
            help="One question (qN): show its candidates before and after.",
            show_default=False,
        ),
    ] = None,
    lam: Annotated[
        float | None,
        typer.Option(
            "--lambda",
            help="Recency decay per dialogue round (≥ 0; default: 0.02, docs/metrics.md).",
            show_default=False,
        ),
    ] = None,
    k: Annotated[
        int | None,
        typer.Option(
            "--k", **RANK, help="Cut-off K (default: the run's top_k, else 10).", show_default=False
        ),
    ] = None,
    pool: Annotated[
        int | None,
        typer.Option(
            "--pool",
            **RANK,
            help="Keep the first P candidates of the original ranking (default: all stored; P ≥ K).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", **SEED, help="Bootstrap seed.")] = 20260430,
    resamples: Annotated[
        int, typer.Option("--resamples", **RESAMPLES, help="Bootstrap resamples over questions.")
    ] = 10_000,
    requery: Annotated[
        bool,
        typer.Option(
            "--requery",
            help="Re-retrieve the candidates with the memory engine (the run's own retriever and models) instead of re-ranking the logged pool.",
        ),
    ] = False,
    dataset: DatasetOption = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Re-rank the retrieved candidates with s = alpha·sim + (1 − alpha)·exp(−lambda·age).

    age = N − position: dialogue rounds from the candidate to the end of the history.
    Ties keep the original order. The pool is fixed: a clue outside it never comes back.
    Where the run logged similarities for only part of its ranking (MemEye: the top 5),
    only the scored candidates are re-ranked and the rest keep their ranks.

    Without --question: Latest@K, Latest-Miss, Rank-Inversion and Stale-Dominance over the
    run's Y3 questions for alpha = 1.0 and each alpha, with paired deltas versus 1.0 and
    95% percentile bootstrap intervals over questions. Every rerun is stored.
    With --question and several --alpha, --format json prints a list (one per alpha).
    With --requery the pool is re-retrieved by the memory engine, fully scored.
    Definitions: docs/metrics.md of the memscope repository, §4 and §5.
    """
    from memscope.usecases.rerun.checks import check_params, require_ranked, require_scores
    from memscope.usecases.rerun.defaults import DEFAULT_LAMBDA
    from memscope.usecases.rerun.question_rerank import rerun_question
    from memscope.usecases.rerun.run_rerank import rerun_run
    from memscope.usecases.rerun.saved import store_rerun
    from memscope.usecases.runs.loading import load_run

    # The default lives in analysis.rerank; the help only quotes it (a test holds them equal).
    lam = DEFAULT_LAMBDA if lam is None else lam
    alphas = list(alpha or [])
    check_params(alphas, lam, k, pool)
    if requery:
        from memscope.engine_available import require_engine

        require_engine("memscope rerun --requery")
    store = open_store(db)
    run_id = pick_run(store, named_run(run, run_alias), "rerun", options=read_options(dataset))
    retrievals = None
    if requery:
        from memscope.engine_jobs.engine import requery_pool

        retrievals = requery_pool(store, run_id, [question] if question else None, pool=pool)
        # The candidates serve this rerun only (the run's logged retrievals stay as they
        # are); the rerun itself is stored like any other, marked as re-retrieved.
        stderr.print(
            f"re-retrieved {retrievals.num_rows} candidates with the memory engine for this "
            "rerun (the run's logged retrievals are unchanged)"
        )
    stored_as = (
        "stored as rerun {} (over the re-retrieved candidates)" if requery else "stored as rerun {}"
    )
    data = load_run(store, run_id, retrievals=retrievals)
    require_ranked(data)
    hint = None
    can_requery = True
    if not requery:  # point to `memscope recompute` only where it can work on this machine
        from memscope.engine_jobs.gap_fill import recompute_hint, requery_possible

        hint = recompute_hint(store, run_id)
        can_requery = requery_possible(store, run_id)
    require_scores(data, hint, requery=can_requery)
    if question is not None:
        results = [
            rerun_question(data, question, alpha=value, lam=lam, k=k, pool=pool, gap_fill_hint=hint)
            for value in alphas
        ]
        payload = [_marked(result.as_dict(), requery) for result in results]
        stored = [store_rerun(store, run_id, entry) for entry in payload]
        if output is OutputFormat.json:
            print_json(payload[0] if len(payload) == 1 else payload)
            return
        for result in results:
            stdout.print(render_question(result))
        stderr.print(stored_as.format(", ".join(map(str, stored))))
        return
    summary = _marked(
        rerun_run(
            data,
            alphas,
            lam=lam,
            k=k,
            pool=pool,
            seed=seed,
            resamples=resamples,
            gap_fill_hint=hint,
        ),
        requery,
    )
    rerun_id = store_rerun(store, run_id, summary)
    if output is OutputFormat.json:
        print_json(summary)
        return
    from memscope.usecases.runs.declared import latest_label_of

    stdout.print(render_run(summary, latest_label_of(data.benchmark)))
    stderr.print(stored_as.format(rerun_id))


def _marked(result: dict[str, Any], requery: bool) -> dict[str, Any]:
    """``result`` with ``params.requery`` set when its pool was re-retrieved (``--requery``)."""
    if requery:
        result["params"] = {**result.get("params", {}), "requery": True}
    return result


def _markers(row: CandidateRow) -> Text:
    # One word per flag of the JSON row, so the table and `--format json` always agree
    # (the latest clue is gold too).
    flags = [
        ("gold", row.is_gold, "green"),
        ("latest", row.is_latest, "bold green"),
        ("stale", row.is_stale, "bold yellow"),
    ]
    return Text(" ").join(Text(word, style=style) for word, on, style in flags if on)


def _candidate_table(
    title: str, rows: list[CandidateRow], k: int, *, show_moves: bool
) -> RenderableType:
    # In a narrow terminal the session, recency and age go first, rank and round never.
    columns = [Column("rank", keep=True)]
    if show_moves:
        columns.append(Column("was", style="dim", rank=0))
    columns += [
        Column("round", justify="left", fold=True, min_width=6, keep=True),
        Column("session", justify="left", fold=True, min_width=6, rank=6),
        Column("sim", rank=2),
        Column("age", rank=4),
        Column("recency", rank=5),
        Column("score", rank=1),
        Column("markers", justify="left", fold=True, min_width=6, rank=3),
    ]
    table = FittingTable(columns, title=title, title_justify="left")
    for row in rows:
        cells: list[str | Text] = [str(row.rank)]
        if show_moves:
            moved = row.original_rank - row.rank
            cells.append(
                f"{row.original_rank}"
                + (f" ↑{moved}" if moved > 0 else f" ↓{-moved}" if moved < 0 else "")
            )
        cells += [
            Text(printable(row.round_id, keep_newlines=False)),
            Text(printable(row.session_id or "", keep_newlines=False)),
            fmt(row.sim) + ("*" if row.origin == "recomputed" else ""),
            "–" if row.age is None else str(row.age),
            fmt(row.recency),
            fmt(row.score),
            _markers(row),
        ]
        table.add_row(*cells, style=None if row.in_top_k else "dim", end_section=row.rank == k)
    return fit(table)


def render_question(result: QuestionRerun) -> Group:
    """One question before and after, as Rich renderables."""
    header = Text.assemble(
        "run ",
        (printable_id(result.run_id), "bold"),
        " · question ",
        (result.qid, "bold"),
        f" ({result.y or 'no Y level'}) · alpha={result.alpha:g} · lambda={result.lam:g} · K={result.k}",
        f" · pool {result.pool_size} · {result.scored_count} scored",
    )
    metrics = FittingTable(
        [
            Column("metric", justify="left", fold=True, min_width=10, keep=True),
            *(Column(name) for name in ("before", "after", "Δ")),
        ],
        title="Per-question metrics",
        title_justify="left",
    )
    for name, label in METRIC_NAMES.items():
        if name in result.answer:  # the answer's own score: the same answer after a re-rank
            metrics.add_row(f"{label} (answer)", fmt(result.answer[name]), "same answer", "")
            continue
        before, after = result.before.metrics.get(name), result.after.metrics.get(name)
        delta = None if before is None or after is None else after - before
        metrics.add_row(label, fmt(before), fmt(after), "–" if delta is None else f"{delta:+.3f}")
    parts: list[RenderableType] = [
        header,
        Text(""),
        _candidate_table("Before (original order)", result.before.rows, result.k, show_moves=False),
        _candidate_table(
            f"After (alpha = {result.alpha:g})", result.after.rows, result.k, show_moves=True
        ),
        fit(metrics),
        Text(
            "score = alpha·sim + (1 − alpha)·exp(−lambda·age); dim rows are below K; * similarity recomputed by the memory engine",
            style="dim",
        ),
    ]
    if result.note:
        parts.append(Text(f"Note: {result.note}.", style="yellow"))
    parts.append(Text(""))
    return Group(*parts)


def _interval(delta: dict[str, Any] | None) -> str:
    """The mean Δ, its interval on the next line (so a column stays narrow, never cut)."""
    if delta is None or delta.get("mean") is None:
        return "–"
    return f"{delta['mean']:+.3f}\n[{delta['ci_low']:+.3f}, {delta['ci_high']:+.3f}]"


def render_run(result: dict[str, Any], word: str = "latest-state") -> Group:
    """The run-level rerun as Rich renderables (``word``: what the benchmark calls its
    latest-state questions, MemEye's ``Y3``)."""
    params = result["params"]
    scored = result["scored"]
    pool = params["pool"] if params["pool"] is not None else f"all ({scored['pool_size']})"
    header = Text.assemble(
        "run ",
        (printable_id(result["run"]), "bold"),
        f" · {result['n']} {word} questions · K={params['k']} · lambda={params['lambda']:g} · pool {pool}",
        f" · {scored['scored']} of {scored['candidates']} candidates scored",
    )
    names = ("latest_at_k", "latest_miss", "rank_inversion", "stale_dominance")
    # Past the terminal's width whole columns go (Latest@K last), never part of a value.
    ranks = {"latest_at_k": 0, "rank_inversion": 1, "stale_dominance": 2, "latest_miss": 3}

    def columns() -> list[Column]:
        return [
            Column("alpha", style="bold", fold=True, min_width=4, keep=True),
            *(Column(METRIC_NAMES[name], rank=ranks[name]) for name in names),
        ]

    values = FittingTable(
        [
            *columns(),
            Column("misses: not in pool / below K", name="misses (not in pool / below K)", rank=4),
        ],
        title=f"Temporal authority per alpha ({word})",
        title_justify="left",
    )
    deltas = FittingTable(
        columns(),
        title=f"Δ vs alpha = 1.00 with 95% CI ({params['resamples']} resamples over questions, seed {params['seed']})",
        title_justify="left",
    )
    for index, entry in enumerate(result["results"]):
        label = f"{entry['alpha']:.2f}" + (" (original)" if index == 0 else "")
        causes = entry["latest_miss_causes"]
        values.add_row(
            label,
            *(fmt(entry[name]) for name in names),
            f"{causes['not_in_pool']} / {causes['in_pool_below_k']}",
        )
        if index:
            deltas.add_row(label, *(_interval(entry["delta"].get(name)) for name in names))
    parts: list[Any] = [header, Text(""), fit(values)]
    if len(result["results"]) > 1:
        parts.append(fit(deltas))
    for note in result.get("notes", []):
        parts.append(Text(f"Note: {note}.", style="yellow"))
    return Group(*parts)
